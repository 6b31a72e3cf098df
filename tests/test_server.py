"""Real HTTP: the app served by gunicorn and by granian (and through listen()), requests over a socket."""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import SUPPORT_PATH  # the repository root, or examples/ alone under tox (see conftest)

HERE = Path(__file__).resolve().parent


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
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT_PATH), str(HERE)]))
    process = subprocess.Popen(command, cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
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


def server_command(server, port):
    if server == "gunicorn":
        return [sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1", "tests_app:app"]
    return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port),
            "--workers", "1", "tests_app:app"]


SERVERS = ["gunicorn", "granian"]


@pytest.fixture(scope="module", params=SERVERS)
def base_url(request):
    if request.param == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
    port = free_port()
    process = start(server_command(request.param, port), port)
    yield f"http://127.0.0.1:{port}"
    stop(process)


def call(url, method="GET", body=None, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_get_head_and_404(base_url):
    status, headers, body = call(base_url + "/hello")
    assert status == 200 and json.loads(body) == {"hello": "world"}
    assert headers["content-type"] == "application/json; charset=utf-8"
    status, headers, body = call(base_url + "/hello", method="HEAD")
    assert status == 200 and body == b"" and headers["content-length"] == "17"
    status, _, body = call(base_url + "/missing?x=1")
    assert status == 404 and json.loads(body)["message"] == "Route GET:/missing?x=1 not found"


def test_errors_over_http(base_url):
    status, _, body = call(base_url + "/boom")
    assert status == 500
    assert json.loads(body) == {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}
    status, _, body = call(base_url + "/echo", "POST", b'{"a":', {"Content-Type": "application/json"})
    assert status == 400 and json.loads(body)["error"] == "Bad Request"
    status, _, body = call(base_url + "/echo", "POST", b"<x/>", {"Content-Type": "application/xml"})
    assert status == 415


def test_large_body_and_limit(base_url):
    big = json.dumps({"data": "x" * 900_000}).encode()
    status, _, body = call(base_url + "/echo", "POST", big, {"Content-Type": "application/json"})
    assert status == 200 and json.loads(body)["body"]["data"] == "x" * 900_000


def test_declared_length_over_limit_is_answered_before_the_body_is_sent(base_url):
    host, port = base_url.rsplit("/", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 2000000\r\n\r\n")
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 413
        assert json.loads(response.read())["code"] == "FST_ERR_CTP_BODY_TOO_LARGE"


def test_chunked_upload(base_url):
    host, port = base_url.rsplit("/", 1)[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    chunks = [b'{"parts": [', b'"a", "b",', b' "c"]}']
    connection.request("POST", "/echo", body=iter(chunks), headers={"Content-Type": "application/json"},
                       encode_chunked=True)
    response = connection.getresponse()
    assert response.status == 200
    assert json.loads(response.read()) == {"size": None, "body": {"parts": ["a", "b", "c"]}}
    connection.close()


@pytest.mark.parametrize("server", SERVERS)
def test_listen_calls_back_once_listening(server):
    if server == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
    port = free_port()
    process = start([sys.executable, str(HERE / "tests_app.py"), str(port), server], port)
    try:
        assert wait_for_line(process, "listening"), "callback(None) was not called"
        status, _, body = call(f"http://127.0.0.1:{port}/hello")
        assert status == 200 and json.loads(body) == {"hello": "world"}
    finally:
        stop(process)


def wait_for_line(process, expected, timeout=15):
    """True once the process prints ``expected`` on a line of its own (read on a thread:
    select() cannot see lines already in the pipe reader's buffer)."""
    seen = threading.Event()

    def read():
        for line in process.stdout:
            if line.strip() == expected:
                seen.set()

    threading.Thread(target=read, daemon=True).start()
    return seen.wait(timeout)
