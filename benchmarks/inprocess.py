"""In-process runner: the WSGI callables called directly, no socket, no server.

Each call gets a copy of a prebuilt environ and a fresh ``io.BytesIO`` body
stream, and the response iterable is drained and closed, as a server would.
Contenders are interleaved round by round (a shuffled order each round) so
that machine noise hits every contender alike; the report uses medians of the
per-round rates and medians of per-round ratios.
"""

from __future__ import annotations

import gc
import io
import random
import sys
import time
import traceback

from benchmarks import contenders, scenarios

WSGI_CONTENDERS = ("ours", "ours_logged", "ours_typed", "ours_dataclass", "handwritten", "falcon", "flask", "bottle")


def make_environ(scenario):
    body = scenario.body or b""
    environ = {
        "REQUEST_METHOD": scenario.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": scenario.path,
        "QUERY_STRING": scenario.query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "50000",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_USER_AGENT": "benchmarks/1.0",
        "HTTP_ACCEPT": "*/*",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if scenario.body is not None:
        environ["CONTENT_TYPE"] = "application/json"
        environ["CONTENT_LENGTH"] = str(len(body))
    return environ, body


class _Capture:
    __slots__ = ("status", "headers")

    def __init__(self):
        self.status = None
        self.headers = None

    def __call__(self, status, headers, exc_info=None):
        self.status = status
        self.headers = headers
        return lambda data: None


def call_once(app, scenario):
    """One request; returns (status code, headers, body bytes)."""
    return call_environ(app, *make_environ(scenario))


def call_environ(app, environ, body):
    """One request with this environ and body; returns (status code, headers, body bytes)."""
    environ = dict(environ, **{"wsgi.input": io.BytesIO(body)})
    capture = _Capture()
    result = app(environ, capture)
    try:
        data = b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    return int(capture.status.split(" ", 1)[0]), capture.headers, data


def check(app, scenario):
    """None when the contender answers ``scenario`` correctly, else a reason."""
    try:
        status, _headers, data = call_once(app, scenario)
    except Exception:  # noqa: BLE001 - report any crash as a failed check
        return "raised " + traceback.format_exc(limit=3).strip().splitlines()[-1]
    return scenario.judge_body(status, data)


def _timer(app, environ, body, n):
    copy = environ.copy
    BytesIO = io.BytesIO
    start_response = _Capture()
    perf = time.perf_counter
    t0 = perf()
    for _ in range(n):
        env = copy()
        env["wsgi.input"] = BytesIO(body)
        result = app(env, start_response)
        for _chunk in result:
            pass
        close = getattr(result, "close", None)
        if close is not None:
            close()
    return perf() - t0


def _null_app(environ, start_response):
    start_response("200 OK", [("Content-Length", "0")])
    return [b""]


def harness_overhead_us(calls=100_000, repeats=5):
    """Per-call cost of the harness itself (environ copy, BytesIO, draining)."""
    environ, body = make_environ(scenarios.S3)
    return min(_timer(_null_app, environ, body, calls) for _ in range(repeats)) / calls * 1e6


def prepare(names, log=print):
    """Import, build and check every contender.

    Returns (apps, status) where status[name] is "ok", "not installed: ...",
    "failed: ..." per contender, and apps holds the ones that passed.
    """
    apps, status = {}, {}
    for name in names:
        try:
            absent = contenders.missing(name)
        except Exception as exc:  # noqa: BLE001
            status[name] = f"not available: {type(exc).__name__}: {exc}"
            continue
        if absent:
            status[name] = "not installed: " + ", ".join(absent)
            continue
        try:
            app = contenders.load(name).create_app()
        except Exception:  # noqa: BLE001
            status[name] = "failed: create_app raised " + \
                traceback.format_exc(limit=3).strip().splitlines()[-1]
            continue
        problems = []
        for scenario in scenarios.CHECKS:
            reason = check(app, scenario)
            if reason:
                problems.append(f"{scenario.key} {scenario.title}: {reason}")
        if problems:
            status[name] = "failed: " + "; ".join(problems)
        else:
            status[name] = "ok"
            apps[name] = app
    return apps, status


def run(names=WSGI_CONTENDERS, scenario_keys=("S1", "S2", "S3", "S4"), rounds=11,
        batch_seconds=0.15, fixed_calls=None, seed=1, log=print):
    """Time every checked contender; returns a result dict (see report.py)."""
    apps, status = prepare(names, log=log)
    for name in names:
        log(f"  check {name:12s} {status[name]}")
    rng = random.Random(seed)
    result = {"status": status, "rounds": rounds, "scenarios": {},
              "harness_us": harness_overhead_us(calls=2_000 if fixed_calls else 100_000)}
    for key in scenario_keys:
        scenario = scenarios.TIMED[key]
        environ, body = make_environ(scenario)
        # Warm up and size the batches so each takes about batch_seconds.
        sizes = {}
        for name, app in apps.items():
            _timer(app, environ, body, 50)
            if fixed_calls:
                sizes[name] = fixed_calls
            else:
                n, elapsed = 100, 0.0
                while True:
                    elapsed = _timer(app, environ, body, n)
                    if elapsed >= 0.02:
                        break
                    n *= 4
                sizes[name] = max(20, int(n * batch_seconds / elapsed))
        rates = {name: [] for name in apps}
        for _ in range(rounds):
            order = list(apps)
            rng.shuffle(order)
            for name in order:
                gc.collect()
                elapsed = _timer(apps[name], environ, body, sizes[name])
                rates[name].append(sizes[name] / elapsed)
        result["scenarios"][key] = {"title": scenario.title, "rates": rates}
        if rates:
            summary = ", ".join(f"{n} {sorted(r)[len(r) // 2]:,.0f}/s" for n, r in rates.items())
            log(f"  {key}: {summary}")
    return result
