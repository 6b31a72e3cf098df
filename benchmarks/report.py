"""Tables and targets.  Everything here is pure: results in, text out.

Ratios are always medians of per-round ratios (both sides measured in the
same round), never a ratio of two medians; absolute numbers are printed only
next to ratios measured in the same run.
"""

from __future__ import annotations

import statistics

from benchmarks import contenders
from benchmarks.scenarios import TIMED
from benchmarks.startup import FASTIFY_VERSION

TITLES = {key: scenario.title for key, scenario in TIMED.items()}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def table(headers, rows, title=None, left=1):
    """Aligned text table; the first ``left`` columns are left-aligned."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row]
                                           for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def fmt(row):
        out = []
        for i, cell in enumerate(row):
            out.append(cell.ljust(widths[i]) if i < left else cell.rjust(widths[i]))
        return "  ".join(out).rstrip()

    lines = []
    if title:
        lines += [title, "-" * len(title)]
    lines.append(fmt(cells[0]))
    lines.append("  ".join("-" * w for w in widths))
    lines += [fmt(row) for row in cells[1:]]
    return "\n".join(lines)


def fx(ratio):
    return "-" if ratio is None else f"{ratio:.2f}x"


def rate(value):
    return "-" if value is None else f"{value:,.0f}"


def round_ratio(a, b):
    """Median over rounds of a[i] / b[i]."""
    if not a or not b:
        return None
    return median(x / y for x, y in zip(a, b) if x is not None and y)


# ----------------------------------------------------------------- in-process
def inprocess_ratio(res, key, a, b):
    rates = res["scenarios"].get(key, {}).get("rates", {})
    return round_ratio(rates.get(a), rates.get(b))


def inprocess_report(res):
    parts = []
    status_rows = [(name, res["status"][name]) for name in res["status"]]
    parts.append(table(("contender", "correctness check"), status_rows,
                       "In-process: correctness (checked before timing)", left=2))
    for key, scen in res["scenarios"].items():
        rates = scen["rates"]
        if not rates:
            continue
        rows = []
        for name in rates:
            rows.append((contenders.describe(name), rate(median(rates[name])),
                         fx(round_ratio(rates[name], rates.get("falcon"))),
                         fx(round_ratio(rates[name], rates.get("handwritten"))),
                         fx(round_ratio(rates.get("ours"), rates[name]))))
        parts.append(table(
            ("contender", "calls/s (median)", "vs Falcon", "vs hand-written", "ours is"),
            rows, f"In-process {key} {scen['title']} - {res['rounds']} interleaved rounds"))
    keys = [k for k, scen in res["scenarios"].items() if scen["rates"]]
    if keys and "ours" in res["scenarios"][keys[0]]["rates"]:
        names = list(res["scenarios"][keys[0]]["rates"])
        rows = [[contenders.describe(n)] + [fx(inprocess_ratio(res, k, "ours", n)) for k in keys]
                for n in names if n != "ours"]
        parts.append(table(["ours is ... x this contender"] + keys, rows,
                           "In-process summary: ours / contender, median of per-round ratios"))
    if res.get("harness_us") is not None:
        parts.append(f"The harness itself (environ copy, fresh BytesIO, draining the answer) costs "
                     f"{res['harness_us']:.2f} us per call, included in every figure above as a "
                     "server's own per-request work would be.")
    return "\n\n".join(parts)


# ----------------------------------------------------------------------- HTTP
def _http_values(runs, field):
    """One value per round, None where that round's run failed (keeps rounds aligned)."""
    return [None if "error" in r else r.get(field) for r in runs]


