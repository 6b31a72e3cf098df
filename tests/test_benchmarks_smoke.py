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


def test_every_feature_checked_and_costed(smoke):
    """The feature-cost table: every optional feature answers S1 with its effect, and is timed."""
    _, results = smoke
    features = results["features"]
    assert features["status"] and all(verdict == "ok" for verdict in features["status"].values()), features["status"]
    assert "bare" in features["rates"] and "cors" in features["rates"] and "hook on_send" in features["rates"]
    assert all(rate > 0 for runs in features["rates"].values() for rate in runs)
