"""framework.plugins.otel with the OpenTelemetry API alone (no SDK: next to no cost, the
caller's trace context passed through), then with an SDK set after ``ready()`` (as in
gunicorn's ``post_fork``): its spans and measurements start with the next request. The
global providers can be set once per process, so tests/support/otel_late_sdk.py runs in a
process of its own and prints what it saw."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import SUPPORT_PATH
from servers import APPS

pytest.importorskip("opentelemetry.sdk", reason="the SDK is in the test extra")

CALLER_TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
CALLER = f"00-{CALLER_TRACE_ID}-b7ad6b7169203331-01"


@pytest.fixture(scope="module")
def seen():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT_PATH), str(APPS)]))
    for name in ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER", "OTEL_PROPAGATORS"):
        env.pop(name, None)
    finished = subprocess.run([sys.executable, str(APPS / "otel_late_sdk.py")], cwd=APPS, env=env,
                              capture_output=True, text=True, timeout=120, check=True)
    return json.loads(finished.stdout)


def test_api_only_a_request_without_trace_context_has_no_span_and_sends_none(seen):
    assert seen["api_only"] == {"sent": {}, "recording": False, "telemetry": True, "trace_id": "0" * 32}
    assert seen["api_only_after_caller"] == seen["api_only"]  # nothing left behind


def test_api_only_the_callers_trace_context_is_passed_through(seen):
    # As the OpenTelemetry API specifies without an SDK: the caller's span context becomes
    # current (non-recording), so an outgoing call forwards the same traceparent and baggage.
    assert seen["api_only_caller"] == {"sent": {"traceparent": CALLER, "baggage": "tenant=7"},
                                       "recording": False, "telemetry": True, "trace_id": CALLER_TRACE_ID}


def test_api_only_log_records_carry_the_callers_ids_and_none_without_them(seen):
    # "calling out", then the error line of /fail: only the caller's request has ids.
    assert seen["api_only_log_ids"] == [[None, None], [CALLER_TRACE_ID, "b7ad6b7169203331"], [None, None],
                                        [None, None]]


def test_api_only_errors_are_answered_as_usual(seen):
    assert seen["api_only_fail"] == 500


def test_an_sdk_set_after_ready_traces_the_next_requests(seen):
    assert seen["sdk"]["recording"] and seen["sdk"]["trace_id"] != "0" * 32
    assert seen["sdk"]["sent"]["traceparent"].split("-")[1] == seen["sdk"]["trace_id"]
    assert seen["sdk_caller"]["trace_id"] == CALLER_TRACE_ID
    fresh, joined, failed = seen["spans"]
    assert (fresh["name"], fresh["parent"], fresh["trace_id"]) == ("GET /outgoing", None, seen["sdk"]["trace_id"])
    assert (joined["trace_id"], joined["parent"]) == (CALLER_TRACE_ID, "b7ad6b7169203331")
    assert seen["sdk_caller"]["sent"] == {"traceparent": f"00-{CALLER_TRACE_ID}-{joined['span_id']}-01"}
    assert (failed["name"], failed["status"]) == ("GET /fail", "ERROR")
    assert seen["sdk_log_ids"] == [[fresh["trace_id"], fresh["span_id"]], [CALLER_TRACE_ID, joined["span_id"]],
                                   [failed["trace_id"], failed["span_id"]]]


def test_a_meter_provider_set_after_ready_gets_the_next_requests_measurements(seen):
    assert seen["durations"] == [["/fail", 500, 1], ["/outgoing", 200, 2]]
