"""framework.plugins.otel through inject, with the SDK's in-memory span exporter and metric
reader: span names and attributes, the caller's trace joined, the span current in hooks
and handlers and gone after, exceptions, streams, mounts, 404/405, log correlation,
scoping, options, and the HTTP server metrics."""
from __future__ import annotations

import logging

import pytest
from opentelemetry import baggage, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import framework.plugins.otel
from framework import Framework
from test_plugin_docstrings import first_example
from framework.plugins.otel import OtelOptionsError, TraceContextFilter, otel

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
PARENT_ID = "b7ad6b7169203331"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    exporter.provider = provider
    return exporter


def traced(spans, **framework_options) -> Framework:
    app = Framework(**framework_options)
    app.register(otel, tracer_provider=spans.provider)
    return app


def only(spans):
    finished = spans.get_finished_spans()
    assert len(finished) == 1, [span.name for span in finished]
    return finished[0]


# Names and attributes.
def test_a_span_per_request_named_after_the_route_template(spans):
    app = traced(spans)

    def items(instance, opts):
        instance.get("/items/:id", lambda request, reply: {"id": request.params["id"]})

    app.register(items, prefix="/v1")
    response = app.inject(url="/v1/items/42?x=1", headers={"user-agent": "probe/1.0", "host": "api.example:8080"})
    assert response.status_code == 200
    span = only(spans)
    assert span.name == "GET /v1/items/:id" and span.kind is SpanKind.SERVER
    assert dict(span.attributes) == {
        "http.request.method": "GET", "url.path": "/v1/items/42", "url.scheme": "http",
        "http.route": "/v1/items/:id", "server.address": "api.example", "server.port": 8080,
        "client.address": "127.0.0.1", "user_agent.original": "probe/1.0", "network.protocol.version": "1.1",
        "request.id": span.attributes["request.id"], "http.response.status_code": 200}
    assert span.attributes["request.id"].startswith("req-")
    assert span.status.status_code is StatusCode.UNSET and span.parent is None


def test_many_paths_of_one_route_share_one_name(spans):
    app = traced(spans)
    app.get("/users/:name", lambda request, reply: "hi")
    for name in ("ann", "bob", "x" * 50):
        app.inject(url=f"/users/{name}")
    assert {span.name for span in spans.get_finished_spans()} == {"GET /users/:name"}


def test_a_host_or_content_length_with_other_digits_than_ascii_ones(spans):
    reader = InMemoryMetricReader()
    app = Framework()
    app.register(otel, tracer_provider=spans.provider, meter_provider=MeterProvider(metric_readers=[reader]))
    app.get("/items", lambda request, reply: "hi")
    # "²".isdigit() is true, and int() refuses it: the port and the size are left out, not a 500.
    response = app.inject(url="/items", headers={"host": "api.example:\u00b2", "content-length": "\u00b2"})
    assert response.status_code == 200
    span = only(spans)
    assert span.attributes["server.address"] == "api.example:\u00b2" and "server.port" not in span.attributes
    points = {metric.name: metric.data.data_points
              for resource in reader.get_metrics_data().resource_metrics
              for scope in resource.scope_metrics for metric in scope.metrics}
    assert "http.server.request.body.size" not in points
    assert sum(point.count for point in points["http.server.response.body.size"]) == 1


def test_the_request_id_is_the_one_echoed(spans):
    app = traced(spans, request_id_header="x-request-id")
    app.get("/", lambda request, reply: "ok")
    response = app.inject(url="/", headers={"x-request-id": "edge-1"})
    assert response.headers["x-request-id"] == "edge-1" == only(spans).attributes["request.id"]


def test_client_address_is_the_one_trust_proxy_allows(spans):
    app = traced(spans, trust_proxy="127.0.0.1")
    app.get("/", lambda request, reply: "ok")
    app.inject(url="/", headers={"x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https"})
    span = only(spans)
    assert span.attributes["client.address"] == "203.0.113.9" and span.attributes["url.scheme"] == "https"


