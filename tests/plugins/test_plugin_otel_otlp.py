"""The deployment recipe of docs/guide/deployment.rst on gunicorn with 2 workers
(tests/support/telemetry_gunicorn_conf.py): spans reach an OTLP/HTTP receiver (a small
one this test runs on loopback, decoding what it gets with opentelemetry-proto) with the
service name, and /metrics reports the sum over the workers."""
from __future__ import annotations

import http.server
import sys
import threading
import time

import pytest

from servers import call, free_port, start, stop

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the OTLP exporter is in the test extra")
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: E402
    ExportTraceServiceRequest, ExportTraceServiceResponse)


class Receiver(http.server.ThreadingHTTPServer):
    """Records the (service name, span name, http.route) of every span POSTed to /v1/traces."""

    def __init__(self):
        self.spans = []
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["content-length"]))
        request = ExportTraceServiceRequest.FromString(body)
        for resource_spans in request.resource_spans:
            service = {item.key: item.value.string_value for item in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    route = {item.key: item.value.string_value for item in span.attributes}.get("http.route")
                    self.server.spans.append((service.get("service.name"), span.name, route))
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def test_gunicorn_exports_spans_over_otlp_and_serves_summed_metrics(tmp_path, monkeypatch):
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    folder = tmp_path / "prometheus"
    folder.mkdir()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(folder))
    monkeypatch.setenv("OTEL_SERVICE_NAME", "shop")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{receiver.server_address[1]}")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")  # ms: export soon, not after 5 s
    port = free_port()
    process = start([sys.executable, "-m", "gunicorn", "-c", "python:telemetry_gunicorn_conf", "-b",
                     f"127.0.0.1:{port}", "-w", "2", "telemetry_app:app"], port)
    try:
        for number in range(6):
            assert call(f"http://127.0.0.1:{port}/orders/{number}")[0] == 200
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            scrape = call(f"http://127.0.0.1:{port}/metrics")[2].decode()
            if 'route="/orders/:id",status="200"} 6.0' in scrape and \
                    sum(span[1] == "GET /orders/:id" for span in receiver.spans) == 6:
                break
            time.sleep(0.1)
        assert 'http_server_request_duration_seconds_count{method="GET",route="/orders/:id",status="200"} 6.0' \
            in scrape
        assert [span for span in receiver.spans if span[1] == "GET /orders/:id"] == \
            [("shop", "GET /orders/:id", "/orders/:id")] * 6
    finally:
        stop(process)
        receiver.shutdown()
        receiver.server_close()
