"""Settings checked at boot: environment variables (and a ``.env`` file) validated against
a schema once, at start-up, with the framework's own validator.

>>> from framework.settings import load_settings
>>> load_settings({"type": "object", "required": ["database_url"],
...                "properties": {"database_url": {"type": "string"},
...                               "port": {"type": "integer", "default": 8000}}},
...               env={"APP_DATABASE_URL": "postgresql://db/app"})
{'database_url': 'postgresql://db/app', 'port': 8000}

The rules, each decided here once:

- **Names.** Property ``database_url`` is read from ``APP_DATABASE_URL``: the prefix, then
  the name upper-cased. A property name that is not an identifier is refused.
- **Where from.** The process environment (``env``), then the ``dotenv`` file: a variable
  the environment sets wins over the file, as python-dotenv and most tools have it. The
  file is read, never copied into ``os.environ``; a missing file is no error (production
  has none).
- **Text to values.** Each variable is text; the property's ``type`` says how to read it.
  A ``boolean`` takes ``true/false``, ``1/0``, ``yes/no``, ``on/off`` (any case). An
  ``array`` is JSON when its text starts with ``[`` (``'["a", "b"]'``), else a
  comma-separated list whose items are stripped and whose blank items are dropped
  (``"a, b"``; ``""`` is the empty list). An ``object`` is JSON text. Anything else stays
  text for the validator, which coerces it as it coerces a query string (``"8080"`` to
  an integer, ``""`` to ``None`` where ``null`` is allowed) and checks every keyword.
- **Defaults and required.** The schema's ``default`` fills an unset variable;
  ``required`` names the ones that must be set. A ``TypedDict`` or a dataclass becomes its
  schema through :func:`framework.typeschema.schema_of` (a dataclass field's default is its
  default).
- **Failure.** Every problem is collected, then one
  :class:`~framework.errors.SettingsError` lists them, one a line, each naming its
  variable: ``APP_PORT: should be integer``. No value ever appears in a message: any
  setting may be a secret. Inside a JSON object setting the path names only the schema's
  own property names and array indexes (other keys are data, shown as ``*``).
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, Union, overload

from .errors import SchemaValidationFailure, SettingsError
from .schemas.store import is_array, is_object
from .schemas.typeschema import builder_of, is_python_type, schema_of
from .validation import ValidatorEngine

__all__ = ["load_settings", "SettingsError"]

_T = TypeVar("_T")
#: Where a ``.env`` file is: a path as text or a ``pathlib.Path``.
DotenvPath = Union[str, "os.PathLike[str]"]

_BOOLEANS = {"true": True, "1": True, "yes": True, "on": True,
             "false": False, "0": False, "no": False, "off": False}
_BOOLEAN_HINT = " (true/false, 1/0, yes/no, on/off)"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Every settings problem is wanted at once; coercion without the scalar-to-array rule,
# since arrays are read from their text here.
_ENGINE_OPTIONS = {"all_errors": True, "coerce_types": True}


@overload
def load_settings(schema: type[_T], env: Mapping[str, str] | None = None, prefix: str = "APP_",
                  dotenv: DotenvPath | None = None) -> _T: ...
@overload
def load_settings(schema: dict[str, Any], env: Mapping[str, str] | None = None, prefix: str = "APP_",
                  dotenv: DotenvPath | None = None) -> dict[str, Any]: ...
def load_settings(schema: Any, env: Mapping[str, str] | None = None, prefix: str = "APP_",
                  dotenv: DotenvPath | None = None) -> Any:
    """The settings ``schema`` declares, read from ``env`` (default: ``os.environ``) and the
    ``dotenv`` file, coerced and validated; call it once, at import, so that a bad setting
    fails the worker's boot.

    ``schema`` is a JSON Schema of an object (its ``properties`` are the settings), a
    ``TypedDict`` or a dataclass. A JSON Schema or a ``TypedDict`` gives a ``dict``; a
    dataclass gives an instance. Property ``name`` is read from the variable ``prefix +
    name.upper()``. A missing or invalid setting, or a malformed ``.env`` line, raises
    :class:`~framework.errors.SettingsError` listing every problem (never a value). A
    schema without ``properties`` raises ``TypeError``. The module docstring has the rules.
    """
    build = None
    if is_python_type(schema):
        build = builder_of(schema)
        schema = schema_of(schema)
    properties = _properties(schema)
    variables = {name: prefix + name.upper() for name in properties}
    validate = ValidatorEngine(_ENGINE_OPTIONS).compile(schema)

    problems: list[str] = []  # the .env file's, then the settings' in the schema's order
    from_file = _read_dotenv(dotenv, problems) if dotenv is not None else {}
    environ = os.environ if env is None else env
    data: dict[str, Any] = {}
    found: list[tuple[str, str]] = []  # (property, problem)
    for name, variable in variables.items():
        text = environ.get(variable, from_file.get(variable))
        if text is not None:
            value = _from_text(text, properties[name])
            if isinstance(value, _Unreadable):
                found.append((name, f"{variable}: {value.problem}"))
            else:
                data[name] = value
    settings: Any = None
    try:
        settings = validate(data)
    except SchemaValidationFailure as failure:
        unreadable = {name for name, _ in found}  # unset for the validator: not "required" too
        names = _declared_names(schema)
        found += [(name, line) for name, line in (_problem(record, variables, names) for record in failure.errors)
                  if name not in unreadable]
    if found or problems:
        order = {name: index for index, name in enumerate(properties)}
        found.sort(key=lambda item: order.get(item[0], len(order)))
        # ``from None``: no chained exception (a JSON error, the validator's) is printed under it.
        raise SettingsError(problems + [line for _, line in found]) from None
    return build(settings) if build is not None else settings


def _properties(schema: Any) -> Mapping[str, Any]:
    """The schema's ``properties``, checked to name environment variables (else ``TypeError``)."""
    properties = schema.get("properties") if is_object(schema) else None
    if not is_object(properties) or not properties:
        raise TypeError("load_settings needs an object schema with 'properties' (one per setting), "
                        "a TypedDict or a dataclass")
    for name in properties:
        if not _IDENTIFIER.match(name):
            raise TypeError(f"settings property {name!r} cannot name an environment variable: "
                            f"use letters, digits and underscores")
    return properties


