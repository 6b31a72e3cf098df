"""Unit tests of the response-schema serializer: each feature with its exact output text."""
from __future__ import annotations

import ast
import collections
import dataclasses
import datetime as dt
import decimal
import enum
import json
import math

import pytest

from framework.errors import FrameworkError
from framework.schemas.codegen import generated_source
from framework.schemas.store import UnresolvableRefError
from framework.serialization import (SchemaCompileError, SerializationError, SerializerGenerator,
                                     compile_serializer, compile_source)
from framework.serialization import runtime
from framework.undefined import UNDEFINED


def ser(schema, data, shared=None):
    out = compile_serializer(schema, shared)(data)
    assert type(out) is bytes  # UTF-8 JSON, what the server sends
    return out.decode()


def obj(required=None, **properties):
    schema = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    return schema


S, I, N, B = {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}


# ---------------------------------------------------------------- scalar types and coercion

@pytest.mark.parametrize("schema, value, expected", [
    (S, "plain", '"plain"'),
    (S, None, '""'),
    (S, 1, '"1"'),
    (S, 1.5, '"1.5"'),
    (S, True, '"true"'),
    (S, b"bytes", '"bytes"'),
    (I, 3, "3"),
    (I, 1.7, "1"),
    (I, -1.7, "-1"),
    (I, None, "0"),
    (I, True, "1"),
    (I, "12", "12"),
    (I, "12.9", "12"),
    (I, decimal.Decimal("7.9"), "7"),
    (I, 2 ** 80, "1208925819614629174706176"),
    (N, 1.5, "1.5"),
    (N, 2, "2"),
    (N, None, "0"),
    (N, False, "0"),
    (N, "2.5", "2.5"),
    (N, "3", "3"),
    (N, math.inf, "null"),
    (N, -math.inf, "null"),
    (N, math.nan, "null"),
    (N, decimal.Decimal("2.5"), "2.5"),
    (B, True, "true"),
    (B, "yes", "true"),
    (B, "", "false"),
    (B, 0, "false"),
    (B, None, "false"),
    ({"type": "null"}, "anything", "null"),
])
def test_scalar_coercion(schema, value, expected):
    assert ser(schema, value) == expected


def test_number_that_cannot_be_converted():
    with pytest.raises(SerializationError) as info:
        ser(N, "world")
    assert str(info.value) == 'The value "world" cannot be converted to a number.'
    # No status: a reply answers it with the fixed 500, the message (which may quote the
    # value) going to the log only (tests/lifecycle/test_error_leaks.py).
    assert not hasattr(info.value, "status_code") and not isinstance(info.value, FrameworkError)


@pytest.mark.parametrize("value, text", [("world", "world"), (math.inf, "inf"), ([1], "[1]")])
def test_integer_that_cannot_be_converted(value, text):
    with pytest.raises(SerializationError, match="cannot be converted to an integer") as info:
        ser(I, value)
    assert str(info.value) == f'The value "{text}" cannot be converted to an integer.'


def test_string_escaping():
    text = 'q"b\\s\n\r\t\x00\x1f/é€😀'
    out = ser(S, text)
    assert json.loads(out) == text
    assert out.startswith('"q\\"b\\\\s\\n\\r\\t\\u0000\\u001f')  # then "/" (or "\\/" from ujson)


def test_lone_surrogate_round_trips_as_escape():
    out = ser(obj(a=S), {"a": "x\ud800y"})
    assert out == '{"a":"x\\ud800y"}'
    assert json.loads(out) == {"a": "x\ud800y"}
    out.encode("utf-8")  # the text itself is UTF-8-safe


def test_enum_members_serialize_by_value():
    class Color(enum.Enum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    assert ser(S, Color.RED) == '"red"'
    assert ser(I, Level.HIGH) == "3"
    assert ser({}, {"c": Color.RED}) == '{"c":"red"}'


# ---------------------------------------------------------------- formats

def test_date_time_formats():
    moment = dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.timezone.utc)
    schema = obj(at={"type": "string", "format": "date-time"}, day={"type": "string", "format": "date"},
                 clock={"type": "string", "format": "time"}, text={"type": "string", "format": "date-time"})
    data = {"at": moment, "day": moment, "clock": dt.time(7, 8, 9), "text": "2024-01-01T00:00:00Z"}
    assert ser(schema, data) == ('{"at":"2024-05-06T07:08:09+00:00","day":"2024-05-06",'
                                 '"clock":"07:08:09","text":"2024-01-01T00:00:00Z"}')
    assert ser({"type": "string", "format": "date"}, dt.date(2024, 1, 2)) == '"2024-01-02"'
    assert ser({"type": "string", "format": "time"}, moment) == '"07:08:09"'
    assert ser({"type": "string", "format": "date-time"}, None) == '""'
    assert ser({"type": "string"}, moment) == '"2024-05-06T07:08:09+00:00"'


