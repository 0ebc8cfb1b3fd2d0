#!/usr/bin/env bash
# Two release builds compared on PostgreSQL (docs/benchmarks.md, "Comparing two builds"): a fresh cluster for each
# (Debian's, durable defaults, as `make bench`), each seeded by its own checkout's `make bench` (BENCH_KEEP=1), both
# kept up while scripts/bench/ab.sh runs the two servers side by side, with each cluster's CPU per request.
#
# usage: scripts/bench/ab-postgres.sh CHECKOUT_A CHECKOUT_B
#   CHECKOUT: a source tree whose release build the seeding makes (or finds) in .build/release.
# Knobs (environment): BENCH_USERS, BENCH_TOKENS, BENCH_CODES (each seeding's, as bench.sh), AB_SCHEMA=A or B (both
# servers read that build's Settings/schema.json, so that a reply's size is not what differs), AB_SQL_A and AB_SQL_B
# (SQL run on that build's seeded database before the rounds, e.g. "DROP INDEX …" to price an index), and ab.sh's AB_*.
set -euo pipefail
cd "$(dirname "$0")/../.."
(($# == 2)) || { sed -n 2,10p "$0" >&2; exit 2; }
# Two clusters: this script runs inside two nested scripts/with-postgres.sh, the outer one's becoming A's.
case ${AB_POSTGRES_STAGE:-0} in
  0) exec env AB_POSTGRES_STAGE=1 WITH_POSTGRES_DURABLE=1 scripts/with-postgres.sh "$0" "$@" ;;
  1) exec env AB_POSTGRES_STAGE=2 AB_POSTGRES_A="$CAPTURE_TEST_POSTGRES" AB_DATA_A="$CAPTURE_TEST_POSTGRES_DATA" \
    WITH_POSTGRES_DURABLE=1 scripts/with-postgres.sh "$0" "$@" ;;
esac
declare -A checkout url data kept
checkout[A]=$(realpath "$1") checkout[B]=$(realpath "$2")
url[A]=$AB_POSTGRES_A data[A]=$AB_DATA_A url[B]=$CAPTURE_TEST_POSTGRES data[B]=$CAPTURE_TEST_POSTGRES_DATA
out=${AB_OUT:-.build/ab-postgres}
mkdir -p "$out"
trap 'for n in A B; do [[ -n "${kept[$n]:-}" ]] && rm -rf "${kept[$n]}"; done' EXIT
for n in A B; do
  echo "[ab-postgres] seeding $n (${checkout[$n]}) through its own bench.sh" >&2
  (cd "${checkout[$n]}" && env CAPTURE_TEST_POSTGRES="${url[$n]}" CAPTURE_TEST_POSTGRES_DATA="${data[$n]}" \
    BENCH_BACKEND=postgres BENCH_KEEP=1 BENCH_ROUTES=bare BENCH_ROUNDS=1 BENCH_DURATION=1 BENCH_WARM_SECONDS=0 \
    BENCH_OUT=.build/ab-seed ./scripts/bench.sh) >"$out/seed-$n.log" 2>&1 ||
    { tail -20 "$out/seed-$n.log" >&2; exit 1; }
  kept[$n]=$(sed -n 's/.*kept \(\/.*\)$/\1/p' "$out/seed-$n.log" | tail -1)
  [[ -d ${kept[$n]} ]] || { echo "[ab-postgres] no kept directory in $out/seed-$n.log" >&2; exit 1; }
done
case ${AB_SCHEMA:-} in
  A) cp "${kept[A]}/settings-postgres/schema.json" "${kept[B]}/settings-postgres/schema.json" ;;
  B) cp "${kept[B]}/settings-postgres/schema.json" "${kept[A]}/settings-postgres/schema.json" ;;
esac
for n in A B; do
  sql=AB_SQL_$n
  [[ -z ${!sql:-} ]] || psql -q "${url[$n]%/*}/bench" -v ON_ERROR_STOP=1 -c "${!sql}" >&2
done
AB_OUT=$out AB_DATA_A=${data[A]} AB_DATA_B=${data[B]} scripts/bench/ab.sh \
  "${kept[A]}" "${checkout[A]}/.build/release/capture-server" "${kept[B]}" "${checkout[B]}/.build/release/capture-server"