class _Unreadable:
    """A variable whose text cannot be read as its type (an array or object that is not JSON)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem


def _types(schema: Any) -> set[str]:
    declared = schema.get("type") if is_object(schema) else None
    if isinstance(declared, str):
        return {declared}
    return {str(item) for item in declared} if is_array(declared) else set()


def _from_text(text: str, schema: Any) -> Any:
    """A variable's text as the JSON value its property's ``type`` reads it as (module docstring)."""
    types = _types(schema)
    if "string" in types:
        return text
    if "boolean" in types and text.strip().lower() in _BOOLEANS:
        return _BOOLEANS[text.strip().lower()]
    if "array" in types and text.lstrip().startswith("["):
        return _json(text, list, "should be a JSON array (the text starts with '[')")
    if "object" in types:
        return _json(text, dict, "should be a JSON object")
    if "array" in types:
        return [item.strip() for item in text.split(",") if item.strip()]
    return text


def _json(text: str, kind: type, problem: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return _Unreadable(problem)
    return value if isinstance(value, kind) else _Unreadable(problem)


def _declared_names(schema: Any) -> set[str]:
    """Every property name the schema declares, at any depth: the path segments a message may show."""
    names: set[str] = set()
    stack = [schema]
    while stack:
        item = stack.pop()
        if is_object(item):
            properties = item.get("properties")
            if is_object(properties):
                names.update(properties)
            stack.extend(item.values())
        elif is_array(item):
            stack.extend(item)
    return names


def _problem(record: dict[str, Any], variables: Mapping[str, str], names: set[str]) -> tuple[str, str]:
    """``(property, line)`` for a validator error record; the line names the variable, no value."""
    message = str(record.get("message", "is invalid"))
    params: Mapping[str, Any] = record.get("params") or {}
    if record.get("keyword") == "type" and "boolean" in str(params.get("type", "")):
        message += _BOOLEAN_HINT
    segments = [segment.replace("~1", "/").replace("~0", "~")
                for segment in str(record.get("instance_path", "")).split("/")[1:]]
    if not segments:
        missing: Any = params.get("missingProperty")
        if record.get("keyword") == "required" and isinstance(missing, str) and missing in variables:
            return missing, f"{variables[missing]}: is required and not set"
        return "", f"settings: {message}"
    name, inner = segments[0], segments[1:]
    shown = "".join("/" + (segment if segment.isdigit() or segment in names else "*") for segment in inner)
    return name, f"{variables.get(name, name)}{shown}: {message}"


# ---------------------------------------------------------------- .env files
_ASSIGNMENT = re.compile(r"[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=")
_DOUBLE_QUOTED = re.compile(r'(?:[^"\\]|\\.)*', re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_MALFORMED = "should be KEY=value (a name, =, a value, optionally quoted)"


def _read_dotenv(path: DotenvPath, problems: list[str]) -> dict[str, str]:
    """The variables of a ``.env`` file (none when it does not exist); a malformed line or a
    file that is not UTF-8 adds a problem naming the file and the line, never its text."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        problems.append(f"{path}: should be UTF-8 text")
        return {}
    return _parse_dotenv(text, str(path), problems)


def _parse_dotenv(text: str, source: str, problems: list[str]) -> dict[str, str]:
    """``KEY=value`` lines (``export`` allowed; blank lines and ``#`` comments skipped).

    An unquoted value ends at a ``#`` after a space or tab, and is stripped. A
    ``'single'``-quoted value is taken as written; a ``"double"``-quoted one reads the
    escapes ``\\n \\t \\r \\" \\\\``. Quoted values may span lines; nothing but a comment may
    follow the closing quote. Nothing is expanded (``$HOME`` stays as written), and a
    later line wins over an earlier one.
    """
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        number, line = index + 1, lines[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _ASSIGNMENT.match(line)
        if match is None:
            problems.append(f"{source} line {number}: {_MALFORMED}")
            continue
        rest = line[match.end():]
        quote = rest.lstrip(" \t")[:1]
        if quote not in ("'", '"'):
            values[match.group(1)] = re.split(r"[ \t]#", rest, maxsplit=1)[0].strip()
            continue
        body = rest.lstrip(" \t")[1:]
        while (end := _closing_quote(body, quote)) < 0 and index < len(lines):
            body += "\n" + lines[index]
            index += 1
        after = body[end + 1:].strip() if end >= 0 else ""
        if end < 0 or (after and not after.startswith("#")):
            problems.append(f"{source} line {number}: {_MALFORMED}")
            continue
        value = body[:end]
        values[match.group(1)] = value if quote == "'" else re.sub(
            r"\\(.)", lambda escape: _ESCAPES.get(escape[1], escape[0]), value, flags=re.DOTALL)
    return values


def _closing_quote(body: str, quote: str) -> int:
    """Where the quoted text ``body`` ends (its closing ``quote``), or -1."""
    if quote == "'":
        return body.find("'")
    end = _DOUBLE_QUOTED.match(body).end()  # type: ignore[union-attr]  # it matches "" at least
    return end if end < len(body) and body[end] == '"' else -1