def test_date_time_format_rejects_numbers():
    with pytest.raises(SerializationError, match='The value "5" cannot be converted to a date-time.'):
        ser({"type": "string", "format": "date-time"}, 5)


# ---------------------------------------------------------------- objects

def test_undeclared_properties_never_appear():
    schema = obj(["id"], id=I, name=S)
    assert ser(schema, {"id": 1, "name": "Ada", "password": "hunter2"}) == '{"id":1,"name":"Ada"}'
    assert "password" not in ser(schema, {"id": "1", "password": "hunter2"})


def test_required_properties_first_then_schema_order():
    schema = obj(["c", "a"], a=I, b=I, c=I, d=I)
    assert ser(schema, {"d": 4, "c": 3, "b": 2, "a": 1}) == '{"a":1,"c":3,"b":2,"d":4}'
    # the general path (a coerced value) keeps the same order
    assert ser(schema, {"d": 4, "c": 3, "b": 2, "a": 1.5}) == '{"a":1,"c":3,"b":2,"d":4}'


def test_missing_required_property():
    with pytest.raises(SerializationError) as info:
        ser(obj(["name"], name=S), {})
    assert str(info.value) == '"name" is required!'
    assert info.value.pointer == ""


def test_required_property_not_declared_is_checked_not_emitted():
    schema = {"type": "object", "properties": {"a": I}, "required": ["token"]}
    assert ser(schema, {"a": 1, "token": "t"}) == '{"a":1}'
    with pytest.raises(SerializationError, match='"token" is required!'):
        ser(schema, {"a": 1})


def test_undefined_values_are_missing():
    schema = obj(["a"], a=I, b=S)
    assert ser(schema, {"a": 1, "b": UNDEFINED}) == '{"a":1}'
    with pytest.raises(SerializationError, match='"a" is required!'):
        ser(schema, {"a": UNDEFINED})


def test_default_for_missing_property():
    schema = obj(["b"], a=I, b={"type": "string", "default": "zz"}, c={"type": "array", "default": [1, 2]})
    assert ser(schema, {"a": 1}) == '{"b":"zz","a":1,"c":[1,2]}'
    assert ser(schema, {"a": 1, "b": UNDEFINED}) == '{"b":"zz","a":1,"c":[1,2]}'
    assert ser(schema, {"a": 1, "b": "x", "c": []}) == '{"b":"x","a":1,"c":[]}'


def test_null_object_and_nullable_object():
    assert ser(obj(a=S), None) == "{}"
    assert ser({**obj(a=S), "nullable": True}, None) == "null"
    assert ser(obj(a={"type": "integer", "nullable": True}), {"a": None}) == '{"a":null}'
    assert ser(obj(a=I), {"a": None}) == '{"a":0}'
    assert ser(obj(a=S), {"a": None}) == '{"a":""}'
    assert ser(obj(a={"type": "array"}), {"a": None}) == '{"a":[]}'
    assert ser(obj(a={"type": "object"}), {"a": None}) == '{"a":{}}'


def test_additional_properties():
    base = {"type": "object", "properties": {"a": I}}
    data = {"a": 1, "b": "x", 3: [1, UNDEFINED], True: 1, "u": UNDEFINED}
    assert ser({**base, "additionalProperties": False}, data) == '{"a":1}'
    assert ser(base, data) == '{"a":1}'
    assert ser({**base, "additionalProperties": True}, data) == '{"a":1,"b":"x","3":[1,null],"true":1}'
    assert ser({**base, "additionalProperties": {"type": "string"}}, {"a": 1, "b": 2, "c": None}) == \
        '{"a":1,"b":"2","c":""}'


