"""Unit tests of the validation engine: options, coercion, defaults, removal, records."""
from __future__ import annotations

import math
import re
import urllib.request

import pytest

from framework.errors import SchemaValidationFailure
from framework.schemas.store import UnresolvableRefError
from framework.validation import SchemaCompileError, ValidatorEngine, compile_schema, format_errors


def run(schema, data, shared=None, **options):
    """Validate; return ("ok", value) or ("errors", records)."""
    validate = ValidatorEngine(options).compile(schema, shared or {})
    try:
        return "ok", validate(data)
    except SchemaValidationFailure as failure:
        return "errors", failure.errors


def ok(schema, data, shared=None, **options):
    outcome, value = run(schema, data, shared, **options)
    assert outcome == "ok", value
    return value


def errors(schema, data, shared=None, **options):
    outcome, value = run(schema, data, shared, **options)
    assert outcome == "errors", f"accepted: {value!r}"
    return value


def one_error(schema, data, **options):
    found = errors(schema, data, **options)
    assert len(found) == 1, found
    return found[0]


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


# ----------------------------------------------------------------------------- formats

@pytest.mark.parametrize("fmt, good, bad", [
    ("date", "2024-02-29", "2023-02-29"),
    ("time", "10:20:30Z", "10:20:30"),
    ("date-time", "2024-01-01T10:20:30+01:00", "2024-01-01T10:20:30"),
    ("iso-time", "10:20:30", "25:00:00"),
    ("iso-date-time", "2024-01-01T10:20:30", "2024-01-01"),
    ("duration", "P1DT2H", "P"),
    ("uri", "https://example.com/a?b#c", "not a uri"),
    ("uri-reference", "../a/b", "a b"),
    ("uri-template", "http://x/{id}", "http://x/{id"),
    ("url", "https://example.com/x", "mailto:x@y.z"),
    ("email", "a.b@example.com", "a@b@c"),
    ("hostname", "example.com", "-bad-.com"),
    ("ipv4", "192.168.0.1", "256.1.1.1"),
    ("ipv6", "::1", "1:::1"),
    ("regex", "^a+$", "(unclosed"),
    ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
    ("json-pointer", "/a/b~0", "a/b"),
    ("json-pointer-uri-fragment", "#/a", "/a"),
    ("relative-json-pointer", "1/a", "/a"),
    ("byte", "aGVsbG8=", "aGVsbG8"),
])
def test_string_formats(fmt, good, bad):
    schema = {"type": "string", "format": fmt}
    assert ok(schema, good) == good
    error = one_error(schema, bad)
    assert error == {"keyword": "format", "instance_path": "", "schema_path": "#/format",
                     "params": {"format": fmt}, "message": f'should match format "{fmt}"'}


def test_time_leap_second_and_trailing_newline():
    assert ok({"format": "time"}, "23:59:60Z") == "23:59:60Z"
    errors({"format": "time"}, "22:59:60Z")
    errors({"format": "date"}, "2024-01-01\n")


def test_number_formats():
    assert ok({"format": "int32"}, 2 ** 31 - 1) == 2 ** 31 - 1
    assert one_error({"format": "int32"}, 2 ** 31)["params"] == {"format": "int32"}
    assert ok({"format": "int32"}, "not a number") == "not a number"
    assert ok({"format": "double"}, 1.5) == 1.5


def test_formats_ignore_other_types():
    assert ok({"format": "email"}, 12) == 12


def test_unknown_format_is_a_compile_error():
    with pytest.raises(SchemaCompileError, match='unknown format "nope"'):
        ValidatorEngine().compile({"type": "string", "format": "nope"})


def test_formats_option_and_add_format():
    engine = ValidatorEngine({"formats": {"even": lambda value: len(value) % 2 == 0,
                                          "abc": r"^abc", "num": re.compile(r"^\d+$")}})
    validate = engine.compile({"properties": {"a": {"format": "even"}, "b": {"format": "abc"},
                                              "c": {"format": "num"}}})
    assert validate({"a": "xx", "b": "abcd", "c": "12"}) == {"a": "xx", "b": "abcd", "c": "12"}
    for bad in ({"a": "x"}, {"b": "xabc"}, {"c": "1a"}):
        with pytest.raises(SchemaValidationFailure):
            validate(bad)
    engine.add_format("email", lambda value: value.endswith("@corp"))  # replaces the built-in one
    validate = engine.compile({"format": "email"})
    assert validate("me@corp") == "me@corp"
    with pytest.raises(SchemaValidationFailure):
        validate("me@example.com")


