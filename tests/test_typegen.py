"""``framework.devtools.typegen`` / ``python -m framework typegen``: TypedDicts from JSON Schemas.

Each form is checked on the generated module itself (executed): the classes'
``__required_keys__``/``__optional_keys__`` and resolved annotations, and the aliases'
values. The output of a realistic set and of a hostile one is type-checked with
``mypy --strict`` (and pyright, strict, when it is installed), next to code that uses
the types correctly and code that does not.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import itertools
import json
import os
import pathlib
import subprocess
import sys
import types
import typing
from typing import Any, Literal

import pytest
import typing_extensions

import framework
from conftest import SUPPORT_PATH
from framework import Framework
from framework.serving.cli import load_app, main
from framework.devtools.typegen import TypegenError, app_schemas, load_sources, typegen

_modules = itertools.count(1)


def load(source: str) -> types.ModuleType:
    """Execute generated source as a module (registered, so get_type_hints finds its globals)."""
    module = types.ModuleType(f"typegen_generated_{next(_modules)}")
    sys.modules[module.__name__] = module
    # dont_inherit: this file's ``from __future__ import annotations`` must not apply.
    exec(compile(source, module.__name__, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
    return module


def generate(*schemas: dict[str, Any]) -> types.ModuleType:
    return load(typegen(list(schemas)))


def hints(cls: Any) -> dict[str, Any]:
    return typing_extensions.get_type_hints(cls)


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

COMMON = {"$id": "http://example.com/common.json", "definitions": {
    "address": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
    "id": {"type": "integer", "minimum": 1},
}}


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
    from test_schema_refs import ROOT
    module = generate(ROOT)
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


# --------------------------------------------------------------------------- hostile schemas

EVIL = "x'\"\n\"\"\"__import__('os').system('echo pwned')#\\ é\u202e\ud800\x00"
EVIL_ID = EVIL.replace("#", "")   # a "#" in an $id would make it an anchor


def hostile_schemas() -> dict[str, Any]:
    return {
        EVIL: {"$id": EVIL_ID, "title": EVIL, "description": EVIL, "type": "object", "required": [EVIL, "class"],
               "properties": {
                   EVIL: {"enum": [EVIL, '"""', "'''", "\\", -1], "description": EVIL},
                   "class": {"$ref": "#/definitions/" + EVIL.replace("~", "~0").replace("/", "~1")},
                   "__import__('os')": {"const": EVIL},
                   "x\nimport os": {"type": "object", "title": "None", "properties": {
                       "int": {"type": "integer"}, "x": {"type": "integer"}}}},
               "definitions": {EVIL: {"title": '"""', "description": '"""\nimport os\n"""', "enum": ["\\", "\x00"]}}},
        "__import__('os').json": {"title": "True", "type": "object", "properties": {"self": {"$ref": EVIL_ID + "#"}}},
    }


#: The names generated code may use (besides its own definitions).
TYPE_NAMES = {"Any", "Literal", "NotRequired", "TypedDict", "TypeAlias", "str", "int", "float", "bool",
              "list", "dict", "tuple", "None"}


def check_type_expression(node: ast.expr, names: set[str]) -> None:
    """A type expression: names, subscripts, ``|``, constants (a string one parsed as a type too)."""
    if isinstance(node, ast.Name):
        assert node.id in names, node.id
    elif isinstance(node, ast.Subscript):
        check_type_expression(node.value, names)
        if isinstance(node.value, ast.Name) and node.value.id == "Literal":
            elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for element in elements:
                value = element.operand if isinstance(element, ast.UnaryOp) and isinstance(element.op, ast.USub) else element
                assert isinstance(value, ast.Constant), ast.dump(element)
            return
        for element in node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]:
            check_type_expression(element, names)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        check_type_expression(node.left, names)
        check_type_expression(node.right, names)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        check_type_expression(ast.parse(node.value, mode="eval").body, names)
    else:
        assert isinstance(node, ast.Constant) and node.value is None, ast.dump(node)


