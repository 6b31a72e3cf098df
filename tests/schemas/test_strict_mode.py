"""Strict mode by default (Ajv 8, Fastify 4): a schema's unknown keyword fails ``ready()``.

A misspelt keyword (``requried``) would otherwise switch its check off without a word.
The annotation keywords OpenAPI and the first-party plugins use are known; a plugin's
keywords only when that plugin is used; ``custom_options={"strict": False | "log"}``
relaxes the check.
"""
from __future__ import annotations

import logging

import pytest

from framework import Framework
from framework.errors import SchemaSerializationBuildError, SchemaValidationBuildError
from framework.plugins.error_messages import error_messages
from framework.plugins.merge_patch import merge_patch

OBJECT_WITH_NAME = {"type": "object", "properties": {"name": {"type": "string"}}}


def route(schema, validator=None, method="POST", url="/x", handler=None):
    app = Framework(validator=validator) if validator is not None else Framework()
    getattr(app, method.lower())(url, {"schema": schema}, handler or (lambda request, reply: {"ok": True}))
    return app


def refusal(app, error_class=SchemaValidationBuildError) -> str:
    with pytest.raises(error_class) as info:
        app.ready()
    return str(info.value)


# ---------------------------------------------------------------- refused, named, suggested

def test_misspelt_required_fails_ready_naming_route_part_pointer_and_the_keyword_meant():
    app = route({"body": {**OBJECT_WITH_NAME, "requried": ["name"]}})
    message = refusal(app)
    assert 'strict mode: unknown keyword "requried" at body#/ (did you mean "required"?)' in message
    assert "POST" in message and "/x" in message


