"""Hostile schemas: names, patterns, defaults and enum values that would break or hijack
generated code if it embedded them raw. Each compiles, validates correctly, and runs nothing.
"""
from __future__ import annotations

import ast
import builtins
import enum
import pathlib

import pytest

from framework.schemas.codegen import Constants, Emitter, comment, literal
from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine

TOUCHED = {"flag": False}


def payloads(sentinel: pathlib.Path) -> list[str]:
    code = f"__import__('pathlib').Path({str(sentinel)!r}).touch()"
    return [
        'quo"te', "apo'strophe", "back\\slash", "\\", "\\'", '\\"', "new\nline", "cr\rlf", "tab\t",
        "nul\x00byte", "{", "}", "{}", "{variable}", "{0}", "{name}", "%s", "$ref", "#", "/", "~", "~1",
        '"); ' + code + " #",
        "'); " + code + " #",
        "']; " + code + "; x = d['",
        '"]; ' + code + '; x = d["',
        "\n" + code + "\n",
        "\"\"\"\n" + code + "\n\"\"\"",
        "''' + " + code + " + '''",
        "\\n" + code,
        "é ünïcødé ✓ 😀",
        "\u2028\u2029",
        "__import__('tests.validation.test_validation_hostile').test_validation_hostile.TOUCHED.update(flag=True)",
    ]


@pytest.fixture
def sentinel(tmp_path: pathlib.Path) -> pathlib.Path:
    return tmp_path / "sentinel"


@pytest.fixture(autouse=True)
def _nothing_executed(sentinel: pathlib.Path):
    TOUCHED["flag"] = False
    builtin_names = set(vars(builtins))
    yield
    assert not sentinel.exists(), "schema text was executed"
    assert TOUCHED["flag"] is False, "schema text was executed"
    assert set(vars(builtins)) == builtin_names


def engine(**options) -> ValidatorEngine:
    return ValidatorEngine(options)


def test_hostile_property_names(sentinel):
    for name in payloads(sentinel):
        schema = {"type": "object", "required": [name],
                  "properties": {name: {"type": "integer", "minimum": 1}}, "additionalProperties": False}
        validate = engine(all_errors=True).compile(schema)
        assert validate({name: "5", "extra": 1}) == {name: 5}
        with pytest.raises(SchemaValidationFailure) as caught:
            validate({})
        assert caught.value.errors[0]["params"] == {"missingProperty": name}
        assert caught.value.errors[0]["message"] == f"should have required property '{name}'"
        with pytest.raises(SchemaValidationFailure) as caught:
            validate({name: 0})
        pointer = name.replace("~", "~0").replace("/", "~1")
        assert caught.value.errors[0]["instance_path"] == "/" + pointer
        assert caught.value.errors[0]["schema_path"] == f"#/properties/{pointer}/minimum"


def test_hostile_names_in_every_name_position(sentinel):
    for name in payloads(sentinel):
        schema = {
            "definitions": {name: {"type": "string", "enum": [name, "x"], "default": name}},
            "properties": {
                "ref": {"$ref": "#/definitions/" + name.replace("~", "~0").replace("/", "~1")
                        .replace("%", "%25").replace("#", "%23")},
                "deps": {"dependencies": {name: [name + "2"]}},
                "names": {"propertyNames": {"not": {"const": name}}},
                "tuple": {"type": "array", "items": [{"default": name}, {"const": name}]},
                "nested": {"type": "object", "properties": {name: {"default": {name: [name]}}}},
            },
        }
        validate = engine(remove_additional=False).compile(schema)
        data = {"ref": name, "deps": {"a": 1}, "names": {"ok": 1}, "tuple": [], "nested": {}}
        result = validate(data)
        assert result["tuple"] == [name]
        assert result["nested"] == {name: {name: [name]}}
        for bad in ({"ref": "other"}, {"deps": {name: 1}}, {"names": {name: 1}}, {"tuple": ["a", "b"]}):
            with pytest.raises(SchemaValidationFailure):
                validate(bad)


