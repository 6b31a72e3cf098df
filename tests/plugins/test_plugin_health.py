"""framework.plugins.health through inject: the liveness and readiness routes, readiness
while starting, closing and after a failed start, checks (failures, a hanging check bounded
by its timeout, async checks), left out of OpenAPI, the request log, traces and metrics, option errors.
The drain on SIGTERM under real servers is in test_plugin_health_server.py."""
from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from framework import Framework
from framework.plugins.health import HealthOptionsError, draining, health
from framework.plugins.metrics import metrics
from framework.plugins.openapi import openapi
from framework.plugins.otel import otel
from framework.testing import inject


def test_liveness_and_readiness_answer_200_once_started():
    app = Framework()
    app.register(health)
    live = app.inject(url="/health/live")
    assert (live.status_code, live.json()) == (200, {"status": "ok"})
    ready = app.inject(url="/health/ready")
    assert (ready.status_code, ready.json()) == (200, {"status": "ok", "checks": {}})
    assert ready.headers["content-type"] == "application/json; charset=utf-8"
    assert app.inject(method="HEAD", url="/health/ready").status_code == 200  # load balancers probe with HEAD too
    assert draining() is False


def test_paths_by_option_under_the_registering_prefix_and_none_leaves_a_route_out():
    app = Framework()

    def ops(instance, opts):
        instance.register(health, live_path="/livez", ready_path=None)

    app.register(ops, prefix="/ops")
    assert app.inject(url="/ops/livez").status_code == 200
    assert app.inject(url="/ops/health/ready").status_code == 404
    assert app.inject(url="/health/live").status_code == 404


def test_readiness_is_503_until_every_on_ready_hook_has_run():
    seen = []
    app = Framework()
    app.register(health)

    def later(instance, opts):  # a plugin loaded after health, whose on_ready hook runs after health's
        instance.add_hook("on_ready", lambda: seen.append(app.inject(url="/health/ready")))

    app.register(later)
    app.ready()
    (during,) = seen
    assert during.status_code == 503
    assert during.json() == {"status": "unavailable", "reason": "starting", "checks": {}}
    assert during.headers["cache-control"] == "no-store"
    assert app.inject(url="/health/ready").status_code == 200


def test_readiness_is_503_from_the_start_of_close_and_liveness_stays_200():
    during_close = []
    app = Framework()
    app.register(health)

    def database(instance, opts):
        # an on_close hook of a plugin (runs after health's pre_close hook)
        instance.add_hook("on_close", lambda context: during_close.append(app.inject(url="/health/ready")))

    app.register(database)
    assert app.inject(url="/health/ready").status_code == 200
    app.close()
    assert [response.json()["reason"] for response in during_close] == ["closing"]
    assert app.inject(url="/health/ready").json() == {"status": "unavailable", "reason": "closing", "checks": {}}
    assert app.inject(url="/health/live").status_code == 200


def test_readiness_during_a_failed_start_is_the_503_with_retry_after():
    app = Framework()
    app.register(health)

    def database(instance, opts):
        raise ConnectionRefusedError("db.internal:5432 refused the connection")

    app.register(database)
    bare = lambda environ, start_response: app(environ, start_response)  # noqa: E731 (a server's first request)
    for url in ("/health/ready", "/health/live"):
        response = inject(bare, url=url)
        assert response.status_code == 503
        assert int(response.headers["retry-after"]) >= 1
        assert b"5432" not in response.body


def test_checks_results_in_the_answer_and_causes_only_in_the_log(caplog):
    app = Framework()
    app.register(health, checks={"cache": lambda: True, "queue": lambda: None,
                                 "disk": lambda: False,
                                 "database": lambda: (_ for _ in ()).throw(ConnectionRefusedError("db:5432"))})
    with caplog.at_level(logging.WARNING, logger="framework"):
        response = app.inject(url="/health/ready")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "reason": "checks failed", "checks": {
        "cache": {"status": "ok"}, "queue": {"status": "ok"},
        "disk": {"status": "failed", "error": "returned False"},
        "database": {"status": "failed", "error": "ConnectionRefusedError"}}}
    assert b"5432" not in response.body
    (record,) = [record for record in caplog.records if "'database'" in record.getMessage()]
    assert "db:5432" in str(record.exc_info[1])