def test_add_format_rejects_bad_checks():
    with pytest.raises(TypeError):
        ValidatorEngine().add_format("x", 42)


# ----------------------------------------------------------------------------- records and messages

KEYWORD_CASES = [
    ({"type": "integer"}, "x", {"keyword": "type", "instance_path": "", "schema_path": "#/type",
                                "params": {"type": "integer"}, "message": "should be integer"}),
    ({"type": ["string", "null"]}, 5.5, {"keyword": "type", "instance_path": "", "schema_path": "#/type",
                                         "params": {"type": ["string", "null"]}, "message": "should be string,null"}),
    ({"properties": {"o": {"required": ["name"]}}}, {"o": {}},
     {"keyword": "required", "instance_path": "/o", "schema_path": "#/properties/o/required",
      "params": {"missingProperty": "name"}, "message": "should have required property 'name'"}),
    ({"enum": ["a", "b"]}, "c", {"keyword": "enum", "instance_path": "", "schema_path": "#/enum",
                                 "params": {"allowedValues": ["a", "b"]},
                                 "message": "should be equal to one of the allowed values"}),
    ({"const": 3}, 4, {"keyword": "const", "instance_path": "", "schema_path": "#/const",
                       "params": {"allowedValue": 3}, "message": "should be equal to constant"}),
    ({"minLength": 3}, "ab", {"keyword": "minLength", "instance_path": "", "schema_path": "#/minLength",
                              "params": {"limit": 3}, "message": "should NOT have fewer than 3 characters"}),
    ({"maxLength": 5}, "abcdef", {"keyword": "maxLength", "instance_path": "", "schema_path": "#/maxLength",
                                  "params": {"limit": 5}, "message": "should NOT have more than 5 characters"}),
    ({"minItems": 2}, [1], {"keyword": "minItems", "instance_path": "", "schema_path": "#/minItems",
                            "params": {"limit": 2}, "message": "should NOT have fewer than 2 items"}),
    ({"maxItems": 1}, [1, 2], {"keyword": "maxItems", "instance_path": "", "schema_path": "#/maxItems",
                               "params": {"limit": 1}, "message": "should NOT have more than 1 items"}),
    ({"minProperties": 1}, {}, {"keyword": "minProperties", "instance_path": "", "schema_path": "#/minProperties",
                                "params": {"limit": 1}, "message": "should NOT have fewer than 1 properties"}),
    ({"maxProperties": 1}, {"a": 1, "b": 2},
     {"keyword": "maxProperties", "instance_path": "", "schema_path": "#/maxProperties",
      "params": {"limit": 1}, "message": "should NOT have more than 1 properties"}),
    ({"minimum": 1}, 0, {"keyword": "minimum", "instance_path": "", "schema_path": "#/minimum",
                         "params": {"comparison": ">=", "limit": 1}, "message": "should be >= 1"}),
    ({"maximum": 100}, 101, {"keyword": "maximum", "instance_path": "", "schema_path": "#/maximum",
                             "params": {"comparison": "<=", "limit": 100}, "message": "should be <= 100"}),
    ({"exclusiveMinimum": 5}, 5, {"keyword": "exclusiveMinimum", "instance_path": "",
                                  "schema_path": "#/exclusiveMinimum",
                                  "params": {"comparison": ">", "limit": 5}, "message": "should be > 5"}),
    ({"exclusiveMaximum": 1.5}, 2, {"keyword": "exclusiveMaximum", "instance_path": "",
                                    "schema_path": "#/exclusiveMaximum",
                                    "params": {"comparison": "<", "limit": 1.5}, "message": "should be < 1.5"}),
    ({"multipleOf": 2}, 3, {"keyword": "multipleOf", "instance_path": "", "schema_path": "#/multipleOf",
                            "params": {"multipleOf": 2}, "message": "should be multiple of 2"}),
    ({"pattern": "^a+$"}, "b", {"keyword": "pattern", "instance_path": "", "schema_path": "#/pattern",
                                "params": {"pattern": "^a+$"}, "message": 'should match pattern "^a+$"'}),
    ({"uniqueItems": True}, [{"a": 1}, {"a": 1}],
     {"keyword": "uniqueItems", "instance_path": "", "schema_path": "#/uniqueItems",
      "params": {"i": 1, "j": 0}, "message": "should NOT have duplicate items (items ## 0 and 1 are identical)"}),
    ({"uniqueItems": True, "items": {"type": "integer"}}, [1, 2, 1],
     {"keyword": "uniqueItems", "instance_path": "", "schema_path": "#/uniqueItems",
      "params": {"i": 0, "j": 2}, "message": "should NOT have duplicate items (items ## 2 and 0 are identical)"}),
    ({"items": [{}], "additionalItems": False}, [1, 2],
     {"keyword": "additionalItems", "instance_path": "", "schema_path": "#/additionalItems",
      "params": {"limit": 1}, "message": "should NOT have more than 1 items"}),
    ({"contains": {"type": "string"}}, [1],
     {"keyword": "contains", "instance_path": "", "schema_path": "#/contains",
      "params": {"minContains": 1}, "message": "should contain at least 1 valid item(s)"}),
    ({"dependencies": {"a": ["b", "c"]}}, {"a": 1, "b": 1},
     {"keyword": "dependencies", "instance_path": "", "schema_path": "#/dependencies",
      "params": {"property": "a", "missingProperty": "c", "depsCount": 2, "deps": "b, c"},
      "message": "should have properties b, c when property a is present"}),
    ({"dependencies": {"a": ["b"]}}, {"a": 1},
     {"keyword": "dependencies", "instance_path": "", "schema_path": "#/dependencies",
      "params": {"property": "a", "missingProperty": "b", "depsCount": 1, "deps": "b"},
      "message": "should have property b when property a is present"}),
    ({"not": {"type": "string"}}, "x", {"keyword": "not", "instance_path": "", "schema_path": "#/not",
                                        "params": {}, "message": "should NOT be valid"}),
    (False, 1, {"keyword": "false schema", "instance_path": "", "schema_path": "#/false schema",
                "params": {}, "message": "boolean schema is false"}),
]