def http_report(res):
    if res.get("skipped"):
        return "HTTP runner skipped: " + res["skipped"]
    parts = []
    parts.append(table(("server", "correctness check"), list(res["status"].items()),
                       "HTTP: correctness (checked before load)", left=2))
    keys = []
    for rows in res["rows"].values():
        keys = list(rows)
        break
    from benchmarks.http import SERVERS

    for key in keys:
        rows = []
        for label, per in res["rows"].items():
            runs = per[key]
            ok = [r for r in runs if "error" not in r]
            rps = _http_values(runs, "rps")
            # Only servers of one worker count run in the same rounds: compare with
            # ours on granian with as many workers.
            workers = SERVERS[label.split(" @ ", 1)[1]][1]
            ref = res["rows"].get(f"ours @ granian-{workers}", {}).get(key)
            fastify = res["rows"].get(FASTIFY, {}).get(key) if workers == 1 else None
            rows.append((
                label, rate(median(rps)),
                fx(round_ratio(_http_values(ref, "rps"), rps) if ref and ok else None),
                fx(round_ratio(rps, _http_values(fastify, "rps")) if fastify and ok else None),
                "-" if not ok else f"{median(_http_values(runs, 'p50_us')) / 1000:.2f}",
                "-" if not ok else f"{median(_http_values(runs, 'p99_us')) / 1000:.2f}",
                sum(r["non2xx"] for r in ok),
                sum(r["connect"] + r["read"] + r["write"] + r["timeout"] for r in ok),
                len(runs) - len(ok),
            ))
        from benchmarks import scenarios

        parts.append(table(
            ("contender @ server", "req/s", "ours@granian-N is", "row/Fastify", "p50 ms",
             "p99 ms", "non-2xx", "socket errors", "failed runs"),
            rows, f"HTTP {key} {scenarios.TIMED[key].title} - wrk -c{res['connections']} "
                  f"-d{res['duration']}s, {res['rounds']} interleaved rounds; "
                  "ours@granian-N: ours on granian with the row's worker count; "
                  "row/Fastify: this row's req/s over Fastify's on Node (1-worker rows)"))
    if keys:
        rows = []
        for label, per in res["rows"].items():
            workers = SERVERS[label.split(" @ ", 1)[1]][1]
            ref = res["rows"].get(f"ours @ granian-{workers}", {})
            rows.append([label] + [
                fx(round_ratio(_http_values(ref[k], "rps"), _http_values(per[k], "rps"))
                   if ref.get(k) else None) for k in keys])
        parts.append(table(["ours@granian-N is ... x this server"] + keys, rows,
                           "HTTP summary: ours on granian (same worker count) / row, "
                           "median of per-round req/s ratios"))
        parts.append(fastify_report(res, keys))
        parts.append(survey_report(res, keys))
        parts.append(floor_report(res, keys))
    return "\n\n".join(p for p in parts if p)


FASTIFY = "fastify @ node-1"


def _ratio(res, a, b, key):
    """Median of per-round req/s ratios of rows ``a`` over ``b`` on scenario ``key``."""
    runs_a = res["rows"].get(a, {}).get(key)
    runs_b = res["rows"].get(b, {}).get(key)
    if not runs_a or not runs_b:
        return None
    return round_ratio(_http_values(runs_a, "rps"), _http_values(runs_b, "rps"))


def _rps(res, label, key):
    runs = res["rows"].get(label, {}).get(key)
    return median(_http_values(runs, "rps")) if runs else None


def fastify_report(res, keys):
    """Fastify on Node against ours and the hand-written twin on granian, one worker each."""
    if FASTIFY not in res["rows"]:
        return f"HTTP against Fastify: {res['status'].get(FASTIFY, 'not run')}"
    version = res.get("fastify_version") or FASTIFY_VERSION
    rows = [(f"{key} {TITLES[key]}", rate(_rps(res, FASTIFY, key)),
             rate(_rps(res, "ours @ granian-1", key)),
             fx(_ratio(res, "ours @ granian-1", FASTIFY, key)),
             rate(_rps(res, "handwritten @ granian-1", key)),
             fx(_ratio(res, "handwritten @ granian-1", FASTIFY, key))) for key in keys]
    out = table(("scenario", f"Fastify {version} req/s", "ours@granian-1", "ours/Fastify",
                 "twin@granian-1", "twin/Fastify"), rows,
                f"HTTP against Fastify {version} on Node (one process), one worker each; "
                "ratios are medians of per-round ratios")
    differ = {label: ks for label, ks in res.get("bodies_unlike_fastify", {}).items() if ks}
    same = [label for label, ks in res.get("bodies_unlike_fastify", {}).items() if not ks]
    if "ours @ granian-1" in same:
        out += "\nours sends byte-for-byte the bodies Fastify sends on every check."
    for label, ks in differ.items():
        if label.startswith(("ours @", "handwritten @")):
            out += f"\n{label}: body bytes differ from Fastify's on {', '.join(ks)}"
    return out


