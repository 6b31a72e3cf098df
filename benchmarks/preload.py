"""Memory of gunicorn workers with and without ``--preload``: ``python -m benchmarks.preload``.

The app is S5's (``benchmarks/s5_app.py``, as ``benchmarks/startup.py`` times it): 1,000 routes with distinct body and
response schemas (``--mode shared``: one shared schema), readied at import. gunicorn
(sync workers, ``-w 4`` by default) serves it on a free loopback port, once with
``--preload`` (the master imports and readies the app once, then forks its workers,
which share the compiled code copy-on-write) and once without (each worker imports and
readies its own). Once every worker answers, the total memory of the master and its
workers is read from ``/proc/PID/smaps_rollup``: the sum of PSS (each shared page
counted once over all the processes sharing it: the honest total) and, for comparison,
the sum of RSS (which counts shared pages once per process). Each configuration runs
``--repeats`` times, alternating; medians are printed.

Linux only (``/proc``); gunicorn must be installed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks.http import free_port
from benchmarks.startup import route_table

APP_MODULE = r'''
import json, os
from benchmarks.s5_app import build

with open(os.environ["PRELOAD_TABLE"]) as fh:
    app = build(json.load(fh))
app.ready()
'''


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(child) for child in fh.read().split()]
    except OSError:
        return []


def _rollup(pid: int) -> dict[str, float]:
    """``{"pss", "rss"}`` in MB from ``/proc/PID/smaps_rollup``."""
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as fh:
        for line in fh:
            key, _, rest = line.partition(":")
            if key in ("Pss", "Rss"):
                values[key.lower()] = int(rest.split()[0]) / 1024.0
    return values


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(b"GET /__probe__ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return sock.recv(16).startswith(b"HTTP/1.")
    except OSError:
        return False


def measure(directory: str, workers: int, preload: bool, timeout: float = 300.0) -> dict[str, float]:
    """Start gunicorn on the app in ``directory``; the totals once every worker has booted."""
    port = free_port()
    argv = [sys.executable, "-m", "gunicorn", "-w", str(workers), "-b", f"127.0.0.1:{port}",
            "--timeout", "600", "--log-level", "warning"]
    if preload:
        argv.append("--preload")
    argv.append("preload_app:app")
    env = dict(os.environ, PYTHONPATH=directory + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PRELOAD_TABLE=os.path.join(directory, "table.json"))
    started = time.monotonic()
    process = subprocess.Popen(argv, cwd=directory, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = started + timeout
        # A worker answers only once it has imported (and so readied) the app; without
        # --preload each worker does so on its own: wait until the master has all its
        # workers and their memory stops growing (every import finished).
        last: tuple[float, ...] = ()
        stable = 0
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited {process.returncode}: {process.stderr.read().decode()[-500:]}")
            children = _children(process.pid)
            if len(children) == workers and _answers(port):
                now = tuple(round(_rollup(pid)["rss"]) for pid in children)
                stable = stable + 1 if now == last else 0
                last = now
                if stable >= 3:
                    break
            time.sleep(0.5)
        else:
            raise TimeoutError(f"gunicorn's {workers} workers not ready within {timeout} s")
        pids = [process.pid, *_children(process.pid)]
        totals = [_rollup(pid) for pid in pids]
        return {"pss_mb": sum(t["pss"] for t in totals), "rss_mb": sum(t["rss"] for t in totals),
                "master_pss_mb": totals[0]["pss"], "processes": len(pids)}
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run(routes: int = 1000, mode: str = "distinct", workers: int = 4, repeats: int = 3,
        log=print) -> dict[str, list[dict[str, float]]]:
    """Measure both configurations ``repeats`` times, alternating; print medians."""
    if shutil.which("gunicorn") is None and subprocess.call([sys.executable, "-c", "import gunicorn"]) != 0:
        raise SystemExit("gunicorn is not installed")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    results: dict[str, list[dict[str, float]]] = {"preload": [], "no-preload": []}
    with tempfile.TemporaryDirectory(prefix="bench-preload-") as directory:
        with open(os.path.join(directory, "table.json"), "w") as fh:
            json.dump(route_table(routes, mode), fh)
        with open(os.path.join(directory, "preload_app.py"), "w") as fh:
            fh.write(APP_MODULE)
        os.environ["PYTHONPATH"] = here + os.pathsep + os.environ.get("PYTHONPATH", "")
        for _ in range(repeats):
            for name in ("no-preload", "preload"):
                results[name].append(measure(directory, workers, name == "preload"))
    log(f"gunicorn sync, {workers} workers, {routes} routes ({mode}), median of {repeats}:")
    for name, runs in results.items():
        pss = statistics.median(r["pss_mb"] for r in runs)
        rss = statistics.median(r["rss_mb"] for r in runs)
        master = statistics.median(r["master_pss_mb"] for r in runs)
        log(f"  {name:10s}  total PSS {pss:6.0f} MB  (master {master:.0f} MB)  sum of RSS {rss:6.0f} MB")
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.preload", description=__doc__.split("\n\n")[0])
    parser.add_argument("--routes", type=int, default=1000)
    parser.add_argument("--mode", choices=("distinct", "shared"), default="distinct")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    run(args.routes, args.mode, args.workers, args.repeats)


if __name__ == "__main__":
    main()