def test_pattern_properties():
    schema = {"type": "object", "properties": {"a": I},
              "patternProperties": {"^n_": {"type": "integer"}, "^s_": {"type": "string"}}}
    assert ser(schema, {"a": 1, "n_x": "5", "s_y": 5, "other": 1}) == '{"a":1,"n_x":5,"s_y":"5"}'
    with_extra = {**schema, "additionalProperties": {"type": "boolean"}}
    assert ser(with_extra, {"n_x": 1.5, "z": 1}) == '{"n_x":1,"z":true}'


def test_mappings_dataclasses_and_named_tuples():
    @dataclasses.dataclass
    class User:
        id: int
        name: str
        password: str

    Point = collections.namedtuple("Point", "x y")
    schema = obj(["id"], id=I, name=S)
    assert ser(schema, User(1, "Ada", "secret")) == '{"id":1,"name":"Ada"}'
    assert ser(obj(x=I, y=I), Point(1, 2)) == '{"x":1,"y":2}'
    assert ser(schema, collections.OrderedDict(name="Ada", id=2)) == '{"id":2,"name":"Ada"}'


def test_non_object_for_object_schema():
    with pytest.raises(SerializationError, match="The value of '#' does not match schema definition."):
        ser(obj(a=S), "text")


def test_untyped_schema_is_plain_json():
    value = {"a": [1, 2.5, None, True, "s", UNDEFINED], "b": UNDEFINED, "c": {"d": math.inf},
             "e": (1, 2), "f": dt.date(2020, 1, 2)}
    assert ser({}, value) == '{"a":[1,2.5,null,true,"s",null],"c":{"d":null},"e":[1,2],"f":"2020-01-02"}'
    assert ser(obj(x={}), {"x": {"y": 1}}) == '{"x":{"y":1}}'
    assert ser(True, [1]) == "[1]"


def test_untyped_rejects_unknown_objects():
    with pytest.raises(SerializationError, match="not JSON serializable"):
        ser({}, object())


def test_type_inferred_from_keywords():
    assert ser({"properties": {"a": I}}, {"a": "1", "b": 2}) == '{"a":1}'
    assert ser({"items": I}, ["1"]) == "[1]"
    assert ser({"maxLength": 3}, 5) == '"5"'
    assert ser({"minimum": 3}, "5") == "5"


# ---------------------------------------------------------------- arrays

def test_array_items():
    assert ser({"type": "array", "items": I}, [1, 2.5, True, None]) == "[1,2,1,0]"
    assert ser({"type": "array", "items": S}, ("a", 1)) == '["a","1"]'
    assert ser({"type": "array"}, [1, {"a": UNDEFINED}]) == '[1,{}]'
    assert ser({"type": "array", "items": I}, None) == "[]"
    assert ser({"type": "array", "items": I, "nullable": True}, None) == "null"
    assert ser({"type": "array", "items": I}, iter([1, 2])) == "[1,2]"
    assert ser({"type": "array", "items": obj(a=I)}, [{"a": 1, "b": 2}, {"a": "2"}]) == '[{"a":1},{"a":2}]'


def test_array_of_objects_in_shape_are_shaped_in_the_loop_and_the_others_by_the_object_function():
    row = {"type": "object", "required": ["id"], "properties": {"id": I, "name": S}}
    schema = {"type": "array", "items": row}
    source = compile_source(schema)
    assert "for x in v:" in source and "append({'id': p0, 'name': p1})" in source
    rows = [{"id": 1, "name": "a", "secret": "s"},  # in shape: the loop's fast path (extras dropped)
            {"id": "2", "name": "b"},  # a member to coerce
            {"id": 3},  # a member missing
            None,  # not an object: {}
            {"name": "e"},  # "id" is required
            ]
    assert ser(schema, rows[:4]) == '[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3},{}]'
    with pytest.raises(SerializationError, match="required") as info:
        ser(schema, rows)
    assert info.value.pointer == "/4"
    nested = {"type": "array", "items": {"type": "object", "properties": {"o": obj(a=I)}}}
    assert "for x in v:" not in compile_source(nested)  # a member to shape: a call per item
    assert ser(nested, [{"o": {"a": "1"}}]) == '[{"o":{"a":1}}]'