def test_the_head_route_of_a_get_route(spans):
    app = traced(spans)
    app.get("/page", lambda request, reply: "text")
    app.inject(method="HEAD", url="/page")
    span = only(spans)
    assert span.name == "HEAD /page" and span.attributes["http.request.method"] == "HEAD"


# The caller's trace, the current span.
def test_an_incoming_traceparent_is_the_parent(spans):
    app = traced(spans)
    app.get("/", lambda request, reply: "ok")
    app.inject(url="/", headers={"traceparent": TRACEPARENT, "tracestate": "vendor=abc"})
    span = only(spans)
    assert format(span.context.trace_id, "032x") == TRACE_ID
    assert format(span.parent.span_id, "016x") == PARENT_ID and span.parent.is_remote
    assert span.context.trace_state.get("vendor") == "abc"


def test_a_malformed_traceparent_starts_a_new_trace(spans):
    app = traced(spans)
    app.get("/", lambda request, reply: "ok")
    assert app.inject(url="/", headers={"traceparent": "00-zz-nothing-01"}).status_code == 200
    assert only(spans).parent is None


def test_baggage_is_extracted(spans):
    app = traced(spans)
    app.get("/", lambda request, reply: {"tenant": baggage.get_baggage("tenant")})
    assert app.inject(url="/", headers={"baggage": "tenant=acme"}).json() == {"tenant": "acme"}


def test_the_span_is_current_in_hooks_and_handler_and_nested_spans_are_its_children(spans):
    app = traced(spans)
    tracer = spans.provider.get_tracer("test")
    seen = {}

    def check_auth(request, reply):
        seen["hook"] = trace.get_current_span()
        with tracer.start_as_current_span("auth lookup"):
            pass

    app.add_hook("pre_handler", check_auth)

    @app.get("/orders")
    def orders(request, reply):
        seen["handler"] = trace.get_current_span()
        with tracer.start_as_current_span("SELECT orders"):
            return []

    app.inject(url="/orders")
    by_name = {span.name: span for span in spans.get_finished_spans()}
    server = by_name["GET /orders"]
    assert seen["hook"].get_span_context() == seen["handler"].get_span_context() == server.context
    assert by_name["auth lookup"].parent.span_id == by_name["SELECT orders"].parent.span_id == server.context.span_id
    assert trace.get_current_span() is trace.INVALID_SPAN  # detached once answered


# Errors.
def test_an_exception_is_recorded_and_a_500_is_an_error(spans):
    app = traced(spans)

    @app.get("/boom")
    def boom(request, reply):
        raise KeyError("cart")

    assert app.inject(url="/boom").status_code == 500
    span = only(spans)
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == "KeyError" and span.attributes["http.response.status_code"] == 500
    (event,) = span.events
    assert event.name == "exception" and event.attributes["exception.type"] == "KeyError"


def test_a_5xx_without_an_exception_has_its_status_as_error_type(spans):
    app = traced(spans)
    app.get("/busy", lambda request, reply: reply.code(503).send({"busy": True}))
    app.inject(url="/busy")
    span = only(spans)
    assert span.status.status_code is StatusCode.ERROR and span.attributes["error.type"] == "503"
    assert not span.events


def test_a_4xx_is_not_an_error_of_the_server(spans):
    app = traced(spans)
    app.post("/items", {"schema": {"body": {"type": "object", "required": ["name"]}}},
             lambda request, reply: request.body)
    assert app.inject(method="POST", url="/items", json={}).status_code == 400
    span = only(spans)
    assert span.status.status_code is StatusCode.UNSET and "error.type" not in span.attributes
    assert span.attributes["http.response.status_code"] == 400
    assert [event.attributes["exception.type"] for event in span.events] == ["framework.errors.ValidationError"]