@pytest.mark.parametrize("schema, data, expected", KEYWORD_CASES, ids=[str(c[2]["keyword"]) for c in KEYWORD_CASES])
def test_error_record_of_each_keyword(schema, data, expected):
    assert errors(schema, data, coerce_types=False) == [expected]


def test_anyof_lists_branch_errors_then_its_own():
    found = errors({"anyOf": [{"type": "string"}, {"minimum": 5}]}, 1, coerce_types=False)
    assert [(e["keyword"], e["schema_path"]) for e in found] == [
        ("type", "#/anyOf/0/type"), ("minimum", "#/anyOf/1/minimum"), ("anyOf", "#/anyOf")]
    assert found[-1]["message"] == "should match a schema in anyOf" and found[-1]["params"] == {}


def test_passing_anyof_leaves_no_errors():
    assert ok({"anyOf": [{"type": "string"}, {"minimum": 5}]}, 6, coerce_types=False) == 6


def test_oneof_records():
    found = errors({"oneOf": [{"type": "string"}, {"type": "boolean"}]}, 1, coerce_types=False)
    assert found[-1] == {"keyword": "oneOf", "instance_path": "", "schema_path": "#/oneOf",
                         "params": {"passingSchemas": None}, "message": "should match exactly one schema in oneOf"}
    assert [e["keyword"] for e in found] == ["type", "type", "oneOf"]
    found = errors({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 1, coerce_types=False)
    assert found == [{"keyword": "oneOf", "instance_path": "", "schema_path": "#/oneOf",
                      "params": {"passingSchemas": [0, 1]}, "message": "should match exactly one schema in oneOf"}]


def test_if_then_else_records():
    schema = {"if": {"type": "integer"}, "then": {"minimum": 10}, "else": {"type": "string"}}
    found = errors(schema, 3, coerce_types=False)
    assert [(e["keyword"], e["schema_path"], e["params"]) for e in found] == [
        ("minimum", "#/then/minimum", {"comparison": ">=", "limit": 10}),
        ("if", "#/if", {"failingKeyword": "then"})]
    assert found[-1]["message"] == 'should match "then" schema'
    found = errors(schema, [], coerce_types=False)
    assert found[-1]["params"] == {"failingKeyword": "else"} and found[-1]["message"] == 'should match "else" schema'
    assert ok(schema, 12, coerce_types=False) == 12


def test_property_names_records():
    found = errors({"propertyNames": {"maxLength": 2}}, {"abc": 1}, coerce_types=False)
    assert found[0]["keyword"] == "maxLength" and found[0]["property_name"] == "abc"
    assert found[1] == {"keyword": "propertyNames", "instance_path": "", "schema_path": "#/propertyNames",
                        "params": {"propertyName": "abc"}, "message": "property name should be valid"}


def test_instance_paths_escape_json_pointer():
    schema = {"properties": {"a/b": {"properties": {"c~d": {"type": "integer"}}}}}
    error = one_error(schema, {"a/b": {"c~d": "x"}})
    assert error["instance_path"] == "/a~1b/c~0d"
    assert error["schema_path"] == "#/properties/a~1b/properties/c~0d/type"


def test_paths_through_arrays_pattern_and_additional_properties():
    schema = {"properties": {"tags": {"items": {"type": "string"}}},
              "patternProperties": {"^x": {"type": "integer"}},
              "additionalProperties": {"type": "boolean"}}
    assert one_error(schema, {"tags": ["a", {}]})["instance_path"] == "/tags/1"
    error = one_error(schema, {"xa/": "q"})
    assert error["instance_path"] == "/xa~1" and error["schema_path"] == "#/patternProperties/^x/type"
    assert one_error(schema, {"zz": "q"})["instance_path"] == "/zz"


def test_schema_path_of_a_ref_is_the_ref():
    schema = {"definitions": {"pos": {"minimum": 0}}, "properties": {"n": {"$ref": "#/definitions/pos"}}}
    error = one_error(schema, {"n": -1})
    assert error["schema_path"] == "#/definitions/pos/minimum" and error["instance_path"] == "/n"


def test_all_errors_false_stops_at_first():
    schema = {"required": ["a", "b"], "properties": {"c": {"type": "integer"}}}
    found = errors(schema, {"c": "x"})
    assert len(found) == 1 and found[0]["params"] == {"missingProperty": "a"}


def test_all_errors_true_collects_everything():
    schema = {"required": ["a", "b"], "properties": {"c": {"type": "integer", "minimum": 5},
                                                      "d": {"items": {"type": "string"}}}}
    found = errors(schema, {"c": 1, "d": [1, "x", {}]}, all_errors=True, coerce_types=False)
    assert [(e["keyword"], e["instance_path"]) for e in found] == [
        ("required", ""), ("required", ""), ("minimum", "/c"), ("type", "/d/0"), ("type", "/d/2")]


def test_all_errors_with_composites():
    schema = {"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
                             "b": {"not": {"type": "integer"}}}}
    found = errors(schema, {"a": 1, "b": 2}, all_errors=True, coerce_types=False)
    assert [e["keyword"] for e in found] == ["type", "type", "anyOf", "not"]
    assert ok(schema, {"a": True, "b": "x"}, all_errors=True, coerce_types=False) == {"a": True, "b": "x"}