def test_array_rejects_strings_and_mappings():
    with pytest.raises(SerializationError, match="does not match schema definition"):
        ser({"type": "array", "items": I}, "123")
    with pytest.raises(SerializationError, match="does not match schema definition"):
        ser({"type": "array", "items": I}, {"a": 1})


def test_tuple_items():
    schema = {"type": "array", "items": [I, S]}
    assert ser(schema, [1, 2]) == '[1,"2"]'
    assert ser(schema, [1]) == "[1]"
    with pytest.raises(SerializationError, match="Item at 2 does not match schema definition."):
        ser(schema, [1, 2, 3])
    assert ser({**schema, "additionalItems": True}, [1, 2, {"x": 3}]) == '[1,"2",{"x":3}]'
    assert ser({**schema, "additionalItems": S}, [1, 2, 3, None]) == '[1,"2","3",""]'


# ---------------------------------------------------------------- type lists, enum, const

def test_type_lists():
    schema = {"type": ["string", "null"]}
    assert ser(schema, None) == "null"
    assert ser(schema, "a") == '"a"'
    # as in fast-json-stringify, a type list does not coerce across types
    with pytest.raises(SerializationError, match="does not match schema definition"):
        ser(schema, 5)
    both = {"type": ["integer", "string"]}
    assert ser(both, 3) == "3"
    assert ser(both, 3.0) == "3"
    assert ser(both, "x") == '"x"'
    with pytest.raises(SerializationError, match="does not match schema definition"):
        ser(both, [1])
    assert ser({"type": ["object", "array"], "properties": {"a": I}, "items": S}, [1]) == '["1"]'
    assert ser({"type": ["object", "array"], "properties": {"a": I}, "items": S}, {"a": "1", "b": 1}) == '{"a":1}'
    assert ser({"type": ["number", "boolean"]}, None) == "0"
    assert ser({"type": ["integer", "string"], "nullable": True}, None) == "null"


def test_enum_and_const():
    assert ser({"type": "string", "enum": ["a", "b"]}, "a") == '"a"'
    assert ser({"enum": ["a", 1]}, 1) == "1"
    assert ser({"const": "fixed"}, "other") == '"fixed"'
    assert ser({"const": {"k": [1, 2]}}, None) == '{"k":[1,2]}'
    assert ser({"type": ["string", "null"], "const": "x"}, None) == "null"
    assert ser(obj(["k"], k={"const": "v"}), {"k": 1}) == '{"k":"v"}'
    with pytest.raises(SerializationError, match='"k" is required!'):
        ser(obj(["k"], k={"const": "v"}), {})


# ---------------------------------------------------------------- combinators

def test_any_of_picks_first_branch_whose_cheap_check_matches():
    schema = {"anyOf": [S, I]}
    assert ser(schema, "a") == '"a"'
    assert ser(schema, 5) == "5"
    with pytest.raises(SerializationError, match="The value of '#' does not match schema definition."):
        ser(schema, [1])
    assert ser({"oneOf": [{"type": "null"}, I]}, None) == "null"
    assert ser({"oneOf": [I, {"type": "number"}]}, 2.5) == "2.5"


def test_any_of_discriminated_objects():
    schema = {"type": "object", "properties": {"kind": S},
              "anyOf": [{"properties": {"kind": {"const": "cat"}, "lives": I}, "required": ["kind"]},
                        {"properties": {"kind": {"const": "dog"}, "bark": S}, "required": ["kind"]}]}
    assert ser(schema, {"kind": "dog", "lives": 9, "bark": 1}) == '{"kind":"dog","bark":"1"}'
    assert ser(schema, {"kind": "cat", "lives": "9", "bark": 1}) == '{"kind":"cat","lives":9}'


def test_any_of_required_keys_discriminate():
    schema = {"anyOf": [obj(["a"], a=I), obj(["b"], b=S)]}
    assert ser(schema, {"b": 1}) == '{"b":"1"}'
    assert ser(schema, {"a": "1", "b": 1}) == '{"a":1}'


