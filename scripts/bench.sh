#!/usr/bin/env bash
# `make bench` (docs/benchmarks.md): release build; a fresh database per backend seeded through the project's own code
# (users by `capturectl user import`, tokens by `capture-bench seed-tokens`); the raw bcrypt verify rate in-process; one
# release capture-server on loopback per backend; wrk against each path in interleaved rounds (each path on each
# backend in turn), the bare /health/live measured in every round as each server's ceiling; medians, ratios, peak RSS,
# CPU per request (the server's, and PostgreSQL's own); bench-results/<UTC time>.txt/.json and latest.txt/.json.
#
# BENCH_BACKEND: sqlite (default), postgres, or both (side by side in one run). PostgreSQL is Debian's, started on
# loopback by scripts/with-postgres.sh with its durable defaults (fsync and synchronous commit on).
#
# Knobs (environment): BENCH_USERS (100000), BENCH_TOKENS (200000 access + refresh), BENCH_CODES (400000
# authorization codes), BENCH_DURATION (10, seconds per wrk run), BENCH_CODE_DURATION (5, code exchange: every code is
# used once, so its pool limits the run), BENCH_ROUNDS (5), BENCH_CONNECTIONS (64), BENCH_SIGNIN_CONNECTIONS (16),
# BENCH_THREADS (wrk threads, default nproc), BENCH_TIMEOUT (30s), BENCH_BCRYPT_COST (10: the cost of the imported
# hashes the sign-in load verifies), BENCH_BCRYPT_SECONDS (the raw bcrypt rate, measured in every round; default
# BENCH_DURATION), BENCH_ROUTES (which paths, default all, in this order within a round),
# BENCH_OUT (where the results go, default bench-results; point quick or profiling runs elsewhere, e.g. .build/bench),
# BENCH_SERVER_LOG (keep the server's log there; default discarded), BENCH_KEEP=1 (keep the work directory),
# BENCH_WARM_SECONDS (20 of /verify before the rounds; 0 leaves it out), BENCH_INSTANCES (1; 2: PostgreSQL's server as
# two instances behind nginx, round robin),
# BENCH_PERF="route …" (`perf record -g` on the server during those routes' first round, or round
# BENCH_PERF_ROUND, written to .build/perf-<route>.data; see docs/benchmarks.md, "Profiling").
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

case ${BENCH_BACKEND:-sqlite} in
  sqlite) backends=(sqlite) ;;
  postgres) backends=(postgres) ;;
  both) backends=(sqlite postgres) ;;
  *) echo "BENCH_BACKEND is sqlite, postgres or both" >&2; exit 2 ;;
esac
if [[ " ${backends[*]} " == *" postgres "* && -z "${CAPTURE_TEST_POSTGRES:-}" ]]; then
  exec env WITH_POSTGRES_DURABLE=1 scripts/with-postgres.sh "$0" "$@"
