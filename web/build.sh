#!/bin/sh
# build.sh - builds the WebAssembly module, the JavaScript module and the
# playground's script into web/dist/ (docs/web.md):
#   dist/cavegen.wasm   the library and web/src/cavegen_js.c, standalone
#   dist/cavegen.mjs    the ES module (node, bundlers, browsers over http)
#   dist/cavegen.js     the same API as a classic script (global `cavegen`),
#                       which the playground loads, also from file://
#   dist/cavegen.d.ts   the types
# Needs Debian's emscripten (emcc), cmake and node. Usage: web/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dist="$here/dist"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Debian's emscripten runs its JavaScript optimiser with the machine's
# node, which finds Debian's acorn only through NODE_PATH when that node is
# not Debian's own.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"

# The built-in presets as a C table, as the CMake build makes it.
presets=$(ls "$root"/presets/*.preset | LC_ALL=C sort | tr '\n' ';' | sed 's/;$//')
cmake -DOUT="$work/presets_data.c" "-DPRESETS=$presets" -P "$root/cmake/embed_presets.cmake"

# The library's layers as CMakeLists.txt lists them, less the PNG writers
# (no libpng in WebAssembly: CAVEGEN_PNG=OFF; the page draws on a canvas).
sources=""
for layer in core cells regions place steps engine io; do
    for f in "$root"/src/$layer/*.c; do
        case "$f" in */io/png.c | */io/png_reach.c) continue ;; esac
        sources="$sources $f"
    done
done

# The exported calls: every CGJS_EXPORT function of the glue.
exports=$(sed -n 's/^CGJS_EXPORT [^(]*[ *]\(cgjs_[a-z0-9_]*\)(.*/_\1/p' "$here/src/cavegen_js.c" |
    tr '\n' ',' | sed 's/,$//')

mkdir -p "$dist"
# shellcheck disable=SC2086 # $sources is a list of paths without spaces
# The project's warnings (CMakeLists.txt) as errors: size_t is 32 bits
# here, so a conversion the 64-bit builds accept shows. The glue's
# exported calls have no header, hence no -Wmissing-prototypes.
emcc -std=c11 -O3 -DNDEBUG -I"$root/include" -I"$root/src" \
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wstrict-prototypes -Wvla -Wformat=2 -Werror \
    $sources "$work/presets_data.c" "$here/src/cavegen_js.c" \
    --no-entry -sSTANDALONE_WASM=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB \
    -sEXPORTED_FUNCTIONS="$exports" -sERROR_ON_UNDEFINED_SYMBOLS=1 \
    -o "$dist/cavegen.wasm"

node "$here/tools/bundle.mjs" "$dist/cavegen.wasm" "$here/src" "$dist"
