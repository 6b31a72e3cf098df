"""The opt-in on-disk compile cache (framework.schemas.codegen.CompileCache).

``FRAMEWORK_COMPILE_CACHE=/dir`` (or ``use_compile_cache("/dir")``) keeps each generated
validator and serializer module in the directory: a restart loads them and generates
nothing. A file the cache did not write for that key is ignored and rewritten; a directory
that cannot be written is reported once and compilation goes on.
"""
from __future__ import annotations

import json
import logging
import marshal
import os
import subprocess
import sys
import textwrap

import pytest

from framework.errors import SchemaValidationFailure
from framework.schemas.codegen import CompileCache, compile_cache, use_compile_cache
from framework.validation import ValidatorEngine

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

APP = textwrap.dedent("""
    import json, sys
    from framework import Framework
    from framework.validation.generator import ValidatorCodeGenerator
    from framework.serialization.generator import SerializerGenerator

    if sys.argv[1] == "warm":
        # The routes' schemas (their names say name_) must come from the cache; the
        # framework's own (the draft-07 meta-schema's validator) compile as usual.
        def refusing(generator_class, method):
            generate = getattr(generator_class, method)

            def refuse(self, *args):
                if "name_" in json.dumps(args, default=repr):
                    raise AssertionError("generated although the cache has the module")
                return generate(self, *args)
            setattr(generator_class, method, refuse)
        refusing(ValidatorCodeGenerator, "generate_validation_function")  # (name, schema, ...)
        refusing(SerializerGenerator, "__init__")  # (schema, ...)

    app = Framework()
    answers = []
    for i in range(3):
        schema = {"type": "object", "required": [f"name_{i}"],
                  "properties": {f"name_{i}": {"type": "string", "maxLength": 5 + i},
                                 f"size_{i}": {"type": "integer", "minimum": i}}}
        app.post(f"/r{i}", {"schema": {"body": schema, "response": {200: schema}}},
                 lambda request, reply: dict(request.body, secret=1))
    app.ready()
    for i in range(3):
        ok = app.inject("POST", f"/r{i}", json={f"name_{i}": "ab", f"size_{i}": str(i)})
        bad = app.inject("POST", f"/r{i}", json={f"name_{i}": "x" * 20})
        answers.append([ok.status_code, ok.json(), bad.status_code, bad.json()["message"]])
    print(json.dumps(answers))
""")


@pytest.fixture
def cache_dir(tmp_path):
    directory = tmp_path / "compiled"
    use_compile_cache(directory)
    yield directory
    use_compile_cache(None)


