#!/usr/bin/env bash
# libFuzzer over Strata's parsers and decoders of stored and downloaded bytes (the package in
# Fuzzing/, issue 12): the predicate format parser, stored attribute values and transformable
# values, the stored model schema, StrataSync's change-file container, event payloads, cell
# values and blob references, and cloud names.
#
#   scripts/fuzz.sh                 short run: each target for 8 s on top of its committed
#                                   corpus (Fuzzing/Corpus/<target>): what CI runs
#   scripts/fuzz.sh --long          each target for 10 minutes; inputs that reach new code are
#                                   kept in .build-fuzz/corpus/<target>
#   scripts/fuzz.sh [--long] FuzzPredicate FuzzChangeFile …   only these targets
#
# Environment:
#   STRATA_FUZZ_SECONDS=<n>     seconds per target (default 8; --long 600)
#   STRATA_FUZZ_SANITIZE=<list> sanitizers to build with (default "fuzzer"; "fuzzer,address"
#                               adds AddressSanitizer, slower to build and to run)
#   STRATA_FUZZ_JOBS=<n>        targets run side by side (default 2)
#
# Builds into .build-fuzz (the main package's build is not touched). A target that traps,
# hangs (an input taking more than 10 s), leaks memory past 2 GB or breaks one of its checks
# stops with its input saved as .build-fuzz/artifacts/<target>-crash-<sha1> (or -timeout-,
# -oom-); the script then exits non-zero. Replay one: .build-fuzz/debug/<target> <file>.
# Keep a new input in the committed corpus: .build-fuzz/debug/<target> -merge=1
# Fuzzing/Corpus/<target> .build-fuzz/corpus/<target>.
set -euo pipefail
# A failed check or trap is reported by libFuzzer (which saves the input), not by Swift's backtracer.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
cd "$(dirname "$0")/.."

long=0
if [[ "${1:-}" == "--long" ]]; then long=1; shift; fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(FuzzPredicate FuzzStoredValue FuzzStoredSchema FuzzChangeFile FuzzEventPayload FuzzCloudName FuzzSyncState)
fi
seconds="${STRATA_FUZZ_SECONDS:-$([[ $long -eq 1 ]] && echo 600 || echo 8)}"
sanitize="${STRATA_FUZZ_SANITIZE:-fuzzer}"
jobs="${STRATA_FUZZ_JOBS:-2}"
scratch=.build-fuzz

start=$(date +%s)
swift build --package-path Fuzzing --scratch-path "$scratch" -Xswiftc "-sanitize=$sanitize"
echo "fuzz: built in $(( $(date +%s) - start )) s"

mkdir -p "$scratch/artifacts" "$scratch/logs"
run() {
    local target=$1 work
    if [[ $long -eq 1 ]]; then work="$scratch/corpus/$target"; else work="$scratch/short/$target"; rm -rf "$work"; fi
    mkdir -p "$work"
    # New inputs go to the first folder; the committed corpus (second) is only read.
    "$scratch/debug/$target" "$work" "Fuzzing/Corpus/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$scratch/artifacts/$target-" >"$scratch/logs/$target.log" 2>&1
}

failed=()
pids=()
names=()
for target in "${targets[@]}"; do
    run "$target" &
    pids+=($!); names+=("$target")
    if [[ ${#pids[@]} -ge $jobs ]]; then
        if ! wait "${pids[0]}"; then failed+=("${names[0]}"); fi
        pids=("${pids[@]:1}"); names=("${names[@]:1}")
    fi
done
for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then failed+=("${names[$i]}"); fi
done

for target in "${targets[@]}"; do
    log="$scratch/logs/$target.log"
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    corpus=$(ls "Fuzzing/Corpus/$target" | wc -l)
    echo "fuzz: $target: $runs executions in ${seconds} s, $corpus committed seeds"
done
echo "fuzz: total $(( $(date +%s) - start )) s"
if [[ ${#failed[@]} -gt 0 ]]; then
    for target in "${failed[@]}"; do
        echo "fuzz: $target FAILED; the end of $scratch/logs/$target.log:" >&2
        tail -n 30 "$scratch/logs/$target.log" >&2
    done
    ls "$scratch/artifacts" >&2
    exit 1
fi
