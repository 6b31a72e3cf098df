"""HTTP runner: real servers as subprocesses on 127.0.0.1, load from ``wrk``.

Servers, each started with the contender's ``create_app`` factory:

* WSGI contenders: gunicorn (1 sync worker; 2 gthread workers with 4 threads
  each) and granian (``--interface wsgi``, 1 and 2 workers);
* ASGI contenders (FastAPI, Litestar): uvicorn (1 and 2 workers; uvloop and
  httptools when installed, as ``uvicorn[standard]`` brings them);
* Fastify 4.29 on Node (``node-1``, one process; ``benchmarks/fastify.py``),
  serving S1-S4 from the same schemas and rows;
* the server survey: ours and the hand-written twin (only those two) on the
  other WSGI servers that install from PyPI, one worker each - gunicorn
  gthread (4 threads), waitress (4 threads), uWSGI (``--http-socket``), and
  the C event-loop servers bjoern and fastwsgi (``benchmarks/serve.py``
  starts those without a factory command line).  gunicorn sync and granian
  are in the survey too, as they run every WSGI contender anyway.

Servers are grouped by worker count; every server of a group is started at
once on its own free port, polled until it answers, checked for correct
answers (status, ``Content-Type: application/json``, a Content-Length that
matches the body, the JSON body), then loaded with wrk in interleaved rounds
(each round runs every scenario on every server, in a shuffled order; with
``taskset``, wrk runs on the first CPU and each one-worker server on the last), and
stopped by PID (SIGTERM, then SIGKILL of its process group) in a ``finally`` -
also on errors and Ctrl-C.  wrk reports through a Lua ``done`` hook: requests,
duration, latency p50/p99 and non-2xx answers (wrk's ``errors.status``:
status >= 400).  ``check_only=True`` starts and checks the servers without
wrk (the smoke test uses it).

Install wrk on Debian/Ubuntu with ``apt-get install -y wrk``; without it this
runner prints that and is skipped.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from benchmarks import contenders, scenarios

WSGI = ("ours", "ours_logged", "ours_typed", "ours_dataclass", "handwritten", "floor", "falcon", "flask", "bottle")
ASGI = ("fastapi", "litestar")

# name -> (kind, workers)
SERVERS = {
    "gunicorn-sync-1": ("wsgi", 1),
    "granian-1": ("wsgi", 1),
    "uvicorn-1": ("asgi", 1),
    "node-1": ("node", 1),
    "gunicorn-gthread-1": ("survey", 1),
    "waitress-1": ("survey", 1),
    "uwsgi-1": ("survey", 1),
    "bjoern-1": ("survey", 1),
    "fastwsgi-1": ("survey", 1),
    "gunicorn-gthread-2": ("wsgi", 2),
    "granian-2": ("wsgi", 2),
    "uvicorn-2": ("asgi", 2),
}
# The server survey: these two on every WSGI server of one worker.
SURVEY = ("ours", "handwritten")
SURVEY_SERVERS = ("gunicorn-sync-1", "gunicorn-gthread-1", "granian-1", "waitress-1", "uwsgi-1",
                  "bjoern-1", "fastwsgi-1")
# What to install for a server that is missing, and what it needs besides pip.
INSTALL = {
    "gunicorn": "pip install gunicorn",
    "granian": "pip install granian",
    "uvicorn": "pip install 'uvicorn[standard]'",
    "waitress": "pip install waitress",
    "uwsgi": "pip install uwsgi (compiles; needs a C compiler and the Python headers)",
    "bjoern": "pip install bjoern (compiles; needs libev: apt-get install -y libev-dev)",
    "fastwsgi": "pip install fastwsgi (compiles; needs a C compiler)",
}
INSTALL_WRK = "wrk not found: install it with `apt-get install -y wrk` (Debian/Ubuntu)"

LUA_DONE = r"""
done = function(summary, latency, requests)
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "non2xx": %d, "connect": %d, ' ..
    '"read": %d, "write": %d, "timeout": %d, "p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, summary.errors.status, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.timeout,
    latency:percentile(50.0), latency:percentile(99.0)))