def run_app(directory, mode):
    env = dict(os.environ, FRAMEWORK_COMPILE_CACHE=str(directory),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", APP, mode], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def module_files(directory):
    return sorted(path for path in directory.iterdir() if "-module-" in path.name) if directory.exists() else []


def test_a_restart_loads_every_module_and_generates_nothing(tmp_path):
    directory = tmp_path / "cache"
    cold = run_app(directory, "cold")
    assert len(module_files(directory)) == 6  # 3 body validators, 3 response serializers
    stamps = {path: path.stat().st_mtime_ns for path in directory.iterdir()}
    warm = run_app(directory, "warm")  # generation refused: every module comes from the cache
    assert warm == cold
    assert cold[1][:3] == [200, {"name_1": "ab", "size_1": 1}, 400]
    assert "name_1" in cold[1][3]
    assert {path: path.stat().st_mtime_ns for path in directory.iterdir()} == stamps  # nothing rewritten


def test_options_are_part_of_the_key(cache_dir):
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert ValidatorEngine().compile(schema)({"n": "5"}) == {"n": 5}
    strict_types = ValidatorEngine({"coerce_types": False}).compile(schema)
    with pytest.raises(SchemaValidationFailure):
        strict_types({"n": "5"})
    assert len(module_files(cache_dir)) == 2
    # A fresh engine with the first options finds its own module again.
    assert ValidatorEngine().compile(schema)({"n": "7"}) == {"n": 7}
    assert len(module_files(cache_dir)) == 2


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign marshal", "another key's file"])
def test_a_file_not_written_for_the_key_is_ignored_and_rewritten(cache_dir, damage):
    schema = {"type": "object", "properties": {"kept": {"type": "integer", "maximum": 3}}}
    ValidatorEngine().compile(schema)
    other = {"type": "object", "properties": {"other": {"type": "string"}}}
    ValidatorEngine().compile(other)
    first, second = module_files(cache_dir)
    target = first
    original = target.read_bytes()
    if damage == "garbage":
        target.write_bytes(b"\x00\xff not marshal")
    elif damage == "truncated":
        target.write_bytes(original[: len(original) // 2])
    elif damage == "foreign marshal":
        target.write_bytes(original[:original.index(b"\n") + 1] + marshal.dumps(("someone else", {"a": 1})))
    else:
        target.write_bytes(second.read_bytes())
    for compiled_schema in (schema, other):
        validate = ValidatorEngine().compile(compiled_schema)
        key = next(iter(compiled_schema["properties"]))
        assert validate({key: 3 if key == "kept" else "x"})
    with pytest.raises(SchemaValidationFailure):
        ValidatorEngine().compile(schema)({"kept": 4})
    assert target.read_bytes() == original  # rewritten whole by the compile that ignored it


def test_a_damaged_shape_file_is_ignored_and_rewritten_by_the_next_process(cache_dir):
    schema = {"type": "object", "properties": {"shaped": {"type": "integer", "maximum": 3}}}
    ValidatorEngine().compile(schema)
    shapes = [path for path in cache_dir.iterdir() if "-shape-" in path.name]
    originals = {path: path.read_bytes() for path in shapes}
    for path in shapes:
        path.write_bytes(b"damaged")
    use_compile_cache(cache_dir)  # a new cache object: as a restarted process has
    validate = ValidatorEngine().compile(schema)
    with pytest.raises(SchemaValidationFailure):
        validate({"shaped": 4})
    assert {path: path.read_bytes() for path in shapes} == originals


def test_a_directory_that_cannot_be_written_is_reported_once(tmp_path, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    use_compile_cache(blocker / "cache")
    try:
        with caplog.at_level(logging.WARNING, logger="framework.compile_cache"):
            for i in range(3):
                validate = ValidatorEngine().compile({"type": "object", "properties": {f"p{i}": {"type": "integer"}}})
                assert validate({f"p{i}": "1"}) == {f"p{i}": 1}
    finally:
        use_compile_cache(None)
    warnings = [record for record in caplog.records if record.name == "framework.compile_cache"]
    assert len(warnings) == 1
    assert "cannot write" in warnings[0].getMessage() and str(blocker) in warnings[0].getMessage()


def test_modules_with_constants_marshal_cannot_write_are_not_stored(cache_dir):
    validate = ValidatorEngine().compile({"type": "string", "pattern": "^a+$"})
    assert validate("aaa") == "aaa"
    assert module_files(cache_dir) == []


def test_strict_log_mode_is_not_stored(cache_dir, caplog):
    schema = {"type": "object", "requried": ["a"]}
    with caplog.at_level(logging.WARNING):
        ValidatorEngine({"strict": "log"}).compile(schema)
        ValidatorEngine({"strict": "log"}).compile(schema)
    assert sum("requried" in record.getMessage() for record in caplog.records) == 2  # logged at each start
    assert module_files(cache_dir) == []


def test_use_compile_cache_sets_and_clears(tmp_path):
    cache = use_compile_cache(tmp_path)
    try:
        assert isinstance(cache, CompileCache) and compile_cache() is cache
        assert cache.directory == tmp_path
    finally:
        assert use_compile_cache(None) is None
    assert compile_cache() is None
