#!/usr/bin/env bash
# test_install.sh - a fresh prefix install is complete and usable:
#   - `cmake --install BUILD --prefix P` puts the tool, the header, the static
#     and shared libraries (with a soname, exporting only cg_ symbols), the
#     pkg-config file, the CMake package, the man page and the bash completion
#     in their usual places; the tool runs from there with nothing else;
#   - examples/embed.c builds against P with pkg-config and with CMake's
#     find_package(cavegen) (shared, and static as a component), and each
#     build prints the same level the command line makes;
#   - `man cavegen` finds and renders the page, without warnings, and it
#     names every option of `cavegen --help`; the completion offers them all,
#     and preset names, formats and files.
# Run by ctest (tests/CMakeLists.txt):
#   test_install.sh BUILD_DIR SOURCE_DIR CMAKE C_COMPILER [EXTRA_FLAGS]
# EXTRA_FLAGS (the sanitizer flags of a sanitizer build) go to every compile
# and link of the example, which must match the instrumented library.
set -euo pipefail

build=$1 src=$2 cmake=$3 cc=$4 extra=${5:-}

step() { printf '== %s\n' "$*"; }
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    exit 1
}
# grep -q on standard input, never at the end of a pipe: with pipefail, a
# writer cut short by grep -q's early exit (SIGPIPE) would fail the pipe.
has() {
    grep -q "$@"
}
need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        # Under CI every tool is installed (.ci/run): a missing one is a failure.
        [ -n "${CI:-}" ] && fail "$1 is not installed"
        printf 'SKIPPED: %s is not installed\n' "$1"
        exit 77
    fi
}
need pkg-config
need man

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cavegen-install-XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
prefix=$tmp/prefix

step "install into a fresh prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log"
for f in bin/cavegen include/cavegen/cavegen.h lib/libcavegen.a lib/libcavegen.so \
    lib/pkgconfig/cavegen.pc lib/cmake/cavegen/cavegenConfig.cmake \
    lib/cmake/cavegen/cavegenConfigVersion.cmake lib/cmake/cavegen/cavegenTargets.cmake \
    lib/cmake/cavegen/cavegenStaticTargets.cmake share/man/man1/cavegen.1 \
    share/bash-completion/completions/cavegen; do
    [ -e "$prefix/$f" ] || fail "$f is not installed"
done
# Nothing else: no test programs, no build files, no stray headers.
stray=$(cd "$prefix" && find . -type f -o -type l | sed 's|^\./||' | grep -vxE \
    'bin/cavegen|include/cavegen/cavegen\.h|lib/libcavegen\.(a|so|so\.[0-9.]+)|lib/pkgconfig/cavegen\.pc|lib/cmake/cavegen/cavegen[A-Za-z]*(-[a-z]+)?\.cmake|share/man/man1/cavegen\.1|share/bash-completion/completions/cavegen' ||
    true)
[ -z "$stray" ] || fail "unexpected files installed: $stray"

# The soname is the major version (docs/api.md, "Versions and ABI").
soname=$(objdump -p "$prefix/lib/libcavegen.so" | awk '$1 == "SONAME" { print $2 }')
version=$("$prefix/bin/cavegen" --version | awk '{ print $2 }')
major=${version%%.*}
[ "$soname" = "libcavegen.so.$major" ] || fail "soname '$soname' for version $version"
[ -e "$prefix/lib/$soname" ] || fail "no $soname beside libcavegen.so"
[ -e "$prefix/lib/libcavegen.so.$version" ] || fail "no libcavegen.so.$version"
exported=$(nm -D --defined-only "$prefix/lib/libcavegen.so" |
    awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }')
for f in cg_pipeline_run cg_write cg_grid_stats cg_version cg_version_string; do
    has -x "$f" <<<"$exported" || fail "$f is not exported"
