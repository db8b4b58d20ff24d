#!/usr/bin/env bash
# chunk_world.sh CAVEGEN - a world of chunks rendered as independent jobs by
# GNU parallel, as docs/scale.md shows for many machines, stitched back
# together and compared with one chunk that covers the same area.
#
# Two worlds of 4 x 3 chunks of 40x30: one left of and above the origin
# (chunks -4..-1 x -3..-1, so negative world coordinates), the same area as
# the chunk (-1,-1) of 160x90; one right of and below it (0..3 x 0..2), the
# chunk (0,0) of 160x90. type1 reads 32 cells beyond a chunk, type3 7.
# Exit 0 on success, 1 on a difference, 77 (skipped) without parallel.
set -euo pipefail

cavegen=${1:?usage: chunk_world.sh CAVEGEN}
if ! command -v parallel > /dev/null; then
    echo "chunk_world: GNU parallel is not installed (Debian: apt-get install parallel); skipped"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cavegen-world-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# GNU parallel asks once for a citation; a test has no one to ask.
export PARALLEL_HOME="$tmp/.parallel"
mkdir -p "$PARALLEL_HOME"
touch "$PARALLEL_HOME/will-cite"

fail() {
    echo "chunk_world: FAIL: $*" >&2
    exit 1
}

# world PRESET SEED "CX..." "CY..." BIG_CX,BIG_CY
world() {
    local preset=$1 seed=$2 xs=$3 ys=$4 big=$5
    local dir="$tmp/$preset-$seed"
    mkdir -p "$dir"
    # Every chunk is a job of its own: any order, any machine.
    # shellcheck disable=SC2086
    parallel -j 4 --halt now,fail=1 \
        "$cavegen" -p "$preset" -s "$seed" --size 40x30 --chunk '{1},{2}' -o "$dir/{1}_{2}.txt" \
        ::: $xs ::: $ys
    # Stitch: the chunks of a row side by side, the rows one below another.
    : > "$dir/stitched"
    local y x files
    for y in $ys; do
        files=()
        for x in $xs; do
            [ -s "$dir/${x}_${y}.txt" ] || fail "chunk $x,$y of $preset missing"
            files+=("$dir/${x}_${y}.txt")
        done
        paste -d '' "${files[@]}" >> "$dir/stitched"
    done
    "$cavegen" -p "$preset" -s "$seed" --size 160x90 --chunk "$big" -o "$dir/whole.txt"
    cmp -s "$dir/stitched" "$dir/whole.txt" ||
        fail "$preset seed $seed: the stitched chunks differ from the chunk $big of 160x90"
    [ "$(wc -l < "$dir/whole.txt")" -eq 90 ] || fail "$preset: the world is not 90 rows"
    echo "chunk_world: $preset seed $seed, chunks {$xs} x {$ys}: stitched = chunk $big of 160x90"
}

world type1 42 "-4 -3 -2 -1" "-3 -2 -1" "-1,-1"
world type3 7 "0 1 2 3" "0 1 2" "0,0"