def test_passing_checks_answer_200_and_async_checks_are_awaited():
    async def database():
        await asyncio.sleep(0)
        return True

    app = Framework()
    app.register(health, checks={"database": database, "cache": lambda: "PONG"})
    response = app.inject(url="/health/ready")
    assert (response.status_code, response.json()) == (
        200, {"status": "ok", "checks": {"database": {"status": "ok"}, "cache": {"status": "ok"}}})


def test_a_hanging_check_is_a_timeout_and_is_not_started_again_while_it_hangs():
    released = threading.Event()
    calls = []

    def database():
        calls.append(1)
        released.wait(30)  # bounded: the test releases it below
        return True

    app = Framework()
    app.register(health, checks={"database": database, "cache": lambda: True}, check_timeout=0.2)
    try:
        for _ in range(3):
            started = time.monotonic()
            response = app.inject(url="/health/ready")
            assert time.monotonic() - started < 20  # bounded by check_timeout, not by the check
            assert response.status_code == 503
            assert response.json()["checks"] == {"database": {"status": "failed", "error": "timeout"},
                                                 "cache": {"status": "ok"}}
        assert calls == [1]  # one thread holds the hanging check, however many probes come
    finally:
        released.set()
    deadline = time.monotonic() + 20
    while app.inject(url="/health/ready").status_code != 200:
        assert time.monotonic() < deadline, "the released check should pass"


def test_left_out_of_openapi_unless_hide_is_false():
    for hide, expected in ((True, set()), (False, {"/health/live", "/health/ready"})):
        app = Framework()
        app.register(openapi, info={"title": "t", "version": "1"})
        app.register(health, hide=hide)
        app.get("/items", lambda request, reply: [])
        paths = set(app.inject(url="/documentation/json").json()["paths"])
        assert paths - {"/items"} == expected


def test_left_out_of_the_request_log_unless_log_level_says_otherwise(caplog):
    for log_level, logged in (("silent", False), ("info", True)):
        app = Framework(request_logging=True)
        app.register(health, log_level=log_level)
        app.get("/items", lambda request, reply: [])
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="framework"):
            app.inject(url="/health/ready")
            app.inject(url="/health/live")
            app.inject(url="/items")
        urls = [record.url for record in caplog.records if record.getMessage() == "request completed"]
        assert urls == (["/health/ready", "/health/live", "/items"] if logged else ["/items"])


def test_left_out_of_traces_and_metrics_unless_telemetry_is_true():
    for telemetry in (False, True):
        exporter = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
        registry = CollectorRegistry()
        app = Framework()
        app.register(otel, tracer_provider=tracer_provider)
        app.register(metrics, registry=registry)
        app.register(health, telemetry=telemetry)
        app.get("/items", lambda request, reply: [])
        for url in ("/health/live", "/health/ready", "/items"):
            assert app.inject(url=url).status_code == 200
        probes = ["GET /health/live", "GET /health/ready"] if telemetry else []
        assert [span.name for span in exporter.get_finished_spans()] == [*probes, "GET /items"]
        routes = {labels["route"] for family in registry.collect() for _, labels, _, *_ in family.samples
                  if "route" in labels}
        assert routes == ({"/health/live", "/health/ready", "/items"} if telemetry else {"/items"})


@pytest.mark.parametrize("options, message", [
    ({"live_pth": "/x"}, "unknown option(s) 'live_pth'"),
    ({"ready_path": "health"}, "ready_path must be a path starting with '/'"),
    ({"checks": {"db": "select 1"}}, "checks must be a dict of names to functions"),
    ({"checks": ["db"]}, "checks must be a dict"),
    ({"check_timeout": 0}, "check_timeout must be a positive number of seconds"),
    ({"check_timeout": True}, "check_timeout must be a positive number"),
    ({"drain_delay": -1}, "drain_delay must be a non-negative number of seconds"),
    ({"hide": "yes"}, "hide must be True or False"),
    ({"telemetry": 1}, "telemetry must be True or False"),
])
def test_options_are_checked_when_the_plugin_loads(options, message):
    app = Framework()
    app.register(health, **options)
    with pytest.raises(HealthOptionsError, match="health: " + message.replace("(", r"\(").replace(")", r"\)")):
        app.ready()


def test_drain_delay_outside_the_main_thread_warns_that_sigterm_is_not_held(caplog):
    app = Framework()
    app.register(health, drain_delay=5)
    with caplog.at_level(logging.WARNING, logger="framework"):
        thread = threading.Thread(target=app.ready)
        thread.start()
        thread.join(30)
    assert any("SIGTERM is not held" in record.getMessage() for record in caplog.records)
    assert app.inject(url="/health/ready").status_code == 200
