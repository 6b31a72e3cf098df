"""``ValidatorEngine.compile(..., as_parsed=True)``: a validator for an input as the framework
parses it (params and headers: a dict of strings; the query string: a dict of strings and
lists of strings) leaves out the checks those facts settle, and answers every such input
exactly as the general validator does: the same value, or the same error records."""
from __future__ import annotations

import copy
import itertools

import pytest

from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine

INTEGER = {"type": "integer"}

PARAMS_SCHEMAS = [
    {"type": "object", "properties": {"id": INTEGER}, "required": ["id"]},
    {"type": "object", "properties": {"id": {"type": "number", "minimum": 2}}},
    {"type": "object", "properties": {"id": {"type": "integer", "default": 5}}},
    {"type": "object", "properties": {"id": {"type": ["integer", "null"]}, "b": {"type": "boolean"}}},
    {"type": "object", "properties": {"id": {"type": "string", "maxLength": 2}}, "required": ["id", "b"]},
    {"type": "object", "properties": {"id": {"enum": ["1", 1]}}, "additionalProperties": False},
    {"type": "object", "properties": {"id": {"type": "integer", "maxLength": 1}}},
    {"type": "object", "allOf": [{"properties": {"id": INTEGER}}], "properties": {"id": {"minimum": 3, "maxLength": 1}}},
    {"type": "object", "allOf": [{"properties": {"id": {"default": 4}}}], "properties": {"id": {"maxLength": 1}}},
    {"type": "object", "dependencies": {"b": {"properties": {"id": INTEGER}}},
     "properties": {"id": {"type": "integer", "maximum": 50}}},
    {"type": "object", "properties": {"id": {"$ref": "#/definitions/n"}}, "definitions": {"n": INTEGER}},
    {"type": "object", "properties": {"id": {"anyOf": [INTEGER, {"type": "string", "minLength": 3}]}}},
    {"type": "object", "properties": {"id": INTEGER, "next": {"$ref": "#"}}},
    {"type": "object", "patternProperties": {"^i": INTEGER}, "properties": {"id": {"type": "string"}}},
    {"properties": {"id": {"type": "array", "items": INTEGER}}},
]
PARAMS_INPUTS = [{"id": "42"}, {"id": "x"}, {"id": ""}, {}, {"id": "9" * 20}, {"id": "\u0663"}, {"id": "1.5"},
                 {"id": "true"}, {"id": "null"}, {"id": "7", "b": "false"}, {"id": "77", "b": "1"}]

QUERY_SCHEMAS = [
    {"type": "object", "properties": {"fields": {"type": "array", "items": {"type": "string"}}}},
    {"type": "object", "properties": {"n": {"type": "array", "items": INTEGER, "maxItems": 2}}},
    {"type": "object", "properties": {"n": {"type": "array", "items": INTEGER, "default": [1, 2]}}},
    {"type": "object", "properties": {"n": INTEGER, "fields": {"type": "string"}}, "required": ["n"]},
    {"type": "object", "properties": {"n": {"type": "array", "items": [INTEGER, {"type": "string"}]}}},
    {"type": "object", "properties": {"n": {"items": {"type": "string", "maxLength": 1}}}},
    {"type": "object", "properties": {"n": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}},
    {"type": "object", "properties": {"n": {"type": ["string", "array"], "items": INTEGER}}},
]
QUERY_INPUTS = [{"fields": "a"}, {"fields": ["a", "b"]}, {"n": ["1", "2"]}, {"n": "3"}, {}, {"n": ["1", "x"]},
                {"n": ["1", "2", "3"]}, {"n": ["a", "a"]}, {"n": "", "fields": ["x", "y"]}]

OPTIONS = [{}, {"all_errors": True}, {"coerce_types": False}, {"coerce_types": True}, {"use_defaults": False},
           {"coerce_types": False, "all_errors": True}]


def outcome(validate, data):
    data = copy.deepcopy(data)
    try:
        return "ok", validate(data)
    except SchemaValidationFailure as failure:
        return "errors", failure.errors


def compiled(options, schema, part):
    engine = ValidatorEngine(options)
    return engine.compile(schema, http_part=part), engine.compile(schema, http_part=part, as_parsed=True)


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
@pytest.mark.parametrize("part, schemas, inputs", [
    ("params", PARAMS_SCHEMAS, PARAMS_INPUTS),
    ("headers", PARAMS_SCHEMAS, PARAMS_INPUTS),
    ("querystring", QUERY_SCHEMAS, QUERY_INPUTS),
])
def test_a_parsed_input_gets_the_general_answer(options, part, schemas, inputs):
    for schema, data in itertools.product(schemas, inputs):
        general, as_parsed = compiled(options, schema, part)
        assert outcome(as_parsed, data) == outcome(general, data), (schema, data)


def source(schema, part, as_parsed):
    return ValidatorEngine().compile_source(schema, http_part=part, as_parsed=as_parsed)


def test_the_checks_the_parsed_shape_settles_are_left_out():
    params = {"type": "object", "properties": {"id": INTEGER}, "required": ["id"]}
    general, parsed = source(params, "params", False), source(params, "params", True)
    assert "isinstance(data, dict)" in general and "isinstance(data, dict)" not in parsed
    assert "type(prop1) is int" in general and "type(prop1) is" not in parsed
    query = {"type": "object", "properties": {"f": {"type": "array", "items": {"type": "string"}}}}
    assert "for index" in source(query, "querystring", False)
    assert "for index" not in source(query, "querystring", True)  # every item is a string
    assert "type(prop1) is not list" in source(query, "querystring", True)  # one value is a string


def test_a_body_is_never_compiled_as_parsed():
    schema = {"type": "object", "properties": {"id": INTEGER}}
    assert source(schema, "body", True) == source(schema, "body", False)


def test_as_parsed_is_its_own_compiled_validator():
    engine = ValidatorEngine()
    schema = {"type": "object", "properties": {"id": INTEGER}}
    general = engine.compile(schema, http_part="params")
    parsed = engine.compile(schema, http_part="params", as_parsed=True)
    assert general is not parsed
    assert engine.compile(schema, http_part="params", as_parsed=True) is parsed
    assert general({"id": 5}) == {"id": 5}  # any data: an int is an integer