def test_format_errors():
    records = [{"instance_path": "", "message": "should have required property 'name'"},
               {"instance_path": "/limit", "message": "should be <= 100"}]
    assert format_errors(records[:1], "body") == "body should have required property 'name'"
    assert format_errors(records, "querystring") == (
        "querystring should have required property 'name', querystring/limit should be <= 100")


def test_enum_and_const_use_json_equality():
    assert ok({"enum": [1, "a"]}, 1.0, coerce_types=False) == 1.0
    errors({"enum": [1]}, True, coerce_types=False)
    errors({"const": False}, 0, coerce_types=False)
    assert ok({"const": {"a": [1, 2]}}, {"a": [1.0, 2]}, coerce_types=False)


def test_multiple_of_is_exact_for_decimals():
    assert ok({"multipleOf": 0.01}, 19.01) == 19.01
    errors({"multipleOf": 0.01}, 19.011)


def test_pattern_is_ecmascript():
    assert ok({"pattern": "^\\d+$"}, "123") == "123"
    errors({"pattern": "^\\d+$"}, "١٢٣")   # Arabic-Indic digits are not \d in JavaScript
    errors({"pattern": "^a$"}, "a\n")       # $ is the end of input
    with pytest.raises(SchemaCompileError):
        ValidatorEngine().compile({"pattern": "(unclosed"})


def test_ref_siblings_are_validated():
    schema = {"definitions": {"a": {"type": "array"}}, "properties": {"f": {"$ref": "#/definitions/a", "maxItems": 1}}}
    assert one_error(schema, {"f": [1, 2]}, coerce_types=False)["keyword"] == "maxItems"


def test_content_keywords_are_annotations():
    assert ok({"contentEncoding": "base64", "contentMediaType": "application/json"}, "%%%") == "%%%"


