"""The example application (``examples.app``) under gunicorn with four workers, on a free
port and a fresh SQLite file: the server the example-app and OpenAPI tests send requests to."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from conftest import SUPPORT_PATH  # the repository root, or examples/ alone under tox (see conftest)
from servers import held_requests


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def send_request(base: str, method: str, path: str, headers: dict, data: str | None, timeout: float = 10):
    request = urllib.request.Request(base + path, method=method, headers=headers,
                                     data=data.encode("utf-8") if data is not None else None)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read(), {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read(), {k.lower(): v for k, v in error.headers.items()}


#: The page runs the example on four workers: each request may reach any of them.
WORKERS = 4


class Server:
    """``python -m gunicorn <target> --workers 4`` on a free port, on a fresh SQLite file;
    stopped by PID. Its access log records which worker (pid) answered each request."""

    def __init__(self, target: str, env: dict[str, str]) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.TemporaryFile()
        self.directory = tempfile.TemporaryDirectory(prefix="framework-example-")
        environ = {k: v for k, v in os.environ.items() if k not in ("API_KEYS", "EXAMPLE_WRAP_GRANDCHILD")}
        environ["ITEMS_DB"] = str(Path(self.directory.name) / "items.sqlite3")
        environ.update(env)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", target, "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(WORKERS), "--log-level", "warning",
             "--access-logfile", "-", "--access-logformat", "ACCESS %(p)s %(r)s %(s)s"],
            cwd=SUPPORT_PATH, env=environ, stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until a worker answers (the others may still be booting: see ``wait_for_workers``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}:\n{self.logs()}")
            try:
                status, _, _ = send_request(self.base, "GET", "/child", {}, None, timeout=2)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"gunicorn did not answer within {timeout} s:\n{self.logs()}")

    def access(self, wanted=lambda lines: True, timeout: float = 20.0) -> list[tuple[str, str, str]]:
        """``(pid, method, path)`` of each access-log line, once ``wanted(lines)`` holds (a
        line is written after its response is sent: a client sees the answer first)."""
        deadline = time.monotonic() + timeout
        while not wanted(lines := re.findall(r"^ACCESS <(\d+)> (\w+) (\S+)", self.logs(), re.MULTILINE)):
            if time.monotonic() > deadline:
                raise AssertionError(f"the access log did not show what was wanted:\n{self.logs()}")
            time.sleep(0.02)
        return lines

    def reach_workers(self, path: str, done, timeout: float = 60.0) -> set[str]:
        """Rounds of ``WORKERS`` held requests for ``path`` (a path no other request uses)
        until ``done(pids, answers)`` holds for the pids that answered it so far; those pids."""
        deadline = time.monotonic() + timeout
        sent = 0
        while time.monotonic() < deadline:
            answers = held_requests(self.port, path, WORKERS)
            sent += len(answers)
            lines = self.access(lambda lines: sum(line[2] == path for line in lines) >= sent)
            pids = {pid for pid, _, answered in lines if answered == path}
            if done(pids, answers):
                return pids
        raise AssertionError(f"{path}: not answered as wanted within {timeout} s:\n{self.logs()}")

    def logs(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM to the gunicorn master's PID: graceful stop
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.log.close()
        self.directory.cleanup()