done
internal=$(grep -v '^cg_[a-z]' <<<"$exported" || true)
[ -z "$internal" ] || fail "internal symbols exported: $internal"
# Every function carries a version node of this major version (cmake/cavegen.map).
nodes=$(objdump -T "$prefix/lib/libcavegen.so" | awk '$NF ~ /^cg_/ { print $(NF - 1) }' | sort -u)
[ -n "$nodes" ] && ! grep -qvx "CAVEGEN_$major\.[0-9]*" <<<"$nodes" ||
    fail "symbol versions '${nodes//$'\n'/ }', want CAVEGEN_$major.N"

step "the installed tool runs alone (presets compiled in)"
mkdir "$tmp/empty"
has '^level ' <<<"$(cd "$tmp/empty" && "$prefix/bin/cavegen" --list-presets)" ||
    fail "the installed cavegen lists no 'level' preset"
level=(-p level -s 42 --size 60x30 --step 'remove-walls min=4')
(cd "$tmp/empty" && "$prefix/bin/cavegen" "${level[@]}" --stats) >"$tmp/level.txt" \
    2>"$tmp/level.stats"
want_floor=$(sed -n 's/.* floor=\([0-9]*\) .*/\1/p' "$tmp/level.stats")
want_attempts=$(sed -n 's/.* attempts=\([0-9]*\) .*/\1/p' "$tmp/level.stats")
want_path=$(sed -n 's/.* path_length=\([-0-9]*\) .*/\1/p' "$tmp/level.stats")
[ -n "$want_floor" ] && [ -n "$want_attempts" ] || fail "no figures in: $(cat "$tmp/level.stats")"

# embed's output: three lines of figures, then the map.
check_embed() { # NAME BINARY
    "$2" 42 >"$tmp/$1.out" || fail "$1: the example failed"
    tail -n +4 "$tmp/$1.out" | cmp -s - "$tmp/level.txt" ||
        fail "$1: the example's map differs from 'cavegen ${level[*]}'"
    grep -qx "level 60x30 seed 42 attempts $want_attempts" "$tmp/$1.out" ||
        fail "$1: $(head -1 "$tmp/$1.out") (want $want_attempts attempts)"
    grep -qx "floor_cells $want_floor path $want_path reach12 [1-9][0-9]* route $want_path" \
        "$tmp/$1.out" ||
        fail "$1: $(sed -n 3p "$tmp/$1.out") (want floor $want_floor, path and route $want_path)"
}

step "build the example with pkg-config"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion cavegen)" = "$version" ] || fail "pkg-config version"
# shellcheck disable=SC2046,SC2086 # word splitting of the flags is meant
"$cc" -std=c11 -Wall -Wextra -Werror $extra "$src/examples/embed.c" \
    $(pkg-config --cflags --libs cavegen) -o "$tmp/embed-pc"
has "$soname => $prefix/lib/" <<<"$(LD_LIBRARY_PATH=$prefix/lib ldd "$tmp/embed-pc")" ||
    fail "embed-pc does not use the installed $soname"
LD_LIBRARY_PATH=$prefix/lib check_embed pkg-config "$tmp/embed-pc"
# The static library, with the private requirements (libpng, zlib).
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 $extra "$src/examples/embed.c" $(pkg-config --cflags cavegen) \
    "$prefix/lib/libcavegen.a" $(pkg-config --libs --static cavegen | sed 's/-lcavegen//') \
    -o "$tmp/embed-pc-static"
has libcavegen <<<"$(ldd "$tmp/embed-pc-static")" && fail "embed-pc-static uses the shared library"
check_embed pkg-config-static "$tmp/embed-pc-static"

step "build the example with CMake: find_package(cavegen)"
for kind in shared static; do
    "$cmake" -S "$src/examples" -B "$tmp/build-$kind" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" \
        -DEMBED_STATIC=$([ $kind = static ] && echo ON || echo OFF) >"$tmp/cmake-$kind.log" ||
        fail "cmake configure ($kind): $(tail -20 "$tmp/cmake-$kind.log")"
    "$cmake" --build "$tmp/build-$kind" >"$tmp/build-$kind.log" 2>&1 ||
        fail "cmake build ($kind): $(tail -20 "$tmp/build-$kind.log")"
    if [ $kind = shared ]; then
        has "$soname => $prefix/lib/" <<<"$(ldd "$tmp/build-$kind/embed")" ||
            fail "the CMake build does not run with the installed $soname (no rpath?)"
    else
        has libcavegen <<<"$(ldd "$tmp/build-$kind/embed")" && fail "static build is shared"
    fi
    check_embed "cmake-$kind" "$tmp/build-$kind/embed"