fi

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
routes=${BENCH_ROUTES:-bare entity server_entity server_find introspect verify page page_inm refresh update code bcrypt signin storm}
perf_route=${BENCH_PERF:-}
perf_round=${BENCH_PERF_ROUND:-0}
out_dir=${BENCH_OUT:-bench-results}
# 2: PostgreSQL's server is two instances on its database behind nginx (round robin), as docs/operations.md describes.
instances=${BENCH_INSTANCES:-1}
[[ $instances == 1 || $instances == 2 ]] || { echo "BENCH_INSTANCES is 1 or 2" >&2; exit 1; }
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
declare -A servers=() bases=() basics=() etags=()
# Every process a backend's requests reach (its instances), for CPU; and nginx's access log when it balances them.
declare -A instance_pids=() balancer_logs=()
extra_pids=()
cleanup() {
  for pid in "${servers[@]}" "${extra_pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  if [[ "${BENCH_KEEP:-}" == 1 ]]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The export is written once; each backend imports the same users.
say "writing $users users (scripts/generate-export.py)"
t0=$(date +%s.%N)
python3 scripts/generate-export.py --count "$users" --out "$work/export.jsonl" >/dev/null
export_seconds=$(elapsed "$t0")
declare -A seed_users_seconds=() seed_tokens_seconds=() seed_logs=()

# One backend: its settings, its database seeded, its server started and each kind of request tried once.
prepare() { # backend
  local b=$1 db port
  if [[ $b == sqlite ]]; then
    db=$work/bench.sqlite
  else
    psql -q "$CAPTURE_TEST_POSTGRES" -c "CREATE DATABASE bench" >/dev/null
    db=${CAPTURE_TEST_POSTGRES%/*}/bench
  fi
  port=$((20000 + RANDOM % 20000))
  local base="http://127.0.0.1:$port" front="" origin=""
  bases[$b]=$base
  # Two instances behind nginx show one origin (docs/operations.md: publicOrigin is the balancer's on every instance).
  if [[ $b == postgres && $instances == 2 ]]; then front=$((20000 + RANDOM % 20000)); origin=http://127.0.0.1:$front; fi
  # Settings: a copy of Settings/ with what the benchmark needs. One address (wrk on loopback) does all the sign-ins,
  # so the per-address limits are raised; the per-account limits stay (each request signs in a different account).
  cp -r Settings "$work/settings-$b"
  python3 - "$work/settings-$b/service.json" "$db" "$repo/WebFlows" "$port" "$cost" "$origin" <<'PY'
import json, sys
path, db, flows, port, cost, origin = sys.argv[1:]
s = json.load(open(path))
if origin:
    s["publicOrigin"] = origin
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
  local common=(--db "$db" --settings "$work/settings-$b") pools=$work/pools-$b t0
  say "$b: importing $users users (capturectl user import)"
  t0=$(date +%s.%N)
  "${ctl[@]}" user import "$work/export.jsonl" "${common[@]}" >"$work/import-$b.log"
  seed_users_seconds[$b]=$(elapsed "$t0")
  say "$b: users imported in ${seed_users_seconds[$b]}s: $(tail -1 "$work/import-$b.log")"

  say "$b: seeding $tokens tokens + $codes authorization codes (capture-bench seed-tokens)"
  t0=$(date +%s.%N)
  "$bin/capture-bench" seed-tokens "${common[@]}" --count "$tokens" --codes "$codes" --out "$pools" | tee "$work/seed-$b.log" >&2
  seed_tokens_seconds[$b]=$(elapsed "$t0")
  seed_logs[$b]=$(cat "$work/seed-$b.log")
  # The last refresh token and code are kept out of the pools for the curl samples below.
  local sample_refresh sample_code
  sample_refresh=$(tail -1 "$pools/refresh.txt"); sed -i '$d' "$pools/refresh.txt"
  sample_code=$(tail -1 "$pools/codes.txt"); sed -i '$d' "$pools/codes.txt"
  # The server API's pools: every imported record's uuid, and its address.
  python3 -c 'import json,sys; [print(json.loads(l)["uuid"]) for l in open(sys.argv[1]) if l.strip()]' \
    "$work/export.jsonl" >"$pools/uuids.txt"
  python3 -c "import sys; print('\n'.join(f'user{i}@example.com' for i in range(int(sys.argv[1]))))" "$users" \
    >"$pools/emails.txt"
  # Sign-in accounts: generate-export.py's user N has the password "imported password N%3" (bcrypt cost 10).
  python3 -c "import sys; n=int(sys.argv[1]); print('\n'.join(f'user{i}@example.com imported password {i % 3}' for i in range(n)))" \
    "$users" >"$pools/accounts.txt"

  local secret
  # A customer's backend: introspection, and Janrain's server API (records read by uuid and found by email).
  secret=$("${ctl[@]}" client add bench-backend --confidential --feature direct_access --json "${common[@]}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["client_secret"])')
  basics[$b]=$(printf 'bench-backend:%s' "$secret" | base64 -w0)

  say "$b: starting the release capture-server on $base"
  "$bin/capture-server" --settings "$work/settings-$b" >"${BENCH_SERVER_LOG:-/dev/null}${BENCH_SERVER_LOG:+.$b}" 2>&1 &
  servers[$b]=$!
  for _ in $(seq 300); do curl -fs "$base/health/ready" >/dev/null && break; sleep 0.1; done
  curl -fs "$base/health/ready" >/dev/null || { say "the server did not become ready (rerun with BENCH_SERVER_LOG=file)"; exit 1; }
  instance_pids[$b]=${servers[$b]}
  if [[ -n "$front" ]]; then balance "$b" "$port" "$front"; base=${bases[$b]}; fi

  # One request of each kind with curl first: the load must measure successes, not refusals.
  local access
  access=$(head -1 "$pools/access.txt")
  sample bare '^HTTP/1.1 200' "$base/health/live"
  sample entity '"stat" ?: ?"ok"' "$base/entity" -d "access_token=$access"
  sample server_entity '"stat" ?: ?"ok"' "$base/entity" -u "bench-backend:$secret" \
    -d "type_name=user&uuid=$(head -1 "$pools/uuids.txt")"
  sample server_find '"result_count" ?: ?1' "$base/entity.find" -u "bench-backend:$secret" \
    --data-urlencode "filter=email = 'user0@example.com'"
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
  etags[$b]=$(curl -s -D - -o /dev/null "$base/flows/webViewSignIn?client_id=demo-mobile-app" |
    sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)\r$/\1/p')
  if [[ -n "${etags[$b]}" ]]; then
    sample page_inm '^HTTP/1.1 304' "$base/flows/webViewSignIn?client_id=demo-mobile-app" -H "If-None-Match: ${etags[$b]}"
  else
    say "flow pages send no ETag: the If-None-Match load gets full 200 pages"
  fi
}
# A second instance of backend $1 on its database and settings (another port), and nginx in front of both (the
# configuration Tests/WebView/test_cluster.py runs): the backend's base becomes nginx's.
balance() { # backend, first instance's port, nginx's port
  local b=$1 first=$2 front=$3 second=$((20000 + RANDOM % 20000)) pid
  cp -r "$work/settings-$b" "$work/settings-$b-2"
  python3 -c "import json, sys; p = sys.argv[1]; s = json.load(open(p)); s['port'] = int(sys.argv[2]); json.dump(s, open(p, 'w'))" \
    "$work/settings-$b-2/service.json" "$second"
  "$bin/capture-server" --settings "$work/settings-$b-2" >/dev/null 2>&1 &
  pid=$!
  extra_pids+=("$pid")
  instance_pids[$b]="${servers[$b]} $pid"
  for _ in $(seq 300); do curl -fs "http://127.0.0.1:$second/health/ready" >/dev/null && break; sleep 0.1; done
  mkdir -p "$work/nginx"
  cat >"$work/nginx/nginx.conf" <<NGINX
$( ((EUID == 0)) && echo "user root;" || true)
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  log_format upstream '\$upstream_addr';
  access_log $work/nginx/access.log upstream;
  upstream capture { server 127.0.0.1:$first; server 127.0.0.1:$second; keepalive 64; }
  server {
    listen 127.0.0.1:$front;
    location / {
      proxy_pass http://capture;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
    }
  }
}
NGINX
  /usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g "daemon off;" >/dev/null 2>&1 &
  extra_pids+=("$!")
  bases[$b]="http://127.0.0.1:$front"
  balancer_logs[$b]=$work/nginx/access.log
  for _ in $(seq 100); do curl -fs "${bases[$b]}/health/ready" >/dev/null && break; sleep 0.1; done
  say "$b: two instances (ports $first and $second) behind nginx on ${bases[$b]}"
}
ctl=("$bin/capturectl")
audience=http://android.library # a redirect URI of demo-mobile-app, so /verify answers "okay"
sample() { # name, pattern the reply must contain, curl arguments…
  local name=$1 pattern=$2 reply; shift 2
  reply=$(curl -s -i "$@" || true)
  if ! grep -Eq "$pattern" <<<"$reply"; then say "sample $name failed: $(head -c 600 <<<"$reply")"; exit 1; fi
  say "sample $name ok"
}
loadavg_before=$(cut -d' ' -f1-3 /proc/loadavg)
for b in "${backends[@]}"; do prepare "$b"; done

mkdir -p "$work/wrk"
results=$work/results.txt
: >"$results"
load() { # route name, mode, round, seconds, connections, file (on the server of $backend)
  local name=$1 mode=$2 round=$3 seconds=$4 conns=$5 file=${6:-} out=$work/wrk/$backend-$1-$3.txt
  local url=${bases[$backend]}/health/live ticks_before ticks_after db_before db_after etag=${etags[$backend]}
  ticks_before=$(server_ticks)
  db_before=$(database_ticks)
  local log=${balancer_logs[$backend]:-} mark=0
  [[ -n "$log" ]] && mark=$(stat -c %s "$log")
  BENCH_MODE=$mode BENCH_FILE=$file BENCH_THREADS=$threads BENCH_ROUND=$round BENCH_ROUNDS=$rounds \
    BENCH_BASIC=${basics[$backend]} BENCH_AUDIENCE=$audience BENCH_ETAG="${etag:-\"bench\"}" \
    BENCH_EXPECT_304=$([[ -n "$etag" ]] && echo 1 || echo 0) \
    wrk --latency -t"$threads" -c"$conns" -d"${seconds}s" --timeout "$timeout" -s scripts/bench/load.lua "$url" >"$out"
  local line
  ticks_after=$(server_ticks)
  db_after=$(database_ticks)
  line=$(grep '^BENCH ' "$out") || { say "$backend $name round $round: wrk printed no BENCH line"; cat "$out" >&2; exit 1; }
  # The server's CPU time (user + system) per request during this load: steadier than req/s, which also moves
  # with what wrk and the rest of the machine take. On PostgreSQL, the database's own processes' too.
  local requests cpu_us db_us=""
  requests=$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")
  cpu_us=$(per_request "$((ticks_after - ticks_before))" "${requests:-0}")
  [[ $backend == postgres ]] && db_us=" db_cpu_us=$(per_request "$((db_after - db_before))" "${requests:-0}")"
  # Behind nginx: the share of the requests each instance answered (its access log names the upstream).
  local split=""
  if [[ -n "$log" ]]; then
    split=$(tail -c +$((mark + 1)) "$log" | sort | uniq -c | sort -k2 | awk '{printf " instance%d=%d", NR, $1}')
  fi
  echo "backend=$backend route=$name round=$round ${line#BENCH } cpu_us=$cpu_us$db_us$split load1=$(cut -d' ' -f1 /proc/loadavg)" >>"$results"
  say "$backend $name round $round: ${line#BENCH }"
}
# CPU time (ticks_of, cluster_ticks, per_request): scripts/bench/ticks.sh, which ab.sh shares.
source scripts/bench/ticks.sh
server_ticks() { ticks_of ${instance_pids[$backend]:-${servers[$backend]}}; }
database_ticks() { if [[ $backend == postgres ]]; then cluster_ticks "$CAPTURE_TEST_POSTGRES_DATA"; else echo 0; fi; }
perf_pid=""
# Before the rounds, each backend answers BENCH_WARM_SECONDS (default 20; 0 leaves it out) of /verify over the access
# tokens, not recorded: a token is checked many times in its life, and the rounds measure that steady state rather
# than a cache filling (PostgreSQL's first pass over 100,000 tokens takes about that long).
warm_seconds=${BENCH_WARM_SECONDS:-20}
if ((warm_seconds > 0)) && [[ " $routes " =~ \ (entity|introspect|verify|update|storm)\  ]]; then
  for backend in "${backends[@]}"; do
    BENCH_MODE=verify BENCH_FILE=$work/pools-$backend/access.txt BENCH_THREADS=$threads BENCH_ROUND=0 BENCH_ROUNDS=1 \
      BENCH_AUDIENCE=$audience wrk -t"$threads" -c"$connections" -d"${warm_seconds}s" --timeout "$timeout" \
      -s scripts/bench/load.lua "${bases[$backend]}/health/live" >"$work/wrk/$backend-warm.txt"
    say "$backend: warmed with ${warm_seconds} s of /verify ($(grep -o 'requests=[0-9]*' "$work/wrk/$backend-warm.txt"), not recorded)"
  done
fi
for ((round = 0; round < rounds; round++)); do
  for route in $routes; do
    if [[ $route == bcrypt ]]; then
      # The raw verify rate in-process, same cost, one thread per core, measured in every round just before the
      # sign-in load (the servers idle meanwhile): the ceiling sign-in is compared with, round by round.
      line=$("$bin/capture-bench" bcrypt-rate --cost "$cost" --seconds "$bcrypt_seconds")
      echo "route=bcrypt round=$round rps=$(sed -n 's/.*per_second=\([0-9.]*\).*/\1/p' <<<"$line") $line" >>"$results"
      say "bcrypt round $round: $line"
      continue
    fi
    for backend in "${backends[@]}"; do
      pools=$work/pools-$backend
      if [[ " $perf_route " == *" $route "* && $round == "$perf_round" ]]; then
        perf record -g -F 499 -o "$repo/.build/perf-$backend-$route.data" -p "${servers[$backend]}" >/dev/null 2>&1 &
        perf_pid=$!
        sleep 1
      fi
      case $route in
        bare) load bare bare "$round" "$duration" "$connections" ;;
        entity | introspect | verify | update) load "$route" "$route" "$round" "$duration" "$connections" "$pools/access.txt" ;;
        page | page_inm) load "$route" "$route" "$round" "$duration" "$connections" ;;
        server_entity) load server_entity server_entity "$round" "$duration" "$connections" "$pools/uuids.txt" ;;
        server_find) load server_find server_find "$round" "$duration" "$connections" "$pools/emails.txt" ;;
        refresh) load refresh refresh "$round" "$duration" "$connections" "$pools/refresh.txt" ;;
        code) load code code "$round" "$code_duration" "$connections" "$pools/codes.txt" ;;
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
        say "profile in .build/perf-$backend-$route.data"
      fi
    done
  done