@pytest.mark.parametrize("part, url, schema, expected", [
    ("querystring", "/x", {"type": "object", "properties": {"n": {"type": "integer", "minimun": 1}}},
     'unknown keyword "minimun" at querystring#/properties/n (did you mean "minimum"?)'),
    ("params", "/x/:id", {"type": "object", "properties": {"id": {"type": "string", "maxLenght": 3}}},
     'unknown keyword "maxLenght" at params#/properties/id (did you mean "maxLength"?)'),
    ("headers", "/x", {"type": "object", "properties": {"x-a": {"type": "string", "patern": "^a"}}},
     'unknown keyword "patern" at headers#/properties/x-a (did you mean "pattern"?)'),
    ("body", "/x", {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number", "exclusiveMin": 1}]}},
     'unknown keyword "exclusiveMin" at body#/items/anyOf/1 (did you mean "exclusiveMinimum"?)'),
    ("body", "/x", {"type": "object", "additionalProperties": {"type": "string", "fromat": "email"}},
     'unknown keyword "fromat" at body#/additionalProperties (did you mean "format"?)'),
])
def test_every_input_part_is_checked(part, url, schema, expected):
    assert expected in refusal(route({part: schema}, url=url))


def test_a_keyword_without_a_close_match_gets_no_suggestion():
    message = refusal(route({"body": {"type": "object", "sparkles": True}}))
    assert message.endswith('strict mode: unknown keyword "sparkles" at body#/')


def test_response_schemas_are_checked():
    app = route({"response": {200: {"type": "object", "properties": {"a": {"type": "string", "maxLenght": 2}}}}},
                method="GET")
    message = refusal(app, SchemaSerializationBuildError)
    assert 'strict mode: unknown keyword "maxLenght" at response 200#/properties/a (did you mean "maxLength"?)' in message
    assert "GET" in message and "/x" in message and "response['200']" in message


@pytest.mark.parametrize("where", ["body", "response"])
def test_shared_schemas_added_with_add_schema_are_checked(where):
    app = Framework()
    app.add_schema({"$id": "user", "type": "object",
                    "properties": {"name": {"type": "string", "minLenght": 1}}})
    if where == "body":
        app.post("/x", {"schema": {"body": {"$ref": "user#"}}}, lambda request, reply: {})
    else:
        app.get("/x", {"schema": {"response": {200: {"$ref": "user#"}}}}, lambda request, reply: {})
    message = refusal(app, SchemaValidationBuildError if where == "body" else SchemaSerializationBuildError)
    assert 'strict mode: unknown keyword "minLenght" at user#/properties/name (did you mean "minLength"?)' in message


# ---------------------------------------------------------------- known keywords

ANNOTATIONS = [
    {"example": "Ada"}, {"examples": ["Ada"]}, {"deprecated": True}, {"readOnly": True}, {"writeOnly": False},
    {"nullable": True}, {"xml": {"name": "name"}}, {"externalDocs": {"url": "https://example.com/doc"}},
    {"x-internal": True}, {"x-go-type": "string"}, {"$comment": "c"}, {"title": "t", "description": "d"},
]


@pytest.mark.parametrize("strict", [None, True])
@pytest.mark.parametrize("annotation", ANNOTATIONS, ids=lambda a: next(iter(a)))
def test_annotation_keywords_are_known(annotation, strict):
    validator = {"custom_options": {"strict": True}} if strict else None
    name = {"type": "string", **annotation}
    app = route({"body": {"type": "object", "properties": {"name": name}, "required": ["name"], **annotation},
                 "response": {200: {"type": "object", "properties": {"name": name}, **annotation}}},
                validator=validator, handler=lambda request, reply: {"name": request.body["name"]})
    app.ready()
    assert app.inject(method="POST", url="/x", json={"name": "Ada"}).json() == {"name": "Ada"}
    assert app.inject(method="POST", url="/x", json={}).status_code == 400


def test_discriminator_is_known():
    kinds = {"type": "object", "discriminator": {"propertyName": "kind"}, "required": ["kind"],
             "oneOf": [{"properties": {"kind": {"const": "cat"}}}, {"properties": {"kind": {"const": "dog"}}}]}
    app = route({"body": kinds}, validator={"custom_options": {"strict": True}})
    app.ready()
    assert app.inject(method="POST", url="/x", json={"kind": "cat"}).status_code == 200
    assert app.inject(method="POST", url="/x", json={"kind": "cow"}).status_code == 400


def test_short_form_names_are_properties_not_keywords():
    # Input parameters listed at the top level: "minimun" and "example" are parameter names here.
    captured = {}

    def handler(request, reply):
        captured.update(request.query)
        return {}
    app = route({"querystring": {"page": {"type": "integer"}, "minimun": {"type": "integer"},
                                 "example": {"type": "string"}}}, method="GET", handler=handler)
    app.ready()
    assert app.inject(url="/x?page=2&minimun=1&example=e").status_code == 200
    assert captured == {"page": 2, "minimun": 1, "example": "e"}
    assert app.inject(url="/x?page=two").status_code == 400


def test_a_short_form_parameter_schema_is_still_checked():
    message = refusal(route({"querystring": {"page": {"type": "integer", "minimun": 1}}}, method="GET"))
    assert 'unknown keyword "minimun" at querystring#/properties/page (did you mean "minimum"?)' in message


# ---------------------------------------------------------------- plugin keywords

ERROR_MESSAGE_BODY = {"type": "object", "properties": {"age": {"type": "integer", "errorMessage": "age is a number"}}}


def test_error_message_is_unknown_without_its_plugin():
    message = refusal(route({"body": ERROR_MESSAGE_BODY}, validator={"custom_options": {"all_errors": True}}))
    assert 'unknown keyword "errorMessage" at body#/properties/age' in message


def test_error_message_is_known_with_its_plugin_in_inputs_and_responses():
    app = route({"body": ERROR_MESSAGE_BODY,
                 "response": {200: {"type": "object", "properties": {"ok": {"type": "boolean", "errorMessage": "x"}}}}},
                validator={"custom_options": {"all_errors": True}, "plugins": [error_messages]})
    app.ready()
    reply = app.inject(method="POST", url="/x", json={"age": "old"})
    assert reply.status_code == 400 and "age is a number" in reply.json()["message"]
    assert app.inject(method="POST", url="/x", json={"age": 3}).json() == {"ok": True}


MERGED_BODY = {"$merge": {"source": OBJECT_WITH_NAME,
                          "with": {"properties": {"age": {"type": "integer"}}, "required": ["age"]}}}


def test_merge_is_unknown_without_its_plugin():
    assert 'unknown keyword "$merge" at body#/' in refusal(route({"body": MERGED_BODY}))


def test_merge_and_patch_are_known_with_their_plugin():
    patched = {"$patch": {"source": OBJECT_WITH_NAME,
                          "with": [{"op": "add", "path": "/required", "value": ["name"]}]}}
    app = Framework(validator={"plugins": [merge_patch]})
    app.post("/merged", {"schema": {"body": MERGED_BODY}}, lambda request, reply: {})
    app.post("/patched", {"schema": {"body": patched}}, lambda request, reply: {})
    app.ready()
    assert app.inject(method="POST", url="/merged", json={"name": "a"}).status_code == 400
    assert app.inject(method="POST", url="/merged", json={"name": "a", "age": 1}).status_code == 200
    assert app.inject(method="POST", url="/patched", json={}).status_code == 400


# ---------------------------------------------------------------- relaxing it

TYPO_BODY = {**OBJECT_WITH_NAME, "requried": ["name"]}


def test_strict_false_ignores_unknown_keywords_silently(caplog):
    app = route({"body": TYPO_BODY, "response": {200: {"type": "object", "x": 1, "properties": {"ok": {"type": "boolean"}}}}},
                validator={"custom_options": {"strict": False}})
    with caplog.at_level(logging.DEBUG):
        app.ready()
    assert app.inject(method="POST", url="/x", json={}).status_code == 200
    assert not [r for r in caplog.records if "unknown keyword" in r.getMessage()]


def test_strict_log_warns_once_per_unknown_keyword_and_schema(caplog):
    body = {"type": "object", "requried": ["a"], "definitions": {"d": {"type": "string", "minLenght": 1}},
            "properties": {"a": {"$ref": "#/definitions/d"}, "b": {"$ref": "#/definitions/d"}}}
    app = route({"body": body, "response": {200: {"type": "object", "maxProps": 1}}},
                validator={"custom_options": {"strict": "log"}})
    with caplog.at_level(logging.WARNING):
        app.ready()
    warnings = sorted(r.getMessage() for r in caplog.records
                      if r.levelno == logging.WARNING and "unknown keyword" in r.getMessage())
    assert warnings == [
        'strict mode: unknown keyword "maxProps" at response 200#/ (did you mean "maxProperties"?)',
        'strict mode: unknown keyword "minLenght" at body#/definitions/d (did you mean "minLength"?)',
        'strict mode: unknown keyword "requried" at body#/ (did you mean "required"?)',
    ]
    assert app.inject(method="POST", url="/x", json={}).status_code == 200   # compiled on, unchecked


def test_strict_accepts_only_true_false_or_log():
    with pytest.raises(TypeError, match="strict"):
        route({"body": OBJECT_WITH_NAME}, validator={"custom_options": {"strict": "warn"}}).ready()


@pytest.mark.parametrize("validator, keyword", [
    ({"custom_options": {"strict": False}}, "anyKeyword"),
    ({"custom_options": {"all_errors": True}, "plugins": [error_messages]}, "errorMessage"),
])
def test_response_if_branches_follow_the_apps_strict_mode(validator, keyword):
    # The serializer checks the if subschema with the validator engine: that check must
    # not apply a strict mode of its own.
    kinds = {"type": "object", "properties": {"kind": {"type": "string"}, "a": {"type": "integer"}},
             "if": {"properties": {"kind": {"const": "a"}}, keyword: "x"},
             "then": {"properties": {"a": {"type": "integer"}}}, "else": {"properties": {"b": {"type": "string"}}}}
    app = route({"response": {200: kinds}}, validator=validator, method="GET",
                handler=lambda request, reply: {"kind": "a", "a": 1, "b": "x"})
    app.ready()
    assert app.inject(url="/x").json() == {"kind": "a", "a": 1}
