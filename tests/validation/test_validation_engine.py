"""Unit tests of the validation engine: options, coercion, defaults, removal of additional
properties, nullable."""
from __future__ import annotations

import math

import pytest

from framework.validation import SchemaCompileError, ValidatorEngine

from engine_support import errors, ok, one_error


# ----------------------------------------------------------------------------- options

def test_default_options():
    engine = ValidatorEngine()
    assert engine.options == {"coerce_types": "array", "use_defaults": True, "remove_additional": True,
                              "all_errors": False, "nullable": True, "strict": True, "formats": {}}


def test_unknown_option_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="coerceTypes"):
        ValidatorEngine({"coerceTypes": True})


def test_bad_option_value_is_a_type_error():
    with pytest.raises(TypeError, match="remove_additional"):
        ValidatorEngine({"remove_additional": "some"})


# ----------------------------------------------------------------------------- coercion

@pytest.mark.parametrize("data, expected", [
    ("5", 5), ("-5", -5), (" 7 ", 7), ("1.0", 1), ("0x1A", 26), ("0o7", 7), ("0b101", 5), ("1e3", 1000),
    (True, 1), (False, 0), (None, 0),
])
def test_integer_coercion(data, expected):
    value = ok({"type": "integer"}, data)
    assert value == expected and type(value) is int


@pytest.mark.parametrize("data", ["", "1.5", "abc", "1_000", "nan", "inf", "0x", "-0x10", [], {}, [1, 2]])
def test_integer_coercion_failures(data):
    error = one_error({"type": "integer"}, data)
    assert error["keyword"] == "type" and error["message"] == "should be integer"


def test_integer_coercion_of_infinity_follows_ajv():
    # Ajv's integer check after Number() is !(x % 1), which Infinity passes.
    assert ok({"type": "integer"}, "Infinity") == math.inf


@pytest.mark.parametrize("data, expected", [
    ("1.5", 1.5), (" ", 0), ("0x10", 16), ("1e3", 1000), ("Infinity", math.inf), ("-Infinity", -math.inf),
    (".5", 0.5), ("5.", 5), (True, 1), (None, 0),
])
def test_number_coercion(data, expected):
    assert ok({"type": "number"}, data) == expected


@pytest.mark.parametrize("data", ["", "abc", "1,5", "infinity", "NaN"])
def test_number_coercion_failures(data):
    assert one_error({"type": "number"}, data)["message"] == "should be number"


@pytest.mark.parametrize("data, expected", [
    (1, "1"), (1.5, "1.5"), (1e21, "1e+21"), (2.0, "2"), (True, "true"), (False, "false"), (None, ""),
])
def test_string_coercion(data, expected):
    assert ok({"type": "string"}, data) == expected


@pytest.mark.parametrize("data, expected", [
    ("true", True), ("false", False), (1, True), (0, False), (None, False),
])
def test_boolean_coercion(data, expected):
    assert ok({"type": "boolean"}, data) is expected


@pytest.mark.parametrize("data", ["1", "0", "", "abc", 2, "TRUE"])
def test_boolean_coercion_failures(data):
    assert one_error({"type": "boolean"}, data)["message"] == "should be boolean"


@pytest.mark.parametrize("data", ["", 0, False])
def test_null_coercion(data):
    assert ok({"type": "null"}, data) is None


@pytest.mark.parametrize("data", ["null", 1, True, "0"])
def test_null_coercion_failures(data):
    assert one_error({"type": "null"}, data)["message"] == "should be null"


def test_type_list_order_is_the_order_written():
    assert ok({"type": ["boolean", "number"]}, "1") == 1
    assert ok({"type": ["number", "boolean"]}, "true") is True
    assert ok({"type": ["boolean", "string"]}, 1) is True
    assert ok({"type": ["string", "boolean"]}, 1) == "1"


def test_value_matching_a_listed_type_is_untouched():
    assert ok({"type": ["string", "number"]}, "5") == "5"
    assert ok({"type": "number"}, 5.5) == 5.5


def test_array_mode_wraps_scalars_and_unwraps_single_items():
    schema = {"type": "object", "properties": {"foo": {"type": "array", "items": {"type": "number"}},
                                               "bar": {"type": "boolean"}}}
    assert ok(schema, {"foo": "1", "bar": ["false"]}) == {"foo": [1], "bar": False}
    assert ok({"type": "array"}, None) == [None]


def test_array_mode_unwraps_then_coerces_the_element():
    assert ok({"type": "integer"}, ["5"]) == 5


def test_arrays_of_two_items_are_not_unwrapped():
    assert one_error({"type": "integer"}, [1, 2])["keyword"] == "type"


