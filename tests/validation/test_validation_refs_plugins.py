"""Unit tests of the validation engine: ``$ref`` and shared schemas, the plugin API
(keywords, transforms, error processors), fastjsonschema's bugs avoided, and the generated
source."""
from __future__ import annotations

import urllib.request

import pytest

from framework.errors import SchemaValidationFailure
from framework.schemas.codegen import generated_source
from framework.schemas.store import UnresolvableRefError
from framework.validation import ValidatorEngine

from engine_support import errors, ok, one_error


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
    assert generated_source(engine.compile(schema).generated) == source


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
    assert "'#/properties/alpha'" in generated_source(first.generated)
    assert "'#/properties/beta'" in generated_source(second.generated)
    with pytest.raises(SchemaValidationFailure):
        second({"beta": 3})


def test_shared_schema_with_a_relative_id_resolves_its_own_local_refs():
    shared = {"folder/item.json": {"$id": "folder/item.json", "definitions": {"n": {"type": "integer"}},
                                   "properties": {"n": {"$ref": "#/definitions/n"}}}}
    schema = {"definitions": {"n": {"type": "string"}}, "properties": {"item": {"$ref": "folder/item.json"}}}
    assert ok(schema, {"item": {"n": 1}}, shared, coerce_types=False)
    assert one_error(schema, {"item": {"n": "x"}}, coerce_types=False, shared=shared)["instance_path"] == "/item/n"
