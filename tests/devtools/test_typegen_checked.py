"""``framework.devtools.typegen``: hostile schemas give valid, inert Python; the output of a
realistic set and of a hostile one passes ``mypy --strict`` (and pyright, strict, when it is
installed) next to code that uses the types correctly and fails on code that does not; schema
sources (files, directories, an application) and ``python -m framework typegen``.

The forms themselves (objects, scalars, unions, ``$ref``, names) are in ``test_typegen.py``.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
from typing import Any, Literal

import pytest

import framework
from conftest import SUPPORT_PATH
from framework import Framework
from framework.serving.cli import load_app, main
from framework.devtools.typegen import TypegenError, app_schemas, load_sources, typegen

from typegen_support import COMMON, hints, load


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
