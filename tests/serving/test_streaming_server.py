"""Streams release what they hold when the client leaves, over real HTTP (gunicorn gthread
and granian): every disconnect closes the stream's generator (its ``finally`` runs) and
ends any thread it started, including clients that never read (the server's send buffer
full, the event queue full)."""
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from servers import serve, stop

SERVERS = ["gunicorn-gthread", "granian"]
CONCURRENCY = 32
THREAD_SLACK = 8  # the server's own threads may come and go (granian's blocking pool)


@pytest.fixture(scope="module", params=SERVERS)
def server(request):
    port, process = serve(request.param, "streaming_app:app")
    yield request.param, port
    stop(process)


def stats(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    return json.loads(body)


def open_and_leave(port, path, read_after_head=0):
    """Ask for ``path``, read the answer's head (and ``read_after_head`` more bytes), then
    leave. The receive buffer is small, so the server's writes soon block on a client that
    does not read; closing with unread data resets the connection."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(30)
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(1024)
            assert chunk, f"{path}: the server closed before the head"
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        while len(body) < read_after_head:
            chunk = sock.recv(read_after_head - len(body))
            assert chunk, f"{path}: the server closed the stream"
            body += chunk
    return head.split(b"\r\n", 1)[0]


def disconnect_many(port, path, count, read_after_head=0):
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        heads = list(pool.map(lambda _: open_and_leave(port, path, read_after_head), range(count)))
    assert set(heads) == {b"HTTP/1.1 200 OK"}


def assert_released(port, name, before, count, timeout=30):
    """Wait (bounded) until ``count`` more streams ``name`` were opened and closed and the
    worker's thread count is back to where it was."""
    deadline = time.monotonic() + timeout
    while True:
        now = stats(port)
        opened = now["opened"].get(name, 0) - before["opened"].get(name, 0)
        closed = now["closed"].get(name, 0) - before["closed"].get(name, 0)
        settled = opened == count and closed == count and now["threads"] <= before["threads"] + THREAD_SLACK
        if settled or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert (opened, closed, now["threads"] <= before["threads"] + THREAD_SLACK) == (count, count, True), (
        f"{name}: {opened} streams opened, {closed} closed; {now['threads']} threads in the worker, "
        f"{before['threads']} before the disconnects ({now['names']})")


def test_sse_clients_that_never_read_release_generator_and_thread(server):
    _, port = server
    before = stats(port)
    disconnect_many(port, "/sse", 1000)
    assert_released(port, "sse", before, 1000)


def test_sse_clients_that_leave_between_events(server):
    _, port = server
    before = stats(port)
    disconnect_many(port, "/sse-slow", 200, read_after_head=1)
    assert_released(port, "sse-slow", before, 200)


@pytest.mark.parametrize("path", ["/sse-plain", "/gen", "/file"])
def test_streams_without_a_thread_are_closed(server, path):
    _, port = server
    before = stats(port)
    # Read into the first chunk the stream's own source made (an SSE stream starts with a
    # comment of the framework's): a client that leaves before it may leave a generator
    # that never started, which has nothing to release and never counts as opened.
    disconnect_many(port, path, 200, read_after_head=64)
    assert_released(port, path.strip("/"), before, 200)