def check_generated_module(source: str) -> set[str]:
    """Only imports, classes of fields, TypedDict calls, aliases and docstrings: nothing runs.
    Returns the names defined."""
    tree = ast.parse(source)
    defined = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    defined |= {target.id for node in tree.body if isinstance(node, ast.Assign) for target in node.targets
                if isinstance(target, ast.Name)}
    defined |= {node.target.id for node in tree.body if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    names = TYPE_NAMES | defined
    for node in tree.body:
        if isinstance(node, ast.Import):
            assert [alias.name for alias in node.names] == ["sys"]
        elif isinstance(node, ast.ImportFrom):
            assert node.module == "typing" and all(alias.asname is None for alias in node.names)
        elif isinstance(node, ast.If):
            assert ast.unparse(node.test) == "sys.version_info >= (3, 11)"
            for branch, module in ((node.body, "typing"), (node.orelse, "typing_extensions")):
                assert [ast.unparse(statement) for statement in branch] == [
                    f"from {module} import NotRequired, TypedDict"]
        elif isinstance(node, ast.ClassDef):
            assert [ast.unparse(base) for base in node.bases] == ["TypedDict"]
            assert not node.keywords and not node.decorator_list
            for index, statement in enumerate(node.body):
                if isinstance(statement, ast.Expr):
                    assert index == 0 and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)
                else:
                    assert isinstance(statement, ast.AnnAssign) and statement.value is None, ast.dump(statement)
                    assert isinstance(statement.target, ast.Name)
                    check_type_expression(statement.annotation, names)
        elif isinstance(node, ast.Assign):
            call = node.value
            assert isinstance(call, ast.Call) and ast.unparse(call.func) == "TypedDict" and not call.keywords
            assert len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            name, fields = call.args
            assert isinstance(name, ast.Constant) and name.value == node.targets[0].id
            assert isinstance(fields, ast.Dict)
            for key, value in zip(fields.keys, fields.values):
                assert isinstance(key, ast.Constant) and isinstance(key.value, str)
                check_type_expression(value, names)
        elif isinstance(node, ast.AnnAssign):
            assert ast.unparse(node.annotation) == "TypeAlias" and node.value is not None
            check_type_expression(node.value, names)
        else:
            assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            assert isinstance(node.value.value, str)
    return defined


