"""Generated code at start-up (framework.schemas.codegen): source kept only on demand, code
shared by schemas of one shape.

- No generated source stays in memory: ``linecache`` has no entry for a generated module
  until a traceback needs one; the module's ``__loader__`` renders it then, so tracebacks
  through a validator or a serializer show their real lines (also after
  ``linecache.clearcache()``), and ``generated_source()`` gives the text ``compile_source()``
  gives.
- Serializers of one shape (distinct property names, paths, messages) compile once: their
  strings are put in the shared code object's constants, and each serializer still writes
  its own names.
"""
from __future__ import annotations

import json
import linecache
import traceback
from collections.abc import Mapping

import pytest

from framework import Framework
from framework.schemas import codegen
from framework.schemas.codegen import generated_source
from framework.serialization import SerializationError, compile_serializer, compile_source
from framework.validation import ValidatorEngine


def object_schema(*names, **extra):
    return {"type": "object", "required": [names[0]],
            "properties": {name: {"type": "string"} for name in names}, **extra}


class ExplodingMapping(Mapping):
    """A mapping whose reads fail: the serializer's general path calls ``.get`` on it."""

    def __getitem__(self, key):
        raise RuntimeError("read failed")

    def get(self, key, default=None):
        raise RuntimeError("read failed")

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0


def realized_files():
    """Generated modules whose lines linecache holds (a lazy entry is ``(get_lines,)``)."""
    return {name for name, entry in linecache.cache.items()
            if name.startswith(("<validator ", "<serializer ")) and len(entry) != 1}


# --------------------------------------------------------------------------- source on demand

def test_compiling_keeps_no_source_in_linecache():
    before = realized_files()
    engine = ValidatorEngine()
    validate = engine.compile(object_schema("kept_nowhere_v"))
    serialize = compile_serializer(object_schema("kept_nowhere_s"))
    assert realized_files() == before
    assert not hasattr(validate, "source") and not hasattr(serialize, "source")
    for function in (validate.generated, serialize):
        assert len(linecache.cache[function.__code__.co_filename]) == 1  # a lazy entry: no text


def test_a_traceback_through_a_validator_shows_the_generated_line():
    def fails(value):
        raise RuntimeError("format check failed")

    engine = ValidatorEngine({"formats": {"exploding": fails}})
    validate = engine.compile({"type": "object", "properties": {"code": {"type": "string", "format": "exploding"}}})
    with pytest.raises(RuntimeError):
        try:
            validate({"code": "x"})
        except RuntimeError:
            text = traceback.format_exc()
            raise
    filename = validate.generated.__code__.co_filename
    assert f'File "{filename}"' in text and filename.startswith("<validator ")
    line = next(line for line in text.splitlines() if filename in line)
    # The frame's own line, read from the regenerated source: the format check's call.
    shown = text.splitlines()[text.splitlines().index(line) + 1].strip()
    assert shown in generated_source(validate.generated)
    assert "_format" in shown


def test_a_traceback_through_a_serializer_shows_the_generated_line():
    serialize = compile_serializer(object_schema("first_name", "last_name"))
    with pytest.raises(RuntimeError):
        try:
            serialize(ExplodingMapping())
        except RuntimeError:
            text = traceback.format_exc()
            raise
    assert f'File "{serialize.__code__.co_filename}"' in text
    assert "p = v.get('first_name', _U)" in text


def test_tracebacks_still_show_lines_after_linecache_is_cleared():
    serialize = compile_serializer(object_schema("after_clear"))
    linecache.clearcache()
    with pytest.raises(RuntimeError) as caught:
        serialize(ExplodingMapping())
    text = "".join(traceback.format_exception(caught.value))
    assert "p = v.get('after_clear', _U)" in text


def test_generated_source_is_compile_source():
    schema = object_schema("id", "name", additionalProperties=False)
    engine = ValidatorEngine()
    assert generated_source(engine.compile(schema).generated) == engine.compile_source(schema)
    assert generated_source(compile_serializer(schema)) == compile_source(schema)
    with pytest.raises(TypeError, match="not a generated function"):
        generated_source(len)


def test_the_source_is_rendered_from_the_inputs_of_the_compile():
    engine = ValidatorEngine({"formats": {"upper": lambda value: value.isupper()}})
    validate = engine.compile({"type": "string", "format": "upper"})
    source = generated_source(validate.generated)
    engine.add_format("lower", lambda value: value.islower())  # a later change of the engine
    assert generated_source(validate.generated) == source


# --------------------------------------------------------------------------- shape sharing

def test_serializers_of_one_shape_compile_once(monkeypatch):
    compiled = []
    real_compile = compile

    def counting_compile(*args, **kwargs):
        compiled.append(args[1])
        return real_compile(*args, **kwargs)

    # codegen's global name is found before the builtin: count the compilations it makes.
    monkeypatch.setattr(codegen, "compile", counting_compile, raising=False)
    serializers = [compile_serializer({"type": "object", "required": [f"need_{i}"],
                                       "properties": {f"need_{i}": {"type": "string"},
                                                      f"count_{i}": {"type": "integer"},
                                                      f"tags_{i}": {"type": "array", "items": {"type": "string"}},
                                                      f"pick_{i}": {"anyOf": [{"const": f"a{i}"},
                                                                              {"type": "integer"}]}}})
                   for i in range(1, 6)]
    assert len(compiled) == 1
    for i, serialize in enumerate(serializers, 1):
        assert json.loads(serialize({f"need_{i}": 1, f"count_{i}": "2", f"tags_{i}": (3,), f"pick_{i}": f"a{i}",
                                     "other": 0})) == {f"need_{i}": "1", f"count_{i}": 2, f"tags_{i}": ["3"],
                                                      f"pick_{i}": f"a{i}"}
        with pytest.raises(SerializationError) as caught:
            serialize({})
        assert f"need_{i}" in str(caught.value)
        assert f"'need_{i}'" in generated_source(serialize)
    codes = {serialize.__code__.co_code for serialize in serializers}
    assert len(codes) == 1
    assert len({serialize.__code__.co_filename for serialize in serializers}) == len(serializers)


@pytest.mark.parametrize("names", [["\x00#0", "\x00#1"], ["\x00#1", "\x00#0"], ["\x00", "#", "'\"\x00#0\n"]])
def test_names_that_look_like_placeholders_stay_themselves(names):
    serialize = compile_serializer(object_schema(*names))
    value = {name: f"value of {name!r}" for name in names}
    assert json.loads(serialize(value)) == value
    assert json.loads(serialize(dict(value, extra=1))) == value  # the general path, name by name
    with pytest.raises(SerializationError):
        serialize({})


def test_an_app_with_routes_of_one_shape_answers_each_with_its_own_names():
    app = Framework()
    for i in range(3):
        schema = {"type": "object", "properties": {f"name_{i}": {"type": "string"}, f"size_{i}": {"type": "integer"}}}
        app.post(f"/r{i}", {"schema": {"body": schema, "response": {200: schema}}},
                 lambda request, reply: dict(request.body, secret="x"))
    for i in range(3):
        response = app.inject("POST", f"/r{i}", json={f"name_{i}": "n", f"size_{i}": "4"})
        assert response.status_code == 200
        assert response.json() == {f"name_{i}": "n", f"size_{i}": 4}
