#!/usr/bin/env bash
# formats_listed.sh CAVEGEN SOURCE_DIR - the output formats are defined once,
# in the library's table (src/io/format_table.c): check that every format it
# lists (cavegen --list-formats) is accepted by -f, selected by its
# extension and has its row in the table of docs/formats.md, and that the
# bash completion asks the tool instead of keeping a list of its own (the
# man page and the installed completion are checked against the same list
# by test_install.sh). Exit 0 on success, 1 on a difference.
set -euo pipefail
cavegen=$(realpath "${1:?usage: formats_listed.sh CAVEGEN SOURCE_DIR}")
src=${2:?usage: formats_listed.sh CAVEGEN SOURCE_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cavegen-formats-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
problem() {
    echo "formats_listed: $*" >&2
    fail=1
}

"$cavegen" --list-formats > "$tmp/list"
"$cavegen" --help > "$tmp/help" # not piped into grep -q: pipefail and SIGPIPE
[ -s "$tmp/list" ] || problem "--list-formats printed nothing"
n=0
while read -r name ext rest; do
    n=$((n + 1))
    available=1
    case $rest in *"(not in this build)") available=0 ;; esac
    "$cavegen" -f "$name" --help > /dev/null || problem "-f $name is refused"
    grep -qF "| \`$name\` | \`$ext\` |" "$src/docs/formats.md" ||
        problem "docs/formats.md's table has no row for $name ($ext)"
    grep -E '^\| `-f`, `--format' "$src/docs/cli.md" > "$tmp/frow"
    grep -qF "\`$name\`" "$tmp/frow" ||
        problem "docs/cli.md's -f row does not name $name"
    grep -qw -- "$name" "$tmp/help" || problem "--help does not name $name"
    # The extension selects the format: a map written as x$ext is what -f writes.
    if [ "$available" -eq 1 ] && [ "$name" != distances ] && [ "$name" != tmx ] &&
        [ "$name" != tmj ]; then
        (cd "$tmp" && "$cavegen" -s 1 --size 9x5 -o "x$ext" && "$cavegen" -s 1 --size 9x5 -f "$name" -o y &&
            cmp -s "x$ext" y) || problem "-o x$ext does not write $name"
    fi
done < "$tmp/list"
# An extension no format has is a usage error that lists the known ones.
set +e
(cd "$tmp" && "$cavegen" -s 1 --size 9x5 -o x.gif) 2> "$tmp/err"
status=$?
set -e
[ "$status" -eq 2 ] || problem "-o x.gif exits $status, not 2"
[ ! -e "$tmp/x.gif" ] || problem "-o x.gif wrote a file"
while read -r name ext rest; do
    grep -qF -- "$ext" "$tmp/err" || problem "the message for -o x.gif does not list $ext"
done < "$tmp/list"
grep -q -- '--list-formats' "$src/completions/cavegen.bash" ||
    problem "completions/cavegen.bash does not take the formats from --list-formats"
if grep -qE 'formats="[a-z ]+"' "$src/completions/cavegen.bash"; then
    problem "completions/cavegen.bash keeps its own list of formats"
fi
[ "$fail" -eq 0 ] && echo "formats_listed: $n formats, each in docs/formats.md, -f and its extension"
exit "$fail"
