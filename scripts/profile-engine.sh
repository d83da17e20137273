#!/usr/bin/env bash
# Counts the instructions of the Sandbox's `engine` paths with callgrind (repeatable, unlike
# wall time) and prints each next to its raw SQLite counterpart.
#
#   scripts/profile-engine.sh [OBJECTS]     default 20000
#
# Builds the Sandbox in release mode into .build-release, runs `--scenario engine` once under
# `valgrind --tool=callgrind`, and reads the inclusive count of each timed body: the
# `@inline(never)` functions named `measured…` (EngineScenario.swift and the raw baselines:
# what their clocks time, without opening or closing connections). The raw insert runs three times (best of three): its count is
# divided by 3. The profile stays in .build-release/engine.callgrind for callgrind_annotate
# (PROFILE_REUSE=1 reads it again without running valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
objects="${1:-20000}"
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install -y valgrind)" >&2; exit 1; }

# DWARF 4: valgrind 3.19 cannot read the DWARF 5 that Swift 6.3 writes by default ("unhandled
# dwarf2 abbrev form code 0x25 … Possibly corrupted debuginfo file. I can't recover").
swift build -c release --product Sandbox --scratch-path .build-release -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 >&2
out=.build-release/engine.callgrind
if [[ "${PROFILE_REUSE:-}" != 1 || ! -f "$out" ]]; then   # PROFILE_REUSE=1: read the last profile again
    valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$out" \
        .build-release/release/Sandbox --scenario engine --objects "$objects" --quiet >/dev/null 2>.build-release/engine.valgrind.log
fi

annotated=$(callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$out" 2>/dev/null | swift demangle --simplified)
count() {  # the largest inclusive count of a function whose (demangled) name matches $1
    grep -E "^ *[0-9,]+ .*[. ]$1\\(" <<<"$annotated" | grep -v '=>' | awk '{gsub(",", "", $1); print $1}' | sort -n | tail -1
}
raw_insert=$(( $(count measuredRawInsert) / 3 ))
raw_read=$(count measuredRawRead)
raw_commit=$(count measuredRawCommits)
row() {  # name, instructions, raw instructions, per
    printf '%-28s %14s %10s %8s\n' "$1" "$2" "$(( $2 / $4 ))" "$(awk -v r="$3" -v e="$2" 'BEGIN { printf "%.3f", r / e }')"
}
single_saves=$(( objects < 2000 ? objects : 2000 ))
printf '%-28s %14s %10s %8s\n' "path ($objects objects)" "instructions" "per object" "x raw"
row "raw insert" "$raw_insert" "$raw_insert" "$objects"
history_insert=$(count measuredHistoryInsert)
context_insert=$(count measuredContextInsert)
row "context insert + save" "$context_insert" "$raw_insert" "$objects"
row "  with history (x context)" "$history_insert" "$context_insert" "$objects"
row "batch insert" "$(count measuredBatchInsert)" "$raw_insert" "$objects"
row "raw read" "$raw_read" "$raw_read" "$objects"
row "materialised fetch" "$(count measuredMaterialisedFetch)" "$raw_read" "$objects"
row "batched fetch (500)" "$(count measuredBatchedFetch)" "$raw_read" "$objects"
row "raw one-row commit" "$raw_commit" "$raw_commit" "$single_saves"
row "one-object save" "$(count measuredSingleSaves)" "$raw_commit" "$single_saves"
