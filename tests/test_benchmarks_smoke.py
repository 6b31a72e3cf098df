"""The benchmark suite must keep working: run its smoke mode through the public
entry point (``python -m benchmarks --smoke``) and check every contender.

Peers that are not installed are reported as "not installed" and accepted;
ours and the hand-written WSGI callable must pass their correctness checks.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import SUPPORT_PATH  # the repository root, or benchmarks/ alone under tox (see conftest)

ROOT = str(SUPPORT_PATH)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "smoke.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--smoke", "--no-fastify", "--json", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    results = json.loads(out.read_text()) if out.exists() else None
    return proc, results


def test_exits_zero(smoke):
    proc, _ = smoke
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_every_contender_checked(smoke):
    _, results = smoke
    status = results["inprocess"]["status"]
    assert status["ours"] == "ok", status["ours"]
    assert status["handwritten"] == "ok", status["handwritten"]
    for name, verdict in status.items():
        assert verdict == "ok" or verdict.startswith("not installed"), (name, verdict)


def test_every_checked_contender_timed(smoke):
    _, results = smoke
    ok = [n for n, v in results["inprocess"]["status"].items() if v == "ok"]
    for key in ("S1", "S2", "S3", "S4"):
        rates = results["inprocess"]["scenarios"][key]["rates"]
        assert sorted(rates) == sorted(ok)
        assert all(r > 0 for runs in rates.values() for r in runs)


def test_startup_measured(smoke):
    _, results = smoke
    assert not results["startup"]["errors"], results["startup"]["errors"]
    for mode in ("distinct", "shared"):
        runs = results["startup"]["results"][mode]["ours"]
        assert runs and runs[0]["total_s"] > 0 and runs[0]["rss_mb"] > 0


def test_micro_benchmarks_ran(smoke):
    _, results = smoke
    for name, part in results["micro"].items():
        assert part["status"] in ("ok", "not yet available"), (name, part["status"])


def test_targets_reported(smoke):
    proc, results = smoke
    assert "Targets" in proc.stdout
    assert all(row[2] in ("PASS", "MISS", "n/a") for row in results["targets"])


def test_ratios_are_medians_of_per_round_ratios():
    from benchmarks import report

    ours = [100.0, 50.0, 300.0]
    peer = [50.0, 100.0, 100.0]
    # per-round ratios 2.0, 0.5, 3.0 -> median 2.0 (the ratio of medians would be 1.0)
    assert report.round_ratio(ours, peer) == 2.0
    # a failed round (None) is skipped, not shifted
    assert report.round_ratio([None, 50.0, 300.0], peer) == (0.5 + 3.0) / 2


def test_wrk_lua_body_is_escaped():
    from benchmarks.http import _lua_string

    assert _lua_string(b'{"a": "q\\"x"}\n') == '"{\\034a\\034: \\034q\\092\\034x\\034}\\010"'


def test_the_s2_floor_answers_as_ours_does_and_is_timed():
    from benchmarks import floor

    result = floor.measure(rounds=2, calls=50)  # each callable's S2 answer is checked first
    assert set(result["us"]) == {"ours", "floor", "twin"}
    assert all(us > 0 for us in result["us"].values()) and result["twin_over"]["twin"] == 1.0


def test_every_feature_checked_and_costed(smoke):
    """The feature-cost table: every optional feature answers S1 with its effect, and is timed."""
    _, results = smoke
    features = results["features"]
    assert features["status"] and all(verdict == "ok" for verdict in features["status"].values()), features["status"]
    assert "bare" in features["rates"] and "cors" in features["rates"] and "hook on_send" in features["rates"]
    assert all(rate > 0 for runs in features["rates"].values() for rate in runs)


# ------------------------------------------------------------------- HTTP runner
# The HTTP runner's servers are started and checked (no load, no wrk): Fastify on Node
# and every WSGI server of the survey, each serving ours and the hand-written twin. A
# server that is not installed here is skipped with what to install.
SURVEYED = ("gunicorn-sync-1", "gunicorn-gthread-1", "granian-1", "waitress-1", "uwsgi-1",
            "bjoern-1", "fastwsgi-1")


@pytest.fixture(scope="module")
def http_checks():
    from benchmarks import http

    assert set(SURVEYED) == set(http.SURVEY_SERVERS)
    return http.run(names=http.SURVEY + ("floor",), server_names=SURVEYED + ("node-1",), check_only=True,
                    install_fastify=False, log=lambda message: None)


@pytest.mark.parametrize("server", SURVEYED)
def test_survey_server_serves_ours_and_the_twin_correctly(http_checks, server):
    verdicts = {name: http_checks["status"][f"{name} @ {server}"] for name in ("ours", "handwritten")}
    if all(v.startswith("not installed") for v in verdicts.values()):
        pytest.skip(verdicts["ours"])
    assert verdicts == {"ours": "ok", "handwritten": "ok"}, verdicts


@pytest.mark.parametrize("server", ["gunicorn-sync-1", "granian-1"])
def test_the_s2_floor_is_served_over_http_and_answers_every_check(http_checks, server):
    verdict = http_checks["status"][f"floor @ {server}"]
    if verdict.startswith("not installed"):
        pytest.skip(verdict)
    assert verdict == "ok", verdict


def test_fastify_serves_the_scenarios_with_the_bodies_ours_sends(http_checks):
    verdict = http_checks["status"]["fastify @ node-1"]
    if verdict.startswith("not installed"):
        pytest.skip(verdict)
    assert verdict == "ok", verdict
    assert http_checks["fastify_version"].startswith("4.29.")
    # Byte for byte the same answers on S1-S4 (the S3 ids agree: one POST each before).
    ran = [label for label, verdict in http_checks["status"].items()
           if label.startswith("ours @") and verdict == "ok"]
    assert ran
    for label in ran:
        assert http_checks["bodies_unlike_fastify"][label] == [], label


def test_http_check_rejects_an_answer_that_is_not_json(tmp_path):
    """A server answering the right JSON as text/plain fails the check, naming the header."""
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from benchmarks import http, scenarios

    def text_app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b'{"hello": "world"}']

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = make_server("127.0.0.1", 0, text_app, handler_class=Quiet)
    thread = threading.Thread(target=server.handle_request, daemon=True)
    thread.start()
    target = http.Server("handwritten", "granian-1", str(tmp_path))
    target.port = server.server_port
    try:
        reason = http.http_check(target, scenarios.S1)
    finally:
        thread.join(timeout=15)
        server.server_close()
    assert reason == "status 200, Content-Type 'text/plain', not JSON"


def test_http_report_shows_fastify_and_the_survey():
    from benchmarks import report

    def runs(*rates):
        return [{"rps": r, "p50_us": 1000, "p99_us": 2000, "non2xx": 0, "connect": 0,
                 "read": 0, "write": 0, "timeout": 0} for r in rates]

    res = {"skipped": None, "duration": 2, "rounds": 3, "connections": 32,
           "fastify_version": "4.29.1", "bodies_unlike_fastify": {"ours @ granian-1": []},
           "status": {"ours @ granian-1": "ok", "handwritten @ granian-1": "ok",
                      "fastify @ node-1": "ok",
                      "ours @ bjoern-1": "not installed: bjoern not installed: pip install bjoern",
                      "handwritten @ bjoern-1": "not installed: bjoern not installed: pip install bjoern"},
           "rows": {"ours @ granian-1": {"S1": runs(100, 50, 300)},
                    "handwritten @ granian-1": {"S1": runs(200, 100, 300)},
                    "fastify @ node-1": {"S1": runs(50, 100, 100)}}}
    text = report.http_report(res)
    assert "HTTP against Fastify 4.29.1" in text
    # ours/Fastify per round 2.0, 0.5, 3.0 -> 2.00x; twin/Fastify 4.0, 1.0, 3.0 -> 3.00x
    fastify_line = next(line for line in text.splitlines() if line.startswith("S1 GET /hello"))
    assert fastify_line.split()[3:] == ["100", "100", "2.00x", "200", "3.00x"]
    assert "ours sends byte-for-byte the bodies Fastify sends" in text
    survey = next(line for line in text.splitlines() if line.startswith("granian-1"))
    # ours/twin per round 0.5, 0.5, 1.0 -> 0.50x
    assert survey.split()[1:] == ["S1", "100", "200", "0.50x", "2.00x", "3.00x"]
    assert "not run: bjoern-1: not installed: bjoern not installed: pip install bjoern" in text


def test_http_report_shows_the_s2_floor_beside_the_twin_and_ours():
    from benchmarks import report

    def runs(*rates):
        return [{"rps": r, "p50_us": 1000, "p99_us": 2000, "non2xx": 0, "connect": 0,
                 "read": 0, "write": 0, "timeout": 0} for r in rates]

    res = {"skipped": None, "duration": 2, "rounds": 3, "connections": 32, "bodies_unlike_fastify": {},
           "status": {"ours @ granian-1": "ok", "handwritten @ granian-1": "ok", "floor @ granian-1": "ok"},
           "rows": {"ours @ granian-1": {"S2": runs(80, 90, 60)},
                    "handwritten @ granian-1": {"S2": runs(100, 100, 100)},
                    "floor @ granian-1": {"S2": runs(90, 95, 80)}}}
    text = report.http_report(res)
    assert "S2's floor" in text
    lines = text.splitlines()
    header = next(number for number, line in enumerate(lines) if line.startswith("server     floor req/s"))
    line = lines[header + 2]  # (below the header's rule)
    # floor/twin per round 0.9, 0.95, 0.8 -> 0.90x; ours/floor 0.889, 0.947, 0.75 -> 0.89x; ours/twin 0.80x
    assert line.split() == ["granian-1", "90", "100", "80", "0.90x", "0.89x", "0.80x"]