def test_huge_property_name():
    name = "n" * 100_000 + '"); raise SystemExit("x") #'
    schema = {"type": "object", "required": [name], "properties": {name: {"type": "string", "maxLength": 3}}}
    validate = engine().compile(schema)
    assert validate({name: "abc"}) == {name: "abc"}
    with pytest.raises(SchemaValidationFailure) as caught:
        validate({name: "abcd"})
    assert caught.value.errors[0]["instance_path"] == "/" + name
    with pytest.raises(SchemaValidationFailure):
        validate({})


def test_hostile_patterns(sentinel):
    patterns = ['^a"b$', "^a'b$", '"""', "'''", "\\\\", "^[\"']+$", "^\\{x\\}$", "a{0}b"]
    for pattern in patterns:
        validate = engine().compile({"type": "string", "pattern": pattern})
        error = None
        try:
            validate("zzz")
        except SchemaValidationFailure as failure:
            error = failure.errors[0]
        assert error is not None and error["params"] == {"pattern": pattern}
        assert error["message"] == f'should match pattern "{pattern}"'
    assert engine().compile({"pattern": '^a"b$'})('a"b') == 'a"b'
    assert engine().compile({"pattern": "^[\"']+$"})("\"'") == "\"'"
    for name in payloads(sentinel):
        schema = {"patternProperties": {"^" + name.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                                        .replace("[", "\\[").replace("]", "\\]").replace("{", "\\{")
                                        .replace("}", "\\}").replace("$", "\\$").replace(".", "\\.")
                                        .replace("+", "\\+").replace("*", "\\*").replace("?", "\\?")
                                        .replace("|", "\\|").replace("^", "\\^") + "$": {"type": "integer"}},
                  "additionalProperties": False}
        validate = engine(coerce_types=False, remove_additional=False).compile(schema)
        assert validate({name: 1}) == {name: 1}
        with pytest.raises(SchemaValidationFailure):
            validate({name: "x"})


def test_hostile_defaults_and_enums(sentinel):
    for text in payloads(sentinel):
        schema = {"properties": {"a": {"default": text}, "b": {"default": [text, {text: text}]},
                                 "c": {"enum": [text, 1, None]}, "d": {"const": {text: [text]}}}}
        validate = engine(coerce_types=False).compile(schema)
        result = validate({"c": text, "d": {text: [text]}})
        assert result == {"a": text, "b": [text, {text: text}], "c": text, "d": {text: [text]}}
        with pytest.raises(SchemaValidationFailure) as caught:
            validate({"c": text + "x"})
        assert caught.value.errors[0]["params"] == {"allowedValues": [text, 1, None]}


def test_hostile_keyword_values_and_ids(sentinel):
    for text in payloads(sentinel):
        schema = {"$id": "http://example.com/" + text.encode("unicode_escape").decode("ascii").replace(" ", "%20")
                  .replace('"', "%22").replace("#", "%23"),
                  "title": text, "description": text, "$comment": text, "examples": [text],
                  "x-unknown": {text: text}, "type": "object"}
        try:
            validate = engine().compile(schema)
        except ValueError:
            continue
        assert validate({}) == {}


def test_hostile_format_and_keyword_names(sentinel):
    for text in payloads(sentinel):
        eng = engine()
        eng.add_format(text, lambda value: value == "ok")
        eng.add_keyword(text + "kw", lambda data, value, parent: data != "bad")
        validate = eng.compile({"type": "string", "format": text, text + "kw": True})
        assert validate("ok") == "ok"
        with pytest.raises(SchemaValidationFailure) as caught:
            validate("nope")
        assert caught.value.errors[0]["message"] == f'should match format "{text}"'


def test_hostile_shared_schema_ids(sentinel):
    for text in payloads(sentinel):
        schema_id = "urn:" + "".join(c if c.isalnum() else "_" for c in text) + ":x"
        shared = {schema_id: {"$id": schema_id, "type": "object", "properties": {text: {"type": "integer"}}}}
        validate = engine(coerce_types=False).compile({"$ref": schema_id + "#"}, shared)
        assert validate({text: 1}) == {text: 1}
        with pytest.raises(SchemaValidationFailure):
            validate({text: "1"})


# --------------------------------------------------------------------------- the shared emitter
# Names, patterns, defaults and paths reach generated code through framework.schemas.codegen:
# the constants table or repr()-quoted comments. The source stays one valid module whose
# code (comments aside) holds no schema text.

