#!/usr/bin/env bash
# Makes the stored Sandbox runs that docs/performance.md and docs/choosing-a-stack.md cite
# (docs/runs/*.json), then renders the docs' tables from them (scripts/docs-tables.py) and the
# DocC articles from the docs (scripts/docs-articles.sh). Release build; about ten minutes on
# a 2-core machine. Run it on a quiet machine: every figure in those tables changes.
#
#   scripts/docs-runs.sh            every stored run
#   scripts/docs-runs.sh NAME...    only docs/runs/NAME.json (default, merge-coalesced,
#                                   merge-notify, all-20000, reorder-20000, engine-100000,
#                                   single-saves-20000, list-during-import-100000,
#                                   list-during-import-20000,
#                                   search-100000, sync-20000, sync-100000,
#                                   sync-webdav-20000: it starts nginx,
#                                   scripts/servers/install.sh installs it)
set -euo pipefail

cd "$(dirname "$0")/.."

# name, then the Sandbox's arguments (--quiet and --json-out are added).
runs="
default          --repeat 3
merge-coalesced  --stack hybrid --scenario import --merge-mode coalesced:100 --repeat 3
merge-notify     --stack hybrid --scenario import --merge-mode notifyOnly --repeat 3
all-20000        --scenario all --objects 20000
reorder-20000    --scenario reorder --objects 20000 --repeat 3
engine-100000    --scenario engine --objects 100000 --repeat 3
single-saves-20000 --scenario single-saves --stack hybrid --objects 20000 --repeat 3
list-during-import-100000 --scenario list-during-import --stack hybrid --objects 100000 --repeat 3
list-during-import-20000 --scenario list-during-import --stack hybrid --objects 20000 --repeat 3
search-100000    --scenario search --stack hybrid --repeat 3
sync-webdav-20000 --scenario sync --stack hybrid --objects 20000 --backend webdav --repeat 5
sync-20000       --scenario sync --stack hybrid --objects 20000 --repeat 5
sync-100000      --scenario sync --stack hybrid --objects 100000 --repeat 3
"

swift build -c release --product Sandbox
while read -r name arguments; do
    [ -n "$name" ] || continue
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
    echo "docs-runs: $name: Sandbox $arguments"
    # shellcheck disable=SC2086 # the arguments are words
    swift run -c release --skip-build Sandbox $arguments --quiet --json-out "docs/runs/$name.json" > /dev/null
done <<< "$runs"

python3 scripts/docs-tables.py
scripts/docs-articles.sh
