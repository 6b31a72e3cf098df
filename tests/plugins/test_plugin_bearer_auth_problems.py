"""framework.plugins.bearer_auth in an application made with ``Framework(errors="problem+json")``:
its refusals are RFC 9457 problem documents by default; its own options still decide."""
from __future__ import annotations

import pytest

from framework import Framework, Problem
from framework.plugins.bearer_auth import bearer_auth

PROBLEM = "application/problem+json; charset=utf-8"


def guarded_app(errors: str = "problem+json", **options) -> Framework:
    app = Framework(errors=errors)

    def private(instance, opts):
        instance.register(bearer_auth, keys={"a-secret-key"}, **options)
        instance.get("/private", lambda request, reply: {"hello": "friend"})

    app.register(private, prefix="/api")
    return app


@pytest.mark.parametrize("headers, challenge, code, detail", [
    ({}, "Bearer", "FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER", "missing authorization header"),
    ({"Authorization": "Basic a-secret-key"}, 'Bearer error="invalid_request"',
     "FST_BEARER_AUTH_INVALID_AUTHORIZATION_HEADER", "invalid authorization header"),
    ({"Authorization": "Bearer nope"}, 'Bearer error="invalid_token"',
     "FST_BEARER_AUTH_INVALID_AUTHORIZATION_HEADER", "invalid authorization header"),
])
def test_a_refusal_is_a_problem_with_its_challenge(headers, challenge, code, detail):
    response = guarded_app().inject(url="/api/private", headers=headers)
    assert response.status_code == 401
    assert response.headers["content-type"] == PROBLEM
    assert response.headers["www-authenticate"] == challenge
    assert response.json() == {"type": "about:blank", "title": "Unauthorized", "status": 401,
                               "detail": detail, "instance": "/api/private", "code": code}


def test_an_accepted_key_passes():
    response = guarded_app().inject(url="/api/private", headers={"Authorization": "Bearer a-secret-key"})
    assert (response.status_code, response.json()) == (200, {"hello": "friend"})


def test_the_500_of_an_auth_function_that_returns_no_bool_is_a_problem():
    app = Framework(errors="problem+json")
    app.register(bearer_auth, auth=lambda key, request: "yes")
    app.get("/x", lambda request, reply: {})
    response = app.inject(url="/x", headers={"Authorization": "Bearer k"})
    assert response.status_code == 500 and response.headers["content-type"] == PROBLEM
    assert response.json()["code"] == "FST_BEARER_AUTH_INVALID_AUTH_RESULT"


def test_the_factory_verifier_keeps_the_style():
    app = Framework(errors="problem+json")

    def admin(instance, opts):
        instance.register(bearer_auth, keys=["admin-key"], add_hook=False)

        def routes(inner, opts):
            inner.get("/admin", {"on_request": inner.verify_bearer_auth_factory(realm="admin")},
                      lambda request, reply: {})

        instance.register(routes)

    app.register(admin)
    response = app.inject(url="/admin")
    assert response.headers["content-type"] == PROBLEM
    assert response.headers["www-authenticate"] == 'Bearer realm="admin"'


def test_error_response_and_content_type_still_decide():
    custom = guarded_app(error_response=lambda err: {"refused": err.code}).inject(url="/api/private")
    assert custom.headers["content-type"] == "application/json; charset=utf-8"
    assert custom.json() == {"refused": "FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER"}
    typed = guarded_app(content_type="application/vnd.refusal+json").inject(url="/api/private")
    assert typed.headers["content-type"] == "application/vnd.refusal+json"
    assert typed.json()["status"] == 401
    own = guarded_app(error_response=lambda err: Problem(401, "sign in", type="https://example.com/probs/sign-in"))
    assert own.inject(url="/api/private").json()["type"] == "https://example.com/probs/sign-in"


def test_the_default_style_keeps_the_plugins_own_body():
    response = guarded_app(errors="fastify").inject(url="/api/private")
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.text == '{"error":"missing authorization header"}'
