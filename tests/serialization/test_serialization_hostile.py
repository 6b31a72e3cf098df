"""Schema text never becomes code: hostile property names, patterns, defaults and constants.

Each hostile string, were it spliced into the generated source raw, would break out of
a string literal, a comment or an f-string and create a marker file. The tests check
that every schema compiles, the output parses to the right value, the marker is never
created, and the generated source only names identifiers the generator itself writes.
"""
from __future__ import annotations

import ast
import builtins
import enum
import json
import re

import pytest

from framework.schemas.codegen import generated_source
from framework.serialization import (SchemaCompileError, SerializationError, SerializerGenerator,
                                     compile_serializer, compile_source)


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "pwned"
    yield path
    assert not path.exists(), "schema text was executed"


def hostile_strings(marker) -> list[str]:
    touch = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    return [
        'quote"inside', "tick'inside", "back\\slash", "trail\\", "new\nline", "cr\rlf", "tab\tz",
        "nul\x00byte", "\x1f", "\u2028sep", "é€😀", "lone\ud800surrogate",
        f'"); {touch} #', f"'); {touch} #", f"\n{touch}\n", f"\\n{touch}", f"'''{touch}'''",
        f'"""{touch}"""', "{}", "{{}}", "{0}", "{v}", f"{{{touch}}}", "%s", "%(x)s", "%%",
        f"}}{{{touch}}}{{", "# comment", "\\x41\\u0041\\N{BULLET}", "__import__", "_c0", "_U", "v", "p0",
        "x" * 100_000,
    ]


# Identifiers the generator writes itself: its locals, its functions, its namespace.
LOCALS = re.compile(r"^([prn]\d*|v|x|k|e|out|data|shaped|_(obj|arr|types|any|if)_\d+)$")
BUILTINS = {"type", "isinstance", "len", "dict", "list", "tuple", "str", "int", "float", "bool",
            "KeyError", "TypeError", "RecursionError", "OverflowError", "UnicodeEncodeError", "True", "False", "None"}


def assert_only_generated_names(source: str) -> None:
    namespace = SerializerGenerator({}).namespace
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            assert (LOCALS.match(node.id) or node.id in BUILTINS or node.id in namespace
                    or re.match(r"^_c\d+$", node.id)), f"unexpected name {node.id[:80]!r} in generated code"
        elif isinstance(node, ast.Attribute):
            assert node.attr in ("get", "items", "append", "extend", "is_integer", "decode"), node.attr[:80]


def test_hostile_property_names(marker):
    names = hostile_strings(marker)
    schema = {"type": "object", "properties": {name: {"type": "string"} for name in names},
              "required": names[:5]}
    data = {name: f"value of {name[:20]}" for name in names}
    data["password"] = "hunter2"
    source = compile_source(schema)
    assert_only_generated_names(source)
    out = compile_serializer(schema)(data)
    assert json.loads(out) == {name: data[name] for name in names}
    # the general path (a coerced value) too
    data[names[0]] = 5
    assert json.loads(compile_serializer(schema)(data))[names[0]] == "5"


@pytest.mark.parametrize("index", range(len(hostile_strings("m"))))
def test_hostile_name_required_message(marker, index):
    name = hostile_strings(marker)[index]
    schema = {"type": "object", "properties": {name: {"type": "integer"}, "other": {"type": "integer"}},
              "required": [name]}
    with pytest.raises(SerializationError) as info:
        compile_serializer(schema)({"other": 1})
    assert str(info.value) == json.dumps(name, ensure_ascii=False) + " is required!"


def test_hostile_defaults_consts_and_enums(marker):
    names = hostile_strings(marker)
    schema = {"type": "object", "properties": {
        f"d{i}": {"type": "string", "default": name} for i, name in enumerate(names)}}
    schema["properties"]["const"] = {"const": {name: name for name in names[:10]}}
    schema["properties"]["enum"] = {"type": "string", "enum": names}
    source = compile_source(schema)
    assert_only_generated_names(source)
    out = json.loads(compile_serializer(schema)({"const": 1, "enum": names[3]}))
    assert out == {**{f"d{i}": name for i, name in enumerate(names)},
                   "const": {name: name for name in names[:10]}, "enum": names[3]}


def test_hostile_pattern_properties(marker):
    names = hostile_strings(marker)
    patterns = {"^" + re.escape(name) + "$": {"type": "integer"} for name in names}
    patterns["{}"] = {"type": "string"}  # a valid regex that matches the literal "{}"
    schema = {"type": "object", "properties": {}, "patternProperties": patterns}
    data = {name: "7" for name in names}
    source = compile_source(schema)
    assert_only_generated_names(source)
    out = json.loads(compile_serializer(schema)(data))
    # "{}" is one of the names: its exact pattern comes first, so the string pattern loses
    expected = {name: 7 for name in names}
    assert out == expected


