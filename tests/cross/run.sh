#!/usr/bin/env bash
# tests/cross/run.sh [ARCH...]: the determinism suite (tests/determinism/) on
# other machines, under qemu-user. ARCH: aarch64, i686 (32-bit: 32-bit
# size_t), s390x (big-endian); default all three. Every output's hash must
# equal the one pinned on x86-64.
#
# Per ARCH, from the top of the repository:
#   1. installs what is missing: gcc-<triple>, libc6-dev-<arch>-cross,
#      qemu-user (and cmake, make, python3, file) with apt-get, through sudo
#      when not root;
#   2. makes build-cross-ARCH/sysroot, once: the target's libpng-dev,
#      libpng16-16, zlib1g-dev and zlib1g .debs, fetched with apt-get download
#      into build-cross-ARCH/debs (adding the foreign architecture to dpkg
#      first when needed) and unpacked with dpkg-deb -x. They are not
#      installed: only their headers and .a archives are used;
#   3. configures with cmake/toolchains/<triple>.cmake (a static executable,
#      so qemu needs no target loader), Release, -Werror, and builds the
#      tool (cavegen_cli) and its path-forcing test build (cavegen_paths);
#   4. checks with `file` that they are static executables for the target;
#   5. runs `ctest -R determinism`: each test runs the suite under qemu. The
#      x86 kernel paths (avx2, avx512*) are skipped (status 77) where the
#      target cannot run them; scalar and vector run everywhere.
# Prints one summary line per ARCH; exits 1 if any ARCH failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

export DEBIAN_FRONTEND=noninteractive
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# arch -> compiler triple, Debian architecture, qemu, what `file` says
declare -A TRIPLE=([aarch64]=aarch64-linux-gnu [i686]=i686-linux-gnu [s390x]=s390x-linux-gnu)
declare -A DEBARCH=([aarch64]=arm64 [i686]=i386 [s390x]=s390x)
declare -A QEMU=([aarch64]=qemu-aarch64 [i686]=qemu-i386 [s390x]=qemu-s390x)
declare -A FILEDESC=([aarch64]="ARM aarch64" [i686]="Intel 80386" [s390x]="IBM S/390")
# The target packages the sysroot is made of.
TARGET_DEBS=(libpng-dev libpng16-16 zlib1g-dev zlib1g)

archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(aarch64 i686 s390x)
for arch in "${archs[@]}"; do
    if [ -z "${TRIPLE[$arch]:-}" ]; then
        echo "tests/cross/run.sh: unknown ARCH '$arch' (aarch64, i686, s390x)" >&2
        exit 2
    fi
done

apt_updated=0
apt_update() {
    if [ $apt_updated -eq 0 ]; then
        $sudo apt-get update -q
        apt_updated=1
    fi
}

# (No `cmd | grep -q` under pipefail: grep's early exit can kill cmd with
# SIGPIPE, and the pipeline then fails although grep matched.)
installed() {
    local status
    status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
    [ "$status" = "install ok installed" ]
}

# 1. Host packages.
need=(cmake make python3 file qemu-user)
for arch in "${archs[@]}"; do
    need+=("gcc-${TRIPLE[$arch]}" "libc6-dev-${DEBARCH[$arch]}-cross")
done
missing=()
for p in "${need[@]}"; do
    installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "== cross: installing ${missing[*]}"
    apt_update
    $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

# 2. The target's libpng and zlib, unpacked into build-cross-ARCH/sysroot.
# apt must know the target's packages: the foreign architecture added to
# dpkg and its package lists fetched, once for all ARCHs.
update=0
foreign=$(dpkg --print-foreign-architectures)
for arch in "${archs[@]}"; do
    [ -f "build-cross-$arch/sysroot/.complete" ] && continue
    debarch=${DEBARCH[$arch]}
    if ! grep -qx "$debarch" <<< "$foreign"; then
        echo "== cross: dpkg --add-architecture $debarch"
        $sudo dpkg --add-architecture "$debarch"
        foreign+=$'\n'$debarch
        update=1
    elif ! apt-cache show "libpng-dev:$debarch" >/dev/null 2>&1; then
        update=1
    fi
