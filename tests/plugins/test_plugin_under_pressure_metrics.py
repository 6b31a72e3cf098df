"""framework.plugins.under_pressure's figures as Prometheus metrics, through inject: a scrape
of framework.plugins.metrics' endpoint shows the in-flight gauge while requests are held,
the refused counter by limit after refusals, the memory and the p99 latency; the two plugins
find the same registry whichever is registered first and wherever under_pressure is below
metrics; two applications on one registry share one set of metrics (nothing registered
twice); a name taken by someone else fails ready(); without prometheus_client the plugin
works alone. Multiprocess mode on gunicorn: test_plugin_under_pressure_metrics_server.py."""
from __future__ import annotations

import math
import sys
import threading
import time

import pytest
from prometheus_client import CollectorRegistry, Gauge
from prometheus_client.parser import text_string_to_metric_families

from framework import Framework
from framework.plugins.metrics import metrics
from framework.plugins.under_pressure import UnderPressureOptionsError, under_pressure


def scrape(app, url="/metrics"):
    """``{(name, labels...): value}`` of the pressure metrics of one scrape."""
    response = app.inject(url=url)
    assert response.status_code == 200
    return {(sample.name, *sorted(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(response.text) for sample in family.samples
            if sample.name.startswith("framework_pressure_") and not sample.name.endswith("_created")}


def refused(limit):
    return ("framework_pressure_refused_total", ("limit", limit))


def wait_until(condition, timeout=30):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_scrape_shows_the_requests_in_flight_and_the_refusals():
    release = threading.Event()
    app = Framework()
    app.register(under_pressure, max_in_flight=2)
    app.register(metrics, registry=CollectorRegistry())

    @app.get("/slow")
    def slow(request, reply):
        release.wait(30)
        return {"ok": True}

    app.ready()
    assert scrape(app) == {("framework_pressure_in_flight",): 0, refused("in_flight"): 0}
    threads = [threading.Thread(target=app.inject, kwargs={"url": "/slow"}) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: app.pressure()["in_flight"] == 2)
        assert [app.inject(url="/slow").status_code for _ in range(3)] == [503] * 3
        # The endpoint is not refused while the worker is at its limit.
        assert scrape(app) == {("framework_pressure_in_flight",): 2, refused("in_flight"): 3}
    finally:
        release.set()
        for thread in threads:
            thread.join(30)
    assert scrape(app) == {("framework_pressure_in_flight",): 0, refused("in_flight"): 3}


def test_memory_and_latency_are_exported_and_refusals_counted_by_their_limit():
    app = Framework()
    app.register(metrics, registry=CollectorRegistry())
    app.register(under_pressure, max_rss_bytes=1 << 50, max_p99_latency=1e-9, sample_interval=1e-9)
    app.get("/", lambda request, reply: {"ok": True})
    found = scrape(app)
    assert math.isnan(found[("framework_pressure_p99_latency_seconds",)])  # no sample yet
    assert 1 << 20 < found[("framework_pressure_rss_bytes",)] < 1 << 50
    assert found[refused("rss")] == found[refused("p99")] == 0
    answers = [app.inject(url="/").status_code for _ in range(25)]
    assert answers == [200] * 20 + [503] * 5  # 20 samples make a percentile; each is over 1 ns
    found = scrape(app)
    assert found[("framework_pressure_p99_latency_seconds",)] == app.pressure()["p99_latency"] > 1e-9
    assert (found[refused("p99")], found[refused("rss")]) == (5, 0)
    assert refused("in_flight") not in found  # no such limit: no series


def test_under_pressure_below_metrics_finds_its_registry_and_the_figures_add_up():
    registry = CollectorRegistry()
    app = Framework()

    def api(instance, opts):
        instance.register(under_pressure, max_rss_bytes=1)  # any process is over one byte
        instance.get("/items", lambda request, reply: [])

    def admin(instance, opts):
        instance.register(under_pressure, max_in_flight=5)
        instance.get("/users", lambda request, reply: [])

    app.register(api, prefix="/api")
    app.register(admin, prefix="/admin")
    app.register(metrics, registry=registry)
    assert app.inject(url="/api/items").status_code == 503
    assert app.inject(url="/admin/users").status_code == 200
    found = scrape(app)
    assert (found[refused("rss")], found[refused("in_flight")]) == (1, 0)
    assert found[("framework_pressure_in_flight",)] == 0
    assert app.metrics_registry is registry


def test_two_applications_on_the_default_registry_share_one_set_of_metrics():
    apps = []
    for _ in range(2):
        app = Framework()
        app.register(under_pressure, max_rss_bytes=1)
        app.register(metrics)
        app.get("/", lambda request, reply: {"ok": True})
        app.ready()  # a second registration of a metric would raise here
        apps.append(app)
    before = scrape(apps[0])[refused("rss")]
    assert [app.inject(url="/").status_code for app in apps] == [503, 503]
    # Either endpoint serves the process's figures: both applications' refusals.
    assert scrape(apps[0])[refused("rss")] == scrape(apps[1])[refused("rss")] == before + 2


def test_a_metric_name_taken_by_someone_else_fails_ready():
    registry = CollectorRegistry()
    Gauge("framework_pressure_in_flight", "Not ours.", registry=registry)
    app = Framework()
    app.register(metrics, registry=registry)
    app.register(under_pressure, max_in_flight=2)
    with pytest.raises(UnderPressureOptionsError, match="under_pressure: cannot export the figures to "
                                                        "Prometheus: Duplicated timeseries"):
        app.ready()


def test_without_prometheus_client_the_plugin_works_alone(monkeypatch):
    monkeypatch.setitem(sys.modules, "prometheus_client", None)  # as if not installed
    app = Framework()
    app.register(under_pressure, max_in_flight=1)
    app.get("/", lambda request, reply: {"ok": True})
    assert app.inject(url="/").status_code == 200
    assert app.pressure()["in_flight"] == 0


# OpenTelemetry (framework.plugins.otel's meter).
def otel_points(reader):
    return {(metric.name, *sorted(point.attributes.items())): point.value
            for resource in reader.get_metrics_data().resource_metrics for scope in resource.scope_metrics
            for metric in scope.metrics if metric.name.startswith("framework.pressure.")
            for point in metric.data.data_points}


def test_with_the_otel_plugin_the_figures_are_observable_instruments_of_its_meter():
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider

    from framework.plugins.otel import otel

    reader = InMemoryMetricReader()
    release = threading.Event()
    app = Framework()
    app.register(under_pressure, max_in_flight=1, max_rss_bytes=1 << 50)
    app.register(otel, tracer_provider=TracerProvider(), meter_provider=MeterProvider(metric_readers=[reader]))

    @app.get("/slow")
    def slow(request, reply):
        release.wait(30)
        return {"ok": True}

    app.ready()
    held = threading.Thread(target=app.inject, kwargs={"url": "/slow"})
    held.start()
    try:
        wait_until(lambda: app.pressure()["in_flight"] == 1)
        assert [app.inject(url="/slow").status_code for _ in range(2)] == [503, 503]
        points = otel_points(reader)
        assert points[("framework.pressure.in_flight",)] == 1
        assert points[("framework.pressure.refused", ("limit", "in_flight"))] == 2
        assert 1 << 20 < points[("framework.pressure.memory.rss",)] < 1 << 50
        assert ("framework.pressure.p99_latency",) not in points  # not watched: no observation
    finally:
        release.set()
        held.join(30)
    assert otel_points(reader)[("framework.pressure.in_flight",)] == 0
