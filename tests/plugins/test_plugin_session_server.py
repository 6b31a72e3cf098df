"""framework.plugins.session and csrf served for real (tests/support/session_app.py and
csrf_cookie_app.py) by gunicorn and granian, each with two worker processes, sharing sessions
through Redis (a real redis-server) and through one SQLite file: login, a session one process
wrote read by another, regenerate, logout, expiry; CSRF missing, wrong and right token with
the session-stored (synchronizer) token and with the signed-cookie (double-submit) one, a
token one process handed out accepted by another.

"Another process" is the other gunicorn worker (reached with held requests), but for granian
a second granian instance sharing the store. Each granian worker listens on a socket of its
own (``SO_REUSEPORT``: ``ss -ltn`` shows two for the port), so the kernel picks the worker of
each connection when it arrives, whatever the worker is doing (granian 2.8.9): of 100 held
pairs, 53 went both to one worker even with ``--backpressure 1``; a paused (SIGSTOP) worker
still got 2 of 5 connections; a killed worker's are reset (and granian then shuts down).
Which of one granian's workers answers is the kernel's choice; these tests do not count on it."""
from __future__ import annotations

import contextlib
import http.client
import json
import sys
import time

import pytest

from redis_server import redis_server
from servers import free_port, held_requests, start, stop

DEADLINE = 30  # seconds any wait below may take before the test fails


