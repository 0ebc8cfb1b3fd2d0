#!/usr/bin/env bash
# Usage: scripts/with-postgres.sh COMMAND [ARGS...]
#
# Runs COMMAND against a throwaway PostgreSQL server (Debian's, see scripts/install-deps.sh): a fresh cluster in a new
# temporary directory, listening on 127.0.0.1 only, on a free port, tuned for test speed (no durability). COMMAND gets
# CAPTURE_TEST_POSTGRES=postgres://capture:<password>@127.0.0.1:<port>/postgres (a superuser: tests create their own
# databases from it); the script exits with COMMAND's status. The server is stopped and the directory removed when the
# script ends, and by a watchdog process if the script itself is killed (SIGKILL included), within a few seconds.
# CAPTURE_TEST_POSTGRES_DATA is the cluster's data directory (its postmaster.pid names the server, for CPU accounting).
set -euo pipefail

log() { echo "[with-postgres] $*" >&2; }

# Whether process $1 is running (and, given $2, still the process that had that start time). Read from /proc rather
# than `kill -0`, which also succeeds for a zombie: a dead process stays one until its parent reaps it, and the
# postmaster's parent is init, which on some machines (this VM's, for one) reaps only about once a second.
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }   # the fields after "(comm)": state is the first, start time the 20th
  [[ "${stat:0:1}" != [ZX] ]] && { [[ -z "${2:-}" ]] || [[ "$(echo "$stat" | awk '{print $20}')" == "$2" ]]; }
}
start_time() { local stat; stat=$(cat "/proc/$1/stat" 2>/dev/null) && echo "${stat##*) }" | awk '{print $20}'; }

# Stops the postmaster of the cluster in $1 (if any) and removes the directory. Shared by the normal exit path and the
# watchdog. Signals rather than `pg_ctl stop` so it needs no user switch: SIGINT is PostgreSQL's fast shutdown, and a
# postmaster that has not gone after 10 s is killed outright (its backends notice and exit on their own).
stop_and_remove() {
  local dir=$1 pid=""
  if [[ -r "$dir/data/postmaster.pid" ]]; then pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null || true); fi
  # The postmaster's working directory is its data directory: never signal a PID that was reused by something else.
  if [[ "$pid" =~ ^[0-9]+$ ]] && [[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" == "$dir/data" ]]; then
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 100); do running "$pid" || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}

# Watchdog mode (internal): started below in its own session, so that neither a SIGKILL of the wrapper nor a signal to
# the wrapper's whole process group takes it down too. Once the wrapper PID is gone, it cleans up after it.
if [[ "${1:-}" == "--watchdog" ]]; then
  wrapper_pid=$2 dir=$3
  wrapper_start=$(start_time "$wrapper_pid" || true)
  while [[ -d "$dir" ]] && running "$wrapper_pid" "$wrapper_start"; do sleep 1; done
  stop_and_remove "$dir"
  exit 0
fi