def survey_report(res, keys):
    """The server survey: ours and the twin on every 1-worker WSGI server."""
    from benchmarks.http import SURVEY_SERVERS

    rows = []
    for server in SURVEY_SERVERS:
        ours, twin = f"ours @ {server}", f"handwritten @ {server}"
        if ours not in res["rows"] and twin not in res["rows"]:
            continue
        for key in keys:
            rows.append((server, key, rate(_rps(res, ours, key)), rate(_rps(res, twin, key)),
                         fx(_ratio(res, ours, twin, key)), fx(_ratio(res, ours, FASTIFY, key)),
                         fx(_ratio(res, twin, FASTIFY, key))))
    absent = sorted({f"{label.split(' @ ', 1)[1]}: {verdict}"
                     for label, verdict in res["status"].items()
                     if label.split(" @ ", 1)[1] in SURVEY_SERVERS and verdict != "ok"})
    if not rows and not absent:
        return ""
    out = table(("server (1 worker)", "scenario", "ours req/s", "twin req/s", "ours/twin",
                 "ours/Fastify", "twin/Fastify"), rows,
                "Server survey: ours and the hand-written twin on each WSGI server, one worker; "
                "ratios are medians of per-round ratios", left=2) if rows else ""
    if absent:
        out += "\nnot run: " + "; ".join(absent)
    return out.strip()


def floor_report(res, keys):
    """S2's floor (``benchmarks/contenders/floor.py``) beside the twin and ours, per server it ran on."""
    rows = []
    for label in res["rows"]:
        if not label.startswith("floor @ ") or "S2" not in keys:
            continue
        server = label.split(" @ ", 1)[1]
        ours, twin = f"ours @ {server}", f"handwritten @ {server}"
        rows.append((server, rate(_rps(res, label, "S2")), rate(_rps(res, twin, "S2")),
                     rate(_rps(res, ours, "S2")), fx(_ratio(res, label, twin, "S2")),
                     fx(_ratio(res, ours, label, "S2")), fx(_ratio(res, ours, twin, "S2"))))
    if not rows:
        return ""
    return table(("server", "floor req/s", "twin req/s", "ours req/s", "floor/twin", "ours/floor",
                  "ours/twin"), rows,
                 "S2's floor: the API written out by hand (benchmarks/contenders/floor.py); "
                 "ratios are medians of per-round ratios")


# -------------------------------------------------------------------- startup
def startup_report(res):
    from benchmarks.startup import FASTIFY_REFERENCE

    rows = []
    for mode, per in res["results"].items():
        for who, runs in per.items():
            if who == "fastify" and runs:
                who = f"Fastify {runs[0].get('version', '4.29')}"
            if not runs:
                rows.append((f"{who} ({mode})", "failed", "", "", "", "", ""))
                continue
            rows.append((
                f"{who} ({mode})",
                f"{median(r['total_s'] for r in runs):.3f}",
                f"{median(r['declare_s'] for r in runs):.3f}",
                f"{median(r['ready_s'] for r in runs):.3f}",
                f"{median(r['import_s'] for r in runs):.3f}",
                f"{median(r['rss_mb'] for r in runs):.0f}",
                f"{median(r['peak_mb'] for r in runs):.0f}",
            ))
        if not res.get("fastify"):
            rows.append((f"Fastify 4.29 ({mode}), issue's figure for 1000 routes",
                         f"{FASTIFY_REFERENCE[mode]:.3f}", "", "", "", "208", ""))
    out = table(("S5 start-up", "to ready s", "declare s", "ready() s", "import s",
                 "RSS MB", "peak MB"), rows,
                f"S5 start-up: {res['routes']} routes, median of {res['repeats']} fresh "
                "subprocess(es) each")
    for mode, errs in res.get("errors", {}).items():
        for who, err in errs.items():
            out += f"\n  {who} ({mode}) failed: {err.strip().splitlines()[-1] if err else ''}"
    return out


