"""framework.plugins.error_messages: the error processor on hand-built Ajv-shaped records."""
from __future__ import annotations

import copy

import pytest

from framework.plugins.error_messages import apply_error_messages, check_error_message_schema


def used(errors):
    """The replaced records as ajv-errors leaves them: marked ``emUsed``."""
    return [{**e, "emUsed": True} for e in errors]


def err(keyword, instance_path, schema_path, message="engine text", **params):
    return {"keyword": keyword, "instance_path": instance_path, "schema_path": schema_path,
            "params": params, "message": message}


def test_string_replaces_errors_of_node_and_below():
    schema = {"type": "object", "properties": {
        "name": {"type": "string", "minLength": 2, "errorMessage": "name must be 2+ letters"},
        "age": {"type": "integer"}}}
    errors = [err("type", "/name", "#/properties/name/type", type="string"),
              err("minLength", "/name", "#/properties/name/minLength", limit=2),
              err("type", "/age", "#/properties/age/type", type="integer")]
    before = copy.deepcopy(errors)
    out = apply_error_messages(errors, schema)
    assert errors == before
    # ajv-errors: the new error follows the errors present when its node finished
    assert out == [
        {"keyword": "errorMessage", "instance_path": "/name",
         "schema_path": "#/properties/name/errorMessage",
         "params": {"errors": used([before[0], before[1]])}, "message": "name must be 2+ letters"},
        before[2],
    ]


def test_root_string_replaces_everything_but_inner_messages_survive():
    schema = {"type": "object", "errorMessage": "invalid user",
              "properties": {"a": {"type": "integer", "errorMessage": "a is a number"},
                             "b": {"type": "object", "properties": {"c": {"type": "string"}}}}}
    errors = [err("type", "/a", "#/properties/a/type"),
              err("type", "/b/c", "#/properties/b/properties/c/type"),
              err("required", "", "#/required", missingProperty="d")]
    out = apply_error_messages(errors, schema)
    assert [(e["keyword"], e["instance_path"], e["message"]) for e in out] == [
        ("errorMessage", "/a", "a is a number"),
        ("errorMessage", "", "invalid user"),
    ]
    assert out[1]["params"]["errors"] == used(errors[1:])


def test_object_keyed_by_keyword_replaces_only_those_keywords_of_that_node():
    schema = {"properties": {"age": {"type": "integer", "minimum": 0, "multipleOf": 2,
                                      "errorMessage": {"type": "age is a whole number",
                                                       "minimum": "age cannot be negative"}}}}
    errors = [err("minimum", "/age", "#/properties/age/minimum", comparison=">=", limit=0),
              err("multipleOf", "/age", "#/properties/age/multipleOf", multipleOf=2)]
    out = apply_error_messages(errors, schema)
    assert [(e["keyword"], e["instance_path"], e["schema_path"], e["message"]) for e in out] == [
        ("multipleOf", "/age", "#/properties/age/multipleOf", "engine text"),
        ("errorMessage", "/age", "#/properties/age/errorMessage", "age cannot be negative"),
    ]


def test_keyword_message_does_not_take_errors_of_deeper_nodes():
    schema = {"type": "object", "errorMessage": {"type": "must be an object"},
              "properties": {"a": {"type": "string"}}}
    errors = [err("type", "/a", "#/properties/a/type")]
    assert apply_error_messages(errors, schema) == errors


def test_required_per_property_and_as_one_string():
    schema = {"required": ["name", "age", "x"],
              "errorMessage": {"required": {"name": "name is required", "age": "age is required"}}}
    errors = [err("required", "", "#/required", missingProperty="name"),
              err("required", "", "#/required", missingProperty="age"),
              err("required", "", "#/required", missingProperty="x")]
    out = apply_error_messages(errors, schema)
    assert [(e["keyword"], e["message"]) for e in out] == [
        ("required", "engine text"), ("errorMessage", "name is required"), ("errorMessage", "age is required")]
    assert out[1]["params"]["errors"] == used([errors[0]])

    schema["errorMessage"] = {"required": "fill in name, age and x"}
    out = apply_error_messages(errors, schema)
    assert [(e["keyword"], e["message"]) for e in out] == [("errorMessage", "fill in name, age and x")]
    assert out[0]["params"]["errors"] == used(errors)


def test_required_on_a_nested_object():
    schema = {"properties": {"address": {"type": "object", "required": ["city"],
                                          "errorMessage": {"required": {"city": "city please"}}}}}
    errors = [err("required", "/address", "#/properties/address/required", missingProperty="city")]
    out = apply_error_messages(errors, schema)
    assert out[0]["instance_path"] == "/address"
    assert out[0]["schema_path"] == "#/properties/address/errorMessage"
    assert out[0]["message"] == "city please"


def test_properties_and_items_children():
    schema = {"type": "object",
              "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}},
                             "list": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                                      "errorMessage": {"items": ["first is text", "second is a number"]}}},
              "errorMessage": {"properties": {"a": "a is wrong somewhere"}}}
    errors = [err("type", "/a", "#/properties/a/type"),
              err("type", "/a/b", "#/properties/a/properties/b/type"),
              err("type", "/list/1", "#/properties/list/items/1/type")]
    out = apply_error_messages(errors, schema)
    # post-order, as ajv-errors: the inner node's message is made first
    assert [(e["instance_path"], e["schema_path"], e["message"]) for e in out] == [
        ("/list/1", "#/properties/list/errorMessage", "second is a number"),
        ("/a", "#/errorMessage", "a is wrong somewhere"),
    ]
    assert out[1]["params"]["errors"] == used([errors[0], errors[1]])


