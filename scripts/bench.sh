#!/usr/bin/env bash
# `make bench` (docs/benchmarks.md): release build; a fresh database seeded through the project's own code (users by
# `capturectl user import`, tokens by `capture-bench seed-tokens`); the raw bcrypt verify rate in-process; one release
# capture-server on loopback; wrk against each path in interleaved rounds, the bare /health/live measured in every
# round as the ceiling; medians, ratios, peak RSS; bench-results/<UTC time>.txt/.json and latest.txt/.json.
#
# Knobs (environment): BENCH_USERS (100000), BENCH_TOKENS (200000 access + refresh), BENCH_CODES (400000
# authorization codes), BENCH_DURATION (10, seconds per wrk run), BENCH_CODE_DURATION (5, code exchange: every code is
# used once, so its pool limits the run), BENCH_ROUNDS (5), BENCH_CONNECTIONS (64), BENCH_SIGNIN_CONNECTIONS (16),
# BENCH_THREADS (wrk threads, default nproc), BENCH_TIMEOUT (30s), BENCH_BCRYPT_COST (10: the cost of the imported
# hashes the sign-in load verifies), BENCH_BCRYPT_SECONDS (the raw bcrypt rate, measured in every round; default
# BENCH_DURATION), BENCH_ROUTES (which paths, default all, in this order within a round),
# BENCH_OUT (where the results go, default bench-results; point quick or profiling runs elsewhere, e.g. .build/bench),
# BENCH_SERVER_LOG (keep the server's log there; default discarded), BENCH_KEEP=1 (keep the work directory),
# BENCH_PERF="route …" (`perf record -g` on the server during those routes' first round, or round
# BENCH_PERF_ROUND, written to .build/perf-<route>.data; see docs/benchmarks.md, "Profiling").
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

users=${BENCH_USERS:-100000}
tokens=${BENCH_TOKENS:-200000}
codes=${BENCH_CODES:-400000}
duration=${BENCH_DURATION:-10}
code_duration=${BENCH_CODE_DURATION:-5}
rounds=${BENCH_ROUNDS:-5}
connections=${BENCH_CONNECTIONS:-64}
signin_connections=${BENCH_SIGNIN_CONNECTIONS:-16}
threads=${BENCH_THREADS:-$(nproc)}
timeout=${BENCH_TIMEOUT:-30s}
cost=${BENCH_BCRYPT_COST:-10}
bcrypt_seconds=${BENCH_BCRYPT_SECONDS:-$duration}
routes=${BENCH_ROUTES:-bare entity introspect verify page page_inm refresh update code bcrypt signin storm}
perf_route=${BENCH_PERF:-}
perf_round=${BENCH_PERF_ROUND:-0}
out_dir=${BENCH_OUT:-bench-results}
if [[ -n "$perf_route" ]] && ! command -v perf >/dev/null; then
  echo "BENCH_PERF needs perf (Debian: apt-get install linux-perf)" >&2
  exit 1
fi

say() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }

say "release build (capture-server, capturectl, capture-bench)"
for product in capture-server capturectl capture-bench; do swift build -c release --product "$product" >/dev/null; done
bin=$repo/.build/release

