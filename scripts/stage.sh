#!/usr/bin/env bash
# Runs one stage of `make test` and prints how long it took, so a slow stage is named rather than guessed.
name=$1
shift
started=$(date +%s)
"$@"
status=$?
echo "== stage '$name': $(($(date +%s) - started)) s (exit $status)"
exit $status