def test_invalid_pattern_is_a_compile_error_not_code(marker):
    touch = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    with pytest.raises(SchemaCompileError, match="invalid patternProperties pattern"):
        compile_serializer({"type": "object", "patternProperties": {f'"); {touch} #(': {}}})


def test_hostile_names_in_refs_any_of_and_paths(marker):
    names = [name for name in hostile_strings(marker) if "/" not in name and "~" not in name and "%" not in name]
    definitions = {name: {"type": "integer"} for name in names}
    properties = {name: {"$ref": "#/definitions/" + name} for name in names}
    schema = {"definitions": definitions, "anyOf": [
        {"type": "object", "properties": properties, "required": names[:3]},
        {"type": "object", "properties": {names[-2]: {"const": names[-1]}}},
    ]}
    source = compile_source(schema)
    assert_only_generated_names(source)
    serialize = compile_serializer(schema)
    assert json.loads(serialize({name: "1" for name in names})) == {name: 1 for name in names}
    assert json.loads(serialize({names[-2]: names[-1]})) == {names[-2]: names[-1]}


def test_hostile_additional_property_keys(marker):
    names = hostile_strings(marker)
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    data = {name: 1 for name in names}
    assert json.loads(compile_serializer(schema)(data)) == {name: "1" for name in names}


def test_generated_source_has_no_schema_text_outside_literals(marker):
    touch = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    name = f"a\n{touch}\n#"
    source = compile_source({"type": "object", "properties": {name: {"type": "string", "default": name}}})
    for line in source.splitlines():
        assert not line.lstrip().startswith("__import__"), line
    # and executing the serializer does not run it
    assert json.loads(compile_serializer({"type": "object", "properties": {name: {}}})({name: 1})) == {name: 1}


def test_builtins_untouched():
    before = dict(vars(builtins))
    compile_serializer({"type": "object", "properties": {"__builtins__": {"type": "string"}}})({"__builtins__": 1})
    assert dict(vars(builtins)).keys() == before.keys()


def test_hostile_default_and_const_reach_the_code_through_the_constants_table():
    hostile = "x'); import os; os._exit(1); ('"
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": hostile},
                                               "b": {"const": {"$ref": hostile}}}}
    serialize = compile_serializer(schema)
    assert hostile not in generated_source(serialize).replace(repr(hostile), "")
    assert json.loads(serialize({"b": 1})) == {"a": hostile, "b": {"$ref": hostile}}
    # compiled through framework.schemas.codegen: its own file name, its lines in linecache
    assert serialize.__code__.co_filename.startswith("<serializer ")


def test_hostile_names_in_if_then_else(marker):
    names = hostile_strings(marker)
    schema = {"type": "object",
              "if": {"properties": {names[0]: {"const": names[1]}}, "required": [names[0]],
                     "patternProperties": {"^" + re.escape(names[2]) + "$": {"type": "string"}}},
              "then": {"properties": {name: {"type": "integer" if name != names[0] else "string"}
                                      for name in names},
                       "required": names[:2]},
              "else": {"properties": {name: {"type": "string", "default": name} for name in names}}}
    source = compile_source(schema)
    assert_only_generated_names(source)
    serialize = compile_serializer(schema)
    matching = {name: "3" for name in names}
    matching[names[0]] = names[1]
    out = json.loads(serialize(matching))
    assert out[names[1]] == 3 and out[names[0]] == names[1] and set(out) == set(names)
    assert json.loads(serialize({})) == {name: name for name in names}


class _Field(str, enum.Enum):
    """A property name whose own repr() (``<_Field.NAME: ...>``) is not a Python literal."""

    NAME = "x'y\n\"\"\" __import__('os')"


def test_property_name_of_a_str_subclass_is_written_as_a_plain_literal(marker):
    schema = {"type": "object", "properties": {_Field.NAME: {"type": "integer"}, "tag": {"const": _Field.NAME}}}
    assert_only_generated_names(compile_source(schema))
    serialize = compile_serializer(schema)
    assert json.loads(serialize({_Field.NAME.value: 2, "tag": 0})) == {_Field.NAME.value: 2, "tag": _Field.NAME.value}
    assert json.loads(serialize({_Field.NAME.value: "3"})) == {_Field.NAME.value: 3}