def test_hostile_schemas_give_valid_inert_python(monkeypatch):
    source = typegen(hostile_schemas(), sources=[EVIL])
    for line in source.splitlines():   # no schema text can start a line of its own
        assert line.isprintable() or line == "", repr(line)
        assert "\ud800" not in line and "\u202e" not in line and "\x00" not in line
    defined = check_generated_module(source)
    assert defined == {"XImportOsSystemEchoPwnedE", "XImportOsSystemEchoPwnedE2", "NoneType", "TrueType"}
    imported = []
    real_import = builtins.__import__

    def recording_import(name, globals=None, *args, **kwargs):
        if (globals or {}).get("__name__", "").startswith("typegen_generated_"):
            imported.append(name)
        return real_import(name, globals, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", recording_import)
    module = load(source)
    monkeypatch.setattr(builtins, "__import__", real_import)
    assert imported and set(imported) <= {"sys", "typing", "typing_extensions"}
    evil = module.XImportOsSystemEchoPwnedE
    assert evil.__required_keys__ == {EVIL, "class"}
    assert hints(evil) == {EVIL: Literal[EVIL, '"""', "'''", "\\", -1], "class": Literal["\\", "\x00"],
                           "__import__('os')": Literal[EVIL], "x\nimport os": module.NoneType}
    assert evil.__doc__ is None and module.XImportOsSystemEchoPwnedE2 == Literal["\\", "\x00"]
    assert hints(module.NoneType) == {"int": int, "x": int}
    assert hints(module.TrueType) == {"self": evil}
    header = source.splitlines()[1]
    assert header == "#   " + repr(EVIL)


def test_python_values_are_written_as_the_plain_json_values_they_stand_for():
    import enum

    class Color(str, enum.Enum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    class Sneaky(str):
        def __repr__(self):
            return "__import__('os').system('echo pwned')"

        def __str__(self):
            return "__import__('os')"

    source = typegen({Sneaky("python"): {"$id": Sneaky("python"), "type": "object", "title": Sneaky("T"),
                                 "properties": {Sneaky("k"): {"enum": [Color.RED, Level.HIGH, Sneaky("s"), (1, 2)]}},
                                 "required": (Sneaky("k"),)}}, sources=[Sneaky("s")])
    assert "system" not in source and "<" not in source
    check_generated_module(source)
    module = load(source)
    assert hints(module.T) == {"k": Literal["red", 3, "s"] | list[Any]}
    assert module.T.__required_keys__ == {"k"}


# --------------------------------------------------------------------------- type checkers

REALISTIC = [
    COMMON,
    {"$id": "http://example.com/customer.json", "title": "Customer", "type": "object", "required": ["id", "name"],
     "properties": {"id": {"$ref": "common.json#/definitions/id"}, "name": {"type": "string"},
                    "email": {"type": "string", "format": "email", "nullable": True},
                    "addresses": {"type": "array", "items": {"$ref": "common.json#/definitions/address"}},
                    "tier": {"enum": ["free", "pro"]}, "x-data": {"type": "object"}}},
    {"$id": "http://example.com/order.json", "type": "object", "required": ["id", "lines", "status"],
     "properties": {"id": {"type": "integer"}, "customer": {"$ref": "customer.json"},
                    "status": {"enum": ["open", "paid", "shipped"]},
                    "lines": {"type": "array", "minItems": 1, "items": {
                        "type": "object", "required": ["sku", "quantity"],
                        "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"},
                                       "price": {"type": ["number", "string"]}}}},
                    "position": {"type": "array", "items": [{"type": "number"}, {"type": "number"}],
                                 "additionalItems": False},
                    "related": {"type": "array", "items": {"$ref": "#"}},
                    "meta": {"type": "object", "additionalProperties": {"type": "string"}}}},
    {"$id": "category", "type": "object", "required": ["name"],
     "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "category"}}}},
    {"$id": "tree", "anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "tree"}}]},
]

USES = """\
from realistic import Address, Category, Customer, Order, OrderLinesItem, Tree
from hostile import TrueType, XImportOsSystemEchoPwnedE


def total(order: Order) -> float:
    lines: list[OrderLinesItem] = order["lines"]
    return float(sum(line["quantity"] for line in lines))


def city(customer: Customer) -> str | None:
    addresses: list[Address] = customer.get("addresses", [])
    return addresses[0]["city"] if addresses else customer.get("email")


order: Order = {"id": 1, "status": "paid", "lines": [{"sku": "a", "quantity": 2}], "position": (1.0, 2.5),
                "related": [{"id": 2, "status": "open", "lines": []}]}
category: Category = {"name": "root", "children": [{"name": "leaf"}]}
tree: Tree = ["a", ["b", []]]
evil: XImportOsSystemEchoPwnedE = {"class": "\\\\", %(evil)r: -1}
true: TrueType = {"self": evil}
"""

MISTAKES = """\
from realistic import Customer, Order

wrong_key: Customer = {"id": 1, "nme": "typo"}
wrong_status: Order = {"id": 1, "status": "lost", "lines": []}
wrong_type: Order = {"id": "1", "status": "open", "lines": []}


def name(customer: Customer) -> int:
    return customer["name"]
"""


def write_checked_files(tmp_path):
    (tmp_path / "realistic.py").write_text(typegen(REALISTIC), encoding="utf-8")
    (tmp_path / "hostile.py").write_text(typegen(hostile_schemas(), sources=[EVIL]), encoding="utf-8")
    (tmp_path / "uses.py").write_text(USES % {"evil": EVIL}, encoding="utf-8")
    (tmp_path / "mistakes.py").write_text(MISTAKES, encoding="utf-8")
    return ["realistic.py", "hostile.py", "uses.py", "mistakes.py"]


def mistakes_reported(output: str) -> list[int]:
    return sorted({int(line.split(":")[1]) for line in output.splitlines() if "mistakes.py:" in line and "error" in line})


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (pip install mypy)")
@pytest.mark.parametrize("version", ["3.10", "3.12"])
def test_generated_modules_pass_mypy_strict(tmp_path, version):
    files = write_checked_files(tmp_path)
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--python-version", version,
                             "--cache-dir", str(tmp_path / ".mypy_cache"), "--config-file", "", *files],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert errors and all(line.startswith("mistakes.py:") for line in errors), result.stdout + result.stderr
    assert mistakes_reported(result.stdout) == [3, 4, 5, 9], result.stdout


@pytest.mark.skipif(importlib.util.find_spec("pyright") is None, reason="pyright is not installed (pip install pyright)")
def test_generated_modules_pass_pyright_strict(tmp_path):
    files = write_checked_files(tmp_path)
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.10"}))
    result = subprocess.run([sys.executable, "-m", "pyright", "--pythonpath", sys.executable, *files],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    errors = [line for line in result.stdout.splitlines() if " - error:" in line]
    if not errors and result.returncode != 1:
        pytest.skip(f"pyright did not run: {result.stdout[-500:]} {result.stderr[-500:]}")
    assert all("mistakes.py:" in line for line in errors), result.stdout
    assert sorted({int(line.split("mistakes.py:")[1].split(":")[0]) for line in errors}) == [3, 4, 5, 9], result.stdout


# --------------------------------------------------------------------------- sources and the CLI

def write_schemas(directory, schemas):
    directory.mkdir(exist_ok=True)
    for name, schema in schemas.items():
        (directory / name).write_text(json.dumps(schema), encoding="utf-8")


def environment(**variables: str) -> dict[str, str]:
    """The environment of a ``python -m framework`` run outside the checkout: the same
    ``framework`` as the tests' (the source tree, or the installed package under tox)."""
    package_parent = str(pathlib.Path(framework.__file__).resolve().parent.parent)
    path = os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, **variables)


def test_files_and_directories(tmp_path):
    write_schemas(tmp_path / "schemas", {
        "b-user.json": {"type": "object", "properties": {"address": {"$ref": "a-address.json"}}},
        "a-address.json": {"type": "object", "properties": {"city": {"type": "string"}}},
        "notes.txt": "ignored",
    })
    (tmp_path / "schemas" / "sub").mkdir()
    write_schemas(tmp_path / "schemas" / "sub", {"deeper.json": {"type": "string"}})
    documents = load_sources([str(tmp_path / "schemas")])
    assert list(documents) == [(tmp_path / "schemas" / name).resolve().as_uri() for name in ("a-address.json", "b-user.json")]
    module = load(typegen(documents))
    assert hints(module.BUser) == {"address": module.AAddress}
    single = load_sources([str(tmp_path / "schemas" / "sub" / "deeper.json")])
    assert list(single.values()) == [{"type": "string"}]


def test_source_errors(tmp_path):
    (tmp_path / "bad.json").write_text("{nope")
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "empty").mkdir()
    for source, message in ((tmp_path / "bad.json", "Expecting property name"), (tmp_path / "list.json", "JSON object"),
                            (tmp_path / "empty", "no \\*.json file"), (tmp_path / "missing.json", "neither a file")):
        with pytest.raises(TypegenError, match=message):
            load_sources([str(source)])
    with pytest.raises(TypegenError, match="needs load_app"):
        load_sources(["examples.app:app"])
    assert "item" in load_sources(["examples.app:create_app"], load_app)


