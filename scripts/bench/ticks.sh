# CPU time as make bench and ab.sh count it (sourced by both).
# utime + stime in clock ticks (/proc/<pid>/stat fields 14 and 15, after the command name) of processes, and of a
# PostgreSQL cluster: its postmaster and children (its backends for the server's connections, the WAL writer, …), with
# the postmaster's cutime + cstime (fields 16 and 17), so that a child that ended meanwhile (a pooled connection
# closed once idle, an autovacuum worker) is counted there once reaped.
ticks_of() { for pid in "$@"; do sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null || true; done | awk '{t += $12 + $13} END {print t + 0}'; }
cluster_ticks() { # data directory
  local postmaster reaped
  postmaster=$(head -1 "$1/postmaster.pid" 2>/dev/null) || { echo 0; return; }
  reaped=$(sed 's/.*) //' "/proc/$postmaster/stat" 2>/dev/null | awk '{print $14 + $15 + 0}')
  echo $(($(ticks_of "$postmaster" $(cat "/proc/$postmaster/task/$postmaster/children" 2>/dev/null)) + ${reaped:-0}))
}
per_request() { # clock ticks, requests -> µs per request
  python3 -c "import sys; t, hz, n = map(float, sys.argv[1:]); print(f'{t / hz / n * 1e6:.1f}' if n else 0)" \
    "$1" "$(getconf CLK_TCK)" "$2"
}
