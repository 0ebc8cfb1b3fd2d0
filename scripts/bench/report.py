#!/usr/bin/env python3
"""Turns scripts/bench.sh's raw lines into the text table and the JSON (bench-results/, docs/benchmarks.md).

    report.py META.json RESULTS.txt OUT_PREFIX

RESULTS.txt holds one line per wrk run, "backend=B route=NAME round=R" followed by load.lua's BENCH fields (the raw
bcrypt lines name no backend: both share them). Per backend and path: the median over rounds of req/s, p50 and p99,
and the median of the per-round ratios to the same server's bare route of the same round (req/s and p99), and the
server's CPU time per request (`cpu_us`: user + system, from /proc; on PostgreSQL also the database's, `db_cpu_us`).
Sign-in is also given as a ratio to the raw bcrypt verify rate; the entity check during a sign-in storm as a ratio to
the solo entity rate of the same round. With two backends, a table puts them side by side.
"""
import json
import statistics
import sys

ORDER = [
    ("bare", "GET /health/live (ceiling)"),
    ("entity", "POST /entity (token check)"),
    ("server_entity", "POST /entity by uuid (client)"),
    ("server_find", "POST /entity.find by email (client)"),
    ("introspect", "POST /oauth/introspect"),
    ("verify", "POST /verify"),
    ("page", "GET flow page"),
    ("page_inm", "GET flow page, If-None-Match"),
    ("refresh", "refresh grant (rotation)"),
    ("update", "POST /entity.update"),
    ("code", "code exchange (PKCE)"),
    ("signin", "sign-in (bcrypt-bound)"),
    ("storm_entity", "POST /entity during sign-in storm"),
    ("storm_signin", "sign-in storm (beside it)"),
]


NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


def parse(results_path):
    """{backend: {route: {round: values}}}; the shared bcrypt rounds under the backend None."""
    runs = {}
    for line in open(results_path):
        fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
        if "route" not in fields:
            continue
        backend, route, rnd = fields.pop("backend", None), fields.pop("route"), int(fields.pop("round"))
        values = {}
        for key, value in fields.items():
            try:
                values[key] = float(value)
            except ValueError:
                pass
        runs.setdefault(backend, {}).setdefault(route, {})[rnd] = values
    return runs


def summarize(runs, bcrypt):
    """The per-path figures of one backend's runs."""
    bare = runs.get("bare", {})
    paths = {}
    for route, _ in ORDER:
        rounds = runs.get(route)
        if not rounds:
            continue
        med = lambda key: statistics.median(r[key] for r in rounds.values())
        total = lambda key: int(sum(r[key] for r in rounds.values()))
        ratios = [r["rps"] / bare[n]["rps"] for n, r in rounds.items() if n in bare and bare[n]["rps"]]
        p99_ratios = [r["p99_us"] / bare[n]["p99_us"] for n, r in rounds.items() if n in bare and bare[n]["p99_us"]]
        entry = {
            "rps": round(med("rps"), 1), "p50_ms": round(med("p50_us") / 1000, 3), "p99_ms": round(med("p99_us") / 1000, 3),
            "ratio_to_bare": round(statistics.median(ratios), 3) if ratios else None,
            "p99_ratio_to_bare": round(statistics.median(p99_ratios), 2) if p99_ratios else None,
            "rounds": len(rounds), "requests": total("requests"), "ok": total("ok"),
            "errors": total("bad") + total("socket_errors") + total("timeouts"), "non2xx": total("non2xx"),
            "timeouts": total("timeouts"), "per_round_rps": [rounds[n]["rps"] for n in sorted(rounds)],
        }
        # The server's CPU per request (not for the storm, where two loads share the server).
        if not route.startswith("storm") and all("cpu_us" in r for r in rounds.values()):
            entry["server_cpu_us_per_request"] = round(med("cpu_us"), 1)
            if all("db_cpu_us" in r for r in rounds.values()):
                entry["database_cpu_us_per_request"] = round(med("db_cpu_us"), 1)
        if route in ("refresh", "code"):
            entry.update(pool=total("pool"), used=total("used"), exhausted=total("exhausted"))
        # Behind nginx: how many requests each instance answered, over the rounds.
        answered = [total(key) for key in ("instance1", "instance2") if all(key in r for r in rounds.values())]
        if len(answered) == 2 and sum(answered):
            entry["instance_requests"] = answered
        paths[route] = entry

    def per_round_ratio(route, base):
        ratios = [r["rps"] / base[n]["rps"] for n, r in runs.get(route, {}).items() if n in base and base[n]["rps"]]
        return round(statistics.median(ratios), 3) if ratios else None

    for route in ("signin", "storm_signin"):
        if route in paths and bcrypt:
            paths[route]["ratio_to_raw_bcrypt"] = per_round_ratio(route, bcrypt)
    if "storm_entity" in paths and "entity" in runs:
        paths["storm_entity"]["ratio_to_solo_entity"] = per_round_ratio("storm_entity", runs["entity"])
    return paths


