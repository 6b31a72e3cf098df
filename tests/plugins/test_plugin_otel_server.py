"""framework.plugins.otel on real servers (gunicorn's sync and gthread workers, granian):
the spans the SDK exports from the worker (tests/support/otel_app.py writes them as JSON
lines) have the route's name and attributes, join the caller's trace, parent the
handler's own spans, record exceptions, end after a stream's last chunk, name a mount
by its prefix and a 404 by its method; log records carry the ids."""
from __future__ import annotations

import json
import time

import pytest

from servers import SERVERS, call, serve, stop

pytest.importorskip("opentelemetry.sdk", reason="the SDK is in the test extra")

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


def read_spans(folder, count, deadline=20):
    """The spans exported so far, once there are ``count`` of them (the server ends a span
    when it closes the answer's body, which may be just after the client has read it)."""
    end = time.monotonic() + deadline
    while True:
        spans = [json.loads(line) for path in sorted(folder.glob("spans-*.jsonl"))
                 for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if len(spans) >= count or time.monotonic() > end:
            return spans
        time.sleep(0.05)


@pytest.fixture(params=SERVERS)
def server(request, tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_SPANS_DIR", str(tmp_path))
    port, process = serve(request.param, "otel_app:app")
    yield f"http://127.0.0.1:{port}", tmp_path
    stop(process)
    # Each span's context was detached in the thread that attached it (OpenTelemetry logs
    # "Failed to detach context" otherwise).
    output = process.stdout.read()
    assert "Failed to detach" not in output, output


def by_name(spans):
    return {span["name"]: span for span in spans}


def test_spans_from_a_real_server(server):
    base, folder = server
    status, _, body = call(f"{base}/items/7", headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01",
                                                        "user-agent": "probe/2"})
    assert status == 200 and json.loads(body)["id"] == "7"
    assert call(f"{base}/boom")[0] == 500
    status, _, body = call(f"{base}/stream")
    assert (status, body) == (200, b"0\n1\n2\n")
    assert call(f"{base}/legacy/old/page")[2] == b"legacy /old/page"
    assert call(f"{base}/missing/42")[0] == 404
    spans = by_name(read_spans(folder, 10))  # the probe's 404, 5 server spans, "load item", 3 chunks

    item = spans["GET /items/:id"]
    assert item["kind"] == "SpanKind.SERVER" and item["context"]["trace_id"] == "0x" + TRACE_ID
    assert item["parent_id"] == "0x" + PARENT_ID
    assert item["attributes"]["http.route"] == "/items/:id" and item["attributes"]["url.path"] == "/items/7"
    assert item["attributes"]["http.response.status_code"] == 200
    assert item["attributes"]["client.address"] == "127.0.0.1"
    assert item["attributes"]["user_agent.original"] == "probe/2"
    assert item["attributes"]["server.address"] == "127.0.0.1"
    assert spans["load item"]["parent_id"] == item["context"]["span_id"]

    boom = spans["GET /boom"]
    assert boom["status"]["status_code"] == "ERROR" and boom["attributes"]["error.type"] == "RuntimeError"
    assert [event["name"] for event in boom["events"]] == ["exception"]

    stream = spans["GET /stream"]
    chunks = [spans[f"chunk {number}"] for number in range(3)]
    assert all(chunk["parent_id"] == stream["context"]["span_id"] for chunk in chunks)
    assert stream["end_time"] >= chunks[-1]["end_time"]

    assert spans["GET /legacy"]["attributes"]["http.route"] == "/legacy"
    missing = [span for span in read_spans(folder, 10) if span["name"] == "GET"]
    assert {span["attributes"]["url.path"] for span in missing} >= {"/missing/42"}
    assert all("http.route" not in span["attributes"] for span in missing)

    # The handler's log record carries the trace and its own span's ids ("load item" was current).
    lines = (folder / "log.txt").read_text(encoding="utf-8").splitlines()
    assert f"loading 7 trace_id={TRACE_ID} span_id={spans['load item']['context']['span_id'][2:]}" in lines
