#!/usr/bin/env bash
# valgrind.sh - the tool on every built-in preset and every output format,
# at a small size, under valgrind's memcheck (docs/testing.md): any invalid
# access, use of uninitialised memory or leak fails the test.
#
#   tests/valgrind.sh CAVEGEN_BINARY
#
# Exits 77 (ctest: skipped) without valgrind. Runs that fail on purpose (the
# distances format needs a reach) must still be clean: only valgrind's own
# status (99) or a crash fails a run; a success must have written its file.
set -uo pipefail

bin="${1:?usage: valgrind.sh CAVEGEN_BINARY}"
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind.sh: valgrind not installed; skipped"
    exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --track-origins=yes)
# The formats of cg_format_name(); keep in step with include/cavegen/cavegen.h.
formats=(ascii png json tmx tmj pbm distances)
failures=0
runs=0

check() { # LABEL EXPECT_FILE ARGS...
    local label="$1" file="$2"
    shift 2
    runs=$((runs + 1))
    "${vg[@]}" "$bin" "$@" >out.log 2>err.log
    local rc=$?
    if [ $rc -eq 99 ] || [ $rc -ge 128 ] || { [ $rc -eq 0 ] && [ -n "$file" ] && [ ! -s "$file" ]; }; then
        echo "FAIL ($rc): $label: cavegen $*"
        sed 's/^/    /' err.log | head -n 60
        failures=$((failures + 1))
    fi
    rm -f -- map.* cavegen-tiles.png out.log err.log
}

presets=$("$bin" --list-presets | awk '{print $1}')
[ -n "$presets" ] || { echo "valgrind.sh: no presets listed"; exit 1; }
for p in $presets; do
    size=(--size 41x25)
    [ "$p" = level ] && size=() # its requirements need the default 80x50
    for f in "${formats[@]}"; do
        extra=()
        [ "$f" = distances ] && [ "$p" = level ] && extra=(--reach entrance --moves 20)
        check "$p $f" map.out -p "$p" -s 42 "${size[@]}" -f "$f" --scale 2 -o map.out \
            "${extra[@]}"
    done
done

# Reading a map, steps given as options, statistics, stdout, a failing run.
"$bin" -p level -s 42 -o map.txt
cp map.txt input.txt
check "map in, png out" map.png -i input.txt --step 'smooth 1' --reach entrance -o map.png
check "stats json" map.json -p classic -s 7 --size 50x30 --stats=json -o map.json
check "stdout" "" -p maze -s 3 --size 21x11
check "bad map" "" -i /dev/null
check "impossible requirement" "" -p level -s 1 --step 'require open>=99%' --max-attempts 3

echo "valgrind.sh: $runs runs, $failures failed"
[ $failures -eq 0 ]