def test_coerce_true_has_no_array_rule():
    assert one_error({"type": "array"}, "x", coerce_types=True)["message"] == "should be array"
    assert one_error({"type": "string"}, ["x"], coerce_types=True)["message"] == "should be string"
    assert ok({"type": "integer"}, "5", coerce_types=True) == 5


def test_coercion_off():
    assert one_error({"type": "integer"}, "5", coerce_types=False)["message"] == "should be integer"


def test_objects_are_never_coerced():
    assert one_error({"type": "string"}, {})["keyword"] == "type"
    assert one_error({"type": "object"}, "{}")["keyword"] == "type"


def test_coercion_writes_back_into_containers_in_place():
    data = {"a": {"n": "1"}, "list": ["2", "3"]}
    schema = {"properties": {"a": {"properties": {"n": {"type": "integer"}}},
                             "list": {"items": {"type": "integer"}}}}
    result = ok(schema, data)
    assert result is data and data == {"a": {"n": 1}, "list": [2, 3]}


def test_coerced_value_is_seen_by_later_keywords():
    error = one_error({"type": "integer", "maximum": 3}, "5")
    assert error["keyword"] == "maximum" and error["params"] == {"comparison": "<=", "limit": 3}


def test_coercion_through_ref_writes_back():
    schema = {"definitions": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/definitions/n"}}}
    assert ok(schema, {"a": "4"}) == {"a": 4}
    assert ok({"$ref": "#/definitions/n", "definitions": {"n": {"type": "integer"}}}, "4") == 4


def test_coercion_in_a_branch_changes_the_type_later_keywords_see():
    # The anyOf branch coerces "5" to 5 (Ajv does not roll back): maxLength then
    # ignores the number instead of crashing on it.
    assert ok({"type": "string", "anyOf": [{"type": "integer"}], "maxLength": 3}, "5") == 5
    assert ok({"type": "array", "allOf": [{"type": "string"}], "maxItems": 0, "items": {"type": "integer"}},
              ["x"]) == "x"


def test_nan_and_infinity_are_not_numbers():
    for value in (math.nan, math.inf, -math.inf):
        assert one_error({"type": "number"}, value, coerce_types=False)["keyword"] == "type"
        assert one_error({"type": "integer"}, value, coerce_types=False)["keyword"] == "type"


def test_booleans_are_not_numbers():
    assert one_error({"type": "integer"}, True, coerce_types=False)["keyword"] == "type"


def test_float_with_integral_value_is_an_integer():
    assert ok({"type": "integer"}, 3.0, coerce_types=False) == 3.0


# ----------------------------------------------------------------------------- defaults

def test_defaults_fill_missing_properties_before_required():
    schema = {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "default": 7}}}
    assert ok(schema, {}) == {"a": 7}


def test_defaults_are_validated():
    error = one_error({"properties": {"a": {"type": "integer", "default": "x"}}}, {}, coerce_types=False)
    assert error["instance_path"] == "/a" and error["keyword"] == "type"


def test_defaults_are_deep_copies_each_time():
    validate = ValidatorEngine().compile({"properties": {"a": {"default": {"list": [1]}}}})
    first = validate({})
    first["a"]["list"].append(2)
    assert validate({}) == {"a": {"list": [1]}}


def test_nested_defaults_inside_a_defaulted_object():
    schema = {"properties": {"a": {"type": "object", "default": {},
                                   "properties": {"b": {"type": "string", "default": "x"}}}}}
    assert ok(schema, {}) == {"a": {"b": "x"}}


def test_tuple_item_defaults():
    schema = {"type": "array", "items": [{"type": "integer"}, {"default": "b"}, {"default": "c"}]}
    assert ok(schema, [1]) == [1, "b", "c"]
    assert ok(schema, [1, "x"]) == [1, "x", "c"]


def test_tuple_defaults_are_not_filled_across_a_gap():
    schema = {"type": "array", "items": [{"type": "integer"}, {"default": "b"}]}
    assert ok(schema, []) == []


def test_single_schema_items_default_is_not_used():
    assert ok({"type": "array", "items": {"default": 1}}, []) == []


def test_no_defaults_inside_anyof_oneof_not_if():
    for keyword in ("anyOf", "oneOf"):
        schema = {keyword: [{"properties": {"a": {"default": 1}}}]}
        assert ok(schema, {}) == {}
    assert ok({"not": {"properties": {"a": {"default": 1}}, "required": ["zz"]}}, {}) == {}
    assert ok({"if": {"properties": {"a": {"default": 1}}}, "then": {}}, {}) == {}


def test_defaults_in_allof_and_then_are_used():
    assert ok({"allOf": [{"properties": {"a": {"default": 1}}}]}, {}) == {"a": 1}
    assert ok({"if": {"type": "object"}, "then": {"properties": {"a": {"default": 1}}}}, {}) == {"a": 1}


