#!/usr/bin/env bash
# run.sh - runs each libFuzzer target for a while on a copy of its kept
# corpus (docs/testing.md). Used by .ci/run; also for longer local runs.
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#
# BUILD_DIR was configured with -DCMAKE_C_COMPILER=clang -DCAVEGEN_FUZZ=ON
# and built. Each target runs single-process for SECONDS. Any crash, leak,
# sanitizer report or timeout fails the script; the input is copied to
# $FUZZ_ARTIFACTS (default: BUILD_DIR/fuzz-artifacts) to be minimised
# (fuzz_NAME -minimize_crash=1 INPUT) and added to tests/fuzz/crashes/NAME/.
# The copy of the corpus grows during the run; the kept one is not changed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
build="${1:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}"
seconds="${2:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}"
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(preset ascii options write names settings)
artifacts="${FUZZ_ARTIFACTS:-$build/fuzz-artifacts}"
mkdir -p "$artifacts"

# Longest input per target: enough for every construct, small enough to
# keep the runs fast (a map of a few thousand cells, a preset of a page).
max_len() {
    case "$1" in
    preset) echo 4096 ;;
    ascii) echo 1024 ;;
    options) echo 1024 ;;
    write) echo 2048 ;;
    names) echo 512 ;;
    settings) echo 4096 ;;
    *) echo 4096 ;;
    esac
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for t in "${targets[@]}"; do
    bin="$build/tests/fuzz/fuzz_$t"
    if [ ! -x "$bin" ]; then
        echo "run.sh: $bin not built (configure with -DCAVEGEN_FUZZ=ON)" >&2
        exit 2
    fi
    mkdir -p "$work/$t"
    cp "$here/corpus/$t/." "$work/$t/" -r 2>/dev/null || true
    log="$work/$t.log"
    echo "== fuzz_$t for ${seconds}s"
    if "$bin" -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
        "$work/$t" >"$log" 2>&1; then
        grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)' "$log" |
            sed 's/^/   /'
    else
        status=1
        echo "fuzz_$t FAILED; the end of its log:" >&2
        tail -n 60 "$log" >&2
    fi
done
exit $status
