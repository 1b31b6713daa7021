#!/usr/bin/env bash
# Checks .ci/tally.sh on fake vitest logs (run by .ci/run before the tests; `bash .ci/test-tally.sh` by hand).
set -euo pipefail
cd "$(dirname "$0")"
. ./tally.sh

fail=0
check() { # name, expected, log
  local got
  got=$(printf '%b' "$3" | ci_tally)
  if [ "$got" != "$2" ]; then
    echo "tally: $1: expected '$2', got '$got'" >&2
    fail=1
  fi
}

esc=$'\e'
check "two projects, one with failures, colours and Nx prefixes" "15 passed, 2 failed, 4 skipped" \
  "> nx run @autodidact/core:test\n\n ${esc}[2m     Tests ${esc}[22m ${esc}[1m${esc}[32m10 passed${esc}[39m${esc}[22m${esc}[90m (10)${esc}[39m\n@autodidact/skills:      Tests  2 failed | 5 passed | 4 skipped (11)\n npm error code 1\n"
check "a failing run whose log ends early still tallies what it has" "3 passed, 1 failed, 0 skipped" \
  "      Tests  1 failed | 3 passed (4)\n FAIL test/Foo.test.ts\n"
check "no summaries at all (the test step died first)" "0 passed, 0 failed, 0 skipped" "npm ERR! missing script: test\n"
check "Test Files lines are not counted" "7 passed, 0 failed, 0 skipped" \
  " Test Files  2 passed (2)\n      Tests  7 passed (7)\n"

# the test step fails: under set -euo pipefail the tally is still written and the step's status comes back
fake_tests() { printf '      Tests  1 failed | 2 passed | 1 skipped (4)\n'; exit 3; }
log=$(mktemp)
status=0
ci_run_tests "$log" fake_tests >/dev/null || status=$?
if [ "$status" -ne 3 ]; then echo "tally: a failing test step returned $status, expected 3" >&2; fail=1; fi
if [ "$(cat "$log.summary" 2>/dev/null)" != "2 passed, 1 failed, 1 skipped" ]; then
  echo "tally: a failing test step left summary '$(cat "$log.summary" 2>/dev/null)'" >&2
  fail=1
fi
passing() { printf '      Tests  5 passed (5)\n'; }
ci_run_tests "$log" passing >/dev/null
if [ "$(cat "$log.summary")" != "5 passed, 0 failed, 0 skipped" ]; then echo "tally: a passing step left '$(cat "$log.summary")'" >&2; fail=1; fi
rm -f "$log" "$log.summary"

if [ "$fail" -ne 0 ]; then exit 1; fi
echo "tally: all checks passed"
