#!/usr/bin/env bash
# Two release builds compared (docs/benchmarks.md, "Comparing two builds"): both servers run at once, each on a
# directory `make bench` kept (BENCH_KEEP=1), and each path's load goes to one then the other, the order alternating
# by round, so the machine's drift falls on both alike. Per path: the medians of server CPU per request and of req/s,
# each build's ratio to its own bare route, and B's CPU against A's; each server's peak RSS. On PostgreSQL
# (scripts/bench/ab-postgres.sh keeps each build's cluster up), also the medians of each cluster's CPU per request.
#
# usage: scripts/bench/ab.sh DIR_A SERVER_A DIR_B SERVER_B
#   DIR: a kept bench directory (settings-sqlite/ and pools-sqlite/, settings-postgres/ and pools-postgres/, or
#   settings/ and pools/ from older commits), its database the one its service.json names; A and B may share one when
#   their schemas are the same. SERVER: a release capture-server; the capturectl beside it adds the confidential
#   client introspection needs (that build's own, for its own schema).
# Knobs (environment): AB_ROUNDS (5), AB_SECONDS (5), AB_ROUTES ("bare entity introspect verify page page_inm
# refresh update code"), AB_WARM_SECONDS (10 of /verify on each before the rounds), AB_OUT (where the per-round
# lines and the summary go, default .build/ab), AB_DATA_A and AB_DATA_B (PostgreSQL data directories: their
# postmasters' CPU is counted).
set -euo pipefail
cd "$(dirname "$0")/../.."
(($# == 4)) || { sed -n 2,14p "$0" >&2; exit 2; }
rounds=${AB_ROUNDS:-5} seconds=${AB_SECONDS:-5} warm=${AB_WARM_SECONDS:-10}
routes=${AB_ROUTES:-bare entity introspect verify page page_inm refresh update code}
out=${AB_OUT:-.build/ab}
mkdir -p "$out"
declare -A dir server settings pools port pid basic etag data
dir[A]=$1 server[A]=$2 dir[B]=$3 server[B]=$4 data[A]=${AB_DATA_A:-} data[B]=${AB_DATA_B:-}
cleanup() { for n in A B; do [[ -n "${pid[$n]:-}" ]] && { kill "${pid[$n]}" 2>/dev/null || true; wait "${pid[$n]}" 2>/dev/null || true; }; done; }
trap cleanup EXIT

for n in A B; do
  if [[ -d ${dir[$n]}/settings-sqlite ]]; then
    settings[$n]=${dir[$n]}/settings-sqlite pools[$n]=${dir[$n]}/pools-sqlite
  elif [[ -d ${dir[$n]}/settings-postgres ]]; then
    settings[$n]=${dir[$n]}/settings-postgres pools[$n]=${dir[$n]}/pools-postgres
  else
    settings[$n]=${dir[$n]}/settings pools[$n]=${dir[$n]}/pools
  fi
  # Its own client for introspection (a kept directory does not keep the benchmark's secret).
  secret=$("$(dirname "${server[$n]}")/capturectl" client add "ab-$n-$RANDOM" --confidential --json \
    --db "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["database"])' "${settings[$n]}/service.json")" \
    --settings "${settings[$n]}" |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["client_id"] + ":" + d["client_secret"])')
  basic[$n]=$(printf '%s' "$secret" | base64 -w0)
done
for n in A B; do
  copy=${dir[$n]}/settings-ab-$n
  rm -rf "$copy"
  cp -r "${settings[$n]}" "$copy"
  port[$n]=$((20000 + RANDOM % 20000))
  python3 -c "import json, sys; p = sys.argv[1]; s = json.load(open(p)); s['port'] = int(sys.argv[2]); json.dump(s, open(p, 'w'))" \
    "$copy/service.json" "${port[$n]}"
  "${server[$n]}" --settings "$copy" >"$out/server-$n.log" 2>&1 &
  pid[$n]=$!
  for _ in $(seq 300); do curl -fs "http://127.0.0.1:${port[$n]}/health/ready" >/dev/null && break; sleep 0.1; done
  curl -fs "http://127.0.0.1:${port[$n]}/health/ready" >/dev/null || { echo "server $n did not start: $out/server-$n.log" >&2; exit 1; }
  etag[$n]=$(curl -s -D - -o /dev/null "http://127.0.0.1:${port[$n]}/flows/webViewSignIn?client_id=demo-mobile-app" |
    sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)\r$/\1/p')
done

# CPU time (ticks_of, cluster_ticks, per_request), counted as make bench counts it.
source scripts/bench/ticks.sh
db_ticks() { if [[ -n $1 ]]; then cluster_ticks "$1"; else echo 0; fi; } # data directory, or nothing
# One load on one server: prints "build route round rps=… cpu_us=… bad=…".
run() { # build, route, seconds, round
  local n=$1 route=$2 s=$3 r=$4 file="" slice=0 slices=1 before after line requests db_before db_after
  case $route in
    entity | introspect | verify | update) file=${pools[$n]}/access.txt ;;
    refresh) file=${pools[$n]}/refresh.txt ;;
    code) file=${pools[$n]}/codes.txt ;;
  esac
  # The one-use pools: each round takes its own slice, as in `make bench`.
  if [[ $route == refresh || $route == code ]]; then slice=$r slices=$rounds; fi
  before=$(ticks_of "${pid[$n]}")
  db_before=$(db_ticks "${data[$n]}")
  line=$(BENCH_MODE=$route BENCH_FILE=$file BENCH_THREADS=2 BENCH_ROUND=$slice BENCH_ROUNDS=$slices \
    BENCH_BASIC=${basic[$n]} BENCH_AUDIENCE=http://android.library BENCH_ETAG="${etag[$n]:-\"none\"}" \
    BENCH_EXPECT_304=$([[ -n "${etag[$n]}" ]] && echo 1 || echo 0) \
    wrk -t2 -c64 -d"${s}s" --timeout 30s -s scripts/bench/load.lua "http://127.0.0.1:${port[$n]}/health/live" | grep '^BENCH ')
  after=$(ticks_of "${pid[$n]}")
  db_after=$(db_ticks "${data[$n]}")
  requests=$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")
  echo "$n $route $r rps=$(sed -n 's/.*rps=\([0-9.]*\).*/\1/p' <<<"$line")" \
    "cpu_us=$(per_request "$((after - before))" "$requests")" "db_us=$(per_request "$((db_after - db_before))" "$requests")" \
    "bad=$(sed -n 's/.* bad=\([0-9]*\).*/\1/p' <<<"$line")"
}

