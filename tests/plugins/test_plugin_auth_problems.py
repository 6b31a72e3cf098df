"""framework.plugins.auth in an application made with ``Framework(errors="problem+json")``:
its 401 and 403 are problem documents, the 401 with its challenge."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.plugins.auth import ApiKey, Identity, auth

PROBLEM = "application/problem+json; charset=utf-8"


def guarded_app() -> Framework:
    app = Framework(errors="problem+json")

    def api(instance, opts):
        instance.register(auth, any_of=[ApiKey(header="X-API-Key", keys={
            "reader-key": Identity("reader", scopes=["items:read"]),
            "writer-key": Identity("writer", scopes=["items:read", "items:write"])})])

        def routes(inner, opts):
            inner.delete("/items/:id", lambda request, reply: {"deleted": request.params["id"]},
                         scopes=["items:write"])

        instance.register(routes)

    app.register(api, prefix="/api")
    return app


CHALLENGE = 'ApiKey in="header", name="X-API-Key"'


@pytest.mark.parametrize("headers, status, code, challenge", [
    ({}, 401, "FST_AUTH_MISSING_CREDENTIALS", CHALLENGE),
    ({"X-API-Key": "nope"}, 401, "FST_AUTH_INVALID_CREDENTIALS", CHALLENGE),
    ({"X-API-Key": "reader-key"}, 403, "FST_AUTH_INSUFFICIENT_SCOPE", None),
])
def test_refusals_are_problems_with_their_challenge(headers, status, code, challenge):
    response = guarded_app().inject(method="DELETE", url="/api/items/7", headers=headers)
    assert response.status_code == status
    assert response.headers["content-type"] == PROBLEM
    assert response.headers.get("www-authenticate") == challenge
    problem = response.json()
    assert (problem["type"], problem["status"], problem["instance"], problem["code"]) == (
        "about:blank", status, "/api/items/7", code)


def test_an_accepted_key_passes():
    response = guarded_app().inject(method="DELETE", url="/api/items/7", headers={"X-API-Key": "writer-key"})
    assert (response.status_code, response.json()) == (200, {"deleted": "7"})
