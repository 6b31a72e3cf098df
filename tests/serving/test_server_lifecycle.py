"""Lifecycle under real servers: ``on_close`` (after ``pre_close``) runs in the process
that ran ``ready()`` when the server is stopped with SIGTERM or SIGINT, under plain
``gunicorn module:app``, granian and ``listen()``; ``on_listen`` runs under ``listen()``;
request ids differ across worker processes. The app is ``tests/support/lifecycle_app.py``."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

from conftest import SUPPORT_PATH
from framework import Framework
from servers import APPS, free_port, held_requests, wait_for


def run_server(command, port, markers, sig=signal.SIGTERM, requests=1, readied=0, workers=0, started=0,
               **env):
    """Start ``command``, send ``requests`` GET /id, then held ones (``held_requests``) until
    ``workers`` processes have answered (within a deadline), wait until ``readied`` processes
    have written their ready marker and the output shows ``started`` granian workers started,
    stop it with ``sig``; the answers and the output."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT_PATH), str(APPS)]),
                   LIFECYCLE_MARKERS=str(markers), **env)
    log = tempfile.TemporaryFile("w+")
    process = subprocess.Popen(command, cwd=APPS, env=environ, stdout=log, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        wait_for(port, process)
        answers = []
        for _ in range(requests):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/id", timeout=10) as response:
                answers.append((json.loads(response.read()), response.headers["x-request-id"]))
        deadline = time.monotonic() + 60
        while len({body["pid"] for body, _ in answers}) < workers:
            assert time.monotonic() < deadline, f"{workers} workers did not all answer within 60 s"
            answers += [(json.loads(body), headers["x-request-id"])
                        for _, headers, body in held_requests(port, "/id", workers)]
        assert wait_for_markers(markers, "ready", readied)
        # A worker readies the app before granian counts it started; a stop signal in
        # between leaves that worker running (granian 2.8), so wait for granian's word.
        assert wait_for_output(log, "Started worker-", started), read(log)
    finally:
        process.send_signal(sig)  # to the server's main process only, as a process manager does
        output = stopped_output(process, log)
    assert process.returncode is not None
    return answers, output


def read(log):
    log.seek(0)
    return log.read()


def wait_for_output(log, text, count, timeout=30):
    deadline = time.monotonic() + timeout
    while read(log).count(text) < count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def stopped_output(process, log, timeout=60):
    """The output of a server sent its stop signal (written to ``log``), once it has exited.
    A loaded machine may take a while to run the workers' close hooks: past ``timeout`` the
    server is killed (its hooks then cannot run) and the output says so."""
    try:
        process.wait(timeout=timeout)
        note = ""
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        note = f"\n[test] the server had not stopped {timeout} s after its signal: killed"
    with log:
        return read(log) + note


def markers(directory):
    """{name: {pid, ...}} for the marker files the app's hooks wrote."""
    found = {}
    for path in directory.iterdir():
        name, pid = path.name.rsplit("-", 1)
        found.setdefault(name, set()).add(int(pid))
    return found


def gunicorn(port, *options):
    return [sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", *options, "lifecycle_app:app"]


def granian(port, workers=1):
    pytest.importorskip("granian", reason="granian is an optional extra")
    return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port),
            "--workers", str(workers), "lifecycle_app:app"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_plain_gunicorn_runs_on_close_in_the_worker_that_ran_ready(tmp_path, sig):
    port = free_port()
    answers, output = run_server(gunicorn(port, "-w", "1"), port, tmp_path, sig)
    worker = answers[0][0]["pid"]
    found = markers(tmp_path)
    assert found.get("ready") == {worker}, output  # readied by its first request
    assert found.get("pre_close") == found.get("close") == {worker}, output
    assert "listen" not in found  # on_listen belongs to listen()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_granian_runs_on_close_in_its_worker(tmp_path, sig):
    port = free_port()
    answers, output = run_server(granian(port), port, tmp_path, sig)
    worker = answers[0][0]["pid"]
    found = markers(tmp_path)
    assert found.get("ready") == found.get("close") == found.get("pre_close") == {worker}, output


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
def test_listen_runs_on_listen_then_on_close_in_its_process(tmp_path, server):
    if server == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
    port = free_port()
    command = [sys.executable, str(APPS / "lifecycle_app.py"), str(port), server]
    answers, output = run_server(command, port, tmp_path, signal.SIGTERM)
    found = markers(tmp_path)
    main = found.get("ready")
    assert main and len(main) == 1 and answers[0][0]["pid"] not in main, output  # readied before the fork
    assert found.get("listen") == found.get("pre_close") == found.get("close") == main, output


def test_ready_at_import_on_every_worker_each_closes_and_ids_differ(tmp_path):
    port = free_port()
    answers, output = run_server(gunicorn(port, "-w", "2", "--threads", "1"), port, tmp_path, requests=40,
                                 readied=2, workers=2, LIFECYCLE_READY_AT_IMPORT="1")
    found = markers(tmp_path)
    assert len(found["ready"]) == 2 and found["close"] == found["ready"], output
    ids = [body["id"] for body, _ in answers]
    assert len(set(ids)) == len(ids)
    assert [header for _, header in answers] == ids  # echoed in request_id_header
    by_worker = {}
    for body, _ in answers:
        by_worker.setdefault(body["pid"], set()).add(body["id"].rsplit("-", 1)[0])
    first, second = by_worker.values()  # both workers answered: each has its own prefix
    assert len(first) == len(second) == 1 and first != second


def test_preload_readies_in_the_master_which_closes_and_forked_workers_make_other_ids(tmp_path):
    port = free_port()
    answers, output = run_server(gunicorn(port, "-w", "2", "--preload"), port, tmp_path, requests=40,
                                 LIFECYCLE_READY_AT_IMPORT="1")
    found = markers(tmp_path)
    [master] = found["ready"]
    assert found["close"] == {master}, output
    prefixes = {body["id"].rsplit("-", 1)[0] for body, _ in answers}
    workers = {body["pid"] for body, _ in answers}
    assert master not in workers and len(prefixes) == len(workers)


def test_with_statement_closes():
    closed = []
    with Framework() as app:
        app.add_hook("pre_close", lambda instance: closed.append("pre_close"))
        app.add_hook("on_close", lambda instance: closed.append("on_close"))
        app.ready()
    assert closed == ["pre_close", "on_close"]
    app.close()
    assert closed == ["pre_close", "on_close"]  # once


def test_a_failing_close_hook_is_logged_and_the_others_run(caplog):
    ran = []
    app = Framework()
    app.add_hook("on_close", lambda instance: ran.append("outer"))

    def child(instance, opts):
        instance.add_hook("on_close", lambda instance: 1 / 0)
        instance.add_hook("on_close", lambda instance: ran.append("inner"))
    app.register(child)
    app.ready()
    app.close()
    assert ran == ["inner", "outer"]
    assert any("on_close hook" in record.getMessage() for record in caplog.records)


def wait_for_markers(directory, name, count, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(markers(directory).get(name, ())) >= count:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
def test_cli_run_readies_every_worker_at_boot_and_closes_them(tmp_path, server):
    if server == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
    port = free_port()
    command = [sys.executable, "-m", "framework", "run", "lifecycle_app:app", "--server", server,
               "--workers", "2", "--host", "127.0.0.1", "--port", str(port)]
    answers, output = run_server(command, port, tmp_path, requests=1, readied=2,
                                 started=2 if server == "granian" else 0)
    found = markers(tmp_path)
    assert len(found.get("ready", ())) == 2, output  # both workers, not only the one that answered
    assert found.get("close") == found["ready"], output


def test_shipped_gunicorn_config_readies_workers_before_their_first_request(tmp_path):
    port = free_port()
    command = gunicorn(port, "-w", "2", "-c", "python:framework.gunicorn_conf")
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT_PATH), str(APPS)]),
                   LIFECYCLE_MARKERS=str(tmp_path))
    log = tempfile.TemporaryFile("w+")
    process = subprocess.Popen(command, cwd=APPS, env=environ, stdout=log, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        assert wait_for_markers(tmp_path, "ready", 2)  # no request sent
    finally:
        process.send_signal(signal.SIGTERM)
        output = stopped_output(process, log)
    assert markers(tmp_path)["close"] == markers(tmp_path)["ready"], output


@pytest.mark.parametrize("command, expected", [("routes", "/id (GET, HEAD)"), ("plugins", "root")])
def test_cli_prints_trees(tmp_path, command, expected):
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT_PATH), str(APPS)]),
                   LIFECYCLE_MARKERS=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "framework", command, "lifecycle_app:app"], cwd=APPS, env=environ,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert expected in result.stdout
    assert set(markers(tmp_path)) == {"ready", "pre_close", "close"}


def test_cli_refuses_bad_arguments():
    result = subprocess.run([sys.executable, "-m", "framework", "run", "x:app", "--server", "nope"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "invalid choice" in result.stderr
    result = subprocess.run([sys.executable, "-m", "framework", "routes", "no_such_module_here:app"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "no_such_module_here" in result.stderr