# ---------------------------------------------------------------------- micro
def micro_report(title, rows):
    if not rows:
        return f"{title}: no rows"
    headers = []
    for row in rows:
        for k in row:
            if k not in headers:
                headers.append(k)

    def show(v):
        if isinstance(v, float):
            return f"{v:,.2f}" if abs(v) < 1000 else f"{v:,.0f}"
        return v

    return table(headers, [[show(row.get(h)) for h in headers] for row in rows], title)


# -------------------------------------------------------------------- targets
def targets(inproc=None, http=None, startup=None):
    """[(target, measured, verdict)] with verdict PASS, MISS or n/a."""
    out = []

    def add(desc, value, ok, shown=None):
        if value is None:
            out.append((desc, "not measured", "n/a"))
        else:
            out.append((desc, shown if shown is not None else fx(value),
                        "PASS" if ok(value) else "MISS"))

    if inproc is not None:
        r = lambda key, peer: inprocess_ratio(inproc, key, "ours", peer)  # noqa: E731
        for key in ("S1", "S2"):
            add(f"in-process {key}: ours >= 1.5x Falcon", r(key, "falcon"), lambda v: v >= 1.5)
            add(f"in-process {key}: ours >= 10x Flask", r(key, "flask"), lambda v: v >= 10)
        add("in-process S3: ours >= 2x Bottle (+fastjsonschema)", r("S3", "bottle"),
            lambda v: v >= 2)
        add("in-process S3: ours within 1.5x of hand-written (>= 0.67x)",
            r("S3", "handwritten"), lambda v: v >= 1 / 1.5)
        add("in-process S4: ours >= 1.5x Bottle", r("S4", "bottle"), lambda v: v >= 1.5)
        for key in ("S1", "S2", "S4"):
            add(f"in-process {key}: ours within 3x of hand-written (>= 0.33x)",
                r(key, "handwritten"), lambda v: v >= 1 / 3)
    if http is not None and not http.get("skipped"):
        rows = http["rows"]
        ours = rows.get("ours @ granian-1", {})
        for key in ("S1", "S2", "S3", "S4"):
            for peer in ("fastapi", "litestar"):
                peer_runs = rows.get(f"{peer} @ uvicorn-1", {}).get(key)
                ours_runs = ours.get(key)
                value = None
                if peer_runs and ours_runs:
                    value = round_ratio(_http_values(ours_runs, "rps"),
                                        _http_values(peer_runs, "rps"))
                add(f"HTTP {key}: ours@granian-1 > {peer}@uvicorn-1 req/s", value,
                    lambda v: v > 1)
    if startup is not None:
        from benchmarks.startup import FASTIFY_REFERENCE

        res = startup["results"]
        n = startup["routes"]
        ours_d = median(x["total_s"] for x in res.get("distinct", {}).get("ours", []))
        fast_d = median(x["total_s"] for x in res.get("distinct", {}).get("fastify", []))
        ref = fast_d if fast_d is not None else FASTIFY_REFERENCE["distinct"] * n / 1000
        where = ("measured here" if fast_d is not None else "issue's figure"
                 if n == 1000 else "issue's 1000-route figure scaled")
        add(f"S5 distinct ({n} routes): ours faster than Fastify ({ref:.2f} s, {where})",
            ours_d, lambda v: v < ref, None if ours_d is None else f"{ours_d:.3f} s")
        warm_d = median(x["total_s"] for x in res.get("distinct", {}).get("ours-warm", []))
        add(f"S5 distinct ({n} routes), warm compile cache: ready in <= 0.3 s", warm_d, lambda v: v <= 0.3,
            None if warm_d is None else f"{warm_d:.3f} s")
        ours_s = median(x["total_s"] for x in res.get("shared", {}).get("ours", []))
        add(f"S5 shared ({n} routes): ours under 1 s", ours_s, lambda v: v < 1.0,
            None if ours_s is None else f"{ours_s:.3f} s")
    return out


def targets_report(rows):
    return table(("target", "measured", "verdict"), rows, "Targets", left=1)
