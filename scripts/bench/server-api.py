#!/usr/bin/env python3
"""The server API's one-off figures for scripts/bench.sh, as a customer's backend would meet them: a full export by
Janrain's advice (`sort_on ["id"]`, `filter "id > <last>"`, `max_results` per batch, HTTP Basic), and an
`entity.find` on an attribute no index covers (`familyName`), which reads every record within its timeout.

    scripts/bench/server-api.py BASE BASIC USERS  ->  one JSON object on stdout
"""
import json
import sys
import time
import urllib.parse
import urllib.request

base, basic, users = sys.argv[1], sys.argv[2], int(sys.argv[3])


def call(path, **fields):
    body = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(base + path, data=body, headers={
        "Authorization": "Basic " + basic, "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=120) as reply:
        answer = json.load(reply)
    if answer.get("stat") != "ok":
        raise SystemExit("%s answered %s" % (path, answer))
    return answer


batch, last, seen, pages = 1000, 0, 0, 0
start = time.monotonic()
while True:
    page = call("/entity.find", type_name="user", filter="id > %d" % last, sort_on='["id"]', max_results=batch)
    results = page["results"]
    pages += 1
    seen += len(results)
    if len(results) < batch:
        break
    last = results[-1]["id"]
export_seconds = time.monotonic() - start
if seen != users:
    raise SystemExit("the export saw %d records of %d" % (seen, users))

start = time.monotonic()
unindexed = call("/entity.find", type_name="user", filter="familyName = 'Family%d'" % (users - 1), timeout=60)
unindexed_ms = (time.monotonic() - start) * 1000
if unindexed["result_count"] != 1:
    raise SystemExit("the unindexed find matched %s" % unindexed["result_count"])
start = time.monotonic()
counted = call("/entity.count", type_name="user", filter="familyName != 'nobody'", timeout=60)
count_ms = (time.monotonic() - start) * 1000
json.dump({"export_seconds": round(export_seconds, 2), "export_records": seen, "export_pages": pages,
           "export_batch": batch, "unindexed_find_ms": round(unindexed_ms, 1),
           "unindexed_count_ms": round(count_ms, 1), "unindexed_count": counted["total_count"]}, sys.stdout)
