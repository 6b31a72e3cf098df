"""Issue 11, item 6: ``\\p{...}`` in ``pattern``/``patternProperties``, through routes.

Before: a compile error at ``ready()``. Now such a pattern is checked against ECMA-262's
property tables and compiled with the ``regex`` package; other patterns stay with ``re``.
"""
from __future__ import annotations

import re

import pytest

from framework import Framework
from framework.errors import SchemaCompileError
from framework.validation import ValidatorEngine
from framework.validation.ecma_regex import compile_pattern


def echo(request, reply):
    return {"body": request.body}


def post(schema, body):
    app = Framework()
    app.post("/x", {"schema": {"body": schema}}, echo)
    return app.inject(method="POST", url="/x", json=body)


NAME = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^\\p{L}+$"}}}


@pytest.mark.parametrize("name, ok", [("Zoë", True), ("Ελένη", True), ("李", True), ("Zoë1", False),
                                      ("a b", False), ("", False)])
def test_letters_only_name(name, ok):
    response = post(NAME, {"name": name})
    assert (response.status_code == 200) is ok
    if not ok:
        assert response.json()["message"] == 'body/name should match pattern "^\\p{L}+$"'


@pytest.mark.parametrize("pattern, good, bad", [
    ("^\\p{Script=Greek}+$", "αβγ", "abc"),
    ("^\\p{sc=Grek}+$", "αβγ", "abc"),
    ("^\\P{L}+$", "123 !", "a1"),
    ("^[\\p{Lu}\\d]+$", "AB12", "Ab"),
    ("^\\p{General_Category=Decimal_Number}+$", "১২", "x"),
    ("^\\p{Lowercase_Letter}$", "é", "É"),
])
def test_property_forms(pattern, good, bad):
    schema = {"type": "object", "properties": {"v": {"type": "string", "pattern": pattern}}}
    assert post(schema, {"v": good}).status_code == 200
    assert post(schema, {"v": bad}).status_code == 400


def test_pattern_properties_with_a_property_escape():
    schema = {"type": "object", "patternProperties": {"^\\p{Lu}": {"type": "integer"}},
              "additionalProperties": False}
    response = post(schema, {"Ä": "1", "x": 2})
    assert response.status_code == 200 and response.json()["body"] == {"Ä": 1}


def test_an_unknown_property_name_fails_ready():
    app = Framework()
    app.post("/x", {"schema": {"body": {"type": "string", "pattern": "\\p{Letterz}"}}}, echo)
    with pytest.raises(Exception, match="Letterz"):
        app.ready()


def test_a_loose_name_the_regex_package_would_take_is_refused():
    # regex accepts "\p{letter}" (loose matching); ECMA-262 does not.
    with pytest.raises(SchemaCompileError):
        ValidatorEngine().compile({"type": "string", "pattern": "\\p{letter}"})


def test_only_property_patterns_use_the_regex_package():
    assert isinstance(compile_pattern("^[a-z]+$"), re.Pattern)
    assert not isinstance(compile_pattern("^\\p{L}+$"), re.Pattern)
    assert isinstance(compile_pattern("\\\\p{L}"), re.Pattern)   # an escaped backslash, then "p{L}"


def test_a_user_format_may_use_a_property_escape():
    app = Framework(validator={"custom_options": {"formats": {"word": "^\\p{L}+$"}}})
    app.post("/x", {"schema": {"body": {"type": "object", "properties": {"w": {"type": "string", "format": "word"}}}}},
             echo)
    assert app.inject(method="POST", url="/x", json={"w": "ça"}).status_code == 200
    assert app.inject(method="POST", url="/x", json={"w": "ç1"}).status_code == 400