def test_unknown_keywords_are_ignored():
    assert ok({"type": "string", "example": "x", "x-anything": 1}, "s") == "s"


def test_deeply_nested_schema_compiles():
    schema: dict = {"type": "string"}
    data: object = "x"
    for _ in range(40):
        schema = {"type": "array", "items": {"anyOf": [{"type": "object", "properties": {"a": schema}}]}}
        data = [{"a": data}]
    assert ok(schema, data, coerce_types=False) == data
    bad = data
    inner = bad
    for _ in range(39):
        inner = inner[0]["a"]
    inner[0]["a"] = 5
    errors(schema, bad, coerce_types=False)


def test_root_value_replacement_is_returned():
    assert ok({"type": "array", "items": {"type": "integer"}}, "5") == [5]


def test_compile_schema_convenience():
    assert compile_schema({"type": "integer"}, coerce_types=False)(3) == 3


def test_input_schema_and_shared_are_not_mutated():
    import copy
    shared = {"http://x.test/s.json": {"$id": "http://x.test/s.json", "definitions": {"a": {"type": "integer"}},
                                       "properties": {"b": {"$ref": "#/definitions/a"}}}}
    schema = {"$id": "http://x.test/root.json", "properties": {"s": {"$ref": "s.json"},
                                                             "d": {"$ref": "#/definitions/x"}},
              "definitions": {"x": {"default": [1], "type": "array"}}}
    before = copy.deepcopy((schema, shared))
    validate = ValidatorEngine().compile(schema, shared)
    validate({"s": {"b": "1"}, "d": "2"})
    validate({})
    assert (schema, shared) == before


# ----------------------------------------------------------------------------- $ref and shared schemas

SHARED = {
    "commonSchema": {"$id": "commonSchema", "type": "object", "required": ["id"],
                     "properties": {"id": {"type": "integer"}, "name": {"$ref": "#/definitions/name"}},
                     "definitions": {"name": {"type": "string", "maxLength": 3},
                                     "tagged": {"$id": "#tagged", "type": "boolean"}}},
    "http://example.com/x.json": {"$id": "http://example.com/x.json",
                                  "definitions": {"pos": {"type": "integer", "minimum": 1}}},
}


@pytest.mark.parametrize("ref, good, bad, path", [
    ("commonSchema#", {"id": 1}, {"id": "x"}, "commonSchema#/properties/id/type"),
    ("commonSchema", {"id": 1}, {}, "commonSchema#/required"),
    ("commonSchema#/properties/id", 1, "x", "commonSchema#/properties/id/type"),
    ("commonSchema#/definitions/name", "abc", "abcd", "commonSchema#/definitions/name/maxLength"),
    ("commonSchema#tagged", True, "x", "commonSchema#tagged/type"),
    ("http://example.com/x.json#/definitions/pos", 3, 0, "http://example.com/x.json#/definitions/pos/minimum"),
])
def test_shared_ref_forms(ref, good, bad, path):
    schema = {"properties": {"v": {"$ref": ref}}}
    assert ok(schema, {"v": good}, SHARED, coerce_types=False) == {"v": good}
    error = one_error(schema, {"v": bad}, coerce_types=False, shared=SHARED)
    assert error["schema_path"] == path and error["instance_path"].startswith("/v")


def test_shared_ref_inside_shared_resolves_against_its_own_document():
    # The schema path of a $ref is the reference as written (Ajv's errSchemaPath), here
    # the one inside commonSchema; it resolves against commonSchema, not the route schema.
    schema = {"$ref": "commonSchema#", "definitions": {"name": {"type": "integer"}}}
    error = one_error(schema, {"id": 1, "name": "long"}, shared=SHARED)
    assert error["schema_path"] == "#/definitions/name/maxLength" and error["instance_path"] == "/name"


def test_local_ref_forms():
    schema = {"definitions": {"a": {"$id": "#anchor", "type": "integer"}, "b": {"type": "string"}},
              "properties": {"x": {"$ref": "#anchor"}, "y": {"$ref": "#/definitions/b"}, "z": {"$ref": "#"}}}
    assert ok(schema, {"x": 1, "y": "s", "z": {"x": 2}}, coerce_types=False)
    assert one_error(schema, {"z": {"x": "q"}}, coerce_types=False)["instance_path"] == "/z/x"