def test_all_of_merges():
    schema = {"allOf": [obj(a=I), {"properties": {"b": S}, "required": ["b"]},
                        {"properties": {"a": {"nullable": True}}}]}
    assert ser(schema, {"a": 1.5, "b": 2, "c": 3}) == '{"b":"2","a":1}'
    assert ser(schema, {"a": None, "b": "x"}) == '{"b":"x","a":null}'
    with pytest.raises(SerializationError, match='"b" is required!'):
        ser(schema, {"a": 1})
    assert ser({"allOf": [{"type": "number"}, {"type": "integer"}]}, 2.7) == "2"
    closed = {"allOf": [{"type": "object", "properties": {"a": I}, "additionalProperties": True},
                        {"additionalProperties": False}]}
    assert ser(closed, {"a": 1, "z": 2}) == '{"a":1}'


# ---------------------------------------------------------------- $ref

SHARED = {
    "user": {"$id": "user", "type": "object", "properties": {"name": S, "friend": {"$ref": "#"}},
             "definitions": {"age": I, "anchored": {"$id": "#tag", "type": "string"}}},
    "http://example.com/item.json": {"$id": "http://example.com/item.json",
                                     "definitions": {"price": {"type": "number"}}},
}


def test_local_refs():
    schema = {"type": "object", "definitions": {"n": I, "a": {"$id": "#anchor", "type": "string"}},
              "properties": {"x": {"$ref": "#/definitions/n"}, "y": {"$ref": "#anchor"}}}
    assert ser(schema, {"x": "5", "y": 5}) == '{"x":5,"y":"5"}'


def test_shared_refs_in_every_form():
    schema = obj(whole={"$ref": "user#"}, pointer={"$ref": "user#/definitions/age"},
                 prop={"$ref": "user#/properties/name"}, anchor={"$ref": "user#tag"},
                 url={"$ref": "http://example.com/item.json#/definitions/price"})
    data = {"whole": {"name": "Ada", "password": "x", "friend": {"name": 1}},
            "pointer": 3.9, "prop": 7, "anchor": 8, "url": "1.5"}
    assert ser(schema, data, SHARED) == \
        '{"whole":{"name":"Ada","friend":{"name":"1"}},"pointer":3,"prop":"7","anchor":"8","url":1.5}'
    assert ser({"$ref": "user#"}, {"name": "x", "age": 1}, SHARED) == '{"name":"x"}'


def test_ref_in_all_of_across_documents():
    schema = {"allOf": [{"$ref": "user#"}, {"properties": {"id": I}}]}
    assert ser(schema, {"id": "1", "name": "n", "friend": {"name": "f", "id": 3}}, SHARED) == \
        '{"name":"n","friend":{"name":"f"},"id":1}'


def test_recursive_schema_gets_a_function_per_subschema():
    schema = {"definitions": {"node": {"type": "object", "properties": {
        "value": I, "children": {"type": "array", "items": {"$ref": "#/definitions/node"}}}}},
        "$ref": "#/definitions/node"}
    data = {"value": 1, "x": 0, "children": [{"value": 2, "children": []}, {"value": "3"}]}
    assert ser(schema, data) == '{"value":1,"children":[{"value":2,"children":[]},{"value":3}]}'
    source = compile_source(schema)
    assert source.count("def _obj_") == 1 and source.count("def _arr_") == 1


def test_recursion_through_any_of_all_of_and_type_lists():
    tree = {"definitions": {"t": {"$id": "#tree", "anyOf": [
        {"type": "null"},
        {"type": "object", "properties": {"v": I, "left": {"$ref": "#tree"}}}]}}, "$ref": "#tree"}
    assert ser(tree, {"v": "1", "left": {"v": 2, "left": None, "x": 1}}) == '{"v":1,"left":{"v":2,"left":null}}'
    chain = {"definitions": {"n": {"allOf": [{"type": "object", "properties": {"next": {"$ref": "#/definitions/n"}}},
                                             {"properties": {"v": S}}]}}, "$ref": "#/definitions/n"}
    assert ser(chain, {"v": 1, "next": {"v": 2, "next": {"q": 1}}}) == '{"next":{"next":{},"v":"2"},"v":"1"}'
    listed = {"type": ["object", "null"], "properties": {"next": {"$ref": "#"}, "v": I}}
    assert ser(listed, {"v": 1.5, "next": {"v": 2, "next": None}}) == '{"next":{"next":null,"v":2},"v":1}'


def test_data_nested_too_deeply():
    listed = {"type": ["object", "null"], "properties": {"next": {"$ref": "#"}, "v": I}}
    data = None
    for index in range(5000):
        data = {"v": index, "next": data}
    with pytest.raises(SerializationError, match="nested too deeply"):
        ser(listed, data)