def test_an_error_handler_answering_another_4xx_error_is_not_an_error_of_the_server(spans):
    app = traced(spans)

    def to_bad_request(error, request, reply):
        reply.code(400)
        raise ValueError_400("not a number")

    class ValueError_400(Exception):
        status_code = 400

    app.set_error_handler(to_bad_request)

    @app.get("/parse")
    def parse(request, reply):
        return int("x")

    assert app.inject(url="/parse").status_code == 400
    span = only(spans)
    assert span.status.status_code is StatusCode.UNSET and "error.type" not in span.attributes
    assert [event.attributes["exception.type"] for event in span.events] == [
        "ValueError", "test_plugin_otel.test_an_error_handler_answering_another_4xx_error_is_not_an_error_"
        "of_the_server.<locals>.ValueError_400"]


# Streams.
def test_a_streamed_reply_ends_its_span_after_its_last_chunk(spans):
    app = traced(spans)
    tracer = spans.provider.get_tracer("test")
    during = []

    @app.get("/stream")
    def stream(request, reply):
        def chunks():
            for number in range(3):
                with tracer.start_as_current_span(f"chunk {number}"):
                    during.append([span.name for span in spans.get_finished_spans()])
                    yield f"{number}\n"
        return chunks()

    assert app.inject(url="/stream").text == "0\n1\n2\n"
    # While the chunks were produced, the server span was still open (only earlier chunks' ended).
    assert during == [[], ["chunk 0"], ["chunk 0", "chunk 1"]]
    finished = spans.get_finished_spans()
    assert finished[-1].name == "GET /stream"
    server = finished[-1]
    assert all(span.parent.span_id == server.context.span_id for span in finished[:-1])
    assert server.end_time >= max(span.end_time for span in finished[:-1])


def test_a_stream_failing_after_its_status_is_an_error(spans):
    app = traced(spans)

    def chunks():
        yield b"part"
        raise OSError("disk gone")

    app.get("/stream", lambda request, reply: chunks())
    with pytest.raises(OSError):
        app.inject(url="/stream")
    span = only(spans)
    assert span.attributes["http.response.status_code"] == 200
    assert span.status.status_code is StatusCode.ERROR and span.attributes["error.type"] == "OSError"
    assert [event.attributes["exception.type"] for event in span.events] == ["OSError"]


# Unrouted answers, mounts.
def test_a_404_is_named_after_its_method_only(spans):
    app = traced(spans)
    app.inject(url="/no/such/path")
    span = only(spans)
    assert span.name == "GET" and "http.route" not in span.attributes
    assert span.attributes["http.response.status_code"] == 404 and span.status.status_code is StatusCode.UNSET


def test_a_405_is_named_after_its_method_only(spans):
    app = traced(spans, method_not_allowed=True)
    app.get("/items", lambda request, reply: [])
    response = app.inject(method="DELETE", url="/items")
    assert response.status_code == 405
    span = only(spans)
    assert span.name == "DELETE" and "http.route" not in span.attributes
    assert span.attributes["http.response.status_code"] == 405


def test_an_unknown_method_is_other(spans):
    app = traced(spans)
    app.inject(method="BREW", url="/coffee")
    span = only(spans)
    assert span.name == "HTTP" and span.attributes["http.request.method"] == "_OTHER"
    assert span.attributes["http.request.method_original"] == "BREW"


def test_a_mounted_application_has_its_prefix_as_route(spans):
    app = traced(spans)

    def legacy(environ, start_response):
        start_response("200 OK", [("content-type", "text/plain")])
        return [environ["PATH_INFO"].encode()]

    def api(instance, opts):
        instance.mount("/legacy", legacy)

    app.register(api, prefix="/v1")
    assert app.inject(url="/v1/legacy/a/b").text == "/a/b"
    app.inject(url="/v1/legacy")
    first, second = spans.get_finished_spans()
    assert first.name == second.name == "GET /v1/legacy"
    assert first.attributes["http.route"] == "/v1/legacy" and first.attributes["url.path"] == "/v1/legacy/a/b"