def test_recursive_ref():
    schema = {"type": "object", "properties": {"child": {"$ref": "#"}, "v": {"type": "integer"}}}
    deep = {"child": {"child": {"child": {"v": "x"}}}}
    assert one_error(schema, deep, coerce_types=False)["instance_path"] == "/child/child/child/v"


def test_shared_schema_with_id_inside_a_list():
    shared = {"lists": {"$id": "lists", "allOf": [{"$id": "http://example.com/in-list.json", "type": "string"}]}}
    assert ok({"$ref": "http://example.com/in-list.json"}, "x", shared) == "x"


def test_unresolvable_ref_is_raised_at_compile_time():
    engine = ValidatorEngine()
    for ref in ("#/definitions/missing", "nowhere#", "commonSchema#/properties/nope", "#nope",
                "http://example.com/other.json"):
        with pytest.raises(UnresolvableRefError) as caught:
            engine.compile({"properties": {"a": {"$ref": ref}}}, SHARED)
        assert caught.value.ref == ref


def test_no_network_for_any_scheme(monkeypatch):
    calls = []
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: calls.append(a) or pytest.fail("urlopen"))
    for ref in ("http://127.0.0.1:9/x.json", "https://example.com/s.json#", "file:///etc/passwd",
                "ftp://x/y", "custom:thing"):
        with pytest.raises(UnresolvableRefError):
            ValidatorEngine().compile({"$ref": ref})
    assert calls == []


def test_identical_schemas_compile_once():
    engine = ValidatorEngine()
    first = engine.compile({"type": "object", "properties": {"a": {"type": "integer"}}})
    second = engine.compile({"properties": {"a": {"type": "integer"}}, "type": "object"})
    assert first is second


def test_cache_distinguishes_shared_schemas():
    engine = ValidatorEngine({"coerce_types": False})
    schema = {"$ref": "s#"}
    integer = engine.compile(schema, {"s": {"$id": "s", "type": "integer"}})
    string = engine.compile(schema, {"s": {"$id": "s", "type": "string"}})
    assert integer(1) == 1 and string("x") == "x"
    with pytest.raises(SchemaValidationFailure):
        integer("x")


# ----------------------------------------------------------------------------- plugins API

def test_plugins_are_called_in_order_with_options():
    calls = []
    ValidatorEngine(plugins=[lambda engine, opts: calls.append(("a", opts)),
                             (lambda engine, opts: calls.append(("b", opts)), {"x": 1})])
    assert calls == [("a", {}), ("b", {"x": 1})]


def test_plugin_exception_propagates():
    def broken(engine, opts):
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        ValidatorEngine(plugins=[broken])


def test_plugins_read_options():
    seen = {}
    ValidatorEngine({"all_errors": True}, plugins=[lambda engine, opts: seen.update(engine.options)])
    assert seen["all_errors"] is True


def test_add_keyword():
    def even(data, value, parent):
        return not isinstance(data, int) or (data % 2 == 0) == value
    engine = ValidatorEngine({"coerce_types": False}, plugins=[lambda e, o: e.add_keyword("even", even)])
    validate = engine.compile({"properties": {"n": {"type": "integer", "even": True}}})
    assert validate({"n": 2}) == {"n": 2}
    with pytest.raises(SchemaValidationFailure) as caught:
        validate({"n": 3})
    assert caught.value.errors == [{"keyword": "even", "instance_path": "/n", "schema_path": "#/properties/n/even",
                                    "params": {}, "message": 'should pass "even" keyword validation'}]


def test_add_keyword_receives_value_and_parent_schema():
    seen = []
    engine = ValidatorEngine()
    engine.add_keyword("x-check", lambda data, value, parent: seen.append((data, value, parent)) or True)
    schema = {"type": "string", "x-check": {"k": 1}}
    engine.compile(schema)("s")
    assert seen == [("s", {"k": 1}, schema)]


def test_add_keyword_without_validate_is_an_annotation():
    engine = ValidatorEngine()
    engine.add_keyword("errorMessage")
    assert engine.compile({"type": "string", "errorMessage": "nope"})("s") == "s"


