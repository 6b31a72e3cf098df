"""S5, start-up: N routes with body and response schemas, time to ``ready()``
and resident memory, each measurement in a fresh subprocess.

Two shapes: ``distinct`` (every route has its own 10-property body schema and
its own 10-property response schema) and ``shared`` (one schema added with
``add_schema`` and referenced by ``$ref`` from every route's body and
response).  The very same route table (written to a JSON file) is loaded by
ours and, when ``node`` and ``npm`` are present, by Fastify 4.29; Fastify is
installed with npm into a cache directory outside the repository
(``$BENCHMARKS_CACHE`` or ``~/.cache/framework-benchmarks``).

The child measures ``import`` separately, then ``declare`` (constructing the
app and declaring the routes) and ``ready`` (compiling them); the reported
time to ready is declare + ready.  It then times the first request (``POST /r0``);
a second child, never readied, times its first request, which readies the app: the
latency the first user of a worker pays when nothing readied it at boot (see the
docs/guide/deployment.rst).  Memory is VmRSS after ``ready()`` (and the
peak, VmHWM), from /proc (``process.memoryUsage().rss`` for Node).

``ours-warm`` is ours restarted with a warm on-disk compile cache
(``FRAMEWORK_COMPILE_CACHE``, framework.schemas.codegen.CompileCache): one untimed child
fills a fresh cache directory, then each timed child loads every module from it.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# (benchmarks.s5_app imports nothing: the child times importing framework itself)
from benchmarks.s5_app import build

FASTIFY_VERSION = "4.29"
# Figures from the issue, measured on this kind of machine with Fastify 4.29 and
# 1,000 routes; printed when Fastify cannot be run here.
FASTIFY_REFERENCE = {"distinct": 7.9, "shared": 7.4, "rss_mb": 208.0}

SHARED_ID = "item"


def _properties(i, prefix):
    """Ten properties whose names and constraints depend on the route index."""
    return {
        f"{prefix}name_{i}": {"type": "string", "maxLength": 100 + i},
        f"{prefix}code_{i}": {"type": "string", "minLength": 1, "maxLength": 20 + i % 50},
        f"{prefix}kind_{i}": {"type": "string", "enum": [f"a{i}", f"b{i}", f"c{i}"]},
        f"{prefix}count_{i}": {"type": "integer", "minimum": i},
        f"{prefix}limit_{i}": {"type": "integer", "maximum": 1_000_000 + i},
        f"{prefix}ratio_{i}": {"type": "number", "minimum": 0, "maximum": 1 + i},
        f"{prefix}flag_{i}": {"type": "boolean"},
        f"{prefix}tags_{i}": {"type": "array", "maxItems": 5 + i % 7,
                              "items": {"type": "string", "maxLength": 30}},
        f"{prefix}owner_{i}": {
            "type": "object",
            "required": [f"id_{i}"],
            "properties": {f"id_{i}": {"type": "integer"}, f"login_{i}": {"type": "string"}},
        },
        f"{prefix}note_{i}": {"type": ["string", "null"], "maxLength": 500},
    }


def route_table(n, mode):
    """The routes to declare: a JSON-able dict shared by ours and Fastify."""
    if mode == "shared":
        shared = {
            "$id": SHARED_ID,
            "type": "object",
            "required": ["name_0", "count_0"],
            "additionalProperties": False,
            "properties": _properties(0, ""),
        }
        ref = {"$ref": f"{SHARED_ID}#"}
        routes = [{"url": f"/r{i}", "body": ref, "response": {"200": ref}} for i in range(n)]
        return {"mode": mode, "shared": shared, "routes": routes}
    routes = []
    for i in range(n):
        body_props = _properties(i, "")
        routes.append({
            "url": f"/r{i}",
            "body": {
                "type": "object",
                "required": [f"name_{i}", f"count_{i}"],
                "additionalProperties": False,
                "properties": body_props,
            },
            "response": {"200": {
                "type": "object",
                "required": [f"out_name_{i}"],
                "properties": _properties(i, "out_"),
            }},
        })
    return {"mode": mode, "shared": None, "routes": routes}


# ----------------------------------------------------------------- children
def _proc_status_mb(key):
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _first_request(app):
    """Time one WSGI call (``POST /r0`` with ``{}``), the first this process makes."""
    import io

    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/r0", "QUERY_STRING": "", "SERVER_NAME": "bench",
               "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": "2", "wsgi.input": io.BytesIO(b"{}")}
    started = time.perf_counter()
    answer = app(environ, lambda status, headers, exc_info=None: None)
    for _ in answer:
        pass
    getattr(answer, "close", lambda: None)()
    return time.perf_counter() - started


def _child_ours(table_path, ready=True):
    """``ready=False``: the app is not readied; the first request does it (and is timed)."""
    with open(table_path) as fh:
        table = json.load(fh)
    perf = time.perf_counter
    t0 = perf()
    import framework  # noqa: F401

    t1 = perf()
    app = build(table)
    t2 = perf()
    if not ready:
        print(json.dumps({"first_request_unready_s": _first_request(app)}))
        return
    app.ready()
    t3 = perf()
    print(json.dumps({
        "import_s": t1 - t0, "declare_s": t2 - t1, "ready_s": t3 - t2,
        "total_s": t3 - t1,
        "rss_mb": _proc_status_mb("VmRSS"), "peak_mb": _proc_status_mb("VmHWM"),
        "first_request_s": _first_request(app),
    }))


FASTIFY_SCRIPT = r"""
'use strict'
const fs = require('fs')
const table = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const ns = () => Number(process.hrtime.bigint()) / 1e9
const t0 = ns()
const Fastify = require('fastify')
const t1 = ns()
const app = Fastify()
if (table.shared) app.addSchema(table.shared)
const handler = async (request) => request.body
for (const r of table.routes) {
  app.post(r.url, { schema: { body: r.body, response: r.response } }, handler)
}
const t2 = ns()
app.ready().then(() => {
  const t3 = ns()
  console.log(JSON.stringify({
    import_s: t1 - t0, declare_s: t2 - t1, ready_s: t3 - t2, total_s: t3 - t1,
    rss_mb: process.memoryUsage().rss / 1048576,
    peak_mb: process.resourceUsage().maxRSS / 1024,
    version: require('fastify/package.json').version
  }))
  return app.close()
}, (err) => { console.error(err); process.exit(1) })
"""


def cache_dir():
    base = os.environ.get("BENCHMARKS_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "framework-benchmarks")
    return os.path.join(base, f"fastify-{FASTIFY_VERSION}")


def prepare_fastify(log=print):
    """Install Fastify into the cache dir if needed; return its dir or None."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        log("  Fastify: node/npm not found, column skipped")
        return None
    target = cache_dir()
    os.makedirs(target, exist_ok=True)
    if not os.path.isdir(os.path.join(target, "node_modules", "fastify")):
        log(f"  Fastify: npm install fastify@{FASTIFY_VERSION} into {target}")
        try:
            proc = subprocess.run(
                [npm, "install", "--prefix", target, "--no-audit", "--no-fund",
                 "--loglevel=error", f"fastify@{FASTIFY_VERSION}"],
                capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            log(f"  Fastify: npm install failed ({exc}), column skipped")
            return None
        if proc.returncode != 0:
            log("  Fastify: npm install failed, column skipped: " + proc.stderr.strip()[-300:])
            return None
    with open(os.path.join(target, "startup.js"), "w") as fh:
        fh.write(FASTIFY_SCRIPT)
    return target


def _run_child(argv, timeout):
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(routes=1000, modes=("distinct", "shared"), repeats=3, fastify=True, log=print,
        timeout=300):
    """Measure S5; returns {"routes", "results": {mode: {who: [samples]}}, ...}."""
    fastify_dir = prepare_fastify(log=log) if fastify else None
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
    out = {"routes": routes, "repeats": repeats, "results": {}, "errors": {},
           "fastify": bool(fastify_dir)}
    with tempfile.TemporaryDirectory(prefix="bench-s5-") as tmp:
        for mode in modes:
            path = os.path.join(tmp, f"{mode}.json")
            with open(path, "w") as fh:
                json.dump(route_table(routes, mode), fh)
            who = {"ours": [sys.executable, "-m", "benchmarks.startup", "--child", path]}
            compiled = os.path.join(tmp, f"compile-cache-{mode}")
            warm = [*who["ours"], "--cache", compiled]
            try:
                _run_child(warm, timeout)  # fills the cache: not timed
                who["ours-warm"] = warm
            except Exception as exc:  # noqa: BLE001
                out["errors"].setdefault(mode, {})["ours-warm"] = str(exc)
                log(f"  S5 {mode} ours with a compile cache: FAILED {exc}")
            if fastify_dir:
                who["fastify"] = ["node", os.path.join(fastify_dir, "startup.js"), path]
            samples = {name: [] for name in who}
            for _ in range(repeats):  # interleaved: ours, fastify, ours, fastify...
                for name, argv in who.items():
                    if name in out["errors"].get(mode, {}):
                        continue
                    try:
                        samples[name].append(_run_child(argv, timeout))
                    except Exception as exc:  # noqa: BLE001
                        out["errors"].setdefault(mode, {})[name] = str(exc)
                        log(f"  S5 {mode} {name}: FAILED {exc}")
            out["results"][mode] = samples
            for name, runs in samples.items():
                if runs:
                    med = statistics.median(r["total_s"] for r in runs)
                    rss = statistics.median(r["rss_mb"] for r in runs)
                    log(f"  S5 {mode:8s} {name:8s} ready in {med:.3f} s, RSS {rss:.0f} MB")
            # First-request latency: after ready() (a worker readied as it boots) and without
            # it (the first request readies the app, so its client waits for every compilation).
            unready = []
            for _ in range(repeats):
                try:
                    unready.append(_run_child([*who["ours"], "--unready"], timeout))
                except Exception as exc:  # noqa: BLE001
                    out["errors"].setdefault(mode, {})["ours-unready"] = str(exc)
                    log(f"  S5 {mode} first request without ready(): FAILED {exc}")
                    break
            out.setdefault("first_request", {})[mode] = unready
            if samples.get("ours") and unready:
                warm = statistics.median(r["first_request_s"] for r in samples["ours"])
                cold = statistics.median(r["first_request_unready_s"] for r in unready)
                log(f"  S5 {mode:8s} first request: {warm * 1000:.2f} ms after ready(), "
                    f"{cold:.3f} s without it")
    return out


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child" and sys.argv[3] == "--cache":
        os.environ["FRAMEWORK_COMPILE_CACHE"] = sys.argv[4]  # read when framework is imported
        _child_ours(sys.argv[2])
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "--child":
        _child_ours(sys.argv[2], ready=sys.argv[3:] != ["--unready"])
    else:
        sys.exit("usage: python -m benchmarks.startup --child TABLE.json [--unready | --cache DIR]")