# Log correlation.
@pytest.fixture
def records():
    logger = logging.getLogger("test_plugin_otel")
    captured = []
    handler = logging.Handler()
    handler.emit = captured.append
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    yield logger, captured
    logger.removeHandler(handler)


def test_records_of_a_request_carry_its_trace_and_span_ids(spans, records):
    logger, captured = records
    app = traced(spans, logger=logger, request_logging=True)

    @app.get("/charge")
    def charge(request, reply):
        request.log.info("charging")
        raise RuntimeError("card declined")

    app.inject(url="/charge", headers={"traceparent": TRACEPARENT})
    span = only(spans)
    ids = (TRACE_ID, format(span.context.span_id, "016x"))
    by_message = {record.getMessage().split(":")[0]: record for record in captured}
    for message in ("charging", "request GET '/charge' failed", "request completed"):
        record = by_message[message]
        assert (record.trace_id, record.span_id) == ids, message
    # "incoming request" is written before the route's hooks, so before the span starts.
    assert not hasattr(by_message["incoming request"], "trace_id")


def test_the_filter_on_a_handler_of_another_logger(spans):
    app = traced(spans)
    own = logging.getLogger("test_plugin_otel.own")
    captured = []
    handler = logging.Handler()
    handler.emit = captured.append
    handler.addFilter(TraceContextFilter())
    own.addHandler(handler)
    own.setLevel(logging.INFO)
    try:
        app.get("/", lambda request, reply: own.info("inside") or "ok")
        app.inject(url="/")
        own.info("outside")
    finally:
        own.removeHandler(handler)
    inside, outside = captured
    assert inside.span_id == format(only(spans).context.span_id, "016x")
    assert not hasattr(outside, "trace_id")


# Scope and options.
def test_only_the_registering_context_and_its_descendants_are_traced(spans):
    app = Framework()
    app.get("/public", lambda request, reply: "not traced")

    def api(instance, opts):
        instance.register(otel, tracer_provider=spans.provider)
        instance.get("/items", lambda request, reply: [])

    app.register(api, prefix="/api")
    app.inject(url="/public")
    app.inject(url="/api/items")
    assert [span.name for span in spans.get_finished_spans()] == ["GET /api/items"]


def test_a_route_may_opt_out(spans):
    app = traced(spans)
    app.get("/health", lambda request, reply: "ok", config={"otel": False})
    assert app.inject(url="/health").text == "ok"
    assert spans.get_finished_spans() == ()


