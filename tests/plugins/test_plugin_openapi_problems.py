"""framework.plugins.openapi in an application made with ``Framework(errors="problem+json")``:
the error responses it documents are ``application/problem+json``, one shared ``Problem``
schema, which the application's actual error answers satisfy."""
from __future__ import annotations

import jsonschema
from openapi_spec_validator import validate

from framework import Framework
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.openapi import openapi


def problem_app(errors: str = "problem+json") -> Framework:
    app = Framework(errors=errors, validator={"custom_options": {"all_errors": True}})
    app.register(openapi, info={"title": "t", "version": "1"})
    schema = {"body": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}
    app.post("/items", {"schema": schema}, lambda request, reply: request.body)

    def private(instance, opts):
        instance.register(bearer_auth, keys={"key"})
        instance.get("/private", lambda request, reply: {})

    app.register(private)
    app.ready()
    return app


def test_the_error_responses_share_the_problem_schema():
    app = problem_app()
    doc = app.openapi()
    validate(doc)
    problem_ref = {"$ref": "#/components/schemas/Problem"}
    assert doc["paths"]["/items"]["post"]["responses"]["400"]["content"] == {
        "application/problem+json": {"schema": problem_ref}}
    assert doc["paths"]["/private"]["get"]["responses"]["401"]["content"] == {
        "application/problem+json": {"schema": problem_ref}}
    assert "FrameworkError" not in doc["components"]["schemas"]
    # The answers are what the document says.
    schema = doc["components"]["schemas"]["Problem"]
    for response in (app.inject(method="POST", url="/items", json={}), app.inject(url="/private")):
        assert response.headers["content-type"].startswith("application/problem+json")
        jsonschema.validate(response.json(), schema)


def test_the_default_style_documents_the_fastify_body():
    doc = problem_app(errors="fastify").openapi()
    assert list(doc["paths"]["/items"]["post"]["responses"]["400"]["content"]) == ["application/json"]
    assert "Problem" not in doc["components"]["schemas"]
