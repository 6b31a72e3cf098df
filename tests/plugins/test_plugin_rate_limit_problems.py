"""framework.plugins.rate_limit in an application made with ``Framework(errors="problem+json")``:
the 429 is a problem document with its headers, and the OpenAPI document says so."""
from __future__ import annotations

from openapi_spec_validator import validate

from framework import Framework
from framework.plugins.openapi import openapi
from framework.plugins.rate_limit import rate_limit


def limited_app() -> Framework:
    app = Framework(errors="problem+json")
    app.register(openapi, info={"title": "t", "version": "1"})
    app.register(rate_limit, limit="1/hour")
    app.get("/", lambda request, reply: {"ok": True})
    return app


def test_the_429_is_a_problem_with_retry_after():
    app = limited_app()
    assert app.inject(url="/").status_code == 200
    refused = app.inject(url="/")
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json; charset=utf-8"
    assert int(refused.headers["retry-after"]) == int(refused.headers["ratelimit-reset"])
    problem = refused.json()
    assert {key: problem[key] for key in ("type", "title", "status", "instance", "code")} == {
        "type": "about:blank", "title": "Too Many Requests", "status": 429, "instance": "/",
        "code": "FST_RATE_LIMIT_EXCEEDED"}
    assert problem["detail"].startswith("rate limit exceeded (1 per 1 hour), retry in ")


def test_the_documented_429_is_the_problem():
    app = limited_app()
    app.ready()
    doc = app.openapi()
    validate(doc)
    assert doc["paths"]["/"]["get"]["responses"]["429"]["content"] == {
        "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    assert "Problem" in doc["components"]["schemas"] and "FrameworkError" not in doc["components"]["schemas"]
