"""Issue 11, items 12-14: framework.plugins.error_messages with ajv-errors 3's matching, order and templates.

Through the public API: ``validator={"plugins": [error_messages]}`` and ``set_error_handler``.
"""
from __future__ import annotations

import json

from framework import Framework
from framework.plugins.error_messages import error_messages


def records(body_schema, body, options=None, shared=()):
    app = Framework(validator={"custom_options": {"all_errors": True},
                               "plugins": [(error_messages, options or {})]})
    for item in shared:
        app.add_schema(item)

    def on_error(error, request, reply):
        return reply.code(400).send({"errors": error.validation})

    app.set_error_handler(on_error)
    app.post("/", {"schema": {"body": body_schema}}, lambda request, reply: {"ok": True})
    response = app.inject(method="POST", url="/", json=body)
    assert response.status_code == 400, response.text
    return response.json()["errors"]


def brief(errors):
    return [(e["keyword"], e["instance_path"], e["message"]) for e in errors]


# ---------------------------------------------------------------- 12. matching by instance path

def test_properties_message_replaces_errors_reached_through_ref_in_any_of():
    schema = {"definitions": {"count": {"type": "integer", "minimum": 0}},
              "type": "object",
              "properties": {"n": {"anyOf": [{"$ref": "#/definitions/count"}, {"type": "null"}]}},
              "errorMessage": {"properties": {"n": "n is a count or null"}}}
    out = records(schema, {"n": -1})
    assert brief(out) == [("errorMessage", "/n", "n is a count or null")]
    assert {e["keyword"] for e in out[0]["params"]["errors"]} == {"minimum", "type", "anyOf"}


def test_items_message_replaces_errors_from_a_shared_schema():
    shared = {"$id": "word", "type": "string", "maxLength": 3}
    schema = {"type": "array", "items": [{"$ref": "word#"}, {"$ref": "word#"}],
              "errorMessage": {"items": ["first: a short word", "second: a short word"]}}
    assert brief(records(schema, ["ok", "toolong"], shared=[shared])) == [
        ("errorMessage", "/1", "second: a short word")]


def test_root_items_message_stays_on_the_root_array_paths():
    schema = {"type": "object", "properties": {
        "bar": {"type": "array", "items": {"type": "integer"}}},
        "errorMessage": {"items": ["root item message"]}}
    out = records(schema, {"bar": ["x"]})
    # the data is an object: a root items message does not apply, the /bar/0 error stays
    assert brief(out) == [("type", "/bar/0", "should be integer")]


def test_errors_in_a_failing_then_branch_are_matched():
    schema = {"type": "object", "if": {"properties": {"kind": {"const": "a"}}},
              "then": {"properties": {"a": {"type": "integer"}},
                       "errorMessage": {"properties": {"a": "a must be an integer when kind is a"}}}}
    out = records(schema, {"kind": "a", "a": "x"})
    assert brief(out)[0] == ("errorMessage", "/a", "a must be an integer when kind is a")


# ---------------------------------------------------------------- 13. order, emUsed, single_error

SCHEMA_13 = {
    "type": "object", "required": ["name", "age"],
    "properties": {"name": {"type": "string", "minLength": 2, "errorMessage": "name: 2+ letters"},
                   "age": {"type": "integer"}},
    "errorMessage": {"required": {"age": "age is required"}},
}


def test_order_is_ajv_errors_order():
    # ajv-errors appends each new error when its node finishes: inner nodes first
    assert brief(records(SCHEMA_13, {"name": "a", "extra": 1})) == [
        ("errorMessage", "/name", "name: 2+ letters"), ("errorMessage", "", "age is required")]
    # name's message is made when name's node finishes, before age is checked
    assert brief(records(SCHEMA_13, {"name": "a", "age": "x"})) == [
        ("errorMessage", "/name", "name: 2+ letters"), ("type", "/age", "should be integer")]


def test_keep_errors_marks_the_kept_originals_em_used():
    out = records(SCHEMA_13, {"name": "a"}, {"keep_errors": True})
    assert [(e["keyword"], e.get("emUsed")) for e in out] == [
        ("required", True), ("minLength", True), ("errorMessage", None), ("errorMessage", None)]


def test_single_error_joins_one_nodes_keyword_messages():
    schema = {"type": "object", "properties": {"n": {
        "type": "number", "minimum": 2, "maximum": 10, "multipleOf": 2,
        "errorMessage": {"type": "should be number", "minimum": "should be >= 2", "maximum": "should be <= 10",
                         "multipleOf": "should be multipleOf 2"}}}}
    out = records(schema, {"n": 11}, {"single_error": True})
    assert brief(out) == [("errorMessage", "/n", "should be <= 10;should be multipleOf 2")]
    assert [e["keyword"] for e in out[0]["params"]["errors"]] == ["maximum", "multipleOf"]
    out = records(schema, {"n": 11}, {"single_error": "\n"})
    assert out[0]["message"] == "should be <= 10\nshould be multipleOf 2"


# ---------------------------------------------------------------- 14. templates

def test_absolute_and_relative_pointer_templates():
    schema = {"type": "object", "properties": {
        "foo": {"type": "integer"}, "bar": {"type": "integer"},
        "list": {"type": "array", "items": {"type": "integer", "errorMessage": "item ${0#} is ${0}, not integer"}}},
        "errorMessage": {"properties": {"foo": "foo = ${/foo}, bar = ${/bar}, both integers"}}}
    out = records(schema, {"foo": "x", "bar": 1.5, "list": [1, {"a": [True, None]}]})
    assert brief(out) == [
        ("type", "/bar", "should be integer"),
        ("errorMessage", "/list/1", 'item 1 is {"a":[true,null]}, not integer'),
        ("errorMessage", "/foo", 'foo = "x", bar = 1.5, both integers'),
    ]


def test_template_values_are_never_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    schema = {"type": "object", "properties": {"a": {"type": "integer", "errorMessage": "a was ${0}; ${/missing}"}}}
    out = records(schema, {"a": payload})
    assert out[0]["message"] == "a was " + json.dumps(payload) + "; undefined"
    assert not marker.exists()
    # a template key itself is a pointer only: no expression syntax is honoured
    schema = {"type": "object", "properties": {"a": {"type": "integer", "errorMessage": "${__import__('os')}"}}}
    assert records(schema, {"a": "x"})[0]["message"] == "${__import__('os')}"


def test_thousands_of_errors_stay_linear():
    # all_errors on a crafted body: matching is indexed by instance path, not pairwise
    import time
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "integer", "errorMessage": "tag ${0#} is not an integer"}},
        "o": {"type": "object", "additionalProperties": {"type": "string", "minLength": 3,
                                                          "errorMessage": {"minLength": "short"}}}},
        "errorMessage": {"properties": {"o": "bad o"}}}
    started = time.perf_counter()
    out = records(schema, {"tags": ["x"] * 2000, "o": {str(i): "a" for i in range(2000)}})
    assert time.perf_counter() - started < 3  # about 0.2 s; pairwise matching took 12 s
    # inner messages win: the root's properties.o message finds nothing left to replace
    assert len(out) == 4000 and out[0]["message"] == "tag 0 is not an integer" and out[-1]["message"] == "short"
