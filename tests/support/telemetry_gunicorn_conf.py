"""gunicorn configuration for traces to an OTLP collector and a Prometheus endpoint summed
over the workers (docs/guide/deployment.rst shows this file; the environment gives
PROMETHEUS_MULTIPROC_DIR, OTEL_SERVICE_NAME and OTEL_EXPORTER_OTLP_ENDPOINT)."""
from prometheus_client import multiprocess

from framework.gunicorn_conf import post_worker_init  # noqa: F401  (readies each worker's app as it boots)


def post_fork(server, worker):
    """Set up the OpenTelemetry SDK in each worker: a batch processor's export thread
    does not survive a fork. Spans go to $OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces."""
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider()  # its resource: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)


def child_exit(server, worker):
    """A worker is gone (killed or timed out included): its live gauges leave the sum."""
    multiprocess.mark_process_dead(worker.pid)