done
if [ $update -eq 1 ]; then
    apt_updated=0
    apt_update
fi

make_sysroot() {
    local arch=$1 dir=$root/build-cross-$1 debarch=${DEBARCH[$1]}
    local sysroot=$dir/sysroot
    if [ -f "$sysroot/.complete" ]; then
        echo "(cached: $(tr '\n' ' ' < "$sysroot/.complete"))"
        return 0
    fi
    rm -rf "$sysroot" "$dir/debs"
    mkdir -p "$sysroot" "$dir/debs"
    local pkgs=()
    for p in "${TARGET_DEBS[@]}"; do pkgs+=("$p:$debarch"); done
    # apt downloads as the unprivileged _apt user where it can; these are
    # plain files into our own folder, so the user we are keeps them.
    (cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "${pkgs[@]}")
    for deb in "$dir"/debs/*.deb; do
        dpkg-deb -x "$deb" "$sysroot"
    done
    (cd "$dir/debs" && ls -- *.deb) > "$sysroot/.complete"
}

# 3.-5. One architecture, in a subshell of its own (set -e holds there).
declare -A RESULT
run_arch() {
    local arch=$1 dir=build-cross-$1 t0=$SECONDS t1 t2
    echo "== cross $arch: sysroot"
    make_sysroot "$arch"
    echo "== cross $arch: configure and build"
    cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/${TRIPLE[$arch]}.cmake" \
        -DCAVEGEN_SYSROOT="$root/$dir/sysroot" -DCMAKE_BUILD_TYPE=Release -DCAVEGEN_WERROR=ON
    cmake --build "$dir" -j"$(nproc)" --target cavegen_cli cavegen_paths
    for exe in "$dir/cavegen" "$dir/tests/determinism/cavegen_paths"; do
        local desc
        desc=$(file -b "$exe")
        echo "$exe: $desc"
        case "$desc" in
            *"${FILEDESC[$arch]}"*"statically linked"*) ;;
            *) echo "cross $arch: $exe is not a static ${FILEDESC[$arch]} executable" >&2
               return 1 ;;
        esac
    done
    t1=$SECONDS
    echo "== cross $arch: determinism suite under ${QEMU[$arch]}"
    local rc=0
    ctest --test-dir "$dir" -R determinism --no-tests=error --output-on-failure |
        tee "$dir/cross-ctest.log" || rc=$?
    t2=$SECONDS
    echo "$((t1 - t0)) $((t2 - t1))" > "$dir/cross-times"
    return $rc
}

failed=0
for arch in "${archs[@]}"; do
    rm -f "build-cross-$arch/cross-times" "build-cross-$arch/cross-ctest.log"
    t0=$SECONDS
    set +e
    (set -euo pipefail; run_arch "$arch")
    rc=$?
    set -e
    total=$((SECONDS - t0))
    times="total ${total} s"
    if [ -f "build-cross-$arch/cross-times" ]; then
        read -r tb ts < "build-cross-$arch/cross-times"
        times="sysroot+build ${tb} s, suite ${ts} s"
    fi
    tests=""
    if [ -f "build-cross-$arch/cross-ctest.log" ]; then
        tests=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' \
            "build-cross-$arch/cross-ctest.log" || true)
        skipped=$(grep -c '\*\*\*Skipped' "build-cross-$arch/cross-ctest.log" || true)
        tests="; ${tests:-no ctest summary}, ${skipped} skipped"
    fi
    if [ $rc -eq 0 ]; then
        RESULT[$arch]="cross $arch: PASS ($times$tests)"
    else
        RESULT[$arch]="cross $arch: FAIL ($times$tests)"
        failed=1
    fi
    echo "${RESULT[$arch]}"
done
echo "== cross summary"
for arch in "${archs[@]}"; do
    echo "${RESULT[$arch]}"
done
exit $failed
