"""framework.plugins.under_pressure through inject: each limit (requests in flight, memory,
p99 latency with its samples ageing out), the refusal's shape, the exempt routes, scoping,
``app.pressure()``, the counters after errors and refusals, option errors. The gthread
worker test is in test_plugin_under_pressure_server.py."""
from __future__ import annotations

import threading
import time

import pytest

from framework import Framework
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.health import health
from framework.plugins.under_pressure import UnderPressureOptionsError, under_pressure


def refusal(message):
    return {"statusCode": 503, "code": "FST_UNDER_PRESSURE", "error": "Service Unavailable",
            "message": f"Service Unavailable: {message}"}


def wait_until(condition, timeout=30):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_max_in_flight_refuses_the_excess_and_counts_back_down():
    release = threading.Event()
    app = Framework()
    app.register(health)
    app.register(under_pressure, max_in_flight=2)

    @app.get("/slow")
    def slow(request, reply):
        release.wait(30)
        return {"ok": True}

    app.get("/free", {"config": {"under_pressure": False}}, lambda request, reply: {"ok": True})
    app.ready()
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(app.inject(url="/slow"))) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: app.pressure()["in_flight"] == 2)
        refused = app.inject(url="/slow")
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "10"
        assert refused.json() == refusal("too many requests in flight (max_in_flight=2)")
        assert app.inject(url="/health/ready").status_code == 200  # the health routes are exempt
        assert app.inject(url="/free").status_code == 200  # so is a route with config under_pressure=False
        state = app.pressure()
        assert state["under_pressure"] is True and state["in_flight"] == 2
        assert state["limits"] == {"max_in_flight": 2, "max_rss_bytes": None, "max_p99_latency": None}
    finally:
        release.set()
        for thread in threads:
            thread.join(30)
    assert [response.status_code for response in answers] == [200, 200]
    assert app.pressure() == {"under_pressure": False, "reason": None, "in_flight": 0, "rss_bytes": None,
                              "p99_latency": None,
                              "limits": {"max_in_flight": 2, "max_rss_bytes": None, "max_p99_latency": None}}


def test_a_failing_handler_and_a_refusal_by_an_earlier_hook_leave_the_count_right():
    app = Framework()
    app.register(under_pressure, max_in_flight=1)

    def broken(request, reply):
        raise RuntimeError("boom")

    app.get("/broken", broken)
    app.get("/ok", lambda request, reply: {"ok": True})
    for _ in range(3):
        assert app.inject(url="/broken").status_code == 500
        assert app.inject(url="/ok").status_code == 200
    assert app.pressure()["in_flight"] == 0


def test_the_refusal_comes_before_the_hooks_its_context_added_earlier():
    app = Framework()
    app.register(bearer_auth, keys=["secret"])
    app.register(under_pressure, max_rss_bytes=1)  # any process is over one byte
    app.get("/private", lambda request, reply: {"ok": True})
    response = app.inject(url="/private")  # no credentials: refused for pressure first, not 401
    assert response.status_code == 503
    assert response.json() == refusal("memory over 1 bytes (max_rss_bytes)")


def test_max_rss_bytes_reads_the_memory_and_reports_it():
    app = Framework()
    app.register(under_pressure, max_rss_bytes=1 << 50)
    app.get("/", lambda request, reply: {"ok": True})
    assert app.inject(url="/").status_code == 200
    state = app.pressure()
    assert state["under_pressure"] is False and 1 << 20 < state["rss_bytes"] < 1 << 50


def test_max_p99_latency_refuses_until_the_slow_samples_age_out():
    app = Framework()
    # Every request lasts longer than a nanosecond; every request samples again.
    app.register(under_pressure, max_p99_latency=1e-9, sample_interval=1e-9, latency_window=0.2)
    app.get("/", lambda request, reply: {"ok": True})
    answers = [app.inject(url="/").status_code for _ in range(25)]
    assert answers[:20] == [200] * 20  # a percentile needs 20 samples: the 21st request sees them
    assert set(answers[20:]) == {503}
    assert app.inject(url="/").json() == refusal("p99 latency over 1e-09 s (max_p99_latency)")
    assert app.pressure()["p99_latency"] > 1e-9
    time.sleep(0.3)  # longer than latency_window: every sample is older than the window
    assert app.inject(url="/").status_code == 200
    assert app.pressure()["p99_latency"] is None


def test_routes_outside_the_registering_context_are_not_guarded():
    app = Framework()

    def api(instance, opts):
        instance.register(under_pressure, max_rss_bytes=1)
        instance.get("/items", lambda request, reply: [])

    app.register(api, prefix="/api")
    app.get("/", lambda request, reply: {"ok": True})
    assert app.inject(url="/api/items").status_code == 503
    assert app.inject(url="/").status_code == 200


@pytest.mark.parametrize("options, message", [
    ({"max_in_fligt": 2}, "unknown option(s) 'max_in_fligt'"),
    ({"max_in_flight": 0}, "max_in_flight must be a positive integer"),
    ({"max_in_flight": 2.5}, "max_in_flight must be a positive integer"),
    ({"max_rss_bytes": True}, "max_rss_bytes must be a positive integer"),
    ({"max_p99_latency": -1}, "max_p99_latency must be a positive number"),
    ({"sample_interval": float("nan")}, "sample_interval must be a positive number"),
    ({"retry_after": "10"}, "retry_after must be a positive integer"),
])
def test_options_are_checked_when_the_plugin_loads(options, message):
    app = Framework()
    app.register(under_pressure, **options)
    with pytest.raises(UnderPressureOptionsError, match="under_pressure: " + message.replace("(", r"\(")
                       .replace(")", r"\)")):
        app.ready()