def test_defaults_inside_a_ref_from_anyof_are_not_used_but_outside_are():
    schema = {"definitions": {"d": {"properties": {"a": {"default": 1}}}},
              "properties": {"x": {"anyOf": [{"$ref": "#/definitions/d"}]}, "y": {"$ref": "#/definitions/d"}}}
    assert ok(schema, {"x": {}, "y": {}}) == {"x": {}, "y": {"a": 1}}


def test_use_defaults_off():
    assert ok({"properties": {"a": {"default": 1}}}, {}, use_defaults=False) == {}


def test_use_defaults_empty_also_replaces_null_and_empty_string():
    schema = {"properties": {"a": {"default": 1}, "b": {"default": 2}}}
    assert ok(schema, {"a": None, "b": ""}, use_defaults="empty") == {"a": 1, "b": 2}
    assert ok(schema, {"a": None, "b": ""}) == {"a": None, "b": ""}


# ----------------------------------------------------------------------------- removeAdditional

def test_remove_additional_true_removes_only_where_additional_properties_is_false():
    schema = {"properties": {"ap": {"type": "object", "additionalProperties": False,
                                    "properties": {"a": {}}},
                             "open": {"type": "object", "properties": {"a": {}}}}}
    assert ok(schema, {"ap": {"a": 1, "z": 1}, "open": {"a": 1, "z": 1}}) == {
        "ap": {"a": 1}, "open": {"a": 1, "z": 1}}


def test_remove_additional_keeps_pattern_matches():
    schema = {"properties": {"a": {}}, "patternProperties": {"^x-": {}}, "additionalProperties": False}
    assert ok(schema, {"a": 1, "x-y": 2, "b": 3}) == {"a": 1, "x-y": 2}


def test_remove_additional_true_validates_extras_against_a_schema():
    schema = {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
    error = one_error(schema, {"a": 1, "b": "x"}, coerce_types=False)
    assert error["instance_path"] == "/b" and error["schema_path"] == "#/additionalProperties/type"


def test_remove_additional_all():
    schema = {"properties": {"a": {}, "nested": {"properties": {"b": {}}}}}
    data = {"a": 1, "z": 2, "nested": {"b": 1, "y": 2}}
    assert ok(schema, data, remove_additional="all") == {"a": 1, "nested": {"b": 1}}
    schema = {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
    assert ok(schema, {"a": 1, "b": "x"}, remove_additional="all") == {"a": 1}


def test_remove_additional_false_reports_each_extra():
    schema = {"properties": {"a": {}}, "additionalProperties": False}
    error = one_error(schema, {"a": 1, "b": 2, "c": 3}, remove_additional=False)
    assert error == {"keyword": "additionalProperties", "instance_path": "", "schema_path": "#/additionalProperties",
                     "params": {"additionalProperty": "b"}, "message": "should NOT have additional properties"}
    found = errors(schema, {"a": 1, "b": 2, "c": 3}, remove_additional=False, all_errors=True)
    assert [e["params"]["additionalProperty"] for e in found] == ["b", "c"]


def test_removal_in_oneof_branches_is_not_undone():
    # Ajv's documented gotcha: the first branch deletes "bar", so the second cannot match.
    schema = {"oneOf": [{"properties": {"foo": {}}, "required": ["foo"], "additionalProperties": False},
                        {"properties": {"bar": {}}, "required": ["bar"], "additionalProperties": False}]}
    data = {"bar": 1}
    assert errors(schema, data)[-1]["keyword"] == "oneOf"
    assert data == {}


# ----------------------------------------------------------------------------- nullable

def test_nullable_adds_null():
    assert ok({"type": "string", "nullable": True}, None, coerce_types=False) is None
    error = one_error({"type": "string", "nullable": True}, 5, coerce_types=False)
    assert error["message"] == "should be string" and error["params"] == {"type": "string"}


def test_nullable_false_and_option_off():
    assert one_error({"type": "string", "nullable": False}, None, coerce_types=False)["keyword"] == "type"
    assert one_error({"type": "string", "nullable": True}, None, coerce_types=False,
                     nullable=False)["keyword"] == "type"


def test_nullable_with_coercion_keeps_null():
    assert ok({"type": "integer", "nullable": True}, None) is None


def test_nullable_without_type_is_a_compile_error():
    with pytest.raises(SchemaCompileError, match="nullable"):
        ValidatorEngine().compile({"nullable": True})


def test_remove_all_keeps_pattern_properties_and_ignores_non_objects():
    schema = {"properties": {"a": {}}, "patternProperties": {"^x": {}}}
    assert ok(schema, {"a": 1, "x1": 2, "b": 3}, remove_additional="all") == {"a": 1, "x1": 2}
    assert ok(schema, [1, 2], remove_additional="all") == [1, 2]