def test_cli_on_files_and_a_directory(tmp_path):
    write_schemas(tmp_path / "schemas", {"item.json": {"$id": "item", "type": "object", "required": ["id"],
                                                       "properties": {"id": {"type": "integer"}, "tags": {"$ref": "tags"}}},
                                         "tags.json": {"$id": "tags", "type": "array", "items": {"type": "string"}}})
    write_schemas(tmp_path, {"extra.json": {"title": "Extra", "type": "object", "properties": {"item": {"$ref": "item"}}}})
    result = subprocess.run([sys.executable, "-m", "framework", "typegen", "schemas", "extra.json"],
                            capture_output=True, cwd=tmp_path, timeout=60, env=environment())
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode("utf-8")
    assert "#   'schemas'\n#   'extra.json'\n" in text
    module = load(text)
    assert hints(module.Item) == {"id": int, "tags": list[str]}
    assert hints(module.Extra) == {"item": module.Item}
    output = tmp_path / "types.py"
    assert main(["typegen", str(tmp_path / "schemas"), "--output", str(output)]) == 0
    assert load(output.read_text(encoding="utf-8")).Tags == list[str]


def test_cli_writes_utf8_and_reports_errors(tmp_path, capsys):
    write_schemas(tmp_path, {"s.json": {"title": "Café", "type": "string", "enum": ["thé"]}})
    result = subprocess.run([sys.executable, "-m", "framework", "typegen", "s.json"], capture_output=True,
                            cwd=tmp_path, timeout=60, env=environment(PYTHONIOENCODING="ascii", LC_ALL="C"))
    assert result.returncode == 0, result.stderr
    assert "Cafe: TypeAlias = Literal['thé']\n'Café'\n" in result.stdout.decode("utf-8")
    assert main(["typegen", str(tmp_path / "nothing-here")]) == 1
    assert "error: " in capsys.readouterr().err
    (tmp_path / "broken.json").write_text('{"$ref": "nowhere#"}')
    assert main(["typegen", str(tmp_path / "broken.json")]) == 1
    assert "can't resolve $ref 'nowhere#'" in capsys.readouterr().err


