#!/usr/bin/env bash
# Runs one stage of `make test` and prints how long it took and the processor time it used (every process it
# started, in seconds), so a slow stage is named rather than guessed.
name=$1
shift
# A stage that hangs is stopped (TERM, then KILL 30 s later) after STAGE_LIMIT_SECONDS (30 minutes), so a hung test
# fails the run with its output instead of outliving the caller's own limit.
limit=${STAGE_LIMIT_SECONDS:-1800}
started=$(date +%s)
timeout --kill-after=30 "$limit" "$@"
status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "== stage '$name' stopped after $limit s: it did not finish (exit $status)"
fi
# `times`' second line: the user and system time of the finished children, e.g. "3m2.140s 0m20.501s" (run in this
# shell, not in a command substitution, whose children would be its own).
times_file=$(mktemp)
times > "$times_file"
cpu=$(tail -n 1 "$times_file" | awk '{ total = 0; for (i = 1; i <= 2; i++) { split($i, part, /[ms]/); total += part[1] * 60 + part[2] } printf "%.0f", total }')
rm -f "$times_file"
echo "== stage '$name': $(($(date +%s) - started)) s, $cpu s of processor time (exit $status)"
exit $status