def request(port: int, method: str, path: str, cookie: str | None = None, body: dict | None = None,
            headers: dict | None = None) -> tuple[int, dict, list[str]]:
    """``(status, JSON body, Set-Cookie lines)``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        sent = dict(headers or {})
        if cookie:
            sent["Cookie"] = cookie
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        payload = json.loads(response.read() or b"null")
        return response.status, payload, [value for name, value in response.getheaders() if name.lower() == "set-cookie"]
    finally:
        connection.close()


def cookie_of(lines: list[str], name: str = "session") -> str | None:
    """``name=value`` from the Set-Cookie lines (``None`` when it is cleared or absent)."""
    for line in lines:
        if line.startswith(name + "=") and "Max-Age=0" not in line:
            return line.split(";")[0]
    return None


def from_two_workers(port: int, path: str, cookie: str, method: str = "GET",
                     headers: dict | None = None, body: bytes = b"") -> list[dict]:
    """``method path`` answered by both gunicorn workers, their JSON bodies. Held requests: a
    sync worker that took one is busy until it completes, so the other takes the next,
    whichever way the kernel hands connections out; the loop only waits, until a deadline,
    for a worker still booting."""
    deadline = time.monotonic() + DEADLINE
    while True:
        answers = held_requests(port, path, 2, method=method, headers={**(headers or {}), "Cookie": cookie},
                                body=body)
        bodies = [json.loads(body) for status, _, body in answers if status == 200]
        if len(bodies) == 2 and bodies[0]["pid"] != bodies[1]["pid"]:
            return bodies
        assert time.monotonic() < deadline, f"two workers never both answered: {answers}"


def gunicorn(port: int, app: str = "session_app:app") -> list[str]:
    return [sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "2", app]


def granian(port: int, app: str = "session_app:app") -> list[str]:
    return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port),
            "--workers", "2", app]


@pytest.fixture(scope="module")
def redis_url():
    with redis_server() as url:
        yield url


@pytest.fixture(params=["redis", "sqlite"])
def store_env(request, monkeypatch, tmp_path):
    monkeypatch.setenv("SESSION_STORE", request.param)
    if request.param == "redis":
        monkeypatch.setenv("SESSION_REDIS_URL", request.getfixturevalue("redis_url"))
    else:
        monkeypatch.setenv("SESSION_SQLITE_PATH", str(tmp_path / "sessions.db"))
    return request.param


def serve(server: str, app: str = "session_app:app"):
    if server == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
    port = free_port()
    return port, start((gunicorn if server == "gunicorn" else granian)(port, app), port)


@contextlib.contextmanager
def serving(server: str, app: str = "session_app:app"):
    """The ports to send to: one gunicorn (two workers, told apart by held requests), or two
    granian instances (two workers each) sharing the store (see the module docstring)."""
    processes = []
    try:
        ports = []
        for _ in range(1 if server == "gunicorn" else 2):
            port, process = serve(server, app)
            ports.append(port)
            processes.append(process)
        yield ports
    finally:
        for process in processes:
            stop(process)


def from_two_processes(ports: list[int], path: str, cookie: str, method: str = "GET",
                       headers: dict | None = None, body: bytes = b"") -> list[dict]:
    """``method path`` answered by two processes: both workers of the one gunicorn, or a
    worker of each granian instance; their JSON bodies."""
    if len(ports) == 1:
        return from_two_workers(ports[0], path, cookie, method, headers, body)
    answers = [held_requests(port, path, 1, method=method, headers={**(headers or {}), "Cookie": cookie},
                             body=body)[0] for port in ports]
    assert [status for status, _, _ in answers] == [200, 200], answers
    return [json.loads(body) for _, _, body in answers]


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
def test_two_processes_share_sessions_login_regenerate_logout(server, store_env):
    with serving(server) as ports:
        port = ports[0]
        status, body, lines = request(port, "POST", "/login", body={"user": "ann"})
        first = cookie_of(lines)
        assert status == 200 and first and "HttpOnly" in lines[0] and "SameSite=Lax" in lines[0]
        # The process that wrote it and another one both read it.
        readers = from_two_processes(ports, "/me", first)
        assert any(reader["pid"] != body["pid"] for reader in readers)
        assert all(reader["user"] == "ann" and reader["new"] is False for reader in readers)
        # Regenerate (a second login): a new cookie; the old id finds nothing in either process.
        status, _, lines = request(port, "POST", "/login", cookie=first, body={"user": "ann"})
        second = cookie_of(lines)
        assert status == 200 and second and second != first
        assert all(reader["user"] == "ann" for reader in from_two_processes(ports, "/me", second))
        assert all(reader["new"] is True for reader in from_two_processes(ports, "/me", first))
        # Logout: the cookie is cleared and no process finds the session any more.
        status, _, lines = request(port, "POST", "/logout", cookie=second)
        assert status == 200 and any(line.startswith("session=;") and "Max-Age=0" in line for line in lines)
        assert all(reader["new"] is True and reader["user"] is None
                   for reader in from_two_processes(ports, "/me", second))


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
def test_expiry_and_csrf_on_each_server(server, store_env):
    port, process = serve(server)
    try:
        _expiry(port)
        _csrf(port)
    finally:
        stop(process)


def refused(code: str, message: str) -> tuple[int, dict]:
    """The status and JSON body of a CSRF refusal."""
    return 403, {"statusCode": 403, "code": code, "error": "Forbidden", "message": message}


def _expiry(port: int) -> None:
    # /short keeps a session one second: poll, bounded by a deadline, until it is gone.
    status, _, lines = request(port, "POST", "/short/login", body={"user": "cat"})
    cookie = cookie_of(lines, "short")
    assert status == 200 and cookie and "Max-Age=1" in lines[0]
    deadline = time.monotonic() + DEADLINE
    while request(port, "GET", "/short/me", cookie=cookie)[1]["new"] is False:
        assert time.monotonic() < deadline, "the session never expired"
        time.sleep(0.2)


def _csrf(port: int) -> None:
    _, _, lines = request(port, "POST", "/login", body={"user": "dan"})
    cookie = cookie_of(lines)
    status, body, lines = request(port, "GET", "/form", cookie=cookie)
    token = body["token"]
    cookie = cookie_of(lines) or cookie  # the token was saved in the session
    missing = request(port, "POST", "/transfer", cookie=cookie, body={})
    wrong = request(port, "POST", "/transfer", cookie=cookie, body={}, headers={"X-CSRF-Token": token[::-1]})
    right = request(port, "POST", "/transfer", cookie=cookie, body={}, headers={"X-CSRF-Token": token})
    assert missing[:2] == refused("FST_CSRF_MISSING_TOKEN", "missing csrf token")
    assert wrong[:2] == refused("FST_CSRF_INVALID_TOKEN", "invalid csrf token")
    assert right[0] == 200 and right[1]["ok"] is True and right[1]["user"] == "dan"


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
def test_double_submit_csrf_token_in_a_signed_cookie(server):
    with serving(server, "csrf_cookie_app:app") as ports:
        port = ports[0]
        status, body, lines = request(port, "GET", "/form")
        token, cookie = body["token"], cookie_of(lines, "_csrf")
        assert status == 200 and cookie and cookie != f"_csrf={token}" and cookie.startswith(f"_csrf={token}.")
        assert "HttpOnly" in lines[0] and "SameSite=Lax" in lines[0]
        # The client keeps its token: the next page hands out the same one and sets no cookie.
        again = request(port, "GET", "/form", cookie=cookie)
        assert again[1]["token"] == token and cookie_of(again[2], "_csrf") is None
        header = {"X-CSRF-Token": token}
        assert request(port, "POST", "/transfer", cookie=cookie, body={})[:2] == \
            refused("FST_CSRF_MISSING_TOKEN", "missing csrf token")
        wrong = {"X-CSRF-Token": token[::-1]}
        assert request(port, "POST", "/transfer", cookie=cookie, body={}, headers=wrong)[:2] == \
            refused("FST_CSRF_INVALID_TOKEN", "invalid csrf token")
        assert request(port, "POST", "/transfer", body={}, headers=header)[:2] == \
            refused("FST_CSRF_MISSING_SECRET", "missing csrf secret")
        # A cookie carrying a made-up token under a genuine signature is no cookie at all.
        forged = "forged-token-of-another-site"
        signature = cookie.rsplit(".", 1)[1]
        assert request(port, "POST", "/transfer", cookie=f"_csrf={forged}.{signature}", body={},
                       headers={"X-CSRF-Token": forged})[:2] == \
            refused("FST_CSRF_MISSING_SECRET", "missing csrf secret")
        # The right token is accepted by two processes, one of which did not hand it out.
        accepted = from_two_processes(ports, "/transfer", cookie, method="POST", body=b"{}",
                                      headers={**header, "Content-Type": "application/json"})
        assert all(answer["ok"] is True for answer in accepted)
        assert any(answer["pid"] != body["pid"] for answer in accepted)
