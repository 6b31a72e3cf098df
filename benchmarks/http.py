"""HTTP runner: real servers as subprocesses on 127.0.0.1, load from ``wrk``.

Servers, each started with the contender's ``create_app`` factory:

* WSGI contenders: gunicorn (1 sync worker; 2 gthread workers with 4 threads
  each) and granian (``--interface wsgi``, 1 and 2 workers);
* ASGI contenders (FastAPI, Litestar): uvicorn (1 and 2 workers; uvloop and
  httptools when installed, as ``uvicorn[standard]`` brings them).

Servers are grouped by worker count; every server of a group is started at
once on its own free port, polled until it answers, checked for correct
answers, then loaded with wrk in interleaved rounds (each round runs every
scenario on every server, in a shuffled order), and stopped by PID (SIGTERM,
then SIGKILL of its process group) in a ``finally`` - also on errors and
Ctrl-C.  wrk reports through a Lua ``done`` hook: requests, duration,
latency p50/p99 and non-2xx answers (wrk's ``errors.status``: status >= 400).

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

WSGI = ("ours", "ours_logged", "ours_typed", "ours_dataclass", "handwritten", "falcon", "flask", "bottle")
ASGI = ("fastapi", "litestar")

# name -> (kind, workers)
SERVERS = {
    "gunicorn-sync-1": ("wsgi", 1),
    "granian-1": ("wsgi", 1),
    "uvicorn-1": ("asgi", 1),
    "gunicorn-gthread-2": ("wsgi", 2),
    "granian-2": ("wsgi", 2),
    "uvicorn-2": ("asgi", 2),
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


def server_requires(server):
    if server.startswith("gunicorn"):
        return "gunicorn"
    if server.startswith("granian"):
        return "granian"
    return "uvicorn"


class Server:
    def __init__(self, contender, server, logdir):
        self.contender = contender
        self.server = server
        self.port = free_port()
        self.argv = server_argv(server, contenders.module_path(contender), self.port)
        self.log_path = os.path.join(logdir, f"{contender}-{server}.log")
        self.proc = None

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


def http_check(server, scenario):
    """None when the server answers ``scenario`` right, else a reason."""
    req = urllib.request.Request(server.url(scenario), data=scenario.body,
                                 method=scenario.method)
    if scenario.body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, data = resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        status, data = exc.code, exc.read()
    except OSError as exc:
        return f"request failed: {exc}"
    return scenario.judge_body(status, data)


def run_wrk(wrk, url, lua, duration, connections, threads=1):
    argv = [wrk, f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--timeout", "5s",
            "-s", lua, url]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 30)
    for line in proc.stdout.splitlines():
        if line.startswith("WRKJSON "):
            data = json.loads(line[8:])
            data["rps"] = data["requests"] / (data["duration_us"] / 1e6)
            return data
    raise RuntimeError(f"wrk gave no summary (exit {proc.returncode}): "
                       f"{proc.stderr.strip()[-300:]}")


def run(names=WSGI + ASGI, server_names=tuple(SERVERS), scenario_keys=("S1", "S2", "S3", "S4"),
        rounds=3, duration=2, connections=32, warmup=1, seed=1, log=print):
    wrk = shutil.which("wrk")
    result = {"skipped": None, "status": {}, "rows": {}, "duration": duration,
              "rounds": rounds, "connections": connections}
    if not wrk:
        log("  " + INSTALL_WRK)
        result["skipped"] = INSTALL_WRK
        return result
    rng = random.Random(seed)
    import importlib.util

    groups = {}
    for server in server_names:
        groups.setdefault(SERVERS[server][1], []).append(server)
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        luas = {key: write_lua(tmp, scenarios.TIMED[key]) for key in scenario_keys}
        for workers, servers in sorted(groups.items()):
            planned = []
            for server in servers:
                kind = SERVERS[server][0]
                for name in names:
                    if (kind == "wsgi") != (name in WSGI):
                        continue
                    label = f"{name} @ {server}"
                    absent = contenders.missing(name)
                    if importlib.util.find_spec(server_requires(server)) is None:
                        absent.append(server_requires(server))
                    if absent:
                        result["status"][label] = "not installed: " + ", ".join(absent)
                        continue
                    planned.append(Server(name, server, tmp))
            running = []
            try:
                for srv in planned:
                    srv.start()
                    running.append(srv)
                live = []
                for srv in running:
                    try:
                        srv.wait_ready()
                    except RuntimeError as exc:
                        result["status"][srv.label] = f"failed: {exc}"
                        continue
                    problems = [f"{s.key}: {r}" for s in scenarios.CHECKS
                                if (r := http_check(srv, s))]
                    if problems:
                        result["status"][srv.label] = "failed: " + "; ".join(problems)
                    else:
                        result["status"][srv.label] = "ok"
                        live.append(srv)
                    log(f"  check {srv.label:32s} {result['status'][srv.label]}")
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