done
# The server API's export and unindexed find, once per backend, after the rounds (they read every record).
for backend in "${backends[@]}"; do
  if [[ " $routes " == *" server_entity "* || " $routes " == *" server_find "* ]]; then
    say "$backend: a full export by id pages and a find on an unindexed attribute"
    scripts/bench/server-api.py "${bases[$backend]}" "${basics[$backend]}" "$users" >"$work/server-api-$backend.json"
    say "$backend: $(cat "$work/server-api-$backend.json")"
  else
    echo '{}' >"$work/server-api-$backend.json"
  fi
done
loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)
# What each backend's server used, and how its database was seeded.
for b in "${backends[@]}"; do
  # The peak of the largest instance.
  peak=$(for pid in ${instance_pids[$b]}; do awk '/^VmHWM:/ {print $2}' "/proc/$pid/status"; done | sort -n | tail -1)
  python3 - "$work/backend-$b.json" "$b" "$peak" \
    "$(awk '/^Threads:/ {print $2}' "/proc/${servers[$b]}/status")" "${seed_users_seconds[$b]}" \
    "${seed_tokens_seconds[$b]}" "${seed_logs[$b]}" "${etags[$b]}" "$(wc -w <<<"${instance_pids[$b]}")" <<'PY'
import json, sys
path, name, peak_kib, threads, users_s, tokens_s, seed_log, etag, instances = sys.argv[1:]
json.dump({"backend": name, "peak_rss_mib": round(int(peak_kib) / 1024, 1), "server_threads": int(threads),
           "server_api": json.load(open(path.replace("backend-", "server-api-"))),
           "seed_users_seconds": float(users_s), "seed_tokens_seconds": float(tokens_s), "seed_tokens": seed_log,
           "page_etag": etag, "instances": int(instances)}, open(path, "w"))