end
"""


def _lua_string(data: bytes) -> str:
    return '"' + "".join(
        chr(b) if 32 <= b < 127 and chr(b) not in '"\\' else f"\\{b:03d}" for b in data) + '"'


def write_lua(directory, scenario):
    path = os.path.join(directory, f"{scenario.key}.lua")
    lines = []
    if scenario.body is not None:
        lines += [f'wrk.method = "{scenario.method}"',
                  f"wrk.body = {_lua_string(scenario.body)}",
                  'wrk.headers["Content-Type"] = "application/json"']
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n" + LUA_DONE)
    return path


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_argv(server, module, port):
    py = sys.executable
    target = f"{module}:create_app"
    if server == "gunicorn-gthread-1":
        return [py, "-m", "gunicorn", "-w", "1", "-k", "gthread", "--threads", "4",
                "-b", f"127.0.0.1:{port}", "--log-level", "warning", target + "()"]
    if server in ("bjoern-1", "fastwsgi-1", "waitress-1"):
        return [py, "-m", "benchmarks.serve", server.rsplit("-", 1)[0], module, str(port)]
    if server == "uwsgi-1":
        # One process, no master, HTTP spoken by the worker itself (no router in front);
        # the app comes from benchmarks.serve:application. Not --http11-socket: with
        # keep-alive, one synchronous process serves one client until it hangs up and
        # the other connections of wrk wait, unserved (it measured one client's rate).
        # It closes each connection: "Connection: close" says so, as gunicorn sync does
        # (without it wrk counts every close as a read error).
        return [uwsgi_binary(), "--http-socket", f"127.0.0.1:{port}", "--processes", "1",
                "--add-header", "Connection: close",
                "--home", sys.prefix, "--module", "benchmarks.serve:application",
                "--env", f"BENCHMARKS_APP={module}", "--need-app", "--disable-logging",
                "--die-on-term", "--listen", "1024"]
    if server == "gunicorn-sync-1":
        return [py, "-m", "gunicorn", "-w", "1", "-k", "sync", "-b", f"127.0.0.1:{port}",
                "--log-level", "warning", target + "()"]
    if server == "gunicorn-gthread-2":
        return [py, "-m", "gunicorn", "-w", "2", "-k", "gthread", "--threads", "4",
                "-b", f"127.0.0.1:{port}", "--log-level", "warning", target + "()"]
    if server.startswith("granian-"):
        workers = server.rsplit("-", 1)[1]
        return [py, "-m", "granian", "--interface", "wsgi", "--workers", workers,
                "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
                "--factory", target]
    if server.startswith("uvicorn-"):
        workers = server.rsplit("-", 1)[1]
        return [py, "-m", "uvicorn", "--factory", target, "--host", "127.0.0.1",
                "--port", str(port), "--workers", workers, "--log-level", "warning",
                "--no-access-log"]
    raise ValueError(server)


def uwsgi_binary():
    """uWSGI is a program, not an importable module: pip puts it beside this Python."""
    here = os.path.join(os.path.dirname(sys.executable), "uwsgi")
    return here if os.access(here, os.X_OK) else shutil.which("uwsgi")


def server_requires(server):
    return server.rsplit("-", 1)[0].split("-", 1)[0]


def server_missing(server):
    """None when ``server`` can run here, else what to install."""
    import importlib.util

    name = server_requires(server)
    found = uwsgi_binary() if name == "uwsgi" else importlib.util.find_spec(name)
    return None if found else f"{name} not installed: {INSTALL.get(name, 'pip install ' + name)}"


def pinned(argv, cpu):
    """``argv`` kept on CPU ``cpu`` by ``taskset`` (when it exists and the machine has two
    CPUs or more). wrk runs on the first CPU and a one-worker server on the last: left to
    the scheduler, the two sometimes shared a core, and one server's req/s moved by 2x
    from round to round (23,000 then 48,000 on S2)."""
    taskset = shutil.which("taskset")
    if taskset is None or (os.cpu_count() or 1) < 2:
        return argv
    return [taskset, "-c", str(cpu), *argv]


class Server:
    def __init__(self, contender, server, logdir, argv=None):
        self.contender = contender
        self.server = server
        self.port = free_port()
        self.argv = (argv(self.port) if argv is not None
                     else server_argv(server, contenders.module_path(contender), self.port))
        if server.endswith("-1"):  # one worker: a core of its own, beside wrk's
            self.argv = pinned(self.argv, (os.cpu_count() or 1) - 1)
        self.log_path = os.path.join(logdir, f"{contender}-{server}.log")
        self.proc = None
        self.bodies = {}  # scenario key -> body bytes of the correctness check

    @property
    def label(self):
        return f"{self.contender} @ {self.server}"

    def url(self, scenario):
        return f"http://127.0.0.1:{self.port}{scenario.url}"

    def start(self):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.argv, cwd=root, env=env, stdin=subprocess.DEVNULL,
                                     stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def wait_ready(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        url = self.url(scenarios.S1)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.label} exited with {self.proc.returncode}: "
                                   + self.log_tail())
            try:
                with urllib.request.urlopen(url, timeout=1) as resp:
                    if resp.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.label} not ready after {timeout:.0f} s: " + self.log_tail())

    def log_tail(self):
        try:
            with open(self.log_path, "rb") as fh:
                return fh.read()[-600:].decode(errors="replace").strip()
        except OSError:
            return ""

    def stop(self):
        if self.proc is None:
            return
        pid = self.proc.pid
        if self.proc.poll() is None:
            try:
                os.kill(pid, signal.SIGTERM)
                self.proc.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        # The server ran in its own session whose group id is its PID: reap any
        # worker left behind.
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._log.close()
        self.proc = None


def fetch(server, scenario):
    """``(status, headers, body bytes)`` of one request, or an OSError."""
    req = urllib.request.Request(server.url(scenario), data=scenario.body,
                                 method=scenario.method)
    if scenario.body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def http_check(server, scenario, bodies=None):
    """None when the server answers ``scenario`` right, else a reason; the body goes into
    ``bodies[scenario.key]`` when given."""
    try:
        status, headers, data = fetch(server, scenario)
    except OSError as exc:
        return f"request failed: {exc}"
    if bodies is not None:
        bodies[scenario.key] = data
    media_type = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if media_type != "application/json":
        return f"status {status}, Content-Type {headers.get('Content-Type')!r}, not JSON"
    length = headers.get("Content-Length")
    if length is not None and length.strip() != str(len(data)):
        return f"status {status}, Content-Length {length} but {len(data)} body bytes"
    return scenario.judge_body(status, data)


def run_wrk(wrk, url, lua, duration, connections, threads=1):
    argv = pinned([wrk, f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--timeout", "5s",
                   "-s", lua, url], 0)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 30)
    for line in proc.stdout.splitlines():
        if line.startswith("WRKJSON "):
            data = json.loads(line[8:])
            data["rps"] = data["requests"] / (data["duration_us"] / 1e6)
            return data
    raise RuntimeError(f"wrk gave no summary (exit {proc.returncode}): "
                       f"{proc.stderr.strip()[-300:]}")


def plan(names, server_names, workdir, fastify, status, log=print, install_fastify=True):
    """``({workers: [Server]}, Fastify's version or None)``: the servers to start, grouped
    by worker count; a missing one gets its reason in ``status`` instead."""
    from benchmarks import fastify as fastify_app

    groups, fastify_version = {}, None
    for server in server_names:
        kind, workers = SERVERS[server]
        planned = groups.setdefault(workers, [])
        if kind == "node":
            if not fastify:
                continue
            label = fastify_app.LABEL
            script, reason = fastify_app.prepare(workdir, log=log, install=install_fastify)
            if reason:
                status[label] = "not installed: " + reason
                continue
            fastify_version = fastify_app.version(script)
            planned.append(Server(fastify_app.NAME, server, workdir,
                                  argv=lambda port: fastify_app.argv(script, workdir, port)))
            continue
        for name in names:
            if kind == "survey" and name not in SURVEY:
                continue
            if kind != "survey" and (kind == "wsgi") != (name in WSGI):
                continue
            label = f"{name} @ {server}"
            absent = contenders.missing(name)
            if absent:
                status[label] = "not installed: " + ", ".join(absent)
                continue
            reason = server_missing(server)
            if reason:
                status[label] = "not installed: " + reason
                continue
            planned.append(Server(name, server, workdir))
    return {workers: planned for workers, planned in groups.items() if planned}, fastify_version


def start_and_check(planned, running, status, log=print):
    """Start every server of ``planned`` at once (each added to ``running`` as it starts, for
    the caller to stop, also when a start fails), wait for each, check its answers; return
    the ones that answered every check right."""
    for srv in planned:
        running.append(srv)
        srv.start()
    live = []
    for srv in running:
        try:
            srv.wait_ready()
        except RuntimeError as exc:
            status[srv.label] = f"failed: {exc}"
            log(f"  check {srv.label:32s} {status[srv.label]}")
            continue
        problems = [f"{s.key}: {r}" for s in scenarios.CHECKS
                    if (r := http_check(srv, s, srv.bodies))]
        status[srv.label] = "failed: " + "; ".join(problems) if problems else "ok"
        if not problems:
            live.append(srv)
        log(f"  check {srv.label:32s} {status[srv.label]}")
    return live


def compare_bodies(live):
    """{label: [scenario keys]} where a server's body for a timed scenario differs from
    Fastify's bytes (each server got one valid S3 POST before, so the ids agree; error
    answers are not compared: their messages are each framework's own)."""
    from benchmarks.fastify import NAME

    reference = next((srv.bodies for srv in live if srv.contender == NAME), None)
    if reference is None:
        return {}
    return {srv.label: [key for key, data in srv.bodies.items()
                        if key in scenarios.TIMED and reference.get(key) != data]
            for srv in live if srv.contender != NAME}


def run(names=WSGI + ASGI, server_names=tuple(SERVERS), scenario_keys=("S1", "S2", "S3", "S4"),
        rounds=3, duration=2, connections=32, warmup=1, seed=1, log=print, fastify=True,
        check_only=False, install_fastify=True):
    """Check and load every planned server; ``check_only``: start and check them, no wrk."""
    wrk = shutil.which("wrk")
    result = {"skipped": None, "status": {}, "rows": {}, "duration": duration,
              "rounds": rounds, "connections": connections, "bodies_unlike_fastify": {}}
    if not wrk and not check_only:
        log("  " + INSTALL_WRK)
        result["skipped"] = INSTALL_WRK
        return result
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        status = result["status"]
        groups, result["fastify_version"] = plan(names, server_names, tmp, fastify, status,
                                                 log=log, install_fastify=install_fastify)
        luas = {key: write_lua(tmp, scenarios.TIMED[key]) for key in scenario_keys}
        for workers, planned in sorted(groups.items()):
            running = []
            try:
                live = start_and_check(planned, running, status, log=log)
                result["bodies_unlike_fastify"].update(compare_bodies(live))
                if check_only:
                    continue
                for srv in live:
                    result["rows"][srv.label] = {k: [] for k in scenario_keys}
                total = len(live) * len(scenario_keys) * (rounds * duration + warmup)
                log(f"  {workers} worker(s): {len(live)} servers, about {total // 60} min "
                    f"{total % 60} s of load")
                if warmup:
                    for srv in live:
                        for key in scenario_keys:
                            run_wrk(wrk, srv.url(scenarios.TIMED[key]), luas[key], warmup,
                                    connections)
                for rnd in range(rounds):
                    for key in scenario_keys:
                        order = list(live)
                        rng.shuffle(order)
                        for srv in order:
                            try:
                                data = run_wrk(wrk, srv.url(scenarios.TIMED[key]), luas[key],
                                               duration, connections)
                            except Exception as exc:  # noqa: BLE001
                                data = {"error": str(exc)}
                            result["rows"][srv.label][key].append(data)
                    log(f"  round {rnd + 1}/{rounds} done")
            finally:
                for srv in running:
                    srv.stop()
    return result
