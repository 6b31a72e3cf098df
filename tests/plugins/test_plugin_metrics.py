"""framework.plugins.metrics through inject: the endpoint and its format, the series per
route template and status, bounded labels under a flood of 404s, scoping, opting out,
and the options and multiprocess checks."""
from __future__ import annotations

import random
import string

import pytest
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.parser import text_string_to_metric_families

import framework.plugins.metrics
from framework import Framework
from test_plugin_docstrings import first_example
from framework.plugins.metrics import MetricsOptionsError, metrics


def measured(**options) -> tuple[Framework, CollectorRegistry]:
    registry = CollectorRegistry()
    app = Framework(**options)
    app.register(metrics, registry=registry)
    return app, registry


def samples(app, name, url="/metrics"):
    """``{labels as a sorted tuple: value}`` of the samples called ``name`` in a scrape."""
    text = app.inject(url=url).text
    return {tuple(sorted(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples
            if sample.name == name}


def requests(app, url="/metrics"):
    return {(labels["method"], labels["route"], labels["status"]): value
            for labels, value in ((dict(key), value) for key, value in
                                  samples(app, "http_server_request_duration_seconds_count", url).items())}


def test_the_endpoint_reports_requests_per_route_template_and_status():
    app, _ = measured()
    app.get("/items/:id", lambda request, reply: {"id": request.params["id"]})
    app.post("/items", lambda request, reply: reply.code(201).send({"ok": True}))
    for number in range(3):
        app.inject(url=f"/items/{number}")
    app.inject(method="POST", url="/items", body=b'{"name":"pen"}', headers={"content-type": "application/json"})
    app.inject(url="/nope")
    response = app.inject(url="/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain; version=")
    assert requests(app) == {("GET", "/items/:id", "200"): 3, ("POST", "/items", "201"): 1, ("GET", "", "404"): 1}
    sizes = samples(app, "http_server_request_body_size_bytes_sum")
    assert sizes == {(("method", "POST"), ("route", "/items"), ("status", "201")): len(b'{"name":"pen"}')}
    assert set(samples(app, "http_server_active_requests").values()) == {0.0}


def test_a_content_length_of_other_digits_than_ascii_ones_is_not_a_size(caplog):
    app, _ = measured()
    app.get("/items", lambda request, reply: {"ok": True})
    with caplog.at_level("ERROR", logger="framework"):
        response = app.inject(url="/items", headers={"content-length": "\u00b2"})  # "²".isdigit(), int() refuses it
    assert response.status_code == 200 and not caplog.records
    assert samples(app, "http_server_request_body_size_bytes_count") == {}
    counts = samples(app, "http_server_response_body_size_bytes_count")
    assert counts == {(("method", "GET"), ("route", "/items"), ("status", "200")): 1.0}


def test_openmetrics_when_the_scraper_asks_for_it():
    app, _ = measured()
    response = app.inject(url="/metrics", headers={"accept": "application/openmetrics-text; version=1.0.0"})
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.endswith("# EOF\n")


def test_ten_thousand_random_404_paths_do_not_grow_the_label_set():
    app, registry = measured()
    app.get("/items/:id", lambda request, reply: [])
    for method in ("GET", "POST", "BREW"):  # one 404 of each kind of method the flood sends
        app.inject(method=method, url="/first-miss")

    def series():
        return {(sample.name, tuple(sorted(sample.labels.items())))
                for family in registry.collect() for sample in family.samples}

    before = series()
    rng = random.Random(24)
    for _ in range(10_000):
        path = "/" + "/".join("".join(rng.choices(string.ascii_letters + string.digits, k=8)) for _ in range(3))
        method = rng.choice(["GET", "POST", "BREW", "X" + str(rng.randrange(10**6))])
        assert app.inject(method=method, url=path).status_code == 404
    assert series() == before
    counted = requests(app)
    assert counted[("GET", "", "404")] + counted[("POST", "", "404")] + counted[("_OTHER", "", "404")] == 10_003


def test_a_mounted_application_is_labelled_with_its_prefix():
    app, _ = measured()

    def legacy(environ, start_response):
        start_response("200 OK", [("content-type", "text/plain")])
        return [b"old"]

    app.mount("/legacy", legacy)
    app.inject(url="/legacy/a/b")
    app.inject(url="/legacy")
    assert requests(app) == {("GET", "/legacy", "200"): 2}


def test_a_streamed_answer_is_measured_when_it_ends():
    app, _ = measured()
    app.get("/stream", lambda request, reply: iter([b"a", b"b"]))
    assert app.inject(url="/stream").text == "ab"
    assert requests(app) == {("GET", "/stream", "200"): 1}
    assert not samples(app, "http_server_response_body_size_bytes_count")  # no length to measure


def test_scoped_to_the_registering_context_and_the_endpoint_under_its_prefix():
    registry = CollectorRegistry()
    app = Framework()
    app.get("/public", lambda request, reply: "not measured")

    def api(instance, opts):
        instance.register(metrics, registry=registry, path="/stats")
        instance.get("/items", lambda request, reply: [])

    app.register(api, prefix="/api")
    app.inject(url="/public")
    app.inject(url="/api/items")
    assert requests(app, url="/api/stats") == {("GET", "/api/items", "200"): 1}


def test_a_route_may_opt_out_and_the_registry_carries_the_applications_own_metrics():
    app, registry = measured()
    orders = Counter("orders_total", "Orders taken.", registry=registry)
    app.get("/health", lambda request, reply: "ok", config={"metrics": False})
    app.get("/order", lambda request, reply: orders.inc() or "taken")
    app.inject(url="/health")
    app.inject(url="/order")
    assert requests(app) == {("GET", "/order", "200"): 1}
    assert samples(app, "orders_total") == {(): 1.0}


def test_path_none_declares_no_endpoint():
    registry = CollectorRegistry()
    app = Framework()
    app.register(metrics, registry=registry, path=None)
    app.get("/", lambda request, reply: "ok")
    app.inject(url="/")
    assert app.inject(url="/metrics").status_code == 404
    assert registry.get_sample_value("http_server_request_duration_seconds_count",
                                     {"method": "GET", "route": "/", "status": "200"}) == 1


def test_two_applications_on_one_registry_share_its_series():
    registry = CollectorRegistry()
    first, second = Framework(), Framework()
    for app in (first, second):
        app.register(metrics, registry=registry)
        app.get("/", lambda request, reply: "ok")
        app.inject(url="/")
    assert requests(first) == {("GET", "/", "200"): 2}


@pytest.mark.parametrize("options, message", [
    ({"paht": "/m"}, "unknown option(s) paht"),
    ({"path": "metrics"}, "path has to be a path starting with '/'"),
    ({"registry": {}}, "registry has to be a prometheus_client.CollectorRegistry"),
    ({"buckets": []}, "buckets has to be a non-empty list"),
    ({"buckets": [1, 0.5]}, "buckets have to be increasing"),
    ({"buckets": [0, 1]}, "0 is not a positive number of seconds"),
])
def test_bad_options_fail_ready(options, message):
    app = Framework()
    app.register(metrics, **{"registry": CollectorRegistry(), **options})
    with pytest.raises(MetricsOptionsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        app.ready()


def test_other_buckets_on_a_registry_that_has_the_metrics_fail_ready():
    registry = CollectorRegistry()
    Framework().register(metrics, registry=registry).ready()
    app = Framework()
    app.register(metrics, registry=registry, buckets=[0.1, 1])
    with pytest.raises(MetricsOptionsError, match="already holds the metrics"):
        app.ready()


def test_a_second_registration_in_one_lineage_fails_ready():
    app = Framework()
    app.register(metrics, registry=CollectorRegistry())
    app.register(lambda instance, opts: instance.register(metrics, registry=CollectorRegistry(), path="/m2"))
    with pytest.raises(MetricsOptionsError, match="already registered"):
        app.ready()


def test_a_multiprocess_dir_that_is_missing_fails_ready(tmp_path, monkeypatch):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "missing"))
    app = Framework()
    app.register(metrics, registry=CollectorRegistry())
    with pytest.raises(MetricsOptionsError, match="is not a directory"):
        app.ready()


def test_a_multiprocess_dir_set_after_prometheus_client_was_imported_fails_ready(tmp_path, monkeypatch):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))  # this process imported it without
    app = Framework()
    app.register(metrics, registry=CollectorRegistry())
    with pytest.raises(MetricsOptionsError, match="set after prometheus_client was imported"):
        app.ready()


def test_the_docstrings_example_runs():
    app = first_example(framework.plugins.metrics)["app"]
    assert app.inject(url="/metrics").status_code == 200


# Response drift (Framework(response_check=...)).
USER = {"type": "object", "properties": {"id": {"type": "integer"}}}


def test_response_drift_is_counted_by_route_status_and_pointer():
    app, _ = measured(response_check=1.0)
    app.get("/users/:id", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": 1, "secret": "x"})
    app.get("/fine", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": 1})
    for url in ("/users/1", "/users/2", "/fine"):
        assert app.inject(url=url).text == '{"id":1}'
    assert samples(app, "framework_response_drift_total") == {
        (("pointer", "/secret"), ("route", "GET /users/:id"), ("status", "200")): 2.0}


def test_without_response_check_there_is_no_drift_metric():
    app, _ = measured()
    app.get("/users/:id", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": 1, "secret": "x"})
    assert app.inject(url="/users/1").text == '{"id":1}'
    assert "framework_response_drift" not in app.inject(url="/metrics").text