def test_cli_on_the_example_app():
    """The example app declares its shared schemas in an encapsulated plugin: the app is
    readied, and every context's schemas are used."""
    result = subprocess.run([sys.executable, "-m", "framework", "typegen", "examples.app:app"],
                            capture_output=True, cwd=SUPPORT_PATH, timeout=60)
    assert result.returncode == 0, result.stderr
    module = load(result.stdout.decode("utf-8"))
    assert hints(module.ItemInput) == {"name": str, "price": float, "tags": list[str]}
    assert module.ItemInput.__required_keys__ == {"name", "price"}
    assert hints(module.Item) == {"id": int, "name": str, "price": float, "tags": list[str]}
    assert module.Error.__optional_keys__ == {"statusCode", "code", "error", "message"}


def test_app_schemas_gathers_every_context_and_refuses_conflicting_ids():
    app = Framework()
    app.add_schema({"$id": "shared", "type": "string"})

    def one(instance, opts):
        instance.add_schema({"$id": "one", "type": "integer"})

    def two(instance, opts):
        instance.add_schema({"$id": "two", "type": "object", "properties": {"s": {"$ref": "shared"}}})
    app.register(one)
    app.register(two)
    app.ready()
    assert list(app_schemas(app)) == ["shared", "one", "two"]
    assert hints(load(typegen(app_schemas(app))).Two) == {"s": str}

    conflicting = Framework()
    for number in (1, 2):
        conflicting.register(lambda instance, opts, number=number: instance.add_schema(
            {"$id": "same", "type": "integer", "maximum": number}))
    conflicting.ready()
    with pytest.raises(TypegenError, match="different schemas with the \\$id 'same'"):
        app_schemas(conflicting)
