"""Run by tests/plugins/test_plugin_otel_api_only.py in a process of its own (the global
tracer and meter providers can be set once per process): ``framework.plugins.otel`` with
the OpenTelemetry API alone, then with an SDK set after ``ready()``, as gunicorn's
``post_fork`` does. Prints what each request saw, and the spans and measurements the SDK
got, as one JSON object."""
import json
import logging

from opentelemetry import propagate, trace
from opentelemetry import metrics as otel_metrics

from framework import Framework
from framework.plugins.otel import otel

CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

app = Framework()
app.register(otel)  # the global providers: none is set yet


class _Records(logging.Handler):
    """Keeps the ids the plugin's filter put on the records of the application's logger."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[list[str | None]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.ids.append([getattr(record, "trace_id", None), getattr(record, "span_id", None)])


records = _Records()
app.log.addHandler(records)


@app.get("/outgoing")
def outgoing(request, reply):
    """What an instrumented HTTP client called from here would send, and the current span."""
    request.log.warning("calling out")
    headers: dict[str, str] = {}
    propagate.inject(headers)
    span = trace.get_current_span()
    return {"sent": headers, "recording": span.is_recording(), "telemetry": request.otel is not None,
            "trace_id": format(span.get_span_context().trace_id, "032x")}


@app.get("/fail")
def fail(request, reply):
    raise LookupError("no such order")


app.ready()


def call(url="/outgoing", **headers):
    response = app.inject(url=url, headers=headers)
    return response.json() if response.status_code == 200 else response.status_code


seen = {
    "api_only": call(),
    "api_only_caller": call(traceparent=CALLER, baggage="tenant=7"),
    "api_only_fail": call("/fail"),
    "api_only_after_caller": call(),
}
seen["api_only_log_ids"], records.ids = records.ids, []

from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402  (the SDK comes late on purpose)
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
reader = InMemoryMetricReader()
otel_metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))

seen["sdk"] = call()
seen["sdk_caller"] = call(traceparent=CALLER)
seen["sdk_fail"] = call("/fail")
seen["sdk_log_ids"] = records.ids
seen["spans"] = [{"name": span.name, "trace_id": format(span.context.trace_id, "032x"),
                  "span_id": format(span.context.span_id, "016x"),
                  "parent": None if span.parent is None else format(span.parent.span_id, "016x"),
                  "status": span.status.status_code.name}
                 for span in exporter.get_finished_spans()]
seen["durations"] = sorted(
    (point.attributes["http.route"], point.attributes["http.response.status_code"], point.count)
    for resource in reader.get_metrics_data().resource_metrics for scope in resource.scope_metrics
    for metric in scope.metrics if metric.name == "http.server.request.duration"
    for point in metric.data.data_points)
print(json.dumps(seen))