HOSTILE = [
    "x'); import os; os._exit(1); ('",
    'x"""; raise SystemExit; """',
    "a\nimport os\nos._exit(1)",
    "{data}{path}{errors}",
    "\\",
    "# not a comment",
    "\u2028\u2029\x00",
    "__import__('os').system('false')",
]


def _code_lines(source):
    """The generated source without its comments (what the interpreter runs)."""
    return [line.split("  # ")[0] for line in source.splitlines() if not line.lstrip().startswith("#")]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_property_names_patterns_and_defaults_stay_data(name):
    engine = ValidatorEngine()
    schema = {"type": "object", "required": [name],
              "properties": {name: {"type": "string", "pattern": "^[\\s\\S]", "default": name,
                                    "enum": [name, "y"]}},
              "patternProperties": {"x'\\); import os; \\('|^never$": {"type": "string"}},
              "dependencies": {name: [name]},
              "definitions": {name: {"const": name}}}
    source = engine.compile_source(schema)
    ast.parse(source)  # still one valid module
    code = "\n".join(_code_lines(source))
    assert name not in code or name in ("\\",)
    validate = engine.compile(schema)
    assert validate({name: name}) == {name: name}
    with pytest.raises(SchemaValidationFailure) as caught:
        validate({name: "zz"})
    assert caught.value.errors[0]["instance_path"].startswith("/")


@pytest.mark.parametrize("text", HOSTILE)
def test_comment_cannot_leave_its_line(text):
    emitter = Emitter()
    with emitter.line("if True:", comment(text)):
        emitter.line("x = 1", comment(text))
    source = emitter.source(comment(text) + "\n")
    namespace = {}
    exec(compile(source, "<test>", "exec"), namespace)  # noqa: S102 - the test's own module
    assert namespace["x"] == 1
    assert len(source.splitlines()) == 3


def test_constants_bind_values_by_name_and_identity():
    namespace = {}
    table = Constants(namespace)
    value = {"$ref": "'); import os; ('"}
    name = table.name(value, "err")
    assert name.startswith("_err") and name.isidentifier()
    assert namespace[name] is value
    assert table.name(value) == name
    assert table.name(dict(value)) != name  # equal but another object: its own name


def test_hostile_format_and_keyword_names_are_inert():
    engine = ValidatorEngine()
    name = "x'); import os; ('"
    engine.add_format(name, lambda value: value == "ok")
    engine.add_keyword(name + "k", lambda data, value, parent: data != "bad")
    validate = engine.compile({"type": "string", "format": name, name + "k": True})
    assert validate("ok") == "ok"
    with pytest.raises(SchemaValidationFailure):
        validate("nope")
    assert name not in "\n".join(_code_lines(engine.compile_source({"type": "string", "format": name})))


class _Field(str, enum.Enum):
    """A property name whose own repr() (``<_Field.NAME: "x'y">``) is not a Python literal."""

    NAME = "x'y\n\"\"\" __import__('os')"


def test_property_name_of_a_str_subclass_is_written_as_a_plain_literal():
    engine = ValidatorEngine()
    schema = {"type": "object", "required": [_Field.NAME],
              "properties": {_Field.NAME: {"type": "integer", "maximum": 3, "default": 1}}}
    validate = engine.compile(schema)
    assert validate({_Field.NAME.value: "2"}) == {_Field.NAME.value: 2}
    with pytest.raises(SchemaValidationFailure) as caught:
        validate({_Field.NAME.value: 4})
    assert caught.value.errors[0]["keyword"] == "maximum"


def test_literal_is_a_plain_repr_or_nothing():
    assert [eval(literal(value)) for value in ("a'\"\n\\", 3, -2.5, True, None, _Field.NAME)] == [  # noqa: S307
        "a'\"\n\\", 3, -2.5, True, None, _Field.NAME.value]
    assert literal(_Field.NAME) == repr(_Field.NAME.value)
    assert [literal(value) for value in (float("inf"), float("nan"), 10 ** 5000, [1], (1,), {"a": 1})] == [None] * 6
    table = Constants({})
    assert table.source("x") == "'x'" and table.source([1]).startswith("_c")
