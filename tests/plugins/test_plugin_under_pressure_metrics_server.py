"""framework.plugins.under_pressure's Prometheus figures on gunicorn with 2 gthread workers in
prometheus_client's multiprocess mode: whichever worker answers the scrape, the in-flight
gauge is the sum over the workers of the requests they hold, the refused counter the sum of
their refusals, and the memory one series per live worker.

Spreading the requests does not depend on the kernel: each worker takes at most 2
connections at once (``--worker-connections 2``), so 4 connections whose request heads are
not yet complete occupy both workers, 2 each; once completed, each worker lets one in
(``max_in_flight=1``) and refuses the other."""
from __future__ import annotations

import http.client
import select
import socket
import sys
import time

from prometheus_client.parser import text_string_to_metric_families

from servers import call, free_port, start, stop

WORKERS = 2


def samples(port):
    """``{(name, labels...): value}`` of the pressure metrics of one scrape."""
    status, _, body = call(f"http://127.0.0.1:{port}/metrics")
    assert status == 200
    found = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            if sample.name.startswith("framework_pressure_"):
                found[(sample.name, *sorted(sample.labels.items()))] = sample.value
    return found


def answer(sock):
    try:
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read()
    finally:
        sock.close()


def wait_until(condition, timeout=30):
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        assert time.monotonic() < deadline, "not within the deadline"
        time.sleep(0.05)
    return result


def test_gunicorn_gthread_workers_report_in_flight_and_refusals_summed(tmp_path, monkeypatch):
    folder, arrivals, release = tmp_path / "prometheus", tmp_path / "arrivals", tmp_path / "release"
    folder.mkdir()
    arrivals.mkdir()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(folder))
    monkeypatch.setenv("PRESSURE_ARRIVALS", str(arrivals))
    monkeypatch.setenv("PRESSURE_RELEASE", str(release))
    port = free_port()
    process = start([sys.executable, "-m", "gunicorn", "-c", "python:metrics_gunicorn_conf", "-b",
                     f"127.0.0.1:{port}", "-w", str(WORKERS), "-k", "gthread", "--threads", "2",
                     "--worker-connections", "2", "--keep-alive", "0", "pressure_metrics_app:app"], port)
    try:
        before = samples(port)
        assert before[("framework_pressure_refused_total", ("limit", "in_flight"))] == 0
        # Four connections fill both workers, two each; then the four requests are completed.
        head = b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        pending = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(2 * WORKERS)]
        for sock in pending:
            sock.sendall(head)
        for sock in pending:
            sock.sendall(b"\r\n")
        # Each worker refuses one at once and holds the other until the release.
        wait_until(lambda: len(list(arrivals.iterdir())) == WORKERS)
        pids = {int(path.name) for path in arrivals.iterdir()}
        assert len(pids) == WORKERS  # (one request in flight per worker at most)
        refused = []
        deadline = time.monotonic() + 30
        while len(refused) < WORKERS:
            assert time.monotonic() < deadline, f"only {len(refused)} refusals"
            readable, _, _ = select.select(pending, [], [], 0.1)
            for sock in readable:
                pending.remove(sock)
                refused.append(answer(sock))
        assert not release.exists()
        assert [status for status, _ in refused] == [503] * WORKERS and len(pending) == WORKERS
        # A worker holding one request has a connection left for the scrape (not refused).
        found = samples(port)
        assert found[("framework_pressure_in_flight",)] == WORKERS  # livesum: over the workers
        assert found[("framework_pressure_refused_total", ("limit", "in_flight"))] == WORKERS
        memory = {int(dict(key[1:])["pid"]): value for key, value in found.items()
                  if key[0] == "framework_pressure_rss_bytes"}
        assert set(memory) == pids and all(value > 1 << 20 for value in memory.values())  # liveall
        release.touch()
        assert [answer(sock) for sock in pending] == [(200, b'{"released":true}')] * WORKERS
        # A worker counts a request out once it has sent the answer: soon after the client read it.
        wait_until(lambda: samples(port)[("framework_pressure_in_flight",)] == 0)
        assert samples(port)[("framework_pressure_refused_total", ("limit", "in_flight"))] == WORKERS
    finally:
        stop(process)
