#!/usr/bin/env python3
"""Writes a Janrain-style user export for `capturectl user import`: JSON lines (as Janrain's bulk export gives
records) or CSV (dot paths for object members, a plural as one cell of JSON), and optionally times the import.

    scripts/generate-export.py --count 100000 --out /tmp/export.jsonl
    scripts/generate-export.py --count 100000 --out /tmp/export.jsonl --time .build/release/capturectl

Passwords are real bcrypt hashes of cost 10, but only three of them, reused across records (hashing 100k would
take hours): record N has password "imported password N%3" (see HASHES). --bad-every K makes every K-th record
one the import must refuse (cycling through: a plain-text password, a bad email, an unknown attribute, a duplicate
email, a value over its schema length). --time runs the import into a fresh database and prints the figures.
"""
import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

# bcrypt (cost 10) of "imported password 0", "… 1", "… 2"; as Janrain exports them, some in the object form.
HASHES = [
    "$2b$10$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP.",
    "$2b$10$r0M0TGulSRmH073wMewnjuvJMsAaL6jaLoD6sqmPdfxxHgl1Pnhpq",
    "$2b$10$TAawQrFkzo1IFJ9RR7zejO5p9uQfgGwUIGdGrsaADiuRnm1eXvnT.",
]
CITIES = ["Portland", "Lyon", "Osaka", "Cork", "Leipzig", "Quito"]
BAD_KINDS = ["plaintext", "email", "unknown", "duplicate", "length"]


def janrain_date(seconds):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds)) + ".000000 +0000"


def record(n, seed):
    created = 1_400_000_000 + n * 37
    rid = uuid.UUID(bytes=hashlib.sha256(f"{seed}-{n}".encode()).digest()[:16], version=4)
    hash_text = HASHES[n % 3]
    return {
        "uuid": str(rid),
        "id": n + 1,
        "email": f"user{n}@example.com",
        "emailVerified": janrain_date(created + 3600) if n % 2 == 0 else None,
        "created": janrain_date(created),
        "lastUpdated": janrain_date(created + 86400),
        "lastLogin": janrain_date(created + 172800) if n % 3 else None,
        "password": hash_text if n % 2 else {"type": "password-bcrypt", "value": hash_text},
        "displayName": f"User {n}",
        "givenName": "Given",
        "familyName": f"Family{n}",
        "birthday": f"19{70 + n % 30}-0{1 + n % 9}-1{n % 10}",
        "gender": None,
        "primaryAddress": {
            "address1": f"{n} Main Street",
            "city": CITIES[n % len(CITIES)],
            "zip": f"{10000 + n % 90000}",
            "country": "US",
            "phone": None,
        },
        "optIn": {"status": n % 4 == 0, "updated": janrain_date(created + 60)},
        "photos": [
            {"id": 10 * n + 1, "type": "small", "value": f"https://photos.example.com/{n}/small.jpg"},
            {"id": 10 * n + 2, "type": "large", "value": f"https://photos.example.com/{n}/large.jpg"},
        ],
        "statuses": [],
        "loyaltyPoints": n % 500,
    }


def spoil(rec, n, kind):
    if kind == "plaintext":
        rec["password"] = "hunter2-in-clear"
    elif kind == "email":
        rec["email"] = f"not-an-address-{n}"
    elif kind == "unknown":
        rec["favouriteColour"] = "teal"
    elif kind == "duplicate":
        rec["email"] = "user0@example.com"
    elif kind == "length":
        rec["displayName"] = "x" * 65
    return rec


CSV_COLUMNS = ["uuid", "id", "email", "emailVerified", "created", "lastUpdated", "lastLogin", "password",
               "displayName", "givenName", "familyName", "birthday", "primaryAddress.address1",
               "primaryAddress.city", "primaryAddress.zip", "primaryAddress.country", "optIn.status",
               "optIn.updated", "photos", "loyaltyPoints"]


def csv_row(rec):
    row = []
    for column in CSV_COLUMNS:
        value = rec
        for part in column.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if column == "password" and isinstance(value, dict):
            value = value["value"]
        if value is None:
            row.append("")
        elif isinstance(value, bool):
            row.append("true" if value else "false")
        elif isinstance(value, (list, dict)):
            row.append(json.dumps(value, separators=(",", ":")))
        else:
            row.append(str(value))
    return row


def write(args):
    bad = 0
    with open(args.out, "w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n") if args.format == "csv" else None
        if writer:
            writer.writerow(CSV_COLUMNS)
        for n in range(args.count):
            rec = record(n, args.seed)
            if args.bad_every and n % args.bad_every == args.bad_every - 1:
                rec = spoil(rec, n, BAD_KINDS[bad % len(BAD_KINDS)])
                bad += 1
            if writer:
                writer.writerow(csv_row(rec))
            else:
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
    return bad


def timed_import(binary, path, settings):
    with tempfile.TemporaryDirectory() as scratch:
        db = os.path.join(scratch, "capture.sqlite")
        started = time.monotonic()
        result = subprocess.run([binary, "user", "import", path, "--db", db, "--settings", settings, "--json"], capture_output=True, text=True,
                                env={k: v for k, v in os.environ.items() if not k.startswith("CAPTURE_")})
        elapsed = time.monotonic() - started
        if result.returncode not in (0, 1):
            sys.exit(f"import failed ({result.returncode}): {result.stderr}")
        summary = json.loads(result.stdout)
        print(f"imported {summary['imported']} of {summary['read']} records in {elapsed:.1f} s "
              f"({summary['imported'] / elapsed:,.0f} records/s); refused {summary['refused']}; "
              f"database {os.path.getsize(db) / 1e6:.0f} MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--format", choices=["jsonl", "csv"], default=None, help="default: from --out's extension")
    parser.add_argument("--bad-every", type=int, default=0, help="every K-th record is one the import must refuse")
    parser.add_argument("--seed", type=int, default=1, help="changes every uuid (for a second file)")
    parser.add_argument("--time", metavar="CAPTURECTL", help="then import the file with this capturectl and time it")
    parser.add_argument("--settings", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Settings"),
                        help="settings directory for --time (default: the repository's Settings)")
    args = parser.parse_args()
    args.format = args.format or ("csv" if args.out.endswith(".csv") else "jsonl")
    bad = write(args)
    print(f"wrote {args.count} records ({bad} to be refused) to {args.out}", file=sys.stderr)
    if args.time:
        timed_import(args.time, args.out, args.settings)


if __name__ == "__main__":
    main()