@pytest.mark.parametrize("options, message", [
    ({"tracer": 1}, "unknown option(s) tracer"),
    ({"metrics": "yes"}, "metrics has to be True or False"),
    ({"lifecycle_spans": 1}, "lifecycle_spans has to be True or False"),
    ({"tracer_provider": object()}, "tracer_provider has to be an opentelemetry TracerProvider"),
    ({"meter_provider": object()}, "meter_provider has to be an opentelemetry MeterProvider"),
])
def test_bad_options_fail_ready(options, message):
    app = Framework()
    app.register(otel, **options)
    with pytest.raises(OtelOptionsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        app.ready()


def test_a_second_registration_in_one_lineage_fails_ready(spans):
    app = traced(spans)
    app.register(lambda instance, opts: instance.register(otel))
    with pytest.raises(OtelOptionsError, match="already registered"):
        app.ready()


def test_without_an_sdk_the_api_alone_answers_unchanged():
    app = Framework()
    app.register(otel)  # the global providers: no SDK configured in this process
    app.get("/", lambda request, reply: {"span": trace.get_current_span().is_recording()})
    assert app.inject(url="/").json() == {"span": False}


# Metrics.
def test_the_http_server_metrics(spans):
    reader = InMemoryMetricReader()
    app = Framework()
    app.register(otel, tracer_provider=spans.provider, meter_provider=MeterProvider(metric_readers=[reader]))
    app.post("/items/:id", lambda request, reply: reply.code(201).send({"ok": True}))
    for number in range(3):
        app.inject(method="POST", url=f"/items/{number}", body=b'"12345678"',
                   headers={"content-type": "application/json"})
    app.inject(url="/nowhere")
    points = {metric.name: metric.data.data_points
              for resource in reader.get_metrics_data().resource_metrics
              for scope in resource.scope_metrics for metric in scope.metrics}
    durations = {tuple(sorted(point.attributes.items())): point.count for point in points["http.server.request.duration"]}
    assert durations == {
        (("http.request.method", "POST"), ("http.response.status_code", 201), ("http.route", "/items/:id"),
         ("url.scheme", "http")): 3,
        (("http.request.method", "GET"), ("http.response.status_code", 404), ("url.scheme", "http")): 1}
    assert all(point.value == 0 for point in points["http.server.active_requests"])
    (request_size,) = points["http.server.request.body.size"]
    assert request_size.count == 3 and request_size.sum == 30
    assert sum(point.count for point in points["http.server.response.body.size"]) == 4


def test_metrics_false_records_none(spans):
    reader = InMemoryMetricReader()
    app = Framework()
    app.register(otel, tracer_provider=spans.provider, meter_provider=MeterProvider(metric_readers=[reader]),
                 metrics=False)
    app.get("/", lambda request, reply: "ok")
    app.inject(url="/")
    data = reader.get_metrics_data()
    assert data is None or not any(scope.metrics for resource in data.resource_metrics
                                   for scope in resource.scope_metrics)


# Lifecycle spans.
def lifecycle_app(spans):
    app = Framework()
    app.register(otel, tracer_provider=spans.provider, lifecycle_spans=True)
    tracer = spans.provider.get_tracer("test")

    @app.post("/items", schema={"body": {"type": "object", "required": ["name"]},
                                "response": {201: {"type": "object", "properties": {"name": {"type": "string"}}}}})
    def create(request, reply):
        with tracer.start_as_current_span("INSERT item"):
            pass
        reply.code(201)
        return request.body

    @app.get("/text")
    def text(request, reply):
        return "plain"

    return app


def test_lifecycle_spans_are_children_of_the_server_span(spans):
    app = lifecycle_app(spans)
    assert app.inject(method="POST", url="/items", json={"name": "pen"}).status_code == 201
    by_name = {span.name: span for span in spans.get_finished_spans()}
    server = by_name["POST /items"]
    for step in ("validation", "handler", "serialization"):
        assert by_name[step].parent.span_id == server.context.span_id, step
    assert by_name["INSERT item"].parent.span_id == by_name["handler"].context.span_id
    assert by_name["validation"].end_time <= by_name["handler"].start_time
    assert by_name["handler"].end_time <= by_name["serialization"].start_time <= server.end_time
    assert trace.get_current_span() is trace.INVALID_SPAN


def test_lifecycle_spans_of_a_failed_validation_and_of_a_route_without_schema(spans):
    app = lifecycle_app(spans)
    assert app.inject(method="POST", url="/items", json={}).status_code == 400
    names = [span.name for span in spans.get_finished_spans()]
    assert names == ["validation", "serialization", "POST /items"]
    validation = spans.get_finished_spans()[0]
    assert validation.status.status_code is StatusCode.ERROR and validation.events[0].name == "exception"
    spans.clear()
    app.inject(url="/text")
    assert [span.name for span in spans.get_finished_spans()] == ["handler", "GET /text"]


def test_lifecycle_spans_are_off_by_default(spans):
    app = traced(spans)
    app.post("/items", {"schema": {"body": {"type": "object"}}}, lambda request, reply: request.body)
    app.inject(method="POST", url="/items", json={})
    assert [span.name for span in spans.get_finished_spans()] == ["POST /items"]


def test_the_docstrings_example_runs():
    app = first_example(framework.plugins.otel)["app"].ready()
    assert app.has_request_decorator("otel") and app.inject(url="/").status_code == 404
