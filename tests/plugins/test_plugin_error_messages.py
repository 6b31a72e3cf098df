"""framework.plugins.error_messages through the engine: Framework(validator={"plugins": [error_messages]})."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.plugins.error_messages import error_messages


def make_app(body_schema, plugin_entry=error_messages, all_errors=True, attach=False):
    app = Framework(validator={"custom_options": {"all_errors": all_errors}, "plugins": [plugin_entry]})

    def handler(request, reply):
        if request.validation_error is not None:
            return reply.code(422).send({"validation": request.validation_error.validation})
        return {"ok": True}

    app.post("/", {"schema": {"body": body_schema}, "attach_validation": attach}, handler)
    return app


def post(app, body):
    return app.inject(method="POST", url="/", json=body)


def message(app, body):
    response = post(app, body)
    assert response.status_code == 400, response.text
    payload = response.json()
    assert payload["code"] == "FST_ERR_VALIDATION"
    return payload["message"]


USER = {
    "type": "object",
    "required": ["name", "age"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "errorMessage": "name must be a non-empty string"},
        "age": {"type": "integer", "minimum": 0,
                "errorMessage": {"type": "age must be a whole number", "minimum": "age cannot be negative"}},
        "email": {"type": "string", "format": "email"},
    },
    "additionalProperties": False,
    "errorMessage": {"required": {"name": "name is required", "age": "age is required"}},
}


def test_valid_body_passes():
    response = post(make_app(USER), {"name": "Ada", "age": 36})
    assert response.status_code == 200 and response.json() == {"ok": True}


def test_string_message_on_a_property():
    assert message(make_app(USER), {"name": "", "age": 1}) == "body/name name must be a non-empty string"


def test_object_message_by_keyword():
    app = make_app(USER)
    assert message(app, {"name": "a", "age": -1}) == "body/age age cannot be negative"
    assert message(app, {"name": "a", "age": 1.5}) == "body/age age must be a whole number"


def test_required_messages_per_property():
    app = make_app(USER)
    assert message(app, {"name": "a"}) == "body age is required"
    assert message(app, {}) == "body name is required, body age is required"


def test_keywords_without_a_message_keep_the_engine_text():
    assert message(make_app(USER), {"name": "a", "age": 1, "email": "nope"}) == \
        'body/email should match format "email"'


def test_several_messages_together():
    assert message(make_app(USER), {"name": "", "age": -3, "email": "x"}) == (
        'body/name name must be a non-empty string, body/age age cannot be negative, '
        'body/email should match format "email"')


def test_string_at_root_replaces_everything():
    schema = {"type": "object", "properties": {"foo": {"type": "integer"}},
              "required": ["foo"], "additionalProperties": False,
              "errorMessage": "should be an object with an integer property foo only"}
    app = make_app(schema)
    assert message(app, {"foo": "x"}) == "body should be an object with an integer property foo only"
    assert message(app, {}) == "body should be an object with an integer property foo only"
    assert post(app, {"foo": 1}).status_code == 200


def test_nested_properties_and_records():
    schema = {"type": "object", "properties": {
        "address": {"type": "object", "required": ["city"],
                    "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$",
                                           "errorMessage": "zip is five digits"}},
                    "errorMessage": {"required": {"city": "the address needs a city"}}}}}
    app = make_app(schema, attach=True)
    response = post(app, {"address": {"zip": "12"}})
    assert response.status_code == 422
    records = response.json()["validation"]
    # ajv-errors' order: the inner node (zip) finishes first
    assert [(r["keyword"], r["instance_path"], r["schema_path"], r["message"]) for r in records] == [
        ("errorMessage", "/address/zip", "#/properties/address/properties/zip/errorMessage", "zip is five digits"),
        ("errorMessage", "/address", "#/properties/address/errorMessage", "the address needs a city"),
    ]
    replaced = records[0]["params"]["errors"]
    assert [(r["keyword"], r["params"]) for r in replaced] == [("pattern", {"pattern": "^[0-9]{5}$"})]


def test_items_messages_per_item():
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 3, "errorMessage": "tags are short words"}}}}
    assert message(make_app(schema), {"tags": ["ok", "toolong", "fine", "no"]}) == \
        "body/tags/1 tags are short words, body/tags/2 tags are short words"


def test_underscore_and_inner_message_wins():
    schema = {"type": "object", "properties": {
        "a": {"type": "integer", "errorMessage": "a is an integer"},
        "b": {"type": "string", "maxLength": 2}},
        "errorMessage": {"_": "something in the body is wrong"}}
    assert message(make_app(schema), {"a": "x", "b": "long"}) == \
        "body/a a is an integer, body something in the body is wrong"


def test_keep_errors_option():
    schema = {"type": "object", "properties": {"a": {"type": "integer", "errorMessage": "A!"}}}
    app = make_app(schema, plugin_entry=(error_messages, {"keep_errors": True}))
    assert message(app, {"a": "x"}) == "body/a should be integer, body/a A!"


def test_requires_all_errors_and_says_why():
    app = make_app(USER, all_errors=False)
    with pytest.raises(Exception) as info:
        app.ready()
    text = str(info.value)
    assert "all_errors" in text and "denial-of-service" in text


def test_requires_all_errors_even_without_schema_routes():
    # The contract: validator plugins are called inside ready(), so the misconfiguration
    # shows at start-up, not on the day a first schema is added.
    app = Framework(validator={"plugins": [error_messages]})
    app.get("/", lambda request, reply: {})
    with pytest.raises(Exception, match="all_errors"):
        app.ready()


def test_bad_error_message_value_fails_ready():
    app = make_app({"type": "object", "properties": {"a": {"type": "string", "errorMessage": 42}}})
    with pytest.raises(Exception, match="errorMessage at .* must be a string or an object"):
        app.ready()


def test_unknown_option_fails_ready():
    app = make_app(USER, plugin_entry=(error_messages, {"keepErrors": True}))
    with pytest.raises(Exception, match="unknown option.*keepErrors"):
        app.ready()


def test_messages_inside_shared_schemas_and_definitions():
    app = Framework(validator={"custom_options": {"all_errors": True}, "plugins": [error_messages]})
    app.add_schema({"$id": "item", "type": "object",
                    "properties": {"name": {"type": "string", "maxLength": 2, "errorMessage": "short names only"},
                                   "pos": {"$ref": "#/definitions/pos"}},
                    "definitions": {"pos": {"type": "integer", "minimum": 0}}})
    app.post("/", {"schema": {"body": {
        "type": "object",
        "properties": {"item": {"$ref": "item#"}, "size": {"$ref": "#/definitions/size"}},
        "definitions": {"size": {"type": "integer", "maximum": 9, "errorMessage": "sizes go up to 9"}}}}},
        lambda request, reply: {})
    response = app.inject(method="POST", url="/", json={"item": {"name": "abc", "pos": -1}, "size": 10})
    assert response.json()["message"] == \
        "body/item/name short names only, body/item/pos should be >= 0, body/size sizes go up to 9"