if (($# == 0)); then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi

# The highest installed Debian PostgreSQL major version (Debian installs each under /usr/lib/postgresql/<major>).
bin=""
for candidate in $(ls /usr/lib/postgresql 2>/dev/null | sort -n); do
  if [[ -x "/usr/lib/postgresql/$candidate/bin/postgres" && -x "/usr/lib/postgresql/$candidate/bin/initdb" ]]; then
    bin="/usr/lib/postgresql/$candidate/bin"
  fi
done
if [[ -z "$bin" ]]; then
  echo "error: no PostgreSQL server found under /usr/lib/postgresql; run scripts/install-deps.sh (Debian package postgresql)" >&2
  exit 1
fi
version=$("$bin/postgres" --version | awk '{print $3}')

# PostgreSQL refuses to run as root, so as root the cluster belongs to the postgres system user the Debian package
# creates. The cd keeps initdb/postgres from starting in a directory (e.g. /root) that user cannot read.
server_user=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
  server_user=postgres
  if ! id postgres >/dev/null 2>&1; then
    echo "error: running as root but there is no postgres system user; run scripts/install-deps.sh" >&2
    exit 1
  fi
fi
as_server_user() {
  if [[ $(id -u) -eq 0 ]]; then (cd "${dir:-/}" && runuser -u postgres -- "$@"); else (cd "${dir:-/}" && "$@"); fi
}

# The cluster directory. The server user must be able to reach it (TMPDIR may be under a root-only checkout, e.g.
# /work/main/.build/test-tmp), and the Unix socket path in it must fit in sun_path (107 bytes); otherwise use /tmp.
make_dir() {
  local parent=$1 candidate
  candidate=$(mktemp -d "$parent/with-postgres.XXXXXX") || return 1
  if [[ $(id -u) -eq 0 ]]; then chown postgres: "$candidate"; fi
  if ((${#candidate} + 20 > 107)) || ! as_server_user test -w "$candidate" -a -x "$candidate"; then
    rm -rf "$candidate"
    return 1
  fi
  echo "$candidate"
}
dir=$(make_dir "${TMPDIR:-/tmp}" 2>/dev/null) || dir=$(make_dir /tmp) || {
  echo "error: could not create a cluster directory the server user ($server_user) can use under ${TMPDIR:-/tmp} or /tmp" >&2
  exit 1
}

# From here on, always clean up: on a normal exit or a signal here, and through the watchdog if this shell is killed.
watchdog_pid=""
cleanup() {
  local status=$?
  if [[ -n "$watchdog_pid" ]]; then kill "$watchdog_pid" 2>/dev/null || true; fi
  stop_and_remove "$dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# stdio to /dev/null: a watchdog holding the caller's stdout/stderr open would keep a pipe reader waiting for EOF.
setsid bash "${BASH_SOURCE[0]}" --watchdog "$$" "$dir" </dev/null >/dev/null 2>&1 &
watchdog_pid=$!

# A per-run random password (hex, so the URL needs no escaping). The pwfile is only read by initdb, then deleted.
password=$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')
(umask 077 && printf '%s\n' "$password" >"$dir/pwfile")
if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir/pwfile"; fi

started_ms=$(($(date +%s%N) / 1000000))
if ! as_server_user "$bin/initdb" --pgdata="$dir/data" --username=capture --pwfile="$dir/pwfile" \
  --auth-host=scram-sha-256 --auth-local=trust --encoding=UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
  log "initdb failed:"
  tail -n 30 "$dir/initdb.log" >&2
  exit 1
fi
rm -f "$dir/pwfile"

# No durability (the cluster is thrown away), room for tests that open many connections, loopback TCP only.
# WITH_POSTGRES_DURABLE=1 (make bench) keeps PostgreSQL's durable defaults: fsync, synchronous commit, full pages.
cat >>"$dir/data/postgresql.conf" <<EOF

# scripts/with-postgres.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
max_connections = 500
# Every test world migrates its own schema in one transaction, each table and index a lock until commit: with
# hundreds of worlds opening at once, 64 (the default) a connection ran the shared lock table out ("out of shared
# memory") once the OpenID Connect and webhook tables came.
max_locks_per_transaction = 512
EOF
# WITH_POSTGRES_STATEMENTS=1 loads pg_stat_statements (profiling: which statements a request runs, how often, how long).
if [[ "${WITH_POSTGRES_STATEMENTS:-}" == 1 ]]; then
  printf '%s\n' "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = all" \
    >>"$dir/data/postgresql.conf"
fi
if [[ "${WITH_POSTGRES_DURABLE:-}" != 1 ]]; then
  printf '%s\n' "fsync = off" "synchronous_commit = off" "full_page_writes = off" "shared_buffers = 64MB" \
    >>"$dir/data/postgresql.conf"
fi

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Another process may take the port between the check and the bind, so a bind failure means: try another port.
up=""
for _ in 1 2 3 4 5; do
  port=$(shuf -i 20000-60000 -n 1)
  port_in_use "$port" && continue
  rm -f "$dir/postgres.log" "$dir/pg_ctl.log"   # so that the checks below see this attempt only
  # pg_ctl starts the postmaster in a session of its own: a Ctrl-C reaches COMMAND and this script, not the server,
  # which the EXIT trap then stops in order (and which is why a SIGKILLed wrapper needs the watchdog).
  if as_server_user "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/postgres.log" --options="-p $port" \
    --wait --timeout=30 --silent start >/dev/null 2>>"$dir/pg_ctl.log"; then
    up=1
    break
  fi
  grep -q "could not bind\|Address already in use" "$dir/postgres.log" 2>/dev/null || break
  log "port $port was taken, trying another"
done
# pg_ctl --wait only knows the postmaster is ready; make sure TCP connections on loopback are accepted too.
if [[ -n "$up" ]] && command -v pg_isready >/dev/null; then
  up=""
  for _ in $(seq 100); do
    if pg_isready --quiet --host=127.0.0.1 --port="$port" --timeout=1; then up=1; break; fi
    sleep 0.1
  done
fi
if [[ -z "$up" ]]; then
  log "PostgreSQL did not start; server log:"
  tail -n 20 "$dir/postgres.log" "$dir/pg_ctl.log" >&2 2>/dev/null || true
  exit 1
fi
elapsed_ms=$(($(date +%s%N) / 1000000 - started_ms))
log "PostgreSQL $version on 127.0.0.1:$port (cluster in $dir, ready in $((elapsed_ms / 1000)).$((elapsed_ms % 1000 / 100)) s)"

export CAPTURE_TEST_POSTGRES="postgres://capture:$password@127.0.0.1:$port/postgres"
export CAPTURE_TEST_POSTGRES_DATA="$dir/data"
unset password
# Not exec: the EXIT trap has to outlive COMMAND to stop the server.
status=0
"$@" || status=$?
exit "$status"
