#!/usr/bin/env python3
"""Server CPU per request by what the sampled stacks hold (docs/benchmarks.md, "Sorting samples by what their
stack holds").

Input on stdin: `perf script -F comm,ip,sym` of a `perf record -F HZ --call-graph fp` run, passed through
`swift demangle --simplified`. Each sample is a block of lines separated by a blank line: the thread, then one
frame a line, innermost first. A sample counts once, under the first share whose pattern one of its frames matches.

Usage: stack-shares.py REQUESTS [HZ]   (REQUESTS: wrk's request count over the recording; HZ: perf's -F, 499)
"""
import re
import sys

SHARES = [
    # PostgreSQL's client first: its frames would otherwise fall under the broader patterns below.
    (
        "postgres-nio and its pool",
        r"PostgresNIO|PSQL|ConnectionPool|Postgres(Channel|Backend|Frontend|Row|Cell|Query|Connection|Decod|Encod|Bind)",
    ),
    ("SQLite and GRDB", r"sqlite3|GRDB|Statement|DatabaseQueue|SerializedDatabase|DispatchQueue|_dispatch"),
    ("writing the record", r"writeEntity|StoredJSONText|CaptureDate"),
    ("token-check table", r"TokenCheckCache"),
    ("HTTP parsing", r"llhttp|HTTPDecoder|BetterHTTPParser"),
    ("writev of the reply", r"writev"),
    ("read", r"readFromSocket|__libc_read"),
    ("other async handler code", r"swift_task_switch|flagAsAndEnqueue|swift_job_run|runJobInEstablished"),
    ("malloc and free", r"malloc|_int_free|^free$|cfree|unlink_chunk"),
]


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    requests, hz = float(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 499.0
    patterns = [(name, re.compile(pattern)) for name, pattern in SHARES]
    counts = {name: 0 for name, _ in SHARES} | {"the rest": 0}
    for block in sys.stdin.read().split("\n\n"):
        lines = [line.strip() for line in block.strip().splitlines()]
        if len(lines) < 2:
            continue
        frames = [re.sub(r"^[0-9a-f]+ ", "", line) for line in lines[1:]]
        share = next((name for name, pattern in patterns if any(pattern.search(f) for f in frames)), "the rest")
        counts[share] += 1
    per_request = {name: count * 1e6 / hz / requests for name, count in counts.items()}
    print(f"{'all server samples':28s} {sum(per_request.values()):7.1f} µs per request")
    for name, micros in per_request.items():
        print(f"{name:28s} {micros:7.1f}")


if __name__ == "__main__":
    main()
