"""Issue 11, serializer items 8-11 and the strict option, through routes and ``app.inject``."""
from __future__ import annotations

import datetime as dt

import pytest

from framework import Framework
from framework.errors import SchemaSerializationBuildError
from framework.validation import ValidatorEngine


def serve(response_schema, value, *, validator=None, shared=()):
    app = Framework(validator=validator)
    for item in shared:
        app.add_schema(item)
    app.get("/", {"schema": {"response": {200: response_schema}}}, lambda request, reply: value)
    return app.inject(url="/")


def build_error(response_schema, *, validator=None, status=201, url="/thing"):
    app = Framework(validator=validator)
    app.get(url, {"schema": {"response": {status: response_schema}}}, lambda request, reply: {})
    with pytest.raises(SchemaSerializationBuildError) as raised:
        app.ready()
    return str(raised.value)


# ---------------------------------------------------------------- 8. if / then / else

KIND = {"type": "object", "properties": {"kind": {"type": "string", "enum": ["foobar"]}}}
ITE = {
    "type": "object", "properties": {"id": {"type": "integer"}},
    "if": KIND,
    "then": {"properties": {"kind": {"type": "string"}, "at": {"type": "string", "format": "date"},
                            "n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}},
    "else": {"properties": {"kind": {"type": "string"}, "c": {"const": "C"}, "hello": {"type": "number"}}},
}


def test_if_then_else_picks_then_when_the_data_matches_if():
    value = {"id": "1", "kind": "foobar", "at": dt.datetime(2024, 5, 6, 7, 8), "n": 2.7, "tags": [1, True],
             "hello": 4, "secret": "x"}
    assert serve(ITE, value).json() == {"id": 1, "kind": "foobar", "at": "2024-05-06", "n": 2, "tags": ["1", "true"]}


def test_if_then_else_picks_else_otherwise():
    value = {"id": 1, "kind": "greeting", "n": 2, "hello": "45", "c": "other"}
    assert serve(ITE, value).json() == {"id": 1, "kind": "greeting", "c": "C", "hello": 45}


def test_if_without_else_keeps_every_property_when_if_fails():
    schema = {"type": "object", "properties": {}, "if": KIND, "then": {"properties": {"foo": {"type": "string"}}}}
    assert serve(schema, {"kind": "foobar", "foo": 1, "bar": 2}).json() == {"foo": "1"}
    assert serve(schema, {"kind": "greeting", "foo": 1, "bar": 2}).json() == {"kind": "greeting", "foo": 1, "bar": 2}


def test_nested_if_and_if_under_additional_properties_and_refs():
    inner = {"if": {"properties": {"kind": {"const": "a"}}}, "then": {"properties": {"a": {"type": "integer"}}},
             "else": {"properties": {"b": {"type": "integer"}}}}
    schema = {"definitions": {"isFoo": KIND, "inner": inner}, "type": "object",
              "additionalProperties": {"if": {"$ref": "#/definitions/isFoo"},
                                       "then": {"properties": {"foo": {"type": "string"}}},
                                       "else": {"$ref": "#/definitions/inner"}}}
    value = {"x": {"kind": "foobar", "foo": 1, "a": "2"}, "y": {"kind": "a", "a": "2", "b": "3"},
             "z": {"kind": "b", "a": "2", "b": "3"}}
    assert serve(schema, value).json() == {"x": {"foo": "1"}, "y": {"a": 2}, "z": {"b": 3}}


def test_if_in_a_shared_schema_resolves_its_refs_there():
    shared = {"$id": "thing", "definitions": {"big": {"type": "integer", "minimum": 10}},
              "type": "object", "if": {"properties": {"n": {"$ref": "#/definitions/big"}}},
              "then": {"properties": {"n": {"type": "integer"}, "big": {"type": "boolean", "default": True}}},
              "else": {"properties": {"n": {"type": "integer"}}}}
    assert serve({"$ref": "thing#"}, {"n": 12}, shared=[shared]).json() == {"n": 12, "big": True}
    assert serve({"$ref": "thing#"}, {"n": 2}, shared=[shared]).json() == {"n": 2}


def test_if_check_does_not_coerce_or_change_the_value():
    schema = {"type": "object", "if": {"properties": {"n": {"type": "integer"}}, "required": ["n"]},
              "then": {"properties": {"n": {"type": "integer"}, "t": {"type": "string", "default": "then"}}},
              "else": {"properties": {"n": {"type": "string"}, "t": {"type": "string", "default": "else"}}}}
    value = {"n": "5"}
    assert serve(schema, value).json() == {"n": "5", "t": "else"}
    assert value == {"n": "5"}


# ---------------------------------------------------------------- 9. anyOf / oneOf branches

def test_any_of_branch_that_is_a_ref_to_another_any_of():
    schema = {"definitions": {"scalar": {"anyOf": [{"type": "string"}, {"type": "number"}]}},
              "type": "object", "properties": {"v": {"anyOf": [{"$ref": "#/definitions/scalar"}, {"type": "boolean"}]}}}
    assert serve(schema, {"v": True}).json() == {"v": True}
    assert serve(schema, {"v": 1.5}).json() == {"v": 1.5}
    assert serve(schema, {"v": "s"}).json() == {"v": "s"}


def test_one_of_nested_one_of_through_shared_schema():
    shared = {"$id": "scalar", "oneOf": [{"type": "integer"}, {"type": "null"}]}
    schema = {"type": "object", "properties": {
        "v": {"oneOf": [{"$ref": "scalar#"}, {"type": "array", "items": {"type": "string"}}]}}}
    assert serve(schema, {"v": [1, 2]}, shared=[shared]).json() == {"v": ["1", "2"]}
    assert serve(schema, {"v": None}, shared=[shared]).json() == {"v": None}
    assert serve(schema, {"v": 2.0}, shared=[shared]).json() == {"v": 2}


def test_datetime_under_one_of_string_is_its_iso_string():
    moment = dt.datetime(2024, 1, 2, 3, 4, 5)
    response = serve({"type": "object", "properties": {"at": {"oneOf": [{"type": "string"}]}}}, {"at": moment})
    assert response.status_code == 200
    assert response.json() == {"at": "2024-01-02T03:04:05"}
    response = serve({"anyOf": [{"type": "integer"}, {"type": "string"}]}, dt.date(2024, 1, 2))
    assert response.json() == "2024-01-02"


# ---------------------------------------------------------------- 10. format time

def test_format_time_is_hh_mm_ss():
    schema = {"type": "object", "properties": {"t": {"type": "string", "format": "time"},
                                               "d": {"type": "string", "format": "time"}}}
    value = {"t": dt.time(1, 2, 3, 456789), "d": dt.datetime(2024, 1, 2, 13, 14, 15, 999999)}
    assert serve(schema, value).json() == {"t": "01:02:03", "d": "13:14:15"}
    aware = dt.time(1, 2, 3, 4, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert serve(schema, {"t": aware, "d": "10:11:12.5Z"}).json() == {"t": "01:02:03", "d": "10:11:12.5Z"}


# ---------------------------------------------------------------- 11. invalid schemas fail ready()

@pytest.mark.parametrize("schema, path", [
    ({"type": "object", "properties": {"a": {"type": "strin"}}}, "#/properties/a/type"),
    ({"type": "object", "properties": {"a": {"type": ["string", "nul"]}}}, "#/properties/a/type"),
    ({"type": "array", "items": {"minLength": -1}}, "#/items/minLength"),
    ({"type": "object", "required": "a"}, "#/required"),
    ({"type": "object", "properties": {"a": {"properties": []}}}, "#/properties/a/properties"),
    ({"anyOf": []}, "#/anyOf"),
    ({"type": "object", "properties": {"a": False}, "required": ["a"]}, "#/required"),
])
def test_invalid_response_schema_fails_ready_naming_route_status_and_path(schema, path):
    message = build_error(schema)
    assert "GET: /thing" in message and "response['201']" in message
    assert f"{path} " in message or f"{path}:" in message


def test_invalid_shared_schema_reached_by_a_response_fails_ready():
    app = Framework()
    app.add_schema({"$id": "bad", "type": "object", "properties": {"a": {"type": "integr"}}})
    app.get("/", {"schema": {"response": {200: {"$ref": "bad#"}}}}, lambda request, reply: {})
    with pytest.raises(SchemaSerializationBuildError, match=r"'bad' schema is invalid: #/properties/a/type"):
        app.ready()


def test_valid_unusual_schemas_still_build():
    for schema in ({"type": "object", "properties": {"a": True, "b": False}}, {"enum": []} if False else {},
                   {"type": "object", "properties": {"a": {"$ref": "#/definitions/my name"}},
                    "definitions": {"my name": {"type": "string"}}}, {"x-annotation": 1, "type": "string"}):
        app = Framework()
        app.get("/", {"schema": {"response": {200: schema}}}, lambda request, reply: {"a": 1})
        app.ready()


# ---------------------------------------------------------------- strict

@pytest.mark.parametrize("schema, fragment", [
    ({"type": "object", "requried": ["a"]}, '"requried" at response 201#/ (did you mean "required"?)'),
    ({"type": "object", "properties": {"a": {"type": "string", "minLenght": 1}}}, '"minLenght" at response 201#/properties/a'),
    ({"type": "object", "properties": {"a": {"type": "string", "format": "emial"}}}, "response 201#/properties/a/format"),
])
def test_strict_mode_refuses_unknown_keywords_and_formats(schema, fragment):
    assert fragment in build_error(schema, validator={"custom_options": {"strict": True}})


def test_strict_checks_through_compile_serializer():
    from framework.errors import SchemaCompileError
    from framework.serialization import compile_serializer
    with pytest.raises(SchemaCompileError, match=r'unknown keyword "minLenght" at #/items \(did you mean "minLength"\?\)'):
        compile_serializer({"type": "array", "items": {"minLenght": 1}}, strict=True)
    with pytest.raises(SchemaCompileError, match=r"unknown format 'emial' at #/format"):
        compile_serializer({"type": "string", "format": "emial"}, strict=True)
    compile_serializer({"type": "string", "x": 1, "format": "emial"})  # the default stays Fastify's
    compile_serializer({"type": "string", "errorMessage": "m"}, strict=True, keywords=frozenset({"errorMessage"}))


def test_a_schema_checked_once_is_checked_again_under_other_settings(caplog):
    # Checks that passed are not repeated for the same schema and settings; other settings
    # (fewer known keywords, strict "log") check it again.
    from framework.errors import SchemaCompileError
    from framework.serialization import compile_serializer
    schema = {"type": "object", "properties": {"a": {"type": "string", "label": "A"}}}
    compile_serializer(schema, strict=True, keywords=("label",))
    compile_serializer(schema, strict=True, keywords=("label",))
    with pytest.raises(SchemaCompileError, match='unknown keyword "label"'):
        compile_serializer(schema, strict=True)
    with caplog.at_level("WARNING", logger="framework.validation"):
        compile_serializer(schema, strict="log")
        compile_serializer(schema, strict="log")
    assert [record.getMessage().count("label") for record in caplog.records] == [1, 1]


def test_routes_sharing_a_schema_each_refuse_it_in_strict_mode():
    app = Framework()
    schema = {"response": {200: {"type": "object", "requried": ["a"]}}}
    app.get("/a", {"schema": schema}, lambda request, reply: {})
    app.get("/b", {"schema": schema}, lambda request, reply: {})
    with pytest.raises(Exception, match="requried"):
        app.ready()
