"""A real ``redis-server`` for the tests that need one (rate limits, sessions).

``.ci/run`` installs Debian's ``redis-server`` when it is missing. Where no binary can be
found, the fixture skips with that reason, visibly: nothing is mocked.
"""
from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from servers import free_port


def redis_binary() -> str | None:
    return shutil.which("redis-server") or next(
        (path for path in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if shutil.which(path)), None)


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def redis_server(timeout: float = 20, port: int | None = None) -> Iterator[str]:
    """Start ``redis-server`` on a free loopback port (or ``port``: a server stopped
    mid-test started again at the same URL) with no persistence; yield its URL
    (``redis://127.0.0.1:PORT/0``); stop it afterwards."""
    binary = redis_binary()
    if binary is None:
        pytest.skip("redis-server is not installed (.ci/run installs Debian's package as root)")
    port = port or free_port()
    with tempfile.TemporaryDirectory(prefix="framework-test-redis-") as directory:
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", directory, "--daemonize", "no", "--protected-mode", "yes"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + timeout
            while not _ping(port):
                if process.poll() is not None:
                    output = process.stdout.read().decode(errors="replace") if process.stdout else ""
                    raise RuntimeError(f"redis-server exited with {process.returncode}: {output}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"redis-server did not answer PING on port {port} within {timeout} s")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout:
                process.stdout.close()