def test_underscore_takes_what_remains():
    schema = {"type": "string", "minLength": 3, "pattern": "^a",
              "errorMessage": {"minLength": "too short", "_": "something else is wrong"}}
    errors = [err("minLength", "", "#/minLength", limit=3), err("pattern", "", "#/pattern", pattern="^a")]
    out = apply_error_messages(errors, schema)
    assert [e["message"] for e in out] == ["too short", "something else is wrong"]


def test_single_schema_items_gives_one_error_per_item():
    schema = {"type": "array", "items": {"type": "integer", "errorMessage": "items are integers"}}
    errors = [err("type", "/1", "#/items/type"), err("type", "/3", "#/items/type")]
    out = apply_error_messages(errors, schema)
    assert [(e["instance_path"], e["schema_path"]) for e in out] == [
        ("/1", "#/items/errorMessage"), ("/3", "#/items/errorMessage")]


def test_ref_target_paths_like_ajv():
    schema = {"definitions": {"pos": {"type": "integer", "minimum": 0, "errorMessage": "positions are >= 0"}},
              "properties": {"where": {"type": "object", "properties": {"pos": {"$ref": "#/definitions/pos"}}}}}
    errors = [err("minimum", "/where/pos", "#/definitions/pos/minimum", limit=0)]
    out = apply_error_messages(errors, schema)
    assert out == [{"keyword": "errorMessage", "instance_path": "/where/pos",
                    "schema_path": "#/definitions/pos/errorMessage",
                    "params": {"errors": used(errors)}, "message": "positions are >= 0"}]


def test_composite_branches_and_false_schema():
    schema = {"properties": {"v": {"anyOf": [{"type": "string"}, {"type": "number"}],
                                    "errorMessage": "v is text or a number"},
                             "never": False},
              "errorMessage": {"properties": {"never": "never send 'never'"}}}
    errors = [err("type", "/v", "#/properties/v/anyOf/0/type"),
              err("type", "/v", "#/properties/v/anyOf/1/type"),
              err("anyOf", "/v", "#/properties/v/anyOf"),
              err("false schema", "/never", "#/properties/never/false schema")]
    out = apply_error_messages(errors, schema)
    assert [(e["instance_path"], e["message"], len(e["params"]["errors"])) for e in out] == [
        ("/v", "v is text or a number", 3), ("/never", "never send 'never'", 1)]


def test_keep_errors_and_single_error():
    schema = {"properties": {"a": {"type": "string", "errorMessage": "A!"},
                             "b": {"type": "string", "errorMessage": "B!"}}}
    errors = [err("type", "/a", "#/properties/a/type"), err("type", "/b", "#/properties/b/type")]
    kept = apply_error_messages(errors, schema, keep_errors=True)
    assert [e["keyword"] for e in kept] == ["type", "errorMessage", "type", "errorMessage"]
    assert [e.get("emUsed") for e in kept] == [True, None, True, None]
    assert "emUsed" not in errors[0]
    # single_error joins the keyword messages of one node (ajv-errors' singleError)
    assert [e["message"] for e in apply_error_messages(errors, schema, single_error=True)] == ["A!", "B!"]
    schema = {"type": "number", "minimum": 2, "maximum": 10, "multipleOf": 2,
              "errorMessage": {"type": "number", "minimum": ">= 2", "maximum": "<= 10", "multipleOf": "even"}}
    errors = [err("maximum", "", "#/maximum"), err("multipleOf", "", "#/multipleOf")]
    single = apply_error_messages(errors, schema, single_error=True)
    assert [e["message"] for e in single] == ["<= 10;even"] and single[0]["params"]["errors"] == used(errors)
    assert apply_error_messages(errors, schema, single_error=" | ")[0]["message"] == "<= 10 | even"


def test_no_error_message_anywhere_returns_the_errors():
    errors = [err("type", "", "#/type")]
    assert apply_error_messages(errors, {"type": "string"}) == errors
    assert apply_error_messages([], {"errorMessage": "x"}) == []


@pytest.mark.parametrize("schema,match", [
    ({"type": "string", "errorMessage": 3}, "must be a string or an object"),
    ({"errorMessage": {"type": ["x"]}}, "message for 'type' must be a string"),
    ({"errorMessage": {"required": {"a": 1}}}, r"required\['a'\] must be a string"),
    ({"properties": {"a": {"errorMessage": {"properties": "x"}}}}, "properties must map names"),
])
def test_bad_error_message_values_are_refused(schema, match):
    with pytest.raises(ValueError, match=match):
        check_error_message_schema(schema)


def test_good_error_message_values_pass():
    check_error_message_schema({"errorMessage": {"required": "x", "properties": {"a": "b"},
                                                 "items": ["c"], "_": "d", "type": "e"}})


def test_errors_inside_a_shared_document():
    shared = {"item": {"$id": "item", "properties": {"name": {"type": "string", "errorMessage": "N!"}}}}
    errors = [err("type", "/it/name", "item#/properties/name/type")]
    out = apply_error_messages(errors, {"properties": {"it": {"$ref": "item#"}}}, documents=shared)
    assert [(e["instance_path"], e["schema_path"], e["message"]) for e in out] == [
        ("/it/name", "item#/properties/name/errorMessage", "N!")]
    # Without the document the error is left as it is.
    assert apply_error_messages(errors, {"properties": {"it": {"$ref": "item#"}}}) == errors
