"""framework.testing.fuzz: seeded faults are found (with a minimal example), the example app passes."""
import pickle

import hypothesis
import pytest

from framework import Framework
from framework.errors import ValidationError
from framework.testing.fuzzer import FuzzFailure, RouteFailure, inline_refs, valid
from framework.testing import fuzz
from framework.validation import compile_schema
from framework.validation.formats import NUMBER_FORMATS, STRING_FORMATS

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


# Valid draws are valid by the route's own validator, and must reach the handler.
EMAIL_BODY = {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}, "required": ["email"]}


def test_a_handler_that_crashes_behind_a_format_is_found():
    app = Framework()

    @app.post("/signup", schema={"body": EMAIL_BODY})
    def signup(request, reply):
        raise RuntimeError("the handler crashes on every call")

    report = fuzz(app, examples=50, raise_on_failure=False)
    [failure] = report.failures
    assert failure.url == "/signup" and "answered 500" in failure.message
    assert '"email": "' in failure.message  # the valid draw that crashed it


def test_a_validation_error_answered_to_a_valid_draw_is_a_failure():
    app = Framework()

    def reject(request, reply):
        raise ValidationError("body/n should be even", [], "body")

    app.post("/orders", lambda request, reply: {}, pre_handler=reject, schema={"body": COUNT})
    with pytest.raises(FuzzFailure) as raised:
        fuzz(app, examples=30)
    [failure] = raised.value.failures
    assert "valid for the route's schemas but answered 400 FST_ERR_VALIDATION" in failure.message
    assert '"body": {"n": 0}' in failure.message  # the (minimal) draw
    assert "body/n should be even" in failure.message  # the answer


def test_a_handlers_own_404_and_409_are_not_failures():
    app = Framework()

    @app.put("/boxes/:id", schema={"params": {"type": "object", "properties": {"id": {"type": "integer"}}},
                                   "body": EMAIL_BODY})
    def put_box(request, reply):
        if request.params["id"] % 2:
            return reply.code(404).send({"message": "no such box"})
        return reply.code(409).send({"message": f"{request.body['email']} already has a box"})

    report = fuzz(app, examples=60)
    assert report.failures == []
    counts = report.counts["PUT /boxes/:id"]
    assert 0 < counts.reached == counts.valid  # every valid draw reached the handler, which chose its 4xx


def test_a_route_no_valid_draw_reached_fails():
    app = Framework()

    def forbid(request, reply):
        reply.code(403).send({"message": "forbidden"})

    app.post("/guarded", lambda request, reply: {}, pre_handler=forbid, schema={"body": COUNT})
    report = fuzz(app, examples=30, raise_on_failure=False)
    [failure] = report.failures
    assert failure.message.startswith("no valid draw reached the handler")
    assert "answered 403" in failure.message
    assert report.counts["POST /guarded"].valid > 0 and report.counts["POST /guarded"].reached == 0


def test_a_route_no_valid_request_can_be_drawn_for_fails():
    app = Framework()
    # No string of three digits is an email address: fuzz can draw nothing the route accepts.
    app.post("/impossible", lambda request, reply: {}, schema={"body": {
        "type": "object", "required": ["code"],
        "properties": {"code": {"type": "string", "pattern": "^[0-9]{3}$", "format": "email"}}}})
    with pytest.raises(FuzzFailure, match="POST /impossible: no valid draw reached the handler"):
        fuzz(app, examples=30)


def test_draws_are_valid_by_the_apps_own_validator_options():
    # Without coercion no query string value is an integer: the route accepts no request,
    # and fuzz says so (jsonschema, on the drawn integers, would call them valid).
    app = Framework(validator={"custom_options": {"coerce_types": False}})
    app.get("/count", lambda request, reply: {}, schema={"querystring": COUNT})
    report = fuzz(app, examples=30, raise_on_failure=False)
    [failure] = report.failures
    assert failure.message.startswith("no valid draw reached the handler")
    assert report.counts["GET /count"].valid == 0


def test_the_report_counts_the_draws_that_reached_each_handler():
    app = Framework()
    app.get("/open", lambda request, reply: {}, schema={"querystring": COUNT})

    def forbid(request, reply):
        reply.code(401).send({"message": "who are you?"})

    app.get("/closed", lambda request, reply: {}, on_request=forbid, schema={"querystring": COUNT})
    report = fuzz(app, examples=40, raise_on_failure=False)
    assert report.routes == ["GET /open", "GET /closed"]
    assert report.counts["GET /open"].reached == report.counts["GET /open"].valid > 0
    assert report.counts["GET /open"].invalid > 0
    assert report.counts["GET /closed"].reached == 0
    assert [failure.url for failure in report.failures] == ["/closed"]


FORMATS = sorted(STRING_FORMATS)


@pytest.mark.parametrize("name", FORMATS + sorted(NUMBER_FORMATS))
@pytest.mark.parametrize("text", [False, True], ids=["json", "text"])
def test_every_drawn_format_value_is_valid_by_our_validator(name, text):
    kind = "string" if name in STRING_FORMATS else "number" if name in ("float", "double") else "integer"
    schema = {"type": kind, "format": name}
    validate = compile_schema(schema)

    @hypothesis.settings(max_examples=100, derandomize=True, database=None, deadline=None)
    @hypothesis.given(value=valid(schema, text))
    def every_value_valid(value):
        validate(value)  # raises SchemaValidationFailure when it is not
        if text:  # a query string, path or header value: printable ASCII
            assert str(value).isascii() and str(value).isprintable()

    every_value_valid()


def test_a_fuzz_failure_round_trips_through_pickle():
    failure = FuzzFailure([RouteFailure("GET", "/ratio", "answered 500")])
    copy = pickle.loads(pickle.dumps(failure))
    assert type(copy) is FuzzFailure
    assert (copy.failures, str(copy)) == ([RouteFailure("GET", "/ratio", "answered 500")], "GET /ratio: answered 500")


def test_a_typed_stream_is_fuzzed_without_being_read_as_one_json_document():
    app = Framework()
    item = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}

    @app.get("/counts", schema={"querystring": COUNT, "response": {200: {"content": {
        "application/jsonl": {"itemSchema": item}}}}})
    def counts(request, reply):
        return ({"n": n} for n in range(min(request.query["n"], 3)))

    report = fuzz(app, examples=30, raise_on_failure=False)
    assert report.routes == ["GET /counts"] and report.failures == []
