"""framework.plugins.metrics on real servers: gunicorn with 4 sync workers and granian
with 2, in prometheus_client's multiprocess mode: a scrape, whichever worker answers it,
reports the sum over the workers, exactly the requests sent, per route and status."""
from __future__ import annotations

import json
import sys
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from servers import call, free_port, held_requests, start, stop

WORKERS = 4


def counts(text):
    """``{(method, route, status): requests}`` from a scrape (the duration histogram's ``_count``)."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "http_server_request_duration_seconds_count":
                key = (sample.labels["method"], sample.labels["route"], sample.labels["status"])
                found[key] = found.get(key, 0) + sample.value
    return found


def scrape(port):
    status, headers, body = call(f"http://127.0.0.1:{port}/metrics")
    assert status == 200 and {k.lower(): v for k, v in headers.items()}["content-type"].startswith("text/plain")
    return body.decode()


def settled(port, expected, deadline=20):
    """The scrape once it reports ``expected`` (a worker records a request when it closes
    the answer, which may be just after the client has read it): never more."""
    end = time.monotonic() + deadline
    while True:
        found = counts(scrape(port))
        mine = {key: found.get(key, 0) for key in expected}
        assert all(mine[key] <= expected[key] for key in expected), (mine, expected)
        if mine == expected or time.monotonic() > end:
            return found
        time.sleep(0.1)


@pytest.fixture
def multiprocess_dir(tmp_path, monkeypatch):
    folder = tmp_path / "prometheus"
    folder.mkdir()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(folder))
    return folder


def test_gunicorn_with_4_workers_reports_the_sum_over_them(multiprocess_dir):
    port = free_port()
    process = start([sys.executable, "-m", "gunicorn", "-c", "python:metrics_gunicorn_conf", "-b",
                     f"127.0.0.1:{port}", "-w", str(WORKERS), "metrics_app:app"], port)
    try:
        sent, workers = 0, set()
        deadline = time.monotonic() + 30
        # Held requests: each sync worker that takes one is busy until all are completed,
        # so the others go to other workers, whatever the kernel's choice.
        while (len(workers) < WORKERS or sent < 40) and time.monotonic() < deadline:
            answers = held_requests(port, "/work", WORKERS)
            assert all(status == 200 for status, _, _ in answers)
            sent += len(answers)
            workers |= {json.loads(body)["pid"] for _, _, body in answers}
        assert len(workers) >= 2, workers
        for number in range(5):
            assert call(f"http://127.0.0.1:{port}/items/{number}")[0] == 200
        for number in range(3):
            # (DELETE: the servers' start-up probe was a GET 404)
            assert call(f"http://127.0.0.1:{port}/nothing/{number}", method="DELETE")[0] == 404
        expected = {("GET", "/work", "200"): sent, ("GET", "/items/:id", "200"): 5, ("DELETE", "", "404"): 3}
        found = settled(port, expected)
        assert {key: found.get(key, 0) for key in expected} == expected
        assert not any(route == "/metrics" for _, route, _ in found)  # the endpoint is not measured
        # Scrapes answered by different workers at once all report the same sums.
        scrapes = held_requests(port, "/metrics", WORKERS)
        assert len({json.dumps(sorted(counts(body.decode()).items())) for _, _, body in scrapes}) == 1
        assert counts(scrapes[0][2].decode())[("GET", "/work", "200")] == sent
    finally:
        stop(process)


def test_granian_with_2_workers_reports_the_sum_over_them(multiprocess_dir):
    pytest.importorskip("granian", reason="granian is an optional extra")
    port = free_port()
    process = start([sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port",
                     str(port), "--workers", "2", "metrics_app:app"], port)
    try:
        sent, workers = 0, set()
        for _ in range(10):
            answers = held_requests(port, "/work", 4)
            sent += len(answers)
            workers |= {json.loads(body)["pid"] for _, _, body in answers}
        expected = {("GET", "/work", "200"): sent}
        found = settled(port, expected)
        assert found[("GET", "/work", "200")] == sent  # whichever of the workers answered each
    finally:
        stop(process)


def test_a_scrape_racing_a_booting_worker_is_answered(multiprocess_dir):
    """A booting worker creates its value files empty, then sizes them; a scrape that read
    one in that instant answered 500. An empty file stands for that instant here."""
    port = free_port()
    process = start([sys.executable, "-m", "gunicorn", "-c", "python:metrics_gunicorn_conf", "-b",
                     f"127.0.0.1:{port}", "-w", "1", "metrics_app:app"], port)
    try:
        assert call(f"http://127.0.0.1:{port}/items/1")[0] == 200
        (multiprocess_dir / "gauge_livesum_4194304.db").touch()
        found = settled(port, {("GET", "/items/:id", "200"): 1})
        assert found[("GET", "/items/:id", "200")] == 1
    finally:
        stop(process)