def split(path):
    """'50/50': the share of the requests each instance answered."""
    answered = path.get("instance_requests")
    if not answered:
        return "-"
    first = round(100 * answered[0] / sum(answered))
    return f"{first}/{100 - first}"


def fmt(value, form):
    return form.format(value) if value is not None else "-"


def main(meta_path, results_path, prefix):
    meta = json.load(open(meta_path))
    runs = parse(results_path)
    bcrypt = runs.get(None, {}).get("bcrypt", {})
    raw = statistics.median(r["rps"] for r in bcrypt.values()) if bcrypt else None
    if raw:
        meta["bcrypt_raw_per_second"] = round(raw, 2)
        meta["bcrypt_raw_per_round"] = [bcrypt[n]["rps"] for n in sorted(bcrypt)]
    backends = list(meta["backends"])
    for backend in backends:
        meta["backends"][backend]["paths"] = summarize(runs.get(backend, {}), bcrypt)
    # The first backend's paths at the top level too, where earlier reports had them.
    report = dict(meta, paths=meta["backends"][backends[0]]["paths"])
    json.dump(report, open(prefix + ".json", "w"), indent=2)

    out = []
    out.append(f"capture-bridge benchmark {meta['started']} (commit {meta['commit']})")
    out.append(f"machine: {meta['nproc']} cores, {meta['cpu']}, {meta['memory']}; load average before/after: "
               f"{meta['loadavg_before']} / {meta['loadavg_after']}")
    out.append(f"data: {meta['users']} users, {meta['tokens']} tokens + {meta['codes']} authorization codes on each "
               f"backend ({', '.join(NAMES[b] for b in backends)}{', PostgreSQL ' + meta['postgres'] + ' durable defaults' if meta['postgres'] else ''}); "
               f"export generation {meta['export_seconds']} s")
    out.append(f"load: wrk -t{meta['threads']} -c{meta['connections']} (sign-in -c{meta['signin_connections']}) "
               f"-d{meta['duration_s']}s (code exchange -d{meta['code_duration_s']}s) --timeout {meta['timeout']}, "
               f"{meta['rounds']} interleaved rounds, medians; bcrypt cost {meta['bcrypt_cost']}")
    out.append("")
    for backend in backends:
        info = meta["backends"][backend]
        paths = info["paths"]
        out.append("")
        instances = info.get("instances", 1)
        out.append(f"== {NAMES[backend]}: seeding users {info['seed_users_seconds']} s (capturectl user import), tokens "
                   f"{info['seed_tokens_seconds']} s (capture-bench seed-tokens); server peak RSS (VmHWM) "
                   f"{info['peak_rss_mib']} MiB, {info['server_threads']} threads at the end"
                   + (f"; {instances} instances behind nginx (req/s is their sum, cpu µs both instances' "
                      "but not nginx's; split: the share each answered)" if instances > 1 else ""))
        api = info.get("server_api") or {}
        if api:
            out.append(f"server API: export of {api['export_records']} records by id pages of {api['export_batch']} "
                       f"in {api['export_seconds']} s ({api['export_pages']} calls); entity.find on an unindexed "
                       f"attribute {api['unindexed_find_ms']} ms, entity.count on one {api['unindexed_count_ms']} ms")
        out.append(f"{'path':<36} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'x bare':>7} {'p99 x':>6} {'errors':>7} "
                   f"{'cpu µs':>7} {'db µs':>7}" + (f" {'split':>9}" if instances > 1 else ""))
        for route, label in ORDER:
            p = paths.get(route)
            if not p:
                continue
            out.append(f"{label:<36} {p['rps']:>9.1f} {p['p50_ms']:>8.2f} {p['p99_ms']:>8.2f} "
                       f"{fmt(p['ratio_to_bare'], '{:.3f}'):>7} {fmt(p['p99_ratio_to_bare'], '{:.1f}'):>6} {p['errors']:>7} "
                       f"{fmt(p.get('server_cpu_us_per_request'), '{:.1f}'):>7} "
                       f"{fmt(p.get('database_cpu_us_per_request'), '{:.1f}'):>7}"
                       + (f" {split(p):>9}" if instances > 1 else ""))
        if "signin" in paths and raw:
            out.append(f"sign-in / raw bcrypt (median of per-round ratios): {paths['signin']['ratio_to_raw_bcrypt']:.3f}")
        if "storm_signin" in paths and raw:
            out.append(f"sign-in during the storm / raw bcrypt: {paths['storm_signin']['ratio_to_raw_bcrypt']:.3f}")
        if "storm_entity" in paths and "ratio_to_solo_entity" in paths["storm_entity"]:
            out.append(f"/entity during sign-in storm / solo /entity: {paths['storm_entity']['ratio_to_solo_entity']:.3f}")
        for route in ("refresh", "code"):
            if route in paths:
                p = paths[route]
                note = " (POOL RAN DRY: the rate is a lower bound; raise BENCH_CODES or lower BENCH_CODE_DURATION)" if p["exhausted"] else ""
                what = ("refresh tokens presented, each once (pool of " if route == "refresh" else "codes exchanged, each once (of ")
                out.append(f"{route}: {p['used']} {what}{p['pool']} at the start{', replies re-queued' if route == 'refresh' else ''}){note}")
        out.append(f"flow page ETag: {info['page_etag'] or 'none (pages send no ETag; If-None-Match gets a full 200)'}")
    if len(backends) == 2:
        first, second = backends
        a, b = meta["backends"][first]["paths"], meta["backends"][second]["paths"]
        out.append("")
        out.append(f"== side by side ({NAMES[second]} / {NAMES[first]}: req/s; each x bare of its own server; CPU µs a request)")
        out.append(f"{'path':<36} {NAMES[first][:9]:>9} {NAMES[second][:9]:>9} {'ratio':>6} {'x bare':>7} {'x bare':>7} "
                   f"{'cpu µs':>7} {'cpu µs':>7} {'db µs':>7}")
        for route, label in ORDER:
            if route not in a or route not in b:
                continue
            pa, pb = a[route], b[route]
            out.append(f"{label:<36} {pa['rps']:>9.1f} {pb['rps']:>9.1f} {pb['rps'] / pa['rps'] if pa['rps'] else 0:>6.2f} "
                       f"{fmt(pa['ratio_to_bare'], '{:.3f}'):>7} {fmt(pb['ratio_to_bare'], '{:.3f}'):>7} "
                       f"{fmt(pa.get('server_cpu_us_per_request'), '{:.1f}'):>7} "
                       f"{fmt(pb.get('server_cpu_us_per_request'), '{:.1f}'):>7} "
                       f"{fmt(pb.get('database_cpu_us_per_request'), '{:.1f}'):>7}")
    out.append("")
    if raw:
        out.append(f"raw bcrypt verify rate (cost {meta['bcrypt_cost']}, {meta['nproc']} threads, in-process, median of "
                   f"{len(bcrypt)} rounds): {raw:.2f}/s; per round {meta['bcrypt_raw_per_round']}")
    loads = [r.get("load1") for routes in runs.values() for rounds in routes.values() for r in rounds.values()
             if r.get("load1") is not None]
    if loads:
        out.append(f"1-minute load average during the runs: min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
                   f"max {max(loads):.2f} (it counts wrk's and the server's own threads too; compare runs with it)")
    errors = sum(p["errors"] for b in backends for p in meta["backends"][b]["paths"].values())
    out.append(f"errors (non-2xx, refused or unparsable replies, socket errors, timeouts): {errors}")
    open(prefix + ".txt", "w").write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
