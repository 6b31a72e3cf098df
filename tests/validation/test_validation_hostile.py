"""Hostile schemas: schema text never becomes generated code.

Names, patterns, defaults and paths reach the validator's generated module through the
constants table or ``repr()``-quoted comments (:mod:`framework.codegen`); a schema whose
strings look like Python must validate as data and leave the source inert.
"""
import ast

import pytest

from framework.codegen import Constants, Emitter, comment
from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine

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