work=$(mktemp -d "${TMPDIR:-/tmp}/capture-bench.XXXXXX")
server=""
cleanup() {
  if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if [[ "${BENCH_KEEP:-}" == 1 ]]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"

# Settings: a copy of Settings/ with what the benchmark needs. One address (wrk on loopback) does all the sign-ins,
# so the per-address limits are raised; the per-account limits stay (each request signs in a different account).
cp -r Settings "$work/settings"
python3 - "$work/settings/service.json" "$work/bench.sqlite" "$repo/WebFlows" "$port" "$cost" <<'PY'
import json, sys
path, db, flows, port, cost = sys.argv[1:]
s = json.load(open(path))
s.update(database=db, webFlows=flows, port=int(port), bcryptCost=int(cost), accessTokenLifeHours=24,
         signInMaxFailuresPerAddress=1_000_000_000, registrationsPerAddress=1_000_000_000,
         codeRequestsPerAddress=1_000_000_000, purgeIntervalMinutes=1440)
# Half of generate-export.py's users have a proven address; /verify vouches for the others only for a client that
# allows it (issue 27), and its receipt then says email_verified: false. The check's work is the same either way.
for client in s["clients"]:
    if client["clientId"] == "demo-mobile-app":
        client["allowUnverifiedEmail"] = True
json.dump(s, open(path, "w"), indent=2)
PY
ctl=("$bin/capturectl")
common=(--db "$work/bench.sqlite" --settings "$work/settings")

say "seeding $users users (scripts/generate-export.py + capturectl user import)"
t0=$(date +%s.%N)
python3 scripts/generate-export.py --count "$users" --out "$work/export.jsonl" >/dev/null
export_seconds=$(elapsed "$t0")
t0=$(date +%s.%N)
"${ctl[@]}" user import "$work/export.jsonl" "${common[@]}" >"$work/import.log"
seed_users_seconds=$(elapsed "$t0")
say "users imported in ${seed_users_seconds}s (export written in ${export_seconds}s): $(tail -1 "$work/import.log")"

say "seeding $tokens tokens + $codes authorization codes (capture-bench seed-tokens)"
t0=$(date +%s.%N)
"$bin/capture-bench" seed-tokens "${common[@]}" --count "$tokens" --codes "$codes" --out "$work/pools" | tee "$work/seed.log" >&2
seed_tokens_seconds=$(elapsed "$t0")
# The last refresh token and code are kept out of the pools for the curl samples below.
sample_refresh=$(tail -1 "$work/pools/refresh.txt"); sed -i '$d' "$work/pools/refresh.txt"
sample_code=$(tail -1 "$work/pools/codes.txt"); sed -i '$d' "$work/pools/codes.txt"
# Sign-in accounts: generate-export.py's user N has the password "imported password N%3" (bcrypt cost 10).
python3 -c "import sys; n=int(sys.argv[1]); print('\n'.join(f'user{i}@example.com imported password {i % 3}' for i in range(n)))" \
  "$users" >"$work/pools/accounts.txt"

secret=$("${ctl[@]}" client add bench-backend --confidential --json "${common[@]}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["client_secret"])')
basic=$(printf 'bench-backend:%s' "$secret" | base64 -w0)

loadavg_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "starting the release capture-server on $base"
"$bin/capture-server" --settings "$work/settings" >"${BENCH_SERVER_LOG:-/dev/null}" 2>&1 &
server=$!
for _ in $(seq 300); do curl -fs "$base/health/ready" >/dev/null && break; sleep 0.1; done
curl -fs "$base/health/ready" >/dev/null || { say "the server did not become ready (rerun with BENCH_SERVER_LOG=file)"; exit 1; }

# One request of each kind with curl first: the load must measure successes, not refusals.
access=$(head -1 "$work/pools/access.txt")
audience=http://android.library # a redirect URI of demo-mobile-app, so /verify answers "okay"
sample() { # name, pattern the reply must contain, curl arguments…
  local name=$1 pattern=$2 reply; shift 2
  reply=$(curl -s -i "$@" || true)
  if ! grep -Eq "$pattern" <<<"$reply"; then say "sample $name failed: $(head -c 600 <<<"$reply")"; exit 1; fi
  say "sample $name ok"
}
sample bare '^HTTP/1.1 200' "$base/health/live"
sample entity '"stat" ?: ?"ok"' "$base/entity" -d "access_token=$access"
sample introspect '"active" ?: ?true' "$base/oauth/introspect" -u "bench-backend:$secret" -d "token=$access"
sample verify '"status" ?: ?"okay"' "$base/verify" -d "assertion=$access&audience=$audience"
sample page '<html' "$base/flows/webViewSignIn?client_id=demo-mobile-app"
sample update '"stat" ?: ?"ok"' "$base/entity.update" -d "access_token=$access&attribute_name=%2F" \
  --data-urlencode 'value={"givenName":"Bench"}'
sample refresh '"refresh_token"' "$base/oauth/token" \
  -d "grant_type=refresh_token&client_id=demo-mobile-app&refresh_token=$sample_refresh"
sample code '"access_token"' "$base/oauth/token" \
  -d "grant_type=authorization_code&client_id=demo-mobile-app&code=${sample_code% *}&code_verifier=${sample_code#* }"
sample signin '"access_token"' "$base/oauth/auth_native_traditional" \
  -d "client_id=demo-mobile-app&flow=webViewSignIn&locale=en-US&response_type=token&form=signInForm" \
  --data-urlencode "signInEmailAddress=user$((users - 1))@example.com" \
  --data-urlencode "currentPassword=imported password $(((users - 1) % 3))"
page_etag=$(curl -s -D - -o /dev/null "$base/flows/webViewSignIn?client_id=demo-mobile-app" |
  sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)\r$/\1/p')
if [[ -n "$page_etag" ]]; then
  sample page_inm '^HTTP/1.1 304' "$base/flows/webViewSignIn?client_id=demo-mobile-app" -H "If-None-Match: $page_etag"
else
  say "flow pages send no ETag: the If-None-Match load gets full 200 pages"
fi

mkdir -p "$work/wrk"
results=$work/results.txt
: >"$results"
load() { # route name, mode, round, seconds, connections, file, [log suffix]
  local name=$1 mode=$2 round=$3 seconds=$4 conns=$5 file=${6:-} out=$work/wrk/$1-$3.txt
  local url=$base/health/live ticks_before ticks_after
  ticks_before=$(server_ticks)
  BENCH_MODE=$mode BENCH_FILE=$file BENCH_THREADS=$threads BENCH_ROUND=$round BENCH_ROUNDS=$rounds \
    BENCH_BASIC=$basic BENCH_AUDIENCE=$audience BENCH_ETAG="${page_etag:-\"bench\"}" \
    BENCH_EXPECT_304=$([[ -n "$page_etag" ]] && echo 1 || echo 0) \
    wrk --latency -t"$threads" -c"$conns" -d"${seconds}s" --timeout "$timeout" -s scripts/bench/load.lua "$url" >"$out"
  local line
  ticks_after=$(server_ticks)
  line=$(grep '^BENCH ' "$out") || { say "$name round $round: wrk printed no BENCH line"; cat "$out" >&2; exit 1; }
  # The server's CPU time (user + system) per request during this load: steadier than req/s, which also moves
  # with what wrk and the rest of the machine take.
  local requests cpu_us
  requests=$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")
  cpu_us=$(python3 -c "import sys; t, hz, n = map(float, sys.argv[1:]); print(f'{t / hz / n * 1e6:.1f}' if n else 0)" \
    "$((ticks_after - ticks_before))" "$(getconf CLK_TCK)" "${requests:-0}")
  echo "route=$name round=$round ${line#BENCH } cpu_us=$cpu_us load1=$(cut -d' ' -f1 /proc/loadavg)" >>"$results"
  say "$name round $round: ${line#BENCH }"
}
# utime + stime of the server, in clock ticks (/proc/<pid>/stat fields 14 and 15, after the command name).
server_ticks() { sed 's/.*) //' "/proc/$server/stat" | awk '{print $12 + $13}'; }
pools=$work/pools
perf_pid=""
for ((round = 0; round < rounds; round++)); do
  for route in $routes; do
    if [[ " $perf_route " == *" $route "* && $round == "$perf_round" ]]; then
      perf record -g -F 499 -o "$repo/.build/perf-$route.data" -p "$server" >/dev/null 2>&1 &
      perf_pid=$!
      sleep 1
    fi
    case $route in
      bare) load bare bare "$round" "$duration" "$connections" ;;
      entity | introspect | verify | update) load "$route" "$route" "$round" "$duration" "$connections" "$pools/access.txt" ;;
      page | page_inm) load "$route" "$route" "$round" "$duration" "$connections" ;;
      refresh) load refresh refresh "$round" "$duration" "$connections" "$pools/refresh.txt" ;;
      code) load code code "$round" "$code_duration" "$connections" "$pools/codes.txt" ;;
      bcrypt)
        # The raw verify rate in-process, same cost, one thread per core, measured in every round just before the
        # sign-in load (the server idles meanwhile): the ceiling sign-in is compared with, round by round.
        line=$("$bin/capture-bench" bcrypt-rate --cost "$cost" --seconds "$bcrypt_seconds")
        echo "route=bcrypt round=$round rps=$(sed -n 's/.*per_second=\([0-9.]*\).*/\1/p' <<<"$line") $line" >>"$results"
        say "bcrypt round $round: $line"
        ;;
      signin) load signin signin "$round" "$duration" "$signin_connections" "$pools/accounts.txt" ;;
      storm)
        # The sign-in storm starts a second before the token checks and ends a second after them.
        load storm_signin signin "$round" $((duration + 2)) "$signin_connections" "$pools/accounts.txt" &
        storm=$!
        sleep 1
        load storm_entity entity "$round" "$duration" "$connections" "$pools/access.txt"
        wait "$storm"
        ;;
      *) say "unknown route $route"; exit 1 ;;
    esac
    if [[ -n "$perf_pid" ]]; then
      kill -INT "$perf_pid" 2>/dev/null || true
      wait "$perf_pid" || true
      perf_pid=""
      say "profile in .build/perf-$route.data"
    fi
  done
