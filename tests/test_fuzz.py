"""framework.testing.fuzz: seeded faults are found (with a minimal example), the example app passes."""
import pytest

from framework import Framework
from framework.fuzz import FuzzFailure, inline_refs
from framework.testing import fuzz

COUNT = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 1000}},
         "required": ["n"]}


def test_finds_a_500_on_an_edge_value():
    app = Framework()

    @app.get("/ratio", schema={"querystring": COUNT})
    def ratio(request, reply):
        return {"ratio": 100 / request.query["n"]}  # n = 0: ZeroDivisionError, a 500

    with pytest.raises(FuzzFailure) as raised:
        fuzz(app, examples=100)
    [failure] = raised.value.failures
    assert (failure.method, failure.url) == ("GET", "/ratio")
    assert "answered 500" in failure.message
    assert '"querystring": {"n": 0}' in failure.message  # the minimal example


def test_finds_a_reply_that_breaks_its_schema():
    app = Framework()
    reply_schema = {"type": "object", "required": ["name", "tags"],
                    "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}

    @app.post("/things", schema={
        "body": {"type": "object", "required": ["name"],
                 "properties": {"name": {"type": "string", "maxLength": 10}, "tags": {"type": "array"}}},
        "response": {"2xx": reply_schema}})
    def create(request, reply):
        thing = {"name": request.body["name"]}
        if request.body.get("tags"):
            thing["tags"] = request.body["tags"]  # no tags: the reply lacks a required property
        return reply.code(201).send(thing)

    report = fuzz(app, examples=100, raise_on_failure=False)
    assert report.routes == ["POST /things"]
    [failure] = report.failures
    assert failure.url == "/things"
    assert "answered 500" in failure.message or "does not match its response schema" in failure.message


def test_finds_a_reply_whose_json_breaks_the_schema_with_a_custom_serializer():
    app = Framework()
    # A serializer compiler that writes the payload as it is: the schema is not enforced.
    app.set_serializer_compiler(lambda schema, **kw: __import__("json").dumps)

    @app.get("/count/:n", schema={"params": COUNT, "response": {200: {
            "type": "object", "properties": {"count": {"type": "integer", "maximum": 100}}}}})
    def count(request, reply):
        return {"count": request.params["n"]}  # over 100 breaks the response schema

    with pytest.raises(FuzzFailure) as raised:
        fuzz(app, examples=100)
    message = raised.value.failures[0].message
    assert "does not match its response schema" in message
    assert '"params": {"n": 101}' in message  # shrunk to the first value past the maximum


def test_finds_a_validation_error_naming_the_wrong_part():
    app = Framework()

    def rename(errors, data_var):
        from framework.errors import ValidationError
        return ValidationError("bad input", errors, data_var)
    app.set_schema_error_formatter(rename)
    app.get("/q", lambda request, reply: {}, schema={"querystring": COUNT})
    with pytest.raises(FuzzFailure, match="querystring is invalid but the 400 names another part"):
        fuzz(app, examples=50)


def test_a_correct_app_passes_and_every_part_is_exercised():
    app = Framework()
    app.add_schema({"$id": "tag", "type": "string", "enum": ["a", "b"]})

    @app.put("/boxes/:id", schema={
        "params": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}},
        "querystring": {"dry": {"type": "boolean"}, "mode": {"type": "string", "enum": ["fast", "slow"]}},
        "headers": {"type": "object", "properties": {"x-token": {"type": "string", "pattern": "^[a-f0-9]{4}$"}},
                    "required": ["x-token"]},
        "body": {"type": "object", "required": ["size"],
                 "properties": {"size": {"type": "number", "exclusiveMinimum": 0},
                                "tags": {"type": "array", "maxItems": 2, "items": {"$ref": "tag#"}}}},
        "response": {200: {"type": "object", "properties": {"id": {"type": "integer"}, "size": {"type": "number"}}}}})
    def put_box(request, reply):
        return {"id": request.params["id"], "size": request.body["size"]}

    report = fuzz(app, examples=200)
    assert report.routes == ["PUT /boxes/:id"] and report.failures == []


def test_inline_refs():
    shared = {"item": {"$id": "item", "type": "object", "definitions": {"n": {"type": "integer"}},
                       "properties": {"n": {"$ref": "#/definitions/n"}}}}
    assert inline_refs({"type": "array", "items": {"$ref": "item#"}}, shared)["items"]["properties"] == {
        "n": {"type": "integer"}}


def test_example_app_passes(tmp_path):
    from examples.app import create_app
    app = create_app(api_keys=["fuzz-key"], database=str(tmp_path / "items.sqlite3"))
    report = fuzz(app, examples=60, headers={"Authorization": "Bearer fuzz-key"})
    assert {"POST /items", "GET /items/:id", "PUT /items/:id", "DELETE /items/:id"} <= set(report.routes)
    app.close()


def test_long_minimum_lengths_and_routes_filter():
    app = Framework()
    app.post("/long", lambda request, reply: {}, schema={
        "body": {"type": "object", "properties": {"code": {"type": "string", "minLength": 30}}, "required": ["code"]}})
    app.get("/other", lambda request, reply: 1 / 0)
    report = fuzz(app, examples=30, routes={"POST /long"})
    assert report.routes == ["POST /long"] and report.failures == []
    with pytest.raises(FuzzFailure, match="GET /other"):
        fuzz(app, examples=5, routes=lambda route: route.url == "/other")
