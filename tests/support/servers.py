"""Serving the test apps of this folder over real HTTP: start a server command on a free port
(gunicorn or granian, with this folder as its working directory and on its ``PYTHONPATH``),
wait until it answers, stop it; and the raw-socket and urllib clients the server tests use."""
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import SUPPORT_PATH  # the repository root, or examples/ alone under tox (see conftest)

#: This folder: the apps the servers serve (``module:app``) are found here.
APPS = Path(__file__).resolve().parent

#: The servers the hardening, streaming and HTTP-surface tests run on.
SERVERS = ["gunicorn-sync", "gunicorn-gthread", "granian"]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(port, process, timeout=60):
    """Until the server answers HTTP on ``port`` (any status: the probe path is unknown).

    A socket that accepts connections only shows the master has bound it: gunicorn's
    workers may still be booting, and a test's own requests would then race their boot."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}: {process.stdout.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
                sock.sendall(b"GET /__ready_probe__ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if sock.recv(16).startswith(b"HTTP/1."):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"no HTTP answer on port {port} within {timeout} s")


def held_requests(port, path, count, method="GET", headers=None, body=b"", timeout=20):
    """``count`` requests for ``path`` on as many connections, all sent but the last CRLF of
    the head, then completed together; the answers as ``(status, headers, body)``.

    A sync worker that accepted one of them is busy until it completes, so the others go to
    other idle workers: a way to reach several workers that does not depend on how the
    kernel hands connections out (callers still check, from the answers or the access log,
    which workers answered, and try again until a deadline)."""
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    if body:
        extra += f"Content-Length: {len(body)}\r\n"
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}".encode()
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=timeout) for _ in range(count)]
    try:
        for sock in sockets:
            sock.sendall(head)
        for sock in sockets:
            sock.sendall(b"\r\n" + body)
        answers = []
        for sock in sockets:
            response = http.client.HTTPResponse(sock)
            response.begin()
            answers.append((response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()))
        return answers
    finally:
        for sock in sockets:
            sock.close()


def start(command, port):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT_PATH), str(APPS)]))
    process = subprocess.Popen(command, cwd=APPS, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        wait_for(port, process)
    except Exception:
        stop(process)
        raise
    return process


def stop(process):
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def call(url, method="GET", body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()



def command(server, port, module):
    if server == "granian":
        return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port),
                "--workers", "1", module]
    worker = ["-k", "gthread", "--threads", "4"] if server == "gunicorn-gthread" else []
    return [sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1", *worker, module]


def serve(server, module):
    if server == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
    port = free_port()
    return port, start(command(server, port, module), port)


def raw_get(port, path, headers=""):
    """The whole answer to ``GET path`` (with extra ``headers`` lines) as bytes: head
    (lower-cased) and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{headers}Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.lower(), body
