#!/bin/sh
# Prints the command of the N-th ```sh block of README.md (1-based), the
# block's one line, so CI runs the README's commands exactly as written.
# Usage: tests/readme_command.sh N [README]
set -eu
awk -v want="$1" '
    /^```sh$/ { n++; inblock = 1; next }
    /^```/    { inblock = 0; next }
    inblock && n == want { print; found = 1 }
    END { if (!found) exit 1 }
' "${2:-README.md}"
