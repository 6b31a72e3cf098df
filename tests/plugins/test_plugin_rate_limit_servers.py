"""framework.plugins.rate_limit served by gunicorn and granian, counting in a real
redis-server: a burst of concurrent requests, more than the limit, gets exactly ``LIMIT``
200s and the rest 429s, whether four workers of one gunicorn answer it, two gunicorn
instances ("two machines") sharing the Redis, or granian's workers.

The window is an hour and every attempt counts under a client key of its own, so a burst
can never straddle two windows or meet an earlier attempt's count: the totals are exact
whatever the timing. How the kernel hands connections to workers is not assumed either:
the counts must be exact on every attempt, and attempts go on (until a deadline) only
until the answers show that several workers took part."""
from __future__ import annotations

import sys
import time
import uuid
from collections import Counter

import pytest

from held_across import held_requests_across
from redis_server import redis_server
from servers import free_port, held_requests, start, stop

LIMIT = 3
#: More than the limit, and more than the workers (a sync worker answers one at a time: each
#: connection past the idle workers waits for one, about a second under gunicorn's sync loop).
BURST = 8


def gunicorn(port: int, workers: int, storage: str) -> list[str]:
    return [sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", str(workers),
            "-e", f"RATE_LIMIT_STORAGE={storage}", "-e", f"RATE_LIMIT={LIMIT}/hour", "rate_limit_app:app"]


def assert_exact(statuses: list[int]) -> None:
    assert Counter(statuses) == {200: LIMIT, 429: len(statuses) - LIMIT}, Counter(statuses)


def test_four_gunicorn_workers_accept_exactly_the_limit_of_a_concurrent_burst():
    with redis_server() as url:
        port = free_port()
        process = start(gunicorn(port, 4, url), port)
        try:
            deadline = time.monotonic() + 60
            while True:
                client = {"X-Client": uuid.uuid4().hex}
                answers = held_requests(port, "/limited", BURST, headers=client)
                assert_exact([status for status, _, _ in answers])
                refused = [headers for status, headers, _ in answers if status == 429]
                assert all(headers["ratelimit-remaining"] == "0" and int(headers["retry-after"]) >= 1
                           for headers in refused)
                workers = {headers["x-worker"] for _, headers, _ in answers}
                if len(workers) >= 2:
                    break
                assert time.monotonic() < deadline, "every burst was answered by one worker"
        finally:
            stop(process)


def test_two_gunicorn_instances_sharing_redis_accept_exactly_the_limit_of_a_concurrent_burst():
    with redis_server() as url:
        ports = [free_port(), free_port()]
        processes = []
        try:
            for port in ports:
                processes.append(start(gunicorn(port, 2, url), port))
            per_port = BURST // 2
            client = {"X-Client": uuid.uuid4().hex}
            answers = held_requests_across(ports, "/limited", per_port, headers=client)
            assert_exact([status for _, status, _ in answers])
            # Each instance answered half of the connections; the 200s add up to LIMIT
            # between them, however they fell.
            by_port = {port: Counter(status for p, status, _ in answers if p == port) for port in ports}
            assert all(sum(counts.values()) == per_port for counts in by_port.values())
            # A later request to either instance is refused: the count is shared.
            for port in ports:
                [(_, status, headers)] = held_requests_across([port], "/limited", 1, headers=client)
                assert status == 429 and headers["ratelimit-limit"] == str(LIMIT)
        finally:
            for process in processes:
                stop(process)


def test_gunicorn_workers_serve_unlimited_while_redis_is_down():
    port = free_port()
    process = None
    client = {"X-Client": uuid.uuid4().hex}
    try:
        with redis_server() as url:
            process = start(gunicorn(port, 2, url), port)
            assert_exact([status for status, _, _ in held_requests(port, "/limited", LIMIT + 2, headers=client)])
        # redis-server has stopped: fail open, every answer a 200 (never a 500), no RateLimit headers.
        answers = held_requests(port, "/limited", LIMIT + 2, headers=client)
        assert [status for status, _, _ in answers] == [200] * (LIMIT + 2)
        assert not any("ratelimit-limit" in headers for _, headers, _ in answers)
    finally:
        if process is not None:
            stop(process)


def test_granian_workers_accept_exactly_the_limit_of_a_concurrent_burst(monkeypatch):
    pytest.importorskip("granian", reason="granian is an optional extra")
    with redis_server() as url:
        monkeypatch.setenv("RATE_LIMIT_STORAGE", url)  # start() hands the environment to the server
        monkeypatch.setenv("RATE_LIMIT", f"{LIMIT}/hour")
        port = free_port()
        process = start([sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1",
                         "--port", str(port), "--workers", "2", "rate_limit_app:app"], port)
        try:
            answers = held_requests(port, "/limited", BURST, headers={"X-Client": uuid.uuid4().hex})
            assert_exact([status for status, _, _ in answers])
        finally:
            stop(process)