def test_add_transform_applies_to_schema_and_shared_in_order():
    engine = ValidatorEngine({"coerce_types": False})
    order = []

    def strict_strings(schema, shared):
        order.append("first")
        if isinstance(schema, dict) and schema.get("type") == "string":
            schema["minLength"] = 2
        for sub in (schema.get("properties") or {}).values():
            strict_strings(sub, shared)
        return schema

    def second(schema, shared):
        order.append("second")
        return schema
    engine.add_transform(strict_strings)
    engine.add_transform(second)
    shared = {"s": {"$id": "s", "type": "string"}}
    original = {"properties": {"a": {"type": "string"}, "b": {"$ref": "s#"}}}
    validate = engine.compile(original, shared)
    assert order.index("first") < order.index("second")
    assert validate({"a": "xx", "b": "yy"})
    for bad in ({"a": "x"}, {"b": "y"}):
        with pytest.raises(SchemaValidationFailure):
            validate(bad)
    assert original == {"properties": {"a": {"type": "string"}, "b": {"$ref": "s#"}}}
    assert shared == {"s": {"$id": "s", "type": "string"}}


def test_add_error_processor():
    engine = ValidatorEngine()
    seen = []

    def shout(errors, schema):
        seen.append(schema)
        return [dict(e, message=e["message"].upper()) for e in errors]
    engine.add_error_processor(shout)
    engine.add_error_processor(lambda errors, schema: errors + [{"keyword": "extra", "instance_path": "",
                                                                 "schema_path": "#", "params": {}, "message": "x"}])
    schema = {"required": ["a"]}
    with pytest.raises(SchemaValidationFailure) as caught:
        engine.compile(schema)({})
    assert [e["message"] for e in caught.value.errors] == ["SHOULD HAVE REQUIRED PROPERTY 'A'", "x"]
    assert seen == [schema]


# ----------------------------------------------------------------------------- fastjsonschema bugs that must not bite

def test_refs_whose_names_collapse_to_the_same_identifier_stay_distinct():
    # fastjsonschema names a $ref's function after its URI with non-alphanumerics replaced,
    # so "#/definitions/a-b" and "#/definitions/a_b" would share one function.
    schema = {"definitions": {"a-b": {"type": "integer"}, "a_b": {"type": "string"}, "a.b": {"type": "boolean"}},
              "properties": {"x": {"$ref": "#/definitions/a-b"}, "y": {"$ref": "#/definitions/a_b"},
                             "z": {"$ref": "#/definitions/a.b"}}}
    assert ok(schema, {"x": 1, "y": "s", "z": True}, coerce_types=False)
    for bad in ({"x": "s"}, {"y": 1}, {"z": 1}):
        errors(schema, bad, coerce_types=False)


def test_properties_whose_names_collapse_to_the_same_identifier_stay_distinct():
    schema = {"properties": {"a-b": {"type": "integer"}, "ab": {"type": "string"}, "a b": {"type": "boolean"}}}
    assert ok(schema, {"a-b": 1, "ab": "s", "a b": False}, coerce_types=False)
    assert one_error(schema, {"a-b": "s"}, coerce_types=False)["instance_path"] == "/a-b"


def test_schemas_with_the_same_id_do_not_share_a_store():
    engine = ValidatorEngine({"coerce_types": False})
    first = engine.compile({"$id": "http://x.test/same.json", "definitions": {"v": {"type": "integer"}},
                            "$ref": "#/definitions/v"})
    second = engine.compile({"$id": "http://x.test/same.json", "definitions": {"v": {"type": "string"}},
                             "$ref": "#/definitions/v"})
    assert first(1) == 1 and second("s") == "s"
    with pytest.raises(SchemaValidationFailure):
        first("s")
    with pytest.raises(SchemaValidationFailure):
        second(1)


def test_relative_refs_under_an_id_are_not_rewritten_in_the_input():
    schema = {"$id": "http://x.test/root.json", "properties": {"a": {"$ref": "#/definitions/a"}},
              "definitions": {"a": {"type": "integer"}}}
    ValidatorEngine().compile(schema)
    assert schema["properties"]["a"]["$ref"] == "#/definitions/a"


# ----------------------------------------------------------------------------- more paths

def test_dependencies_schema_form_record():
    error = one_error({"dependencies": {"a": {"required": ["b"]}}}, {"a": 1}, coerce_types=False)
    assert error["schema_path"] == "#/dependencies/a/required" and error["params"] == {"missingProperty": "b"}


def test_additional_items_schema_and_false_items():
    schema = {"items": [{"type": "integer"}], "additionalItems": {"type": "string"}}
    error = one_error(schema, [1, "a", 2], coerce_types=False)
    assert error["instance_path"] == "/2" and error["schema_path"] == "#/additionalItems/type"
    error = one_error({"items": False}, [1], coerce_types=False)
    assert error["instance_path"] == "/0" and error["schema_path"] == "#/items/false schema"
    assert ok({"items": False}, [], coerce_types=False) == []


