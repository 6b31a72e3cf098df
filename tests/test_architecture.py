"""The package reads like its architecture: no import cycles, no module writing another
object's underscore state, one class per name, every error code raised, no dead code.

These read the source with ``ast``: they are checks of the code base itself.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import os
import pathlib
import re

import framework
import framework.errors
from conftest import ROOT  # the checkout (under tox, the package comes from the wheel)

PACKAGE = pathlib.Path(framework.__file__).resolve().parent


def _modules() -> dict[str, pathlib.Path]:
    """Every module of the package, ``framework.plugins`` included (in a checkout,
    ``framework/plugins`` is a link to the repository's ``plugins/`` folder)."""
    modules = {}
    found = [pathlib.Path(folder, file) for folder, _, files in os.walk(PACKAGE, followlinks=True)
             for file in files if file.endswith(".py")]
    for path in sorted(found):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


MODULES = _modules()


def _trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


TREES = _trees()


def _import_edges(name: str) -> set[str]:
    """The framework modules ``name`` imports, by any import statement: at the top, inside a
    function, or under ``if TYPE_CHECKING:`` (a type-only import ties modules together too)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from .package import module`` imports the module, ``from .module import name``
            # the module. (Any module runs its packages' __init__ first: not an edge of its own.)
            submodules = {f"{target}.{alias.name}" for alias in node.names} & MODULES.keys()
            found.update(submodules or ({target} & MODULES.keys()))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in MODULES)
    found.discard(name)
    return found


#: The package's layers, top to bottom: a module imports modules of its own layer or of a
#: lower one, never of a higher one, not even for typing. In a layer marked independent,
#: each package stands alone and imports none of its siblings (the validator and the
#: serializer each take what they need from the other as an argument).
LAYERS: list[tuple[str, tuple[str, ...], bool]] = [
    ("entry points and public re-exports", (
        "framework", "framework.__main__", "framework.wsgi", "framework.gunicorn_conf", "framework.serving.cli",
        "framework.request", "framework.typeschema", "framework.typegen"), False),
    ("the application", ("framework.app",), False),
    ("tools: serving, testing, devtools, settings", (
        "framework.serving", "framework.testing", "framework.devtools", "framework.settings"), True),
    ("core: the context tree and declared routes", (
        "framework.context", "framework.loader", "framework.decorators", "framework.route", "framework.typed_route",
        "framework.mount", "framework.state", "framework.failed_start"), False),
    ("lifecycle", ("framework.lifecycle",), False),
    # framework.serialization's facade (compile_serializer) hands the serializer the plain
    # validator it needs for if/then/else and the meta-schema, as fast-json-stringify is
    # handed Ajv: the serializer's own modules take it as an argument and import no validator.
    ("the serializer's facade", ("framework.serialization",), False),
    ("engines", ("framework.validation", "framework.routing", "framework.serialization.generator",
                 "framework.serialization.checks", "framework.serialization.merging",
                 "framework.serialization.runtime"), True),
    ("the wire and schemas", ("framework.http", "framework.schemas"), True),
    ("bottom", ("framework.errors", "framework.undefined", "framework.names", "framework.signatures"), True),
]


def _layer_of(module: str) -> tuple[int, str]:
    """``(layer index, table entry)`` of a module: the longest entry it is, or is inside
    (``framework`` itself is only the package's ``__init__``)."""
    found = [(index, entry) for index, (_, entries, _) in enumerate(LAYERS) for entry in entries
             if module == entry or (entry != "framework" and module.startswith(entry + "."))]
    assert found, f"{module} is in no layer: add it to LAYERS"
    return max(found, key=lambda item: len(item[1]))


FRAMEWORK_MODULES = sorted(name for name in MODULES if not name.startswith("framework.plugins"))
GRAPH = {name: _import_edges(name) for name in FRAMEWORK_MODULES}


def test_every_module_is_in_a_layer():
    for name in FRAMEWORK_MODULES:
        _layer_of(name)


def test_no_module_imports_a_higher_layer_or_an_independent_sibling():
    wrong = []
    for name, targets in GRAPH.items():
        layer, _ = _layer_of(name)
        for target in sorted(targets):
            if target.startswith("framework.plugins"):
                wrong.append(f"{name} -> {target} (the framework never imports a plugin)")
                continue
            target_layer, _ = _layer_of(target)
            if target_layer < layer:
                wrong.append(f"{name} ({LAYERS[layer][0]}) -> {target} ({LAYERS[target_layer][0]})")
            elif target_layer == layer and LAYERS[layer][2] and target.split(".")[:2] != name.split(".")[:2]:
                wrong.append(f"{name} -> {target} (independent siblings in {LAYERS[layer][0]})")
    assert wrong == []


def test_no_import_cycle_of_any_kind_among_framework_modules():
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(GRAPH[node] & GRAPH.keys()):
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target, path + [target])
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def _foreign_underscore_writes(tree: ast.Module) -> list[str]:
    writes = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and str(node.args[1].value).startswith("_") and not str(node.args[1].value).startswith("__"):
            if not (isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls")):
                writes.append(ast.unparse(node))
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr.startswith("_") and not target.attr.startswith("__"):
                if not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls")):
                    writes.append(ast.unparse(target))
    return writes


def test_no_module_writes_another_objects_underscore_attributes():
    offenders = {}
    for path in MODULES.values():
        writes = _foreign_underscore_writes(ast.parse(path.read_text(encoding="utf-8")))
        if writes:
            offenders[str(path.relative_to(PACKAGE.parent))] = writes
    assert offenders == {}


def test_no_class_is_defined_twice_under_one_name():
    seen: dict[str, str] = {}
    twice = []
    for name, tree in TREES.items():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                if node.name in seen:
                    twice.append((node.name, seen[node.name], name))
                seen[node.name] = name
    assert twice == []


#: The one exception class defined outside framework.errors: the fuzzer's own report,
#: which belongs with the fuzzer (a test failure, not an error the framework raises).
EXCEPTIONS_ELSEWHERE = {("framework.testing.fuzzer", "FuzzFailure")}


def _is_exception_base(base: ast.expr) -> bool:
    name = ast.unparse(base).rpartition(".")[2]
    builtin = getattr(builtins, name, None)
    return name.endswith(("Error", "Exception", "Failure")) or (
        isinstance(builtin, type) and issubclass(builtin, BaseException))


def test_every_error_class_lives_in_errors_and_every_code_is_raised():
    elsewhere = set()
    for name, tree in TREES.items():
        if name == "framework.errors" or name.startswith("framework.plugins."):
            continue  # a plugin keeps its own errors, as each @fastify/* package does
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(_is_exception_base(base) for base in node.bases):
                elsewhere.add((name, node.name))
            elif isinstance(node, ast.Call) and ast.unparse(node.func).rpartition(".")[2] == "create_error":
                elsewhere.add((name, ast.unparse(node)))
    assert elsewhere == EXCEPTIONS_ELSEWHERE
    sources = "\n".join(path.read_text(encoding="utf-8") for path in
                        MODULES.values() if path.name != "errors.py")
    unused = [cls.__name__ for _, cls in inspect.getmembers(framework.errors, inspect.isclass)
              if issubclass(cls, BaseException) and cls.__module__ == "framework.errors"
              and not re.search(rf"\b{cls.__name__}\b", sources)]
    assert unused == []


def test_the_errors_module_imports_nothing_of_the_framework():
    """The bottom layer: every module may import it, so it imports none, not even for typing."""
    imported = [ast.unparse(node) for node in ast.walk(TREES["framework.errors"])
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("framework"))]
    assert imported == []


def test_no_dead_functions():
    """Every module-level function and class is used somewhere else, or is public API."""
    corpus = "\n".join(path.read_text(encoding="utf-8") for path in
                       [*MODULES.values(), *(ROOT / "tests").rglob("*.py"),
                        ROOT / "README.rst"])
    dead = []
    for name, tree in TREES.items():
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                uses = len(re.findall(rf"\b{re.escape(node.name)}\b", corpus))
                if uses < 2:
                    dead.append(f"{name}.{node.name}")
    assert dead == []


#: A consumer's own choice of keywords (not a kind of keyword, so not a row of the table):
#: what the fuzzer cannot draw an invalid value for, what typegen turns into a type.
_OWN_KEYWORD_CHOICES = {("framework.testing.fuzzer", "_UNSURE"), ("framework.devtools.typegen", "_TYPING_KEYWORDS")}


_COLLECTION_CALLS = ("frozenset", "set", "tuple", "list")


def _literals(value: ast.expr):
    """The tuple/list/set literals a value is made of: itself, those nested in literals, or
    wrapped in ``frozenset(...)``; not those a comprehension or a test uses (``k in ("if",
    "then", "else")`` names the keywords the code handles, it is not a list of them)."""
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        yield value
        for elt in value.elts:
            yield from _literals(elt)
    elif isinstance(value, ast.Dict):
        for item in value.values:
            yield from _literals(item)
    elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _COLLECTION_CALLS:
        for arg in value.args:
            yield from _literals(arg)
    elif isinstance(value, ast.Starred):
        yield from _literals(value.value)


def _keyword_lists(tree: ast.Module, known: frozenset[str]) -> list[str]:
    """``name = <tuple/list/set literal of 3+ strings, every one a known keyword>`` anywhere
    in ``tree`` (nested in a bigger literal too), as ``name: keywords``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        name = ", ".join(ast.unparse(target) for target in targets)
        for literal in _literals(value):
            strings = [elt.value for elt in literal.elts
                       if isinstance(elt, ast.Constant) and isinstance(elt.value, str)]
            if len(strings) == len(literal.elts) >= 3 and all(s in known for s in strings):
                found.append(f"{name}: {', '.join(strings)}")
    return found


def test_keywords_are_listed_only_in_the_keyword_table():
    """Which keywords hold subschemas, data, annotations, or apply to one type is decided once,
    in framework/schemas/keywords.py: a second list of keywords drifts from it."""
    from framework.schemas.keywords import KNOWN_KEYWORDS
    lists = {}
    for name, tree in TREES.items():
        if name == "framework.schemas.keywords":
            continue
        found = [entry for entry in _keyword_lists(tree, KNOWN_KEYWORDS)
                 if (name, entry.partition(":")[0]) not in _OWN_KEYWORD_CHOICES]
        if found:
            lists[name] = found
    assert lists == {}


def test_the_keyword_list_check_finds_a_list_and_ignores_other_strings():
    from framework.schemas.keywords import KNOWN_KEYWORDS
    source = ('MAPS = ("properties", "patternProperties", "dependencies")\n'
              'TABLE = ((("items", "contains", "maxItems"), f),)\n'
              'def g():\n    keys = ["required", "minProperties", "maxProperties"]\n'
              'TYPES = ("null", "boolean", "object")\n'
              'TWO = ("anyOf", "oneOf")\n'
              'MIXED = ("type", "nullable", "$merge")\n'
              'WRAPPED = frozenset(("title", "description", "default"))\n'
              'USED = {k: v for k, v in x.items() if k not in ("if", "then", "else")}\n')
    assert sorted(_keyword_lists(ast.parse(source), KNOWN_KEYWORDS)) == sorted([
        "MAPS: properties, patternProperties, dependencies",
        "TABLE: items, contains, maxItems",
        "keys: required, minProperties, maxProperties",
        "WRAPPED: title, description, default",
    ])
