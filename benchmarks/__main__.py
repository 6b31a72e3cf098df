"""``python -m benchmarks``: run the suite and print ratio tables.

Full mode (the default) runs, in this order: the in-process runner (S1-S4),
the feature-cost runner (what each optional feature adds to S1, benchmarks/features.py),
the micro-benchmarks (benchmarks/validation.py, benchmarks/serialization.py),
S5 start-up (1,000 routes; Fastify 4.29 beside ours when node and npm are
present) and the HTTP runner (wrk against gunicorn, granian and uvicorn, Fastify
4.29 on Node, and the server survey: ours and the hand-written twin on waitress,
uWSGI, bjoern and fastwsgi when installed).  With every peer installed it
takes about half an hour on a 2-core machine (estimated: in-process 2.5 min,
S5 2 min, HTTP about 22 min - 47 servers x 4 scenarios x (3 rounds x 2 s + 1 s
warm-up)); see ``--help`` to pick runners, scenarios, contenders, servers and
durations.

``--smoke`` makes every runner tiny (a few hundred calls per scenario, 50
routes for S5, no Fastify, no HTTP unless ``--runners`` names it) with all
correctness checks on; ``tests/test_benchmarks_smoke.py`` runs it.

Exit status: 0 when every installed contender answered correctly and every
runner ran; 1 otherwise.  A missed target is reported, not an error.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback

from benchmarks import contenders, report
from benchmarks.http import SERVERS as HTTP_SERVERS

RUNNERS = ("inprocess", "features", "micro", "startup", "http")
SCENARIOS = ("S1", "S2", "S3", "S4")
PACKAGES = ("werkzeug", "fastjsonschema", "ujson", "orjson", "jsonschema", "falcon", "flask",
            "bottle", "gunicorn", "granian", "fastapi", "pydantic", "litestar", "msgspec",
            "uvicorn", "uvloop", "httptools", "waitress", "uwsgi", "bjoern", "fastwsgi")


def _csv(value):
    return [v.strip() for v in value.split(",") if v.strip()]


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Benchmark the framework against Falcon, Flask, Bottle, a hand-written "
                    "WSGI callable, FastAPI and Litestar. Prints medians and ratios.")
    p.add_argument("--smoke", action="store_true",
                   help="tiny runs with every correctness check (HTTP skipped unless named "
                        "in --runners)")
    p.add_argument("--runners", type=_csv, default=None,
                   help=f"comma list of {','.join(RUNNERS)} (default: all; smoke: all but http)")
    p.add_argument("--scenarios", type=_csv, default=list(SCENARIOS),
                   help="comma list of S1..S4 for the in-process and HTTP runners")
    p.add_argument("--contenders", type=_csv, default=list(contenders.ORDER),
                   help="comma list of " + ",".join(contenders.KNOWN) + " (default: all but "
                        + ",".join(contenders.NAMED_ONLY) + ")")
    g = p.add_argument_group("in-process")
    g.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 11)")
    g.add_argument("--batch-seconds", type=float, default=0.15,
                   help="length of one contender's batch in a round (default 0.15)")
    g = p.add_argument_group("HTTP")
    g.add_argument("--servers", type=_csv, default=None,
                   help="comma list of " + ",".join(HTTP_SERVERS) + " (default: all; node-1 "
                        "is Fastify, run unless --no-fastify; smoke: gunicorn-sync-1,"
                        "granian-1,uvicorn-1)")
    g.add_argument("--duration", type=int, default=None,
                   help="seconds of wrk load per scenario per server per round (default 2)")
    g.add_argument("--http-rounds", type=int, default=None, help="interleaved rounds (default 3)")
    g.add_argument("--connections", type=int, default=32, help="wrk connections (default 32)")
    g = p.add_argument_group("S5 start-up")
    g.add_argument("--routes", type=int, default=None, help="routes per app (default 1000)")
    g.add_argument("--startup-repeats", type=int, default=None,
                   help="fresh subprocesses per measurement (default 3)")
    g.add_argument("--fastify", action=argparse.BooleanOptionalAction, default=None,
                   help="run Fastify 4.29 beside ours in S5 and over HTTP (default: on when "
                        "node/npm exist; off in smoke mode)")
    p.add_argument("--json", metavar="PATH", help="also write every raw result as JSON")
    p.add_argument("--seed", type=int, default=1, help="seed for the round orders")
    args = p.parse_args(argv)
    smoke = args.smoke
    if args.runners is None:
        args.runners = [r for r in RUNNERS if not (smoke and r == "http")]
    for r in args.runners:
        if r not in RUNNERS:
            p.error(f"unknown runner {r!r}")
    for s in args.servers or ():
        if s not in HTTP_SERVERS:
            p.error(f"unknown server {s!r}")
    for s in args.scenarios:
        if s not in SCENARIOS:
            p.error(f"unknown scenario {s!r}")
    for c in args.contenders:
        if c not in contenders.KNOWN:
            p.error(f"unknown contender {c!r}")
    if args.rounds is None:
        args.rounds = 3 if smoke else 11
    if args.duration is None:
        args.duration = 1 if smoke else 2
    if args.http_rounds is None:
        args.http_rounds = 1 if smoke else 3
    if args.routes is None:
        args.routes = 50 if smoke else 1000
    if args.startup_repeats is None:
        args.startup_repeats = 1 if smoke else 3
    if args.fastify is None:
        args.fastify = not smoke
    if args.servers is None:
        args.servers = ["gunicorn-sync-1", "granian-1", "uvicorn-1"] if smoke else list(HTTP_SERVERS)
    return args


def environment():
    from benchmarks.contenders import version

    lines = [
        f"date      {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        f"machine   {platform.machine()}, {os.cpu_count()} cores (nproc), "
        f"{platform.system()} {platform.release()}",
        f"python    {platform.python_implementation()} {platform.python_version()}",
        "packages  " + ", ".join(f"{p} {version(p)}" for p in PACKAGES if version(p) != "-"),
    ]
    node = shutil.which("node")
    if node:
        try:
            lines.append("node      " + subprocess.run([node, "--version"], capture_output=True,
                                                      text=True, timeout=10).stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "\n".join(lines)


def run_micro(smoke, log):
    """Call benchmarks.validation / benchmarks.serialization ``run(smoke=)``."""
    out, ok = {}, True
    for modname in ("validation", "serialization"):
        full = f"benchmarks.{modname}"
        try:
            module = importlib.import_module(full)
        except ModuleNotFoundError as exc:
            if exc.name == full:
                out[modname] = {"status": "not yet available"}
                log(f"  micro {modname}: not yet available")
                continue
            out[modname] = {"status": f"failed: import: {exc}"}
            ok = False
            continue
        try:
            rows = module.run(smoke=smoke)
            out[modname] = {"status": "ok", "rows": list(rows)}
            log(f"  micro {modname}: {len(out[modname]['rows'])} rows")
        except Exception:  # noqa: BLE001
            out[modname] = {"status": "failed: " + traceback.format_exc(limit=4)}
            ok = False
            log(f"  micro {modname}: FAILED\n{traceback.format_exc(limit=4)}")
    return out, ok


def main(argv=None):
    args = parse_args(argv)
    started = time.monotonic()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    print(environment())
    print(f"mode      {'smoke' if args.smoke else 'full'}; runners {','.join(args.runners)}")
    print(flush=True)
    results = {"smoke": args.smoke, "environment": environment()}
    ok = True
    target_args = {}

    if "inprocess" in args.runners:
        from benchmarks import inprocess

        names = [c for c in args.contenders if c in inprocess.WSGI_CONTENDERS]
        log(f"in-process runner: {', '.join(names)}")
        res = inprocess.run(names=names, scenario_keys=args.scenarios, rounds=args.rounds,
                            batch_seconds=args.batch_seconds,
                            fixed_calls=100 if args.smoke else None, seed=args.seed, log=log)
        results["inprocess"] = res
        target_args["inproc"] = res
        if any(s.startswith("failed") for s in res["status"].values()):
            ok = False
        print(report.inprocess_report(res), end="\n\n", flush=True)

    if "features" in args.runners:
        from benchmarks import features

        log("feature-cost runner")
        res = features.run(rounds=args.rounds, batch_seconds=args.batch_seconds,
                           fixed_calls=100 if args.smoke else None, seed=args.seed, log=log)
        results["features"] = res
        if any(s != "ok" for s in res["status"].values()):
            ok = False
        print(features.report(res), end="\n\n", flush=True)

    if "micro" in args.runners:
        log("micro-benchmarks")
        micro, micro_ok = run_micro(args.smoke, log)
        ok = ok and micro_ok
        results["micro"] = micro
        for name, part in micro.items():
            title = f"Micro-benchmarks: benchmarks/{name}.py"
            if part["status"] == "ok":
                print(report.micro_report(title, part["rows"]), end="\n\n")
            else:
                print(f"{title}: {part['status']}", end="\n\n")

    if "startup" in args.runners:
        from benchmarks import startup

        log(f"S5 start-up: {args.routes} routes")
        res = startup.run(routes=args.routes, repeats=args.startup_repeats,
                          fastify=args.fastify, log=log)
        results["startup"] = res
        target_args["startup"] = res
        if any("ours" in errs for errs in res["errors"].values()):
            ok = False
        print(report.startup_report(res), end="\n\n", flush=True)

    if "http" in args.runners:
        from benchmarks import http

        log("HTTP runner")
        res = http.run(names=args.contenders, server_names=args.servers,
                       scenario_keys=args.scenarios, rounds=args.http_rounds,
                       duration=args.duration, connections=args.connections,
                       warmup=0 if args.smoke else 1, seed=args.seed, log=log,
                       fastify=args.fastify)
        results["http"] = res
        target_args["http"] = res
        if any(s.startswith("failed") for s in res["status"].values()):
            ok = False
        print(report.http_report(res), end="\n\n", flush=True)

    rows = report.targets(**target_args)
    results["targets"] = rows
    if rows:
        print(report.targets_report(rows), end="\n\n")
    elapsed = time.monotonic() - started
    print(f"finished in {elapsed:.0f} s; correctness {'ok' if ok else 'FAILED'}")
    results["ok"] = ok
    results["elapsed_s"] = elapsed
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1, default=str)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
