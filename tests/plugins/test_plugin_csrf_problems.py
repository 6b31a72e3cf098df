"""framework.plugins.csrf in an application made with ``Framework(errors="problem+json")``:
its 403s are problem documents (a session kept by the test client's cookie jar)."""
from __future__ import annotations

from framework import Framework
from framework.plugins.csrf import csrf
from framework.plugins.session import session
from framework.testing import Client


def test_the_403s_are_problems_and_the_token_passes():
    app = Framework(errors="problem+json")
    app.register(session, secret="session-secret")
    app.register(csrf)
    app.get("/form", lambda request, reply: {"token": reply.generate_csrf()})
    app.post("/transfer", lambda request, reply: {"ok": True})
    client = Client(app)
    missing = client.post("/transfer", json={})
    assert missing.status_code == 403
    assert missing.headers["content-type"] == "application/problem+json; charset=utf-8"
    assert missing.json() == {"type": "about:blank", "title": "Forbidden", "status": 403,
                              "detail": "missing csrf token", "instance": "/transfer",
                              "code": "FST_CSRF_MISSING_TOKEN"}
    token = client.get("/form").json()["token"]
    assert client.post("/transfer", json={}, headers={"X-CSRF-Token": token + "x"}).json()["code"] == \
        "FST_CSRF_INVALID_TOKEN"
    assert client.post("/transfer", json={}, headers={"X-CSRF-Token": token}).json() == {"ok": True}