def test_unresolvable_ref_raises_at_compile_time():
    with pytest.raises(UnresolvableRefError):
        compile_serializer(obj(a={"$ref": "missing#"}))
    with pytest.raises(UnresolvableRefError):
        compile_serializer(obj(a={"$ref": "#/definitions/nope"}))
    with pytest.raises(UnresolvableRefError):
        compile_source({"$ref": "user#/definitions/nope"}, SHARED)


def test_unknown_type_is_a_compile_error():
    with pytest.raises(SchemaCompileError, match="#/type"):
        compile_serializer({"type": "strnig"})


# ---------------------------------------------------------------- source, cache, inputs

def test_compile_source_is_readable_python():
    source = compile_source({"type": "array", "items": obj(["id"], id=I, tags={"type": "array", "items": S})})
    assert "def serialize(data):" in source and "def _obj_" in source
    ast.parse(source)
    assert source == compile_source({"type": "array", "items": obj(["id"], id=I, tags={"type": "array", "items": S})})


def test_identical_schemas_compile_once():
    first = compile_serializer(obj(["x"], x=I, y=S))
    assert compile_serializer(obj(["x"], x=I, y=S)) is first
    assert compile_serializer({"required": ["x"], "properties": {"y": S, "x": I}, "type": "object"}) is first
    assert compile_serializer(obj(["x"], x=I, y=I)) is not first
    assert generated_source(first) == compile_source(obj(["x"], x=I, y=S))


def test_cache_key_includes_reached_shared_schemas():
    schema = {"$ref": "thing#"}
    one = compile_serializer(schema, {"thing": {"$id": "thing", "type": "integer"}})
    two = compile_serializer(schema, {"thing": {"$id": "thing", "type": "string"}})
    assert one is not two
    assert one("5") == b"5" and two(5) == b'"5"'
    assert compile_serializer(schema, {"thing": {"$id": "thing", "type": "integer"}, "other": {"$id": "other"}}) is one


def test_schema_and_shared_are_not_mutated():
    schema = {"allOf": [{"$ref": "user#"}, obj(x={"default": 1})], "anyOf": [{"type": "object"}]}
    shared = json.loads(json.dumps(SHARED))
    before = json.dumps([schema, shared], sort_keys=True)
    ser(schema, {"name": 1}, shared)
    assert json.dumps([schema, shared], sort_keys=True) == before


def test_shared_none_and_empty():
    assert compile_serializer(S, None)(1) == compile_serializer(S, {})(1) == b'"1"'


def test_generator_can_be_extended_by_subclassing():
    class Upper(SerializerGenerator):
        FORMATS = {**SerializerGenerator.FORMATS, "upper": lambda v: str(v).upper()}

    generator = Upper({"type": "string", "format": "upper"})
    namespace = generator.namespace
    exec(compile(generator.source, "<test>", "exec"), namespace)
    assert namespace["serialize"]("abc") == b'"ABC"'


def test_traceback_shows_generated_lines():
    serialize = compile_serializer(obj(["must"], must=S, other=I))
    with pytest.raises(SerializationError) as info:
        serialize({})
    text = "".join(__import__("traceback").format_exception(info.value))
    assert "raise _required" in text


def test_output_is_utf8_json_bytes_even_through_the_stdlib_fallback():
    data = {"a": 1, "b": "x/y é \ud800", "c": [1.5, None, True, 2 ** 70], "d": {"e": -0.0}}
    out = compile_serializer({"type": "object", "additionalProperties": True})(data)
    assert type(out) is bytes
    assert json.loads(out) == data


def test_non_finite_numbers_are_null_with_orjson_and_the_fallback():
    serialize = compile_serializer(obj(n=N, big=I, s=S, items={"type": "array", "items": N}))
    data = {"n": math.inf, "items": [math.nan, -math.inf, 1.5]}
    assert json.loads(serialize(data)) == {"n": None, "items": [None, None, 1.5]}
    # a big int or a lone surrogate sends orjson's refusal to the stdlib fallback
    data.update(big=2 ** 70, s="\ud800")
    assert json.loads(serialize(data)) == {"n": None, "big": 2 ** 70, "s": "\ud800", "items": [None, None, 1.5]}
