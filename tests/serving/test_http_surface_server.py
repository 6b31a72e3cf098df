"""The HTTP surface over real servers (gunicorn sync, gunicorn gthread, granian): a 50 MB
upload streamed with the worker's peak RSS bounded, range requests, a generator reply,
an error mid-stream, server-sent events, and a CORS preflight."""
import hashlib
import http.client
import json
import os
import time

import pytest

from servers import SERVERS, serve, stop

UPLOAD_MB = 50


@pytest.fixture(scope="module", params=SERVERS)
def server(request):
    port, process = serve(request.param, "http_surface_app:app")
    yield request.param, port
    stop(process)


def connect(port, timeout=60):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)


def get(port, path, headers=None, method="GET"):
    connection = connect(port)
    connection.request(method, path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


def test_upload_50_mb_streams_with_bounded_rss(server):
    name, port = server
    block = os.urandom(1 << 20)  # 1 MiB, newlines included at random
    boundary = "----surface-boundary"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nbig one\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    length = len(head) + UPLOAD_MB * len(block) + len(tail)
    expected = hashlib.sha256(block * UPLOAD_MB).hexdigest()

    def body():
        yield head
        for _ in range(UPLOAD_MB):
            yield block
        yield tail

    _, before = get(port, "/rss")
    before = json.loads(before)
    connection = connect(port, timeout=120)
    connection.request("POST", "/upload", body=body(), headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "Content-Length": str(length)})
    response = connection.getresponse()
    answer = json.loads(response.read())
    connection.close()
    assert response.status == 200, answer
    assert answer["size"] == UPLOAD_MB << 20 and answer["sha256"] == expected
    assert answer["fields"] == {"title": "big one"} and answer["name"] == "big.bin"
    growth_mib = (answer["VmHWM"] - before["VmHWM"]) / 1024
    print(f"{name}: peak RSS {before['VmHWM'] / 1024:.1f} -> {answer['VmHWM'] / 1024:.1f} MiB "
          f"(+{growth_mib:.1f} MiB) for a {UPLOAD_MB} MiB upload")
    assert growth_mib < 20, f"{name}: the worker's peak RSS grew by {growth_mib:.1f} MiB"


def test_range_requests(server):
    _, port = server
    response, body = get(port, "/files/digits.txt", {"Range": "bytes=10-19"})
    assert response.status == 206 and body == b"0123456789"
    assert response.getheader("content-range") == "bytes 10-19/1000"
    response, body = get(port, "/files/digits.txt", {"Range": "bytes=5000-"})
    assert response.status == 416
    response, _ = get(port, "/files/digits.txt")
    etag = response.getheader("etag")
    response, body = get(port, "/files/digits.txt", {"If-None-Match": etag})
    assert response.status == 304 and body == b""
    response, _ = get(port, "/files/../http_surface_app.py")
    assert response.status == 404


def test_generator_reply_is_chunked_and_on_response_follows(server):
    _, port = server
    started = time.monotonic()
    connection = connect(port)
    connection.request("GET", "/gen")
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("content-length") is None
    first = response.readline()
    first_at = time.monotonic() - started
    rest = response.read()
    total = time.monotonic() - started
    connection.close()
    assert (first + rest).decode().splitlines() == [f"chunk {n}" for n in range(5)]
    assert first_at < total  # the first chunk arrived before the last was made
    # on_response runs when the server closes the body, just after the client got the end:
    # with threads, the next request may be answered first.
    deadline = time.monotonic() + 5
    while True:
        _, body = get(port, "/answered")
        if "/gen" in json.loads(body)["answered"] or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert "/gen" in json.loads(body)["answered"]


def test_error_mid_stream_closes_the_connection(server):
    """A stream whose iterator raises after its first chunk: the client can tell the answer
    is cut (no terminating chunk), on every server, and no error text reaches it. granian
    ended such a body normally up to 2.8.7; 2.8.9 (the test extra's floor) closes the
    connection, sometimes before the status line leaves."""
    _, port = server
    connection = connect(port)
    connection.request("GET", "/broken")
    with pytest.raises((http.client.IncompleteRead, ConnectionError)):
        response = connection.getresponse()
        assert response.status == 200
        response.read()
    connection.close()


def test_a_typed_stream_s_refused_item_cuts_the_connection(server):
    """An item its schema refuses after the first line: cut as any mid-stream error, with
    no error text and no undeclared property reaching the client."""
    _, port = server
    connection = connect(port)
    connection.request("GET", "/typed-broken")
    with pytest.raises((http.client.IncompleteRead, ConnectionError)) as raised:
        response = connection.getresponse()
        assert (response.status, response.getheader("content-type")) == (200, "application/jsonl")
        response.read()
    connection.close()
    partial = getattr(raised.value, "partial", b"")
    assert partial in (b"", b'{"id":1}\n')


def test_server_sent_events(server):
    _, port = server
    connection = connect(port)
    started = time.monotonic()
    connection.request("GET", "/events")
    response = connection.getresponse()
    assert response.getheader("content-type") == "text/event-stream; charset=utf-8"
    lines, first_event_at = [], None
    while True:
        line = response.readline()
        if not line:
            break
        if line.startswith(b"event: tick") and first_event_at is None:
            first_event_at = time.monotonic() - started
        lines.append(line.decode())
        if line.startswith(b"data: {\"n\":2}"):
            break
    connection.close()
    text = "".join(lines)
    assert 'event: tick\nid: 0\ndata: {"n":0}\n' in text and 'data: {"n":2}' in text
    assert ": heartbeat" in text
    assert first_event_at < 0.5  # not buffered until the end (the stream lasts over 1 s)


def test_cors_preflight_from_a_real_client(server):
    _, port = server
    response, body = get(port, "/api/items/7", {
        "Origin": "https://app.example", "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "content-type"}, method="OPTIONS")
    assert response.status == 204 and body == b""
    assert response.getheader("access-control-allow-origin") == "https://app.example"
    assert "PUT" in response.getheader("access-control-allow-methods")
    assert response.getheader("access-control-allow-headers") == "content-type"
    assert response.getheader("access-control-max-age") == "60"
    response, body = get(port, "/api/items", {"Origin": "https://app.example"})
    assert response.status == 200 and response.getheader("access-control-allow-origin") == "https://app.example"
    assert "Origin" in response.getheader("vary")