if ((warm > 0)); then for n in A B; do run "$n" verify "$warm" 0 >/dev/null; done; fi
lines=$out/rounds.txt
: >"$lines"
for ((r = 0; r < rounds; r++)); do
  for route in $routes; do
    if ((r % 2 == 0)); then order="A B"; else order="B A"; fi
    for n in $order; do run "$n" "$route" "$seconds" "$r" | tee -a "$lines" >&2; done
  done
done
peak() { awk '/^VmHWM:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
peaks=("$(peak "${pid[A]}")" "$(peak "${pid[B]}")")
python3 - "$lines" "$1 ${server[A]}" "$3 ${server[B]}" "${peaks[@]}" <<'PY' | tee "$out/summary.txt"
import collections, statistics, sys
lines, a, b, peak_a, peak_b = sys.argv[1:]
runs, rounds, bad = collections.defaultdict(list), {}, 0
for line in open(lines):
    build, route, number, *fields = line.split()
    values = dict(field.split("=", 1) for field in fields)
    run = (float(values["rps"]), float(values["cpu_us"]), float(values.get("db_us", 0)))
    runs[(route, build)].append(run)
    rounds[(route, number, build)] = run
    bad += int(values["bad"] or 0)
# B over the A run beside it, round by round: on a noisy machine steadier than the ratio of the two medians.
def paired(route, i):
    ratios = [rounds[(r, n, "B")][i] / rounds[(r, n, "A")][i] for (r, n, b) in rounds
              if r == route and b == "A" and (r, n, "B") in rounds and rounds[(r, n, "A")][i] > 0]
    return f"{(statistics.median(ratios) - 1) * 100:+.1f} %" if ratios else "-"
med = {k: tuple(statistics.median(x[i] for x in v) for i in range(3)) for k, v in runs.items()}
database = any(d for _, _, d in med.values())
print(f"A: {a}\nB: {b}\nmedians of {len(runs[next(iter(runs))])} interleaved rounds; replies not as expected: {bad}")
print(f"peak RSS (VmHWM): A {peak_a} MiB, B {peak_b} MiB")
print(f"{'path':12} {'A req/s':>9} {'A x bare':>8} {'A cpu µs':>8} | {'B req/s':>9} {'B x bare':>8} {'B cpu µs':>8} | B cpu vs A"
      + " (by round)" + (" | A db µs  B db µs  B db vs A (by round)" if database else ""))
for route in dict.fromkeys(r for r, _ in runs):
    (ra, ca, da), (rb, cb, db) = med[(route, "A")], med[(route, "B")]
    ba, bb = med.get(("bare", "A"), (ra,))[0], med.get(("bare", "B"), (rb,))[0]
    row = f"{route:12} {ra:9.0f} {ra / ba:8.3f} {ca:8.1f} | {rb:9.0f} {rb / bb:8.3f} {cb:8.1f} | {cb - ca:+6.1f} µs ({(cb / ca - 1) * 100:+.1f} %)"
    row += f" ({paired(route, 1)})"
    if database:
        row += f" | {da:8.1f} {db:8.1f} " + (f"{(db / da - 1) * 100:+.1f} % ({paired(route, 2)})" if da else "")
    print(row)
PY
