"""framework.plugins.health on real servers: the drain on SIGTERM (readiness 503 while the
worker still accepts and answers, no accepted request lost, then a clean exit) under
gunicorn sync and gthread and granian; readiness while the application could not start."""
from __future__ import annotations

import http.client
import signal
import socket
import time

import pytest

from servers import SERVERS, command, free_port, raw_get, serve, start, stop

DRAIN_DELAY = 8  # seconds: far longer than the test needs to see the drain (it polls, it never sleeps)
LOAD = 40


def send(port, path):
    """A request sent in full on a connection of its own (answered later: see ``answer``)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    return sock


def answer(sock):
    """``(status, body)``, or ``(None, error)`` when the connection was cut; the socket is closed
    (gunicorn lingers on a connection until the client closes it)."""
    try:
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read()
    except OSError as error:
        return None, repr(error)
    finally:
        sock.close()


def wait_until(condition, what, timeout=30):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("server", [*SERVERS, "gunicorn-gthread+conf"])
def test_sigterm_drains_readiness_503_and_no_accepted_request_is_lost(server, tmp_path, monkeypatch):
    arrivals, release = tmp_path / "arrivals", tmp_path / "release"
    arrivals.mkdir()
    monkeypatch.setenv("HEALTH_ARRIVALS", str(arrivals))
    monkeypatch.setenv("HEALTH_RELEASE", str(release))
    monkeypatch.setenv("HEALTH_DRAIN_DELAY", str(DRAIN_DELAY))
    if server == "gunicorn-gthread+conf":  # not readied at import: framework.gunicorn_conf readies each worker
        monkeypatch.setenv("HEALTH_LAZY", "1")
        port = free_port()
        gthread = command("gunicorn-gthread", port, "health_app:app")
        process = start([*gthread[:-1], "-c", "python:framework.gunicorn_conf", gthread[-1]], port)
    else:
        port, process = serve(server, "health_app:app")
    try:
        head, body = raw_get(port, "/health/ready")
        assert head.startswith(b"http/1.1 200") and body == b'{"status":"ok","checks":{}}'
        # The load: LOAD slow requests at once, each on its own connection; the handlers
        # wait for the release file, so SIGTERM comes with requests in handlers and queued.
        load = [send(port, "/slow") for _ in range(LOAD)]
        wait_until(lambda: any(arrivals.iterdir()), "a request in its handler")
        process.send_signal(signal.SIGTERM)  # to the server's main process alone, as Kubernetes signals PID 1
        release.touch()
        answers = [answer(sock) for sock in load]
        # Draining: the worker still accepts and answers, and readiness says 503.
        probes = []

        def readiness_is_503():
            probes.append(answer(send(port, "/health/ready")))
            return probes[-1][0] == 503

        wait_until(readiness_is_503, "readiness 503")
        assert {status for status, _ in probes} <= {200, 503}, probes  # never refused while draining
        assert probes[-1][1] == b'{"status":"unavailable","reason":"draining","checks":{}}'
        assert answer(send(port, "/health/live"))[0] == 200
        late = [answer(send(port, "/slow")) for _ in range(2)]  # sent once readiness said 503: still served
        sent = answers + late
        assert [status for status, _ in sent] == [200] * (LOAD + 2), [a for a in sent if a[0] != 200]
        assert all(body == b'{"released":true}' for _, body in sent)
        # After the delay, the server's own graceful stop: the worker exits, the server with it.
        assert process.wait(timeout=DRAIN_DELAY + 30) == 0
        output = process.stdout.read()
        assert "Traceback" not in output, output
    finally:
        stop(process)


def test_readiness_is_503_while_the_application_could_not_start(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOT_MARKER", str(tmp_path / "database-up"))  # absent: the database plugin fails
    port = free_port()
    process = start(command("gunicorn-sync", port, "health_boot_fail_app:app"), port)
    try:
        for path in ("/health/ready", "/health/live"):
            head, body = raw_get(port, path)
            assert head.startswith(b"http/1.1 503"), head
            assert b"retry-after:" in head
            assert b"could not start" in body and b"5432" not in body
    finally:
        stop(process)