def test_boolean_subschemas_in_contains_and_property_names():
    assert errors({"contains": False}, [], coerce_types=False)[-1]["keyword"] == "contains"
    assert ok({"propertyNames": False}, {}, coerce_types=False) == {}
    assert errors({"propertyNames": False}, {"a": 1}, coerce_types=False)[-1]["params"] == {"propertyName": "a"}


def test_remove_all_keeps_pattern_properties_and_ignores_non_objects():
    schema = {"properties": {"a": {}}, "patternProperties": {"^x": {}}}
    assert ok(schema, {"a": 1, "x1": 2, "b": 3}, remove_additional="all") == {"a": 1, "x1": 2}
    assert ok(schema, [1, 2], remove_additional="all") == [1, 2]


def test_all_errors_property_names_reports_each_bad_key():
    found = errors({"propertyNames": {"pattern": "^[a-z]+$"}}, {"A": 1, "ok": 2, "B": 3},
                   all_errors=True, coerce_types=False)
    assert [e["params"].get("propertyName") for e in found if e["keyword"] == "propertyNames"] == ["A", "B"]


def test_all_errors_if_then_else_and_one_of():
    schema = {"if": {"type": "integer"}, "then": {"minimum": 10, "multipleOf": 3}}
    found = errors(schema, 4, all_errors=True, coerce_types=False)
    assert [e["keyword"] for e in found] == ["minimum", "multipleOf", "if"]
    found = errors({"oneOf": [{"minimum": 0}, {"maximum": 10}]}, 5, all_errors=True, coerce_types=False)
    assert found[-1]["params"] == {"passingSchemas": [0, 1]}


def test_non_finite_and_bad_keyword_values_are_compile_errors():
    for schema in ({"maxLength": -1}, {"minimum": "1"}, {"multipleOf": 0}, {"type": "text"},
                   {"required": "a"}, {"enum": "a"}, {"properties": {"a": 1}}, 5):
        with pytest.raises(SchemaCompileError):
            ValidatorEngine().compile(schema)


def test_shared_schema_with_a_relative_id_resolves_its_own_local_refs():
    shared = {"folder/item.json": {"$id": "folder/item.json", "definitions": {"n": {"type": "integer"}},
                                   "properties": {"n": {"$ref": "#/definitions/n"}}}}
    schema = {"definitions": {"n": {"type": "string"}}, "properties": {"item": {"$ref": "folder/item.json"}}}
    assert ok(schema, {"item": {"n": 1}}, shared, coerce_types=False)
    assert one_error(schema, {"item": {"n": "x"}}, coerce_types=False, shared=shared)["instance_path"] == "/item/n"


# --------------------------------------------------------------------------- generated source

def test_compile_source_reads_like_the_schema():
    engine = ValidatorEngine()
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}},
              "definitions": {"n": {"type": "integer"}}, "required": ["name"]}
    source = engine.compile_source(schema)
    assert source.startswith("# Generated by framework.validation.ValidatorEngine.")
    assert "def validate(data, path, errors):" in source
    assert "# '#/properties/name'" in source
    assert "# '#/properties/name/maxLength'" in source
    assert engine.compile(schema).source == source


def test_traceback_through_a_validator_shows_generated_lines():
    import traceback

    def explode(value, keyword_value, parent):
        raise RuntimeError("boom")

    engine = ValidatorEngine()
    engine.add_keyword("explode", explode)
    validate = engine.compile({"type": "object", "properties": {"a": {"type": "integer", "explode": True}}})
    with pytest.raises(RuntimeError) as caught:
        validate({"a": 1})
    text = "".join(traceback.format_exception(caught.value))
    assert "File \"<validator " in text
    assert "if not _keyword" in text  # the generated line itself, from linecache


def test_same_shape_schemas_share_code_but_not_their_comments():
    engine = ValidatorEngine()
    first = engine.compile({"type": "object", "properties": {"alpha": {"type": "integer", "maximum": 1}}})
    second = engine.compile({"type": "object", "properties": {"beta": {"type": "integer", "maximum": 2}}})
    assert first.root.__code__.co_code == second.root.__code__.co_code
    assert first.root.__code__.co_filename != second.root.__code__.co_filename
    assert "'#/properties/alpha'" in first.source and "'#/properties/beta'" in second.source
    with pytest.raises(SchemaValidationFailure):
        second({"beta": 3})
