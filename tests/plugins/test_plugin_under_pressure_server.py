"""framework.plugins.under_pressure on gunicorn gthread (8 threads) and granian: with max_in_flight=2 and
two requests held in their handlers, the excess is refused at once (503, Retry-After, the
JSON error) instead of queueing, the health routes still answer, and nothing else is a 5xx."""
from __future__ import annotations

import http.client
import json
import select
import socket
import sys
import time

import pytest

from servers import command, free_port, start, stop

CONCURRENT = 10


def send(port, path):
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    return sock


def answer(sock):
    try:
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        sock.close()


def get(port, path):
    return answer(send(port, path))


def until(condition, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("server", ["gunicorn-gthread", "granian"])
def test_max_in_flight_refuses_the_excess_at_once_with_retry_after(server, tmp_path, monkeypatch):
    arrivals, release = tmp_path / "arrivals", tmp_path / "release"
    arrivals.mkdir()
    monkeypatch.setenv("PRESSURE_ARRIVALS", str(arrivals))
    monkeypatch.setenv("PRESSURE_RELEASE", str(release))
    port = free_port()
    if server == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
        process = start(command(server, port, "pressure_app:app"), port)
    else:
        process = start([sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1", "-k", "gthread",
                         "--threads", "8", "pressure_app:app"], port)
    try:
        pending = [send(port, "/slow") for _ in range(CONCURRENT)]
        # Two are let in and wait for the release; every other one is answered now, while
        # those two still hold their threads: the refusals do not queue behind them.
        refused = []
        deadline = time.monotonic() + 30
        while len(refused) < CONCURRENT - 2:
            assert time.monotonic() < deadline, f"only {len(refused)} answers before the release"
            readable, _, _ = select.select(pending, [], [], 0.1)
            for sock in readable:
                pending.remove(sock)
                refused.append(answer(sock))
        # The two let in may reach the handler after the refusals were answered.
        until(lambda: len(list(arrivals.iterdir())) >= 2, "the two requests let in to reach the handler")
        assert not release.exists() and len(list(arrivals.iterdir())) == 2
        for status, headers, body in refused:
            assert status == 503
            assert headers["retry-after"] == "3"
            assert headers["content-type"] == "application/json; charset=utf-8"
            assert json.loads(body) == {
                "statusCode": 503, "code": "FST_UNDER_PRESSURE", "error": "Service Unavailable",
                "message": "Service Unavailable: too many requests in flight (max_in_flight=2)"}
        # The exempt routes answer while the worker is at its limit.
        assert get(port, "/health/ready")[0] == 200
        status, _, body = get(port, "/pressure")
        state = json.loads(body)
        assert (status, state["in_flight"], state["under_pressure"]) == (200, 2, True)
        release.touch()
        held = [answer(sock) for sock in pending]
        assert [(status, body) for status, _, body in held] == [(200, b'{"released":true}')] * 2
        # Once they are done, the worker takes requests again.
        # on_response counts a request out when the server closes its body, which may come
        # just after the client read the answer.
        until(lambda: json.loads(get(port, "/pressure")[2])["in_flight"] == 0, "in_flight back to 0")
        assert get(port, "/slow")[0] == 200
    finally:
        stop(process)
