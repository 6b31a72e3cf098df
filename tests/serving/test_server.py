"""Real HTTP: the app served by gunicorn and by granian (and through listen()), requests over a socket."""
import http.client
import json
import socket
import sys
import threading

import pytest

from servers import APPS, call, free_port, start, stop


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
    process = start([sys.executable, str(APPS / "tests_app.py"), str(port), server], port)
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
