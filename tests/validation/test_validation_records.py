"""Unit tests of the validation engine: formats, and the error records each keyword makes
(keyword, paths, params, message; first error or all errors)."""
from __future__ import annotations

import re

import pytest

from framework.errors import SchemaValidationFailure
from framework.validation import SchemaCompileError, ValidatorEngine, compile_schema, format_errors

from engine_support import errors, ok, one_error


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
