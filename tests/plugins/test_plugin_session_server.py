"""framework.plugins.session and csrf served for real (tests/support/session_app.py):
gunicorn with two worker processes sharing sessions through Redis (a real redis-server) and
through one SQLite file, then granian: login, a session one worker wrote read by the other,
regenerate, logout, expiry; CSRF missing, wrong and right token."""
from __future__ import annotations

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


def from_two_workers(port: int, path: str, cookie: str) -> list[dict]:
    """``GET path`` answered by both gunicorn workers (held requests: a sync worker that took
    one is busy, so the other takes the next), their JSON bodies."""
    deadline = time.monotonic() + DEADLINE
    while True:
        answers = held_requests(port, path, 2, headers={"Cookie": cookie})
        bodies = [json.loads(body) for status, _, body in answers if status == 200]
        if len(bodies) == 2 and bodies[0]["pid"] != bodies[1]["pid"]:
            return bodies
        assert time.monotonic() < deadline, f"two workers never both answered: {answers}"


def gunicorn(port: int) -> list[str]:
    return [sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "2", "session_app:app"]


def granian(port: int) -> list[str]:
    return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port),
            "--workers", "2", "session_app:app"]


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


def serve(command):
    port = free_port()
    return port, start(command(port), port)


def test_gunicorn_workers_share_sessions_login_regenerate_logout(store_env):
    port, process = serve(gunicorn)
    try:
        status, body, lines = request(port, "POST", "/login", body={"user": "ann"})
        first = cookie_of(lines)
        assert status == 200 and first and "HttpOnly" in lines[0] and "SameSite=Lax" in lines[0]
        # The worker that wrote it and the other one both read it.
        readers = from_two_workers(port, "/me", first)
        assert any(reader["pid"] != body["pid"] for reader in readers)
        assert all(reader["user"] == "ann" and reader["new"] is False for reader in readers)
        # Regenerate (a second login): a new cookie; the old id finds nothing on either worker.
        status, _, lines = request(port, "POST", "/login", cookie=first, body={"user": "ann"})
        second = cookie_of(lines)
        assert status == 200 and second and second != first
        assert all(reader["user"] == "ann" for reader in from_two_workers(port, "/me", second))
        assert all(reader["new"] is True for reader in from_two_workers(port, "/me", first))
        # Logout: the cookie is cleared and no worker finds the session any more.
        status, _, lines = request(port, "POST", "/logout", cookie=second)
        assert status == 200 and any(line.startswith("session=;") and "Max-Age=0" in line for line in lines)
        assert all(reader["new"] is True and reader["user"] is None
                   for reader in from_two_workers(port, "/me", second))
    finally:
        stop(process)


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
def test_expiry_and_csrf_on_each_server(server, store_env):
    if server == "granian":
        pytest.importorskip("granian", reason="granian is an optional extra")
    port, process = serve(gunicorn if server == "gunicorn" else granian)
    try:
        _session_flow(port)
        _expiry(port)
        _csrf(port)
    finally:
        stop(process)


def _session_flow(port: int) -> None:
    _, _, lines = request(port, "POST", "/login", body={"user": "bob"})
    first = cookie_of(lines)
    assert request(port, "GET", "/me", cookie=first)[1]["user"] == "bob"
    _, _, lines = request(port, "POST", "/login", cookie=first, body={"user": "bob"})
    second = cookie_of(lines)
    assert second != first and request(port, "GET", "/me", cookie=first)[1]["new"] is True
    assert request(port, "POST", "/logout", cookie=second)[0] == 200
    after = request(port, "GET", "/me", cookie=second)[1]
    assert after["user"] is None and after["new"] is True


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
    assert missing[:2] == (403, {"statusCode": 403, "code": "FST_CSRF_MISSING_TOKEN", "error": "Forbidden",
                                 "message": "missing csrf token"})
    assert wrong[:2] == (403, {"statusCode": 403, "code": "FST_CSRF_INVALID_TOKEN", "error": "Forbidden",
                               "message": "invalid csrf token"})
    assert right[0] == 200 and right[1]["ok"] is True and right[1]["user"] == "dan"
