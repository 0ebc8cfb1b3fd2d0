#!/usr/bin/env bash
# Runs one stage of `make test` and prints how long it took and the processor time it used (every process it
# started, in seconds), so a slow stage is named rather than guessed.
name=$1
shift
started=$(date +%s)
"$@"
status=$?
# `times`' second line: the user and system time of the finished children, e.g. "3m2.140s 0m20.501s" (run in this
# shell, not in a command substitution, whose children would be its own).
times_file=$(mktemp)
times > "$times_file"
cpu=$(tail -n 1 "$times_file" | awk '{ total = 0; for (i = 1; i <= 2; i++) { split($i, part, /[ms]/); total += part[1] * 60 + part[2] } printf "%.0f", total }')
rm -f "$times_file"
echo "== stage '$name': $(($(date +%s) - started)) s, $cpu s of processor time (exit $status)"
exit $status
