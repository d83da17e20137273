#!/usr/bin/env bash
# Runs the tests under ThreadSanitizer.
#
#   scripts/tsan.sh           every test (slow: TSan costs ~5-15x)
#   scripts/tsan.sh --short   the concurrency tests only, with fewer iterations
#
# Environment:
#   STRATA_SEED=<n>           run the stress test with this seed only (default: 1, 2, 3)
#   STRATA_ITERATIONS=<n>     deadlock-test iterations and stress steps per context
#                             (defaults: 10,000 and 250; --short uses 500 unless set)
#   TSAN_OPTIONS              passed through (default: halt_on_error=0 second_deadlock_stack=1)
#
# Builds into .build-tsan so the normal build is not invalidated. Exits non-zero when a test
# fails or TSan reports a race (TSan makes the test process exit with status 66).
set -euo pipefail
cd "$(dirname "$0")/.."

filter=()
if [[ "${1:-}" == "--short" ]]; then
    filter=(--filter 'DeadlockTests|StressTests|ConcurrencyDebugTests')
    export STRATA_ITERATIONS="${STRATA_ITERATIONS:-500}"
fi
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0 second_deadlock_stack=1}"

swift build --build-tests --sanitize=thread --scratch-path .build-tsan
swift test --skip-build --sanitize=thread --scratch-path .build-tsan "${filter[@]}"