done

step "man cavegen"
export MANPATH=$prefix/share/man MANWIDTH=80 LC_ALL=C.UTF-8
[ "$(man -w cavegen)" = "$prefix/share/man/man1/cavegen.1" ] || fail "man -w: $(man -w cavegen)"
man cavegen >"$tmp/man.txt" 2>"$tmp/man.err" || fail "man: $(cat "$tmp/man.err")"
grep -q 'cavegen - generate cave and maze maps' "$tmp/man.txt" || fail "man shows no NAME"
man --warnings -l "$prefix/share/man/man1/cavegen.1" 2>&1 >/dev/null | grep . &&
    fail "the man page has roff warnings"
help=$("$prefix/bin/cavegen" --help)
options=$(echo "$help" | grep -oE -- '(^|[ ,])--?[A-Za-z][-a-z]*' | sed 's/^[ ,]*//' | sort -u)
[ "$(echo "$options" | wc -l)" -ge 20 ] || fail "too few options found in --help"
for o in $options; do
    grep -qE -- "(^|[^-a-z])$o([^-a-z]|\$)" "$tmp/man.txt" || fail "the man page lacks $o"
done

step "bash completion"
need bash
completion=$prefix/share/bash-completion/completions/cavegen
complete_words() { # WORDS... (the last one is completed)
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
             _cavegen; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@" | sort
}
got=$(complete_words "$prefix/bin/cavegen" --)
for o in $options; do
    case $o in --*) has -x -- "$o" <<<"$got" || fail "completion lacks $o" ;; esac
done
# The formats the library knows (its table), as the tool lists them.
formats=$("$prefix/bin/cavegen" --list-formats | while read -r name _; do echo "$name"; done |
    sort | tr '\n' ' ')
[ "$(wc -w <<<"$formats")" -ge 6 ] || fail "no format list from --list-formats: $formats"
[ "$(complete_words "$prefix/bin/cavegen" -f '' | tr '\n' ' ')" = "$formats" ] ||
    fail "formats: $(complete_words "$prefix/bin/cavegen" -f '' | tr '\n' ' ') (want $formats)"
for f in $formats; do
    has -E "^       (.*, )?$f(,| |\$)" "$tmp/man.txt" || fail "the man page's FORMATS lacks $f"
done
[ "$(complete_words "$prefix/bin/cavegen" --format = t | tr '\n' ' ')" = "tmj tmx " ] ||
    fail "--format=t: $(complete_words "$prefix/bin/cavegen" --format = t)"
[ "$(complete_words "$prefix/bin/cavegen" --show-preset ty | tr '\n' ' ')" = \
    "type1 type2 type3 type4 " ] || fail "presets: $(complete_words "$prefix/bin/cavegen" \
    --show-preset ty)"
[ "$(complete_words "$prefix/bin/cavegen" --reach en)" = entrance ] ||
    fail "--reach en: $(complete_words "$prefix/bin/cavegen" --reach en)"
[ "$(complete_words "$prefix/bin/cavegen" --stats = | tr '\n' ' ')" = "json text " ] ||
    fail "--stats=: $(complete_words "$prefix/bin/cavegen" --stats =)"
touch "$tmp/empty/map-one.txt"
[ "$(cd "$tmp/empty" && complete_words "$prefix/bin/cavegen" -i map- | tr '\n' ' ')" = \
    "map-one.txt " ] || fail "files: $(cd "$tmp/empty" && complete_words "$prefix/bin/cavegen" \
    -i map-)"

echo "install: all checks passed"
