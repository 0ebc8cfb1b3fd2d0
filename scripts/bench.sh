#!/usr/bin/env bash
# Release build, one server on loopback, wrk load per route; figures as ratios to the bare /health/live route.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${BENCH_DURATION:-10s}"
connections="${BENCH_CONNECTIONS:-32}"
swift build -c release --product capture-server >/dev/null
work="$(mktemp -d)"
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
.build/release/capture-server --port "$port" --db "$work/bench.sqlite" --settings Settings >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -fs "$base/health/ready" >/dev/null && break; sleep 0.1; done

common="client_id=demo-mobile-app&flow=webViewSignIn&locale=en-US&response_type=token"
token=$(curl -fs "$base/oauth/register_native_traditional" \
  -d "$common&form=registrationForm&emailAddress=bench@example.com&displayName=Bench&newPassword=bench-password&newPasswordConfirm=bench-password" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')

post_script() { # $1 = body
  cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = "$1"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
LUA
  echo "$work/post.lua"
}

run() { # name, path, [lua script], [connections]
  local out rps
  out=$(wrk -t2 -c"${4:-$connections}" -d"$duration" ${3:+-s "$3"} "$base$2")
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  printf '%s %s\n' "$1" "$rps"
}

{
  run bare /health/live
  run entity /entity "$(post_script "access_token=$token")"
  run page "/flows/webViewSignIn?client_id=demo-mobile-app"
  run asset /flows/assets/capture-ui.js
  BENCH_SIGNIN=$(post_script "$common&form=signInForm&signInEmailAddress=bench@example.com&currentPassword=bench-password")
  # One account from one address: attempts are charged before bcrypt, and more than signInMaxFailures (10) in
  # flight at once are refused by design, so sign-in runs with 4 connections (enough to keep 2 cores hashing).
  run sign_in /oauth/auth_native_traditional "$BENCH_SIGNIN" 4
} >"$work/results"

rss_kib=$(ps -o rss= -p "$server" | tr -d ' ')
bare=$(awk '$1=="bare" {print $2}' "$work/results")
mkdir -p bench-results
{
  echo "capture-bridge benchmark $(date -u +%Y-%m-%dT%H:%M:%SZ), wrk -c$connections -d$duration on loopback, release build"
  printf '%-10s %12s %10s\n' route req/s ratio
  awk -v bare="$bare" '{printf "%-10s %12.0f %10.3f\n", $1, $2, $2/bare}' "$work/results"
  echo "server RSS after load: $((rss_kib / 1024)) MiB"
} | tee bench-results/latest.txt
