#!/usr/bin/env bash
# The closing line of .ci/run: the per-project vitest summaries of a test log ("      Tests  12 passed | 1 failed |
# 3 skipped (16)", colour codes and Nx's "project:" prefixes allowed) added up into one line,
# "<passed> passed, <failed> failed, <skipped> skipped". A log without summaries gives "0 passed, 0 failed, 0 skipped".
#
# Sourced by .ci/run (functions ci_tally and ci_run_tests); run directly, it reads the log on stdin:
# `bash .ci/tally.sh < test.log`.

ci_tally() {
  sed 's/\x1b\[[0-9;]*m//g' | { grep -E '^\S*:?\s+Tests\s+[0-9]' || true; } | awk '
    { for (i = 1; i <= NF; i++) {
        if ($i ~ /^passed/) passed += $(i - 1)
        if ($i ~ /^failed/) failed += $(i - 1)
        if ($i ~ /^skipped/) skipped += $(i - 1)
    } }
    END { printf "%d passed, %d failed, %d skipped\n", passed, failed, skipped }'
}

# Run a test command (its output shown and kept in $1), print the tally of its log whatever its outcome, and return
# its exit status: under `set -euo pipefail` a failing test step must not end the script before the tally is printed.
# Usage: ci_run_tests LOG COMMAND [ARGS...]; the tally line is also written to LOG.summary.
ci_run_tests() {
  local log=$1 status
  shift
  set +e
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  ci_tally < "$log" > "$log.summary"
  return "$status"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  ci_tally
fi
