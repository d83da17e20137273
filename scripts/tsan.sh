#!/usr/bin/env bash
# Runs the tests under ThreadSanitizer.
#
#   scripts/tsan.sh           every test (slow: TSan costs ~5-15x)
#   scripts/tsan.sh --short   the concurrency tests (perform on the caller's thread, a save's
#                             report made on a second core, objects made on a child's queue for
#                             main, deadlock interleavings, the seeded
#                             stress and invariant tests, two coordinators on one file, debug-mode
#                             traps), the stacks' conformance suite and the fetched-results
#                             tests, with fewer iterations: what CI runs
#
# Environment (each count has its own variable, so shortening one never lengthens another):
#   STRATA_SEED=<n>                  run the stress and invariant tests with this seed only
#   STRATA_DEADLOCK_ITERATIONS=<n>   iterations per deadlock test (default 10,000; --short 500)
#   STRATA_STRESS_STEPS=<n>          steps per context in the stress and invariant tests
#                                    (default 250; --short 100)
#   TSAN_OPTIONS                     passed through (default: halt_on_error=0 second_deadlock_stack=1)
#
# Builds into .build-tsan so the normal build is not invalidated. Exits non-zero when a test
# fails or TSan reports a race (TSan makes the test process exit with status 66).
set -euo pipefail
cd "$(dirname "$0")/.."

filter=()
if [[ "${1:-}" == "--short" ]]; then
    filter=(--filter 'ChangedValuesTests|PreparedObjectsTests|ContextExecutorTests|DeadlockTests|StressTests|InvariantTests|TwoCoordinatorTests|ConcurrencyDebugTests|StrataStacksTests|StrataFetchedResultsTests')
    export STRATA_DEADLOCK_ITERATIONS="${STRATA_DEADLOCK_ITERATIONS:-500}"
    export STRATA_STRESS_STEPS="${STRATA_STRESS_STEPS:-100}"
fi
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0 second_deadlock_stack=1}"

swift build --build-tests --sanitize=thread --scratch-path .build-tsan
swift test --skip-build --sanitize=thread --scratch-path .build-tsan "${filter[@]}"