done
loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)
peak_kib=$(awk '/^VmHWM:/ {print $2}' "/proc/$server/status")
server_threads=$(awk '/^Threads:/ {print $2}' "/proc/$server/status")

stamp=$(date -u +%Y%m%dT%H%M%SZ)
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo "+local changes")
BENCH_PAGE_ETAG=$page_etag python3 - "$work/meta.json" <<PY
import json, os, sys
json.dump({
  "started": "$stamp", "commit": "$commit", "nproc": $(nproc),
  "cpu": """$(lscpu | sed -n 's/^Model name: *//p' | head -1)""",
  "memory": "$(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)",
  "loadavg_before": "$loadavg_before", "loadavg_after": "$loadavg_after",
  "users": $users, "tokens": $tokens, "codes": $codes,
  "export_seconds": $export_seconds, "seed_users_seconds": $seed_users_seconds, "seed_tokens_seconds": $seed_tokens_seconds,
  "seed_tokens": "$(cat "$work/seed.log")",
  "threads": $threads, "connections": $connections, "signin_connections": $signin_connections,
  "duration_s": $duration, "code_duration_s": $code_duration, "timeout": "$timeout", "rounds": $rounds,
  "bcrypt_cost": $cost, "bcrypt_seconds": $bcrypt_seconds,
  "page_etag": os.environ.get("BENCH_PAGE_ETAG", ""), "peak_rss_mib": round($peak_kib / 1024, 1), "server_threads": $server_threads,
  "wrk": "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)", "swift": "$(swift --version 2>&1 | head -1)",
}, open(sys.argv[1], "w"), indent=2)
PY
mkdir -p "$out_dir"
python3 scripts/bench/report.py "$work/meta.json" "$results" "$out_dir/$stamp"
cp "$results" "$out_dir/$stamp.raw.txt"
cp "$out_dir/$stamp.txt" "$out_dir/latest.txt"
cp "$out_dir/$stamp.json" "$out_dir/latest.json"
say "written $out_dir/$stamp.txt, .json (and latest.*); raw per-round lines in $out_dir/$stamp.raw.txt"
