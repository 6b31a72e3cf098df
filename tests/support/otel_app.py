"""The app the real-server tracing tests serve (``test_plugin_otel_server.py``): the SDK
exports each span as one JSON line, through its own ``ConsoleSpanExporter``, to a file of
the worker's own (``$OTEL_SPANS_DIR/spans-<pid>.jsonl``) as the span ends."""
import logging
import os

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

from framework import Framework
from framework.plugins.otel import TraceContextFilter, otel


class _PerWorkerFile:
    """A file opened in the worker that writes to it (the app may be imported before a fork)."""

    def write(self, text):
        path = os.path.join(os.environ["OTEL_SPANS_DIR"], f"spans-{os.getpid()}.jsonl")
        with open(path, "a", encoding="utf-8") as file:
            file.write(text)

    def flush(self):
        pass


provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(
    out=_PerWorkerFile(), formatter=lambda span: span.to_json(indent=None) + "\n")))
tracer = provider.get_tracer("otel_app")

# Log records with their trace ids, one line each, to the same folder.
log_handler = logging.FileHandler(os.path.join(os.environ["OTEL_SPANS_DIR"], "log.txt"))
log_handler.setFormatter(logging.Formatter("%(message)s trace_id=%(trace_id)s span_id=%(span_id)s",
                                           defaults={"trace_id": "-", "span_id": "-"}))
log_handler.addFilter(TraceContextFilter())
logger = logging.getLogger("otel_app")
logger.addHandler(log_handler)
logger.setLevel(logging.INFO)

app = Framework()
app.register(otel, tracer_provider=provider)


@app.get("/items/:id")
def item(request, reply):
    with tracer.start_as_current_span("load item"):
        logger.info("loading %s", request.params["id"])
    return {"id": request.params["id"], "pid": os.getpid()}


@app.get("/boom")
def boom(request, reply):
    raise RuntimeError("the database is down")


@app.get("/stream")
def stream(request, reply):
    def chunks():
        for number in range(3):
            with tracer.start_as_current_span(f"chunk {number}"):
                yield f"{number}\n"
    return chunks()


def legacy(environ, start_response):
    start_response("200 OK", [("content-type", "text/plain")])
    return [b"legacy " + environ["PATH_INFO"].encode()]


app.mount("/legacy", legacy)
