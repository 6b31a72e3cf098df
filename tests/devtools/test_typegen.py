"""``framework.devtools.typegen``: TypedDicts from JSON Schemas, form by form.

Each form is checked on the generated module itself (executed): the classes'
``__required_keys__``/``__optional_keys__`` and resolved annotations, and the aliases'
values. Hostile schemas, the type checkers' verdict on the output, the sources and
``python -m framework typegen`` are in ``test_typegen_checked.py``.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import typing
from typing import Any, Literal

import pytest
import typing_extensions

from framework.devtools.typegen import TypegenError, typegen

from schema_fixtures import NESTED_RELATIVE_IDS
from typegen_support import COMMON, generate, hints, load


# --------------------------------------------------------------------------- objects

def test_object_with_properties_is_a_class_with_required_and_optional_keys():
    source = typegen([{"$id": "item", "type": "object", "required": ["id", "name"],
                       "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                      "price": {"type": "number"}, "sold": {"type": "boolean"}}}])
    assert "class Item(TypedDict):\n    id: int\n    name: str\n    price: NotRequired[float]\n" in source
    item = load(source).Item
    assert typing_extensions.is_typeddict(item)
    assert item.__required_keys__ == {"id", "name"}
    assert item.__optional_keys__ == {"price", "sold"}
    assert hints(item) == {"id": int, "name": str, "price": float, "sold": bool}
    typing_module = typing if sys.version_info >= (3, 11) else importlib.import_module("typing_extensions")
    assert item.__annotations__["id"] is int and item.__annotations__["price"] == typing_module.NotRequired[float]


def test_all_keys_required_needs_neither_not_required_nor_typing_extensions():
    source = typegen([{"$id": "p", "type": "object", "required": ["x"], "properties": {"x": {"type": "number"}}}])
    assert "NotRequired" not in source and "typing_extensions" not in source and "import sys" not in source
    assert "from typing import TypedDict\n" in source
    assert load(source).P.__required_keys__ == {"x"}


def test_a_required_key_without_a_property_is_any_and_properties_without_type_make_an_object():
    module = generate({"$id": "loose", "required": ["a", "b"], "properties": {"a": {"type": "string"}}})
    assert hints(module.Loose) == {"a": str, "b": Any}
    assert module.Loose.__required_keys__ == {"a", "b"}


@pytest.mark.parametrize("key", ["a-b", "class", "None", "__private", "naïve", "with space", "int", "Other",
                                 "TypedDict", "1st"])
def test_keys_that_are_not_plain_identifiers_use_the_functional_form(key):
    source = typegen([{"$id": "weird", "type": "object", "required": [key],
                       "properties": {key: {"type": "integer"}, "plain": {"type": "string"}}},
                      {"$id": "other", "type": "string"}])
    assert f"Weird = TypedDict('Weird', {{\n    {key!r}: int,\n    'plain': NotRequired[str],\n}})" in source
    weird = load(source).Weird
    assert weird.__required_keys__ == {key} and weird.__optional_keys__ == {"plain"}
    assert hints(weird) == {key: int, "plain": str}


def test_plain_keys_keep_the_class_form_even_when_soft_keywords_or_private():
    module = generate({"$id": "soft", "type": "object",
                       "properties": {"type": {"type": "string"}, "match": {"type": "string"}, "_id": {"type": "integer"}}})
    assert hints(module.Soft) == {"type": str, "match": str, "_id": int}


def test_nested_objects_become_classes_named_after_their_parent_and_key():
    module = generate({"$id": "user", "type": "object", "required": ["address"], "properties": {
        "address": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
        "pets": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "titled": {"title": "Geo point", "type": "object", "properties": {"lat": {"type": "number"}}},
    }})
    assert hints(module.User) == {"address": module.UserAddress, "pets": list[module.UserPetsItem],
                                  "titled": module.GeoPoint}
    assert module.UserAddress.__required_keys__ == {"city"}


def test_object_without_properties_is_a_dict():
    module = generate(
        {"$id": "counts", "type": "object", "additionalProperties": {"type": "integer"}},
        {"$id": "anything", "type": "object"},
        {"$id": "closed", "type": "object", "additionalProperties": False},
        {"$id": "patterns", "type": "object", "patternProperties": {"^x-": {"type": "string"}},
         "additionalProperties": {"type": "integer"}},
        {"$id": "open-patterns", "type": "object", "patternProperties": {"^x-": {"type": "string"}}},
        {"$id": "nested", "additionalProperties": {"type": "array", "items": {"type": "boolean"}}},
    )
    assert module.Counts == dict[str, int]
    assert module.Anything == dict[str, Any]
    assert module.Closed == dict[str, Any]
    assert module.Patterns == dict[str, str | int]
    assert module.OpenPatterns == dict[str, Any]
    assert module.Nested == dict[str, list[bool]]


# --------------------------------------------------------------------------- scalars, unions, literals

def test_scalar_types():
    module = generate(*({"$id": name, "type": name} for name in ("string", "integer", "number", "boolean", "null")))
    assert (module.String, module.Integer, module.Number, module.Boolean, module.Null) == (str, int, float, bool, None)


def test_type_lists_any_of_one_of_and_nullable_are_unions():
    module = generate(
        {"$id": "multi", "type": ["string", "integer", "null"]},
        {"$id": "any-of", "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer"}}]},
        {"$id": "one-of", "oneOf": [{"type": "number"}, {"type": "boolean"}], "nullable": True},
        {"$id": "nullable", "type": "string", "nullable": True},
        {"$id": "untyped-branch", "type": "string", "anyOf": [{"minLength": 1}, {"format": "email"}]},
    )
    assert module.Multi == str | int | None
    assert module.AnyOf == str | list[int]
    assert module.OneOf == float | bool | None
    assert module.Nullable == str | None
    assert module.UntypedBranch is str   # branches that say nothing about the type: the node's own type


def test_enum_and_const_are_literals():
    module = generate(
        {"$id": "color", "enum": ["red", "green", 3, True, None]},
        {"$id": "version", "const": 2},
        {"$id": "mixed", "enum": ["a", 1.5, {"x": 1}, [1]]},
        {"$id": "typed-enum", "type": "string", "enum": ["on", "off"]},
    )
    assert module.Color == Literal["red", "green", 3, True] | None
    assert module.Version == Literal[2]
    assert module.Mixed == Literal["a"] | float | dict[str, Any] | list[Any]
    assert module.TypedEnum == Literal["on", "off"]


def test_arrays_and_tuples():
    module = generate(
        {"$id": "tags", "type": "array", "items": {"type": "string"}},
        {"$id": "bare", "type": "array"},
        {"$id": "pair", "type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
        {"$id": "open-tuple", "type": "array", "items": [{"type": "string"}, {"type": "integer"}],
         "additionalItems": {"type": "boolean"}},
        {"$id": "untyped-rest", "type": "array", "items": [{"type": "string"}]},
        {"$id": "bounded", "type": "array", "items": [{"type": "string"}, {"type": "integer"}], "maxItems": 2},
    )
    assert module.Tags == list[str]
    assert module.Bare == list[Any]
    assert module.Pair == tuple[str, int]
    assert module.OpenTuple == list[str | int | bool]
    assert module.UntypedRest == list[Any]
    assert module.Bounded == tuple[str, int]


def test_anything_else_is_any():
    module = generate({"$id": "negated", "not": {"type": "string"}}, {"$id": "conditional", "if": {"type": "string"}},
                      {"$id": "empty"})
    assert module.Negated is Any and module.Conditional is Any and module.Empty is Any


# --------------------------------------------------------------------------- $ref

def test_refs_to_ids_to_definitions_of_other_schemas_and_to_local_definitions():
    module = generate(COMMON, {
        "$id": "http://example.com/order.json", "type": "object",
        "properties": {
            "id": {"$ref": "common.json#/definitions/id"},
            "ship_to": {"$ref": "http://example.com/common.json#/definitions/address"},
            "customer": {"$ref": "customer.json"},
            "lines": {"type": "array", "items": {"$ref": "#/definitions/line"}},
            "note": {"$ref": "#/definitions/note", "nullable": True},
        },
        "definitions": {"line": {"type": "object", "properties": {"sku": {"type": "string"}}},
                        "note": {"type": "string"}},
    }, {"$id": "http://example.com/customer.json", "type": "object", "properties": {"name": {"type": "string"}}})
    assert hints(module.Order) == {"id": int, "ship_to": module.Address, "customer": module.Customer,
                                   "lines": list[module.Line], "note": str | None}
    assert module.Id is int and module.Note is str
    source = typegen([COMMON])
    assert "class Address(TypedDict)" in source and "Id: TypeAlias = int" in source
    assert "Common" not in source   # a schema holding only definitions is not a type of its own


def test_nested_relative_ids_resolve_as_the_validator_resolves_them():
    module = generate(NESTED_RELATIVE_IDS)
    assert hints(module.Item) == {"a": int, "b": str}
    assert module.Item.__required_keys__ == {"a"}


def test_recursive_and_mutually_recursive_schemas():
    source = typegen([
        {"$id": "node", "type": "object", "required": ["value"], "properties": {
            "value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "node"}},
            "parent": {"$ref": "#", "nullable": True}}},
        {"$id": "a", "type": "object", "properties": {"b": {"$ref": "b"}}},
        {"$id": "b", "type": "object", "properties": {"a": {"$ref": "a"}}},
        {"$id": "tree", "type": "array", "items": {"$ref": "tree"}},
        {"$id": "loop", "$ref": "loop"},
    ])
    assert "    children: NotRequired['list[Node]']\n    parent: NotRequired['Node | None']\n" in source
    assert "Tree: TypeAlias = 'list[Tree]'" in source
    module = load(source)
    assert hints(module.Node) == {"value": int, "children": list[module.Node], "parent": module.Node | None}
    assert hints(module.A) == {"b": module.B} and hints(module.B) == {"a": module.A}
    assert module.Loop is Any   # a reference to nothing but itself


def test_nullable_object_references_carry_none():
    module = generate({"$id": "maybe", "type": ["object", "null"], "properties": {"next": {"$ref": "maybe"}}},
                      {"$id": "holder", "type": "object", "properties": {"m": {"$ref": "maybe"}}})
    assert hints(module.Maybe) == {"next": module.Maybe | None}
    assert hints(module.Holder) == {"m": module.Maybe | None}


def test_all_of_objects_are_merged():
    module = generate(COMMON, {
        "$id": "shipment", "description": "An address with a tracking number.",
        "allOf": [{"$ref": "http://example.com/common.json#/definitions/address"},
                  {"type": "object", "required": ["tracking", "zip"], "properties": {
                      "tracking": {"type": "string"}, "city": {"description": "untyped here"}}}],
        "properties": {"zip": {"type": "string"}},
    }, {"$id": "not-objects", "allOf": [{"type": "string"}, {"maxLength": 3}]})
    shipment = module.Shipment
    assert hints(shipment) == {"city": str, "tracking": str, "zip": str}
    assert shipment.__required_keys__ == {"city", "tracking", "zip"}
    assert shipment.__doc__ == "An address with a tracking number."
    assert module.NotObjects is str


class RoundTripAddress(typing_extensions.TypedDict):
    """Where."""
    city: str
    zip: typing_extensions.NotRequired[str | None]


class RoundTripUser(typing_extensions.TypedDict):
    name: str
    tags: list[str]
    role: Literal["admin", "user"]
    address: RoundTripAddress
    point: tuple[float, int]
    scores: dict[str, int]
    friends: typing_extensions.NotRequired[list[RoundTripUser]]


def test_schemas_derived_from_python_types_come_back_as_those_types():
    """framework.schemas.typeschema's schema_of, then typegen: the same keys, required keys and types
    (schema_of's top-level ``$ref`` to its own definitions is not a type of its own)."""
    from framework.schemas.typeschema import schema_of
    User = RoundTripUser
    module = load(typegen({"user": schema_of(User)}))
    generated = module.RoundTripUser   # the definition's name: schema_of names it after the class
    # (User's own __required_keys__ cannot be used: this file's string annotations hide NotRequired)
    assert generated.__required_keys__ == {"name", "tags", "role", "address", "point", "scores"}
    assert generated.__optional_keys__ == {"friends"}
    assert hints(generated) == {"name": str, "tags": list[str], "role": Literal["admin", "user"],
                                "address": module.RoundTripUserAddress, "point": tuple[float, int],
                                "scores": dict[str, int], "friends": list[generated]}
    assert hints(module.RoundTripUserAddress) == {"city": str, "zip": str | None}
    assert module.RoundTripUserAddress.__required_keys__ == {"city"} and module.RoundTripUserAddress.__doc__ == "Where."
    assert [name for name in vars(module) if not name.startswith("_") and isinstance(vars(module)[name], type)
            and typing_extensions.is_typeddict(vars(module)[name])] == ["RoundTripUserAddress", "RoundTripUser"]


def test_unresolvable_refs_duplicate_ids_and_non_objects_are_errors():
    with pytest.raises(TypegenError, match="can't resolve \\$ref 'missing#'"):
        typegen([{"$id": "x", "type": "object", "properties": {"a": {"$ref": "missing#"}}}])
    with pytest.raises(TypegenError, match="same \\$id"):
        typegen({"a.json": {"$id": "x"}, "b.json": {"$id": "x"}})
    with pytest.raises(TypegenError, match="not a JSON object"):
        typegen({"a": ["not", "a", "schema"]})  # type: ignore[dict-item]


# --------------------------------------------------------------------------- names, docs, output

def test_names_from_title_then_id_then_file_name_made_unique():
    source = typegen({
        "file:///s/first-file.json": {"title": "user profile", "type": "string"},
        "file:///s/second.json": {"$id": "http://example.com/schemas/user-profile.json", "type": "string"},
        "file:///s/third_one.json": {"type": "string"},
        "file:///s/4.json": {"title": "None", "type": "string"},
        "file:///s/any.json": {"type": "string"},
        "file:///s/é.json": {"type": "string"},
    })
    names = [line.split(":")[0] for line in source.splitlines() if ": TypeAlias" in line]
    assert names == ["UserProfile", "UserProfile2", "ThirdOne", "NoneType", "AnyType", "E"]


def test_unnamed_schemas_of_an_iterable():
    source = typegen([{"type": "string"}, {"type": "integer"}])
    assert "Schema1: TypeAlias = str\n" in source and "Schema2: TypeAlias = int\n" in source
    assert "#   'schema-1'\n#   'schema-2'\n" in source


def test_title_and_description_become_docstrings_and_comments():
    source = typegen([{"$id": "pet", "title": "A pet", "description": "Kept at home.", "type": "object",
                       "properties": {"name": {"type": "string", "description": "What it answers to"}}},
                      {"$id": "size", "title": "Size", "description": "In cm.", "type": "integer"},
                      {"$id": "box", "type": "object", "properties": {
                          "inner": {"description": "Said once.", "type": "object", "properties": {"a": {"type": "string"}}},
                          "size": {"$ref": "size", "description": "Of the box."}}}])
    assert "class APet(TypedDict):\n    'A pet\\n\\nKept at home.'\n    # 'What it answers to'\n    name: " in source
    assert "Size: TypeAlias = int\n'In cm.'\n" in source
    assert "class BoxInner(TypedDict):\n    'Said once.'\n" in source and source.count("Said once.") == 1
    assert "    # 'Of the box.'\n    size: NotRequired[Size]\n" in source
    assert load(source).APet.__doc__ == "A pet\n\nKept at home."


def test_docstring_example():
    import doctest
    import framework.devtools.typegen
    result = doctest.testmod(framework.devtools.typegen)
    assert result.attempted and not result.failed


def test_output_is_deterministic_formatted_and_says_what_it_came_from():
    schemas = [COMMON, {"$id": "http://example.com/order", "type": "object",
                        "properties": {"to": {"$ref": "common.json#/definitions/address"}}}]
    first = typegen(schemas, sources=["schemas/"])
    assert first == typegen(json.loads(json.dumps(schemas)), sources=["schemas/"])
    assert first.startswith("# Generated by framework.typegen (python -m framework typegen) from:\n"
                            "#   'schemas/'\n# Do not edit: change the schemas and generate it again.\n\n")
    assert first.endswith("\n") and not first.endswith("\n\n")
    assert "\n\n\nclass Address(TypedDict):" in first and "\n\n\n\n" not in first
    compile(first, "generated", "exec")
    assert typegen([]) == ("# Generated by framework.typegen (python -m framework typegen) from no schema.\n"
                           "# Do not edit: change the schemas and generate it again.\n")
