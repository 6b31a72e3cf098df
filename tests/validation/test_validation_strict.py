"""Ajv's ``strict`` option: ``validator={"custom_options": {"strict": ...}}``, on by default."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.validation import KNOWN_KEYWORDS, ValidatorEngine, unknown_keywords


def build(schema, **options):
    app = Framework(validator={"custom_options": options}) if options else Framework()
    app.post("/x", {"schema": {"body": schema}}, lambda request, reply: {"ok": True})
    return app


@pytest.mark.parametrize("schema, where", [
    ({"type": "object", "requried": ["a"]}, 'unknown keyword "requried" at body#/'),
    ({"type": "object", "properties": {"a": {"type": "string", "minLenght": 2}}},
     'unknown keyword "minLenght" at body#/properties/a'),
    ({"type": "array", "items": [{"type": "string"}, {"maxItem": 1}]}, '"maxItem" at body#/items/1'),
    ({"anyOf": [{"type": "string"}, {"type": "number", "exclusiveMin": 1}]}, '"exclusiveMin" at body#/anyOf/1'),
    ({"definitions": {"d": {"type": "string", "patern": "x"}}, "properties": {"a": {"$ref": "#/definitions/d"}}},
     '"patern" at body#/definitions/d'),
])
def test_strict_refuses_unknown_keywords_naming_the_path(schema, where):
    app = build(schema, strict=True)
    with pytest.raises(Exception, match="strict mode") as info:
        app.ready()
    assert where in str(info.value) and "/x" in str(info.value)


@pytest.mark.parametrize("schema", [
    {"type": "object", "requried": ["a"]},
    {"type": "object", "properties": {"a": {"type": "string", "example": "x", "x-internal": True}}},
])
def test_strict_false_ignores_unknown_keywords(schema):
    app = build(schema, strict=False)
    app.ready()
    assert app.inject(method="POST", url="/x", json={}).status_code == 200


def test_strict_refuses_unknown_formats_naming_the_path():
    with pytest.raises(Exception, match=r'unknown format "nope" at #/properties/a/format'):
        build({"properties": {"a": {"format": "nope"}}}, strict=True).ready()


def test_strict_accepts_the_draft7_vocabulary_and_declared_keywords():
    schema = {"$id": "http://example.com/s", "$schema": "http://json-schema.org/draft-07/schema#",
              "$comment": "c", "title": "t", "description": "d", "examples": [{}], "readOnly": False,
              "type": "object", "properties": {"a": {"type": "string", "nullable": True, "default": "x",
                                                     "contentMediaType": "text/plain"}},
              "if": {"required": ["a"]}, "then": {"minProperties": 1}, "else": {}, "x-flag": True}
    engine = ValidatorEngine({"strict": True}).add_keyword("x-flag")
    assert engine.compile(schema)({}) == {"a": "x"}
    assert "requried" not in KNOWN_KEYWORDS and "minLength" in KNOWN_KEYWORDS
    assert unknown_keywords({"type": "x", "minLenght": 1, "x-a": 1}, extra=("x-a",)) == ["minLenght"]


def test_strict_must_be_a_boolean_or_log():
    with pytest.raises(TypeError):
        ValidatorEngine({"strict": "yes"})