PY
done
postgres_version=""
[[ -n "${CAPTURE_TEST_POSTGRES:-}" ]] && postgres_version=$(psql -Atq "$CAPTURE_TEST_POSTGRES" -c "SHOW server_version")

stamp=$(date -u +%Y%m%dT%H%M%SZ)
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo "+local changes")
python3 - "$work/meta.json" "$work" "${backends[@]}" <<PY
import json, sys
path, work, backends = sys.argv[1], sys.argv[2], sys.argv[3:]
json.dump({
  "started": "$stamp", "commit": "$commit", "nproc": $(nproc),
  "cpu": """$(lscpu | sed -n 's/^Model name: *//p' | head -1)""",
  "memory": "$(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)",
  "loadavg_before": "$loadavg_before", "loadavg_after": "$loadavg_after",
  "users": $users, "tokens": $tokens, "codes": $codes, "export_seconds": $export_seconds,
  "threads": $threads, "connections": $connections, "signin_connections": $signin_connections,
  "duration_s": $duration, "code_duration_s": $code_duration, "timeout": "$timeout", "rounds": $rounds,
  "bcrypt_cost": $cost, "bcrypt_seconds": $bcrypt_seconds, "postgres": "$postgres_version",
  "wrk": "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)", "swift": "$(swift --version 2>&1 | head -1)",
  "backends": {b: json.load(open(f"{work}/backend-{b}.json")) for b in backends},
}, open(path, "w"), indent=2)
PY
mkdir -p "$out_dir"
python3 scripts/bench/report.py "$work/meta.json" "$results" "$out_dir/$stamp"
cp "$results" "$out_dir/$stamp.raw.txt"
cp "$out_dir/$stamp.txt" "$out_dir/latest.txt"
cp "$out_dir/$stamp.json" "$out_dir/latest.json"
say "written $out_dir/$stamp.txt, .json (and latest.*); raw per-round lines in $out_dir/$stamp.raw.txt"
