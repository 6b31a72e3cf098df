"""Python types as JSON Schema: routes declared with annotations instead of schemas.

Wherever a route accepts a JSON Schema (``body``, ``querystring``, ``params``,
``headers``, a response status), it accepts a Python type too. :func:`schema_of`
converts it once, when the route is declared; the result is compiled like any
hand-written schema, so a typed route costs nothing more per request.

- ``str``, ``int``, ``float``, ``bool``, ``None``: ``{"type": "string"}`` ... ``{"type": "null"}``;
  ``Any`` and ``object``: ``{}``.
- ``Literal["a", "b"]`` and an ``enum.Enum``: ``{"type": "string", "enum": ["a", "b"]}`` (the
  ``type`` lets query strings and headers coerce).
- ``X | None`` and ``Union[X, Y]``: ``{"type": [X, "null"]}`` for plain types, else ``anyOf``.
- ``list[X]``, ``Sequence[X]``: ``{"type": "array", "items": X}``; ``set[X]`` and
  ``frozenset[X]`` add ``"uniqueItems": true``; ``tuple[X, Y]`` gives ``items`` as a list with
  ``minItems`` and ``maxItems``, ``tuple[X, ...]`` gives ``items: X``.
- ``dict[str, X]``, ``Mapping[str, X]``: ``{"type": "object", "additionalProperties": X}``.
- ``TypedDict``: ``properties``, and ``required`` from ``total``, ``Required`` and
  ``NotRequired``.
- ``@dataclass``: ``properties``, ``required`` for the fields without a default, and JSON
  defaults as ``default``.
- ``datetime``, ``date``, ``time``, ``UUID``: strings of the formats ``date-time``, ``date``,
  ``time``, ``uuid``; ``Decimal``: ``{"type": "number"}``.
- ``Annotated[X, ...]``: X with the constraints of annotated-types (``Ge``, ``Gt``, ``Le``,
  ``Lt``, ``Interval``, ``MultipleOf``, ``MinLen``, ``MaxLen``, ``Len``), a compiled
  ``re.Pattern`` (``pattern``), ``Doc`` (``description``), or :class:`Keywords` (any JSON
  Schema keywords, merged in as given). Other metadata is someone else's and left alone.
- A msgspec ``Struct`` or a pydantic ``BaseModel``: their own JSON Schema export.

A class's docstring becomes its ``description``; so does a dataclass field's
``metadata["description"]``. A type that refers to itself is placed under
``definitions`` and referred to by ``$ref``. Anything else (``bytes``, a plain class,
a ``Callable``...) is refused with :class:`TypeError` naming it.

:func:`builder_of` gives what turns validated JSON into the annotated values: a
dataclass, msgspec or pydantic instance, an ``Enum`` member, a ``datetime``, a
``tuple``, an ``int`` from an integral float (``1.0``; ``Infinity`` is refused with
:class:`~framework.errors.InputBuildError`)... A ``TypedDict`` stays the validated dict
(only such values inside it are converted); a type made only of JSON types other than
``int`` needs no builder at all.
"""
from __future__ import annotations

import dataclasses
import datetime
import enum
import inspect
import json
import re
import sys
import types
import typing
import uuid
from collections import abc
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol, Union

import typing_extensions
from typing_extensions import TypeGuard

from ..errors import InputBuildError, TypeSchemaError
from .store import is_array, is_object

if TYPE_CHECKING:
    import msgspec

__all__ = ["schema_of", "builder_of", "is_python_type", "type_name", "describe_types", "Keywords",
           "TypeSchemaError"]

Schema = dict[str, Any]
Build = Callable[[Any], Any]


_SCALARS: dict[Any, Schema] = {
    str: {"type": "string"},
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    type(None): {"type": "null"},
    None: {"type": "null"},
    Decimal: {"type": "number"},
    datetime.datetime: {"type": "string", "format": "date-time"},
    datetime.date: {"type": "string", "format": "date"},
    datetime.time: {"type": "string", "format": "time"},
    uuid.UUID: {"type": "string", "format": "uuid"},
}

#: The JSON type of a ``Literal`` or ``Enum`` value.
_VALUE_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (type(None), "null"))

#: Origins of array types (``typing_extensions.get_origin`` gives the ``collections.abc`` class).
_SEQUENCES: frozenset[Any] = frozenset((list, tuple, set, frozenset, abc.Sequence, abc.MutableSequence, abc.Set,
                                        abc.MutableSet, abc.Iterable, abc.Collection))
_UNIQUE: frozenset[Any] = frozenset((set, frozenset, abc.Set, abc.MutableSet))
_MAPPINGS: frozenset[Any] = frozenset((dict, abc.Mapping, abc.MutableMapping))
_REQUIRED_WRAPPERS = frozenset(("Required", "NotRequired", "ReadOnly"))


class Keywords(Mapping[str, Any]):
    """JSON Schema keywords for ``Annotated``: ``Annotated[str, Keywords(format="email")]``,
    ``Annotated[Point, Keywords({"additionalProperties": False})]``.

    A plain dict works too, except inside a union (``X | None``): Python's typing hashes
    the members of a union, and a dict cannot be hashed. ``Keywords`` can.
    """

    def __init__(self, keywords: Mapping[str, Any] | None = None, /, **more: Any) -> None:
        self._keywords: dict[str, Any] = {**(keywords or {}), **more}
        self._hash = hash(json.dumps(self._keywords, sort_keys=True, default=repr))

    def __getitem__(self, key: str) -> Any:
        return self._keywords[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keywords)

    def __len__(self) -> int:
        return len(self._keywords)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Keywords) and self._keywords == other._keywords

    def __repr__(self) -> str:
        return f"Keywords({self._keywords!r})"


def is_python_type(value: Any) -> bool:
    """Whether a schema slot holds a Python type (to convert) rather than a JSON Schema.

    A JSON Schema is a dict or a boolean; anything else given there is a type.
    """
    return not isinstance(value, (dict, bool)) and value is not None


def schema_of(tp: Any) -> Schema:
    """The JSON Schema (draft 7) of ``tp``.

    >>> from typing import Literal, Optional
    >>> schema_of(list[Literal["S", "M"]])
    {'type': 'array', 'items': {'type': 'string', 'enum': ['S', 'M']}}
    >>> schema_of(Optional[int])
    {'type': ['integer', 'null']}
    """
    return _Converter(tp).schema()


def builder_of(tp: Any) -> Build | None:
    """What turns a validated JSON value into a value of ``tp``, or ``None`` when the
    JSON value already is one (JSON types, a ``TypedDict`` of them, lists of them...)."""
    return _builder(tp, set())


def type_name(tp: Any) -> str:
    """``tp`` as written in code, without module paths: ``list[ItemOut]``, ``ItemIn``."""
    if isinstance(tp, type) and not typing_extensions.get_args(tp):
        return tp.__qualname__
    # Module paths go, outside string literals (Literal["a.b"] keeps its value).
    pieces = re.split(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""", repr(tp))
    return "".join(piece if index % 2 else _MODULE_PATH.sub("", piece) for index, piece in enumerate(pieces))


_MODULE_PATH = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+(?=[A-Za-z_])")


def describe_types(types: Mapping[str, tuple[Any, str]]) -> str:
    """A route's ``options["types"]`` in one line, grouped by where each type was given:
    ``body ItemIn, 200 ItemOut (annotations); 201 ItemOut (schema)``."""
    groups: dict[str, list[str]] = {}
    for part, (tp, origin) in types.items():
        groups.setdefault(origin, []).append(f"{part.removeprefix('response.')} {type_name(tp)}")
    labels = {"annotation": "annotations", "schema": "schema"}
    return "; ".join(f"{', '.join(items)} ({labels.get(origin, origin)})" for origin, items in groups.items())


# --- Reading types -----------------------------------------------------------------------

def _unwrap(tp: Any) -> tuple[Any, list[Any]]:
    """``Annotated[X, a, b]`` -> ``(X, [a, b])``; ``Required[X]`` and the like -> X."""
    metadata: list[Any] = []
    while True:
        origin = typing_extensions.get_origin(tp)
        if origin is typing.Annotated or origin is typing_extensions.Annotated:
            metadata.extend(tp.__metadata__)
            tp = tp.__origin__
        elif origin is not None and getattr(origin, "_name", None) in _REQUIRED_WRAPPERS:
            tp = typing_extensions.get_args(tp)[0]
        elif isinstance(tp, typing_extensions.TypeAliasType):
            tp = tp.__value__
        elif isinstance(tp, typing.NewType):
            tp = tp.__supertype__
        else:
            return tp, metadata


def _hashable(tp: Any) -> bool:
    """Whether ``tp`` can be looked up in a dict: ``list[Annotated[str, {...}]]`` cannot
    (a dict in its metadata)."""
    try:
        hash(tp)
    except TypeError:
        return False
    return True


def _is_typeddict(tp: Any) -> bool:
    return typing_extensions.is_typeddict(tp)


def _is_dataclass(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def _is_enum(tp: Any) -> TypeGuard[type[enum.Enum]]:
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def _is_msgspec_struct(tp: Any) -> TypeGuard[type[msgspec.Struct]]:
    msgspec = sys.modules.get("msgspec")
    return msgspec is not None and isinstance(tp, type) and issubclass(tp, msgspec.Struct)


class _PydanticModel(Protocol):
    """What is used of a pydantic ``BaseModel`` class (pydantic is never imported here)."""

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]: ...

    @classmethod
    def model_validate(cls, obj: Any) -> Any: ...


def _is_pydantic_model(tp: Any) -> TypeGuard[type[_PydanticModel]]:
    return isinstance(tp, type) and callable(getattr(tp, "model_json_schema", None)) \
        and callable(getattr(tp, "model_validate", None))


def _is_union(origin: Any) -> bool:
    return origin is Union or origin is types.UnionType


def _hints(tp: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(tp, include_extras=True)
    except NameError as error:
        raise TypeSchemaError(f"The annotations of {_name(tp)} cannot be resolved ({error}): define the types "
                              "they name at module level") from None


def _is_required(typeddict: Any, key: str, hint: Any) -> bool:
    """Whether a TypedDict key is required. ``Required[...]``/``NotRequired[...]`` are read
    from the resolved hint: under ``from __future__ import annotations`` Python's own
    ``__required_keys__`` cannot see them (they are strings when the class is made)."""
    while True:
        origin = typing_extensions.get_origin(hint)
        if origin is typing.Annotated or origin is typing_extensions.Annotated:
            hint = hint.__origin__
            continue
        name = getattr(origin, "_name", None) if origin is not None else None
        if name == "Required":
            return True
        if name == "NotRequired":
            return False
        if name == "ReadOnly":
            hint = typing_extensions.get_args(hint)[0]
            continue
        return key in getattr(typeddict, "__required_keys__", (key,))


def _name(tp: Any) -> str:
    return getattr(tp, "__qualname__", None) or getattr(tp, "__name__", None) or repr(tp)


def _own_doc(tp: Any) -> str | None:
    """The docstring written on the class, not one Python made up (dataclass, Enum)."""
    doc = tp.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    doc = inspect.cleandoc(doc)
    if _is_dataclass(tp) and doc.startswith(f"{tp.__name__}("):
        return None
    if isinstance(tp, enum.EnumMeta) and doc in ("An enumeration.", "Create a collection of name/value pairs."):
        return None
    return doc


def _json_type(value: Any) -> str:
    for python, name in _VALUE_TYPES:
        if type(value) is python:
            return name
    raise TypeSchemaError(f"{value!r} is not a JSON value (Literal and Enum values must be str, int, float, "
                          "bool or None)")


def _enum_schema(values: list[Any]) -> Schema:
    kinds = list(dict.fromkeys(_json_type(value) for value in values))
    return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": values}


# --- Type -> schema ----------------------------------------------------------------------

class _Converter:
    """One conversion: types that refer to themselves go under ``definitions``."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.recursive: dict[Any, str] = {}
        self.definitions: dict[str, Schema] = {}
        self._find_recursion(root, [])

    def schema(self) -> Schema:
        schema = self.convert(self.root)
        if self.definitions:
            schema = dict(schema)
            schema["definitions"] = self.definitions
        return schema

    def exported(self, tp: Any, schema: Schema) -> Schema:
        """A msgspec or pydantic export, its shared parts moved to the top's ``definitions``:
        its ``$ref`` s point at the document's root, wherever the export is placed."""
        local = dict(_local_definitions(schema))
        for name, definition in local.pop("definitions", {}).items():
            taken = self.definitions.setdefault(name, definition)
            if taken != definition:
                raise TypeSchemaError(f"{_name(tp)} exports a definition {name!r} that another type "
                                      "in the same schema defines differently: rename one of the two")
        return local

    # Named types are the only ones that can refer to themselves.
    @staticmethod
    def _named(tp: Any) -> bool:
        return _is_typeddict(tp) or _is_dataclass(tp)

    def _children(self, tp: Any) -> list[Any]:
        tp, _ = _unwrap(tp)
        if self._named(tp):
            hints = _hints(tp)
            if _is_dataclass(tp):
                return [hints[field.name] for field in dataclasses.fields(tp) if field.init]
            return list(hints.values())
        return list(typing_extensions.get_args(tp)) if typing_extensions.get_origin(tp) is not typing.Literal else []

    def _find_recursion(self, tp: Any, stack: list[Any]) -> None:
        bare, _ = _unwrap(tp)
        if isinstance(bare, (str, typing.ForwardRef)):
            raise TypeSchemaError(f"The forward reference {bare!r} cannot be resolved here: use a type, "
                                  "or define the types at module level")
        if self._named(bare):
            if bare in stack:
                if bare not in self.recursive:
                    self.recursive[bare] = self._definition_name(bare)
                return
            stack = stack + [bare]
        for child in self._children(tp):
            if child is not Ellipsis:
                self._find_recursion(child, stack)

    def _definition_name(self, tp: Any) -> str:
        base = re.sub(r"[^A-Za-z0-9_.]", "_", _name(tp))
        name, count = base, 2
        while name in self.recursive.values():
            name, count = f"{base}{count}", count + 1
        return name

    def convert(self, tp: Any) -> Schema:
        bare, metadata = _unwrap(tp)
        if _hashable(bare) and bare in self.recursive:
            name = self.recursive[bare]
            if name not in self.definitions:
                self.definitions[name] = {}  # taken: a self-reference below stops here
                self.definitions[name] = self.convert_bare(bare)
            schema: Schema = {"$ref": f"#/definitions/{name}"}
        else:
            schema = self.convert_bare(bare)
        for item in metadata:
            schema = _constrain(schema, item, tp)
        return schema

    def convert_bare(self, tp: Any) -> Schema:
        if tp is Any or tp is object:
            return {}
        try:
            scalar = _SCALARS.get(tp)
        except TypeError:  # an unhashable annotation
            scalar = None
        if scalar is not None:
            return dict(scalar)
        origin = typing_extensions.get_origin(tp)
        args = typing_extensions.get_args(tp)
        if origin is typing.Literal or origin is typing_extensions.Literal:
            values = [value.value if isinstance(value, enum.Enum) else value for value in args]
            return _enum_schema(values)
        if _is_union(origin):
            return self.union(args)
        if _is_enum(tp):
            schema = _enum_schema([member.value for member in tp])
            doc = _own_doc(tp)
            return {**schema, "description": doc} if doc else schema
        if _is_typeddict(tp):
            return self.typeddict(tp)
        if _is_dataclass(tp):
            return self.dataclass(tp)
        if _is_msgspec_struct(tp):
            import msgspec
            return self.exported(tp, msgspec.json.schema(tp))
        if _is_pydantic_model(tp):
            return self.exported(tp, tp.model_json_schema())
        if origin in _SEQUENCES or (_hashable(tp) and tp in _SEQUENCES):
            return self.sequence(origin or tp, args)
        if origin in _MAPPINGS or (_hashable(tp) and tp in _MAPPINGS):
            return self.mapping(args)
        raise TypeSchemaError(f"{_name(tp)} has no JSON Schema form: use a TypedDict, a dataclass, a JSON type, "
                              "or give a JSON Schema")

    def union(self, args: tuple[Any, ...]) -> Schema:
        members = [self.convert(arg) for arg in args]
        if all(set(member) == {"type"} for member in members):
            kinds: list[str] = []
            for member in members:
                kind_or_kinds: str | list[str] = member["type"]
                for kind in kind_or_kinds if isinstance(kind_or_kinds, list) else [kind_or_kinds]:
                    if kind not in kinds:
                        kinds.append(kind)
            return {"type": kinds}
        return {"anyOf": members}

    def sequence(self, origin: Any, args: tuple[Any, ...]) -> Schema:
        schema: Schema = {"type": "array"}
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            if args == ((),):  # tuple[()]
                return {"type": "array", "maxItems": 0}
            schema["items"] = [self.convert(arg) for arg in args]
            schema["minItems"] = schema["maxItems"] = len(args)
            return schema
        if args and args[0] is not Any:
            schema["items"] = self.convert(args[0])
        if origin in _UNIQUE:
            schema["uniqueItems"] = True
        return schema

    def mapping(self, args: tuple[Any, ...]) -> Schema:
        if args:
            key, _ = _unwrap(args[0])
            if key is not str:
                raise TypeSchemaError(f"A JSON object's keys are strings: dict[{_name(key)}, ...] has no JSON "
                                      "Schema form")
            if args[1] is not Any:
                return {"type": "object", "additionalProperties": self.convert(args[1])}
        return {"type": "object"}

    def typeddict(self, tp: Any) -> Schema:
        hints = _hints(tp)
        properties = {name: self.convert(hint) for name, hint in hints.items()}
        return self.object(tp, properties, [name for name, hint in hints.items() if _is_required(tp, name, hint)])

    def dataclass(self, tp: Any) -> Schema:
        hints = _hints(tp)
        properties: dict[str, Schema] = {}
        required: list[str] = []
        for field in dataclasses.fields(tp):
            if not field.init:
                continue
            schema = self.convert(hints[field.name])
            description = field.metadata.get("description")
            if isinstance(description, str):
                schema = {**schema, "description": description}
            if field.default is not dataclasses.MISSING:
                default = field.default.value if isinstance(field.default, enum.Enum) else field.default
                if default is None or type(default) in (str, int, float, bool):
                    schema = {**schema, "default": default}
            elif field.default_factory is dataclasses.MISSING:
                required.append(field.name)
            properties[field.name] = schema
        return self.object(tp, properties, required)

    @staticmethod
    def object(tp: Any, properties: dict[str, Schema], required: list[str]) -> Schema:
        schema: Schema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        doc = _own_doc(tp)
        if doc:
            schema["description"] = doc
        return schema


def _local_definitions(schema: Schema) -> Schema:
    """msgspec's and pydantic's exports keep shared parts in ``$defs`` (2020-12):
    draft 7 keeps them in ``definitions``."""
    def rewrite(node: Any) -> Any:
        if is_object(node):
            out = {("definitions" if key == "$defs" else key): rewrite(value) for key, value in node.items()}
            ref = out.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                out["$ref"] = "#/definitions/" + ref[len("#/$defs/"):]
            return out
        if is_array(node):
            return [rewrite(item) for item in node]
        return node
    rewritten: Schema = rewrite(schema)
    return rewritten


def _is_pattern(value: Any) -> TypeGuard[re.Pattern[Any]]:
    return isinstance(value, re.Pattern)


_BOUNDS = (("gt", "exclusiveMinimum"), ("ge", "minimum"), ("lt", "exclusiveMaximum"), ("le", "maximum"))


def _constrain(schema: Schema, item: Any, tp: Any) -> Schema:
    """``schema`` with one ``Annotated`` metadata item applied."""
    if isinstance(item, (dict, Keywords)):
        return {**schema, **item}
    if _is_pattern(item):
        return {**schema, "pattern": item.pattern}
    name = type(item).__name__
    if type(item).__module__ != "annotated_types" and name != "Doc":
        return schema  # metadata for someone else (Annotated's rule)
    if name == "Doc":
        return {**schema, "description": item.documentation}
    if name in ("Gt", "Ge", "Lt", "Le", "Interval"):
        out = dict(schema)
        for attribute, keyword in _BOUNDS:
            value = getattr(item, attribute, None)
            if value is not None:
                out[keyword] = value
        return out
    if name == "MultipleOf":
        return {**schema, "multipleOf": item.multiple_of}
    if name in ("MinLen", "MaxLen", "Len"):
        noun = {"string": "Length", "array": "Items", "object": "Properties"}.get(schema.get("type", ""))
        if noun is None:
            raise TypeSchemaError(f"{name} in {tp!r} needs a str, list or dict type")
        out = dict(schema)
        if getattr(item, "min_length", None) is not None and (name != "Len" or item.min_length > 0):
            out[f"min{noun}"] = item.min_length
        if getattr(item, "max_length", None) is not None:
            out[f"max{noun}"] = item.max_length
        return out
    raise TypeSchemaError(f"{name} in {tp!r} has no JSON Schema form")


# --- JSON -> annotated values ------------------------------------------------------------

def _builder(tp: Any, building: set[Any]) -> Build | None:
    tp, _ = _unwrap(tp)
    if _hashable(tp) and tp in _SCALAR_BUILDERS:
        return _SCALAR_BUILDERS[tp]
    origin = typing_extensions.get_origin(tp)
    args = typing_extensions.get_args(tp)
    if origin is typing.Literal or origin is typing_extensions.Literal or tp is Any or tp is object:
        return None
    if _is_enum(tp):
        return tp
    if _is_msgspec_struct(tp):
        return _msgspec_builder(tp)
    if _is_pydantic_model(tp):
        return _pydantic_builder(tp)
    if _is_union(origin):
        return _union_builder(args, building)
    if _is_typeddict(tp) or _is_dataclass(tp):
        if tp in building:  # recursive: built lazily, through the same function
            return lambda value: _BUILT[tp](value) if tp in _BUILT else value
        building = building | {tp}
        fields = _hints(tp)
        if _is_dataclass(tp):
            fields = {field.name: fields[field.name] for field in dataclasses.fields(tp) if field.init}
        builders = {name: b for name, hint in fields.items() if (b := _builder(hint, building)) is not None}
        build = _object_builder(tp, builders)
        if build is not None:
            _BUILT[tp] = build
        return build
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        return _tuple_builder([_builder(arg, building) for arg in args])
    if origin in _SEQUENCES or (_hashable(tp) and tp in _SEQUENCES):
        kind = origin or tp
        container: Build | None = tuple if kind is tuple else frozenset if kind is frozenset else \
            set if kind in _UNIQUE else None
        item = _builder(args[0], building) if args else None
        if item is None:
            return container
        return _sequence_builder(container or list, item)
    if origin in _MAPPINGS and len(args) == 2:
        item = _builder(args[1], building)
        return None if item is None else _mapping_builder(item)
    return None


# Container builders say where a value was refused (``InputBuildError.inside``): the
# error names its JSON pointer. (A ``try`` costs nothing until something raises.)

def _tuple_builder(items: list[Build | None]) -> Build:
    if not any(items):
        return tuple

    def build(value: list[Any]) -> tuple[Any, ...]:
        built: list[Any] = []
        try:
            for item, v in zip(items, value):
                built.append(item(v) if item else v)
        except InputBuildError as error:
            raise error.inside(len(built)) from None
        return tuple(built)
    return build


def _sequence_builder(container: Callable[[Any], Any], item: Build) -> Build:
    def build(value: list[Any]) -> Any:
        if item is _integer and float not in map(type, value):  # ints only: nothing to build
            return value if container is list else container(value)
        built: list[Any] = []
        try:
            for v in value:
                built.append(item(v))
        except InputBuildError as error:
            raise error.inside(len(built)) from None
        return built if container is list else container(built)
    return build


def _mapping_builder(item: Build) -> Build:
    def build(value: dict[str, Any]) -> dict[str, Any]:
        built: dict[str, Any] = {}
        key = ""
        try:
            for key, v in value.items():
                built[key] = item(v)
        except InputBuildError as error:
            raise error.inside(key) from None
        return built
    return build


#: Builders of recursive types, looked up when first called (they refer to themselves).
_BUILT: dict[Any, Build] = {}


def _object_builder(tp: Any, builders: dict[str, Build]) -> Build | None:
    if _is_typeddict(tp):
        if not builders:
            return None

        # int fields are by far the most common: a type test each, no call (an int needs none).
        ints = tuple(name for name, build in builders.items() if build is _integer)
        others = tuple((name, build) for name, build in builders.items() if build is not _integer)

        def convert_fields(value: dict[str, Any]) -> dict[str, Any]:
            name = ""
            try:
                for name in ints:
                    if type(value.get(name)) is float:
                        value[name] = _integer(value[name])
                for name, build in others:
                    if name in value:
                        value[name] = build(value[name])
            except InputBuildError as error:
                raise error.inside(name) from None
            return value
        return convert_fields

    names = [field.name for field in dataclasses.fields(tp) if field.init]

    def construct(value: dict[str, Any]) -> Any:
        # Properties the schema does not name are not the constructor's: left out.
        arguments: dict[str, Any] = {}
        name = ""
        try:
            for name in names:
                if name in value:
                    build = builders.get(name)
                    arguments[name] = build(value[name]) if build is not None else value[name]
        except InputBuildError as error:
            raise error.inside(name) from None
        return tp(**arguments)
    return construct


def _union_builder(args: tuple[Any, ...], building: set[Any]) -> Build | None:
    """A union's builder: ``None`` stays ``None`` and ``X | None`` builds the rest as ``X``.
    A union of a type that needs building with any other type is refused: a JSON value
    does not say which of them it stands for (``"2024-01-01"`` for ``date | str``).
    ``int`` is told by the value itself: a JSON number is the ``int`` (unless ``float`` or
    ``Decimal`` is a member too: then numbers stay as validated)."""
    members = [arg for arg in args if arg is not type(None) and arg is not None]
    bare = [_unwrap(member)[0] for member in members]
    if int in bare and len(members) > 1:
        rest = tuple(member for member, kind in zip(members, bare) if kind is not int)
        if any(kind is float or kind is Decimal for kind in bare):
            return _union_builder(rest, building)
        others = _union_builder(rest, building)
        if others is None:
            return _integer
        return lambda value: _integer(value) if type(value) in _NUMBERS else others(value)
    built = [(member, b) for member in members if (b := _builder(member, building)) is not None]
    if not built:
        return None
    if len(members) == 1:
        build = built[0][1]
        if build is _integer:
            return _integer  # None passes unchanged
        return lambda value: None if value is None else build(value)
    raise TypeSchemaError(f"Union[{', '.join(_name(m) for m in members)}]: which member a JSON value stands for "
                          f"cannot be told, and {_name(built[0][0])} needs building from it; use JSON types "
                          "only, or that type alone (with None)")


_NUMBERS = (int, float)


def _integer(value: Any) -> Any:
    """An ``int`` as the annotation says: a JSON integer may arrive as an integral float
    (``1.0``, ``1e20``, an integer beyond 64 bits, which JSON parsers read as a double);
    ``Infinity`` (which the ``integer`` keyword lets through, as Ajv does) is refused.
    Anything else (an int, or the other members of a union) passes unchanged."""
    if type(value) is float:
        if value.is_integer():
            return int(value)
        raise InputBuildError("should be a finite integer")
    return value


def _msgspec_builder(tp: Any) -> Build:
    import msgspec

    def build(value: Any) -> Any:
        try:
            # strict=False: an integral float for an int field, as for other types' ints.
            return msgspec.convert(value, tp, strict=False)
        except msgspec.ValidationError as error:
            try:  # msgspec takes integral floats up to 2**53 only: the larger ones as ints
                return msgspec.convert(_integral_floats_as_ints(value), tp, strict=False)
            except msgspec.ValidationError:
                pass
            message, _, where = str(error).rpartition(" - at `$")
            raise InputBuildError(f"should be a valid {_name(tp)}: {message or where}",
                                  _msgspec_path(where.rstrip("`")) if message else ()) from None
    return build


def _integral_floats_as_ints(value: Any) -> Any:
    """A copy of a JSON value whose integral floats are ints (a float field takes an int)."""
    if type(value) is float:
        return int(value) if value.is_integer() else value
    if is_object(value):
        return {key: _integral_floats_as_ints(item) for key, item in value.items()}
    if is_array(value):
        return [_integral_floats_as_ints(item) for item in value]
    return value


_MSGSPEC_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def _msgspec_path(where: str) -> tuple[str | int, ...]:
    """msgspec's ``$.all[2]`` as ``("all", 2)``."""
    return tuple(int(index) if index else key for key, index in _MSGSPEC_STEP.findall(where))


def _pydantic_builder(tp: Any) -> Build:
    def build(value: Any) -> Any:
        try:
            return tp.model_validate(value)
        except ValueError as error:  # pydantic's ValidationError; pydantic is never imported here
            details: Any = getattr(error, "errors", None)
            records: list[dict[str, Any]] = details() if details is not None else []
            first = records[0] if records else {}
            message = str(first.get("msg", "is not valid")).lower()
            raise InputBuildError(f"should be a valid {_name(tp)}: {message}",
                                  tuple(first.get("loc", ()))) from None
    return build


def _time(value: str) -> datetime.time:
    return datetime.time.fromisoformat(value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value)


def _datetime(value: str) -> datetime.datetime:
    # date-time validated as RFC 3339: "Z" and lower-case "t" need help before Python 3.11.
    text = value.replace("t", "T").replace("z", "Z")
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.datetime.fromisoformat(text)


def _decimal(value: Any) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


_SCALAR_BUILDERS: dict[Any, Build] = {
    int: _integer,
    datetime.datetime: _datetime,
    datetime.date: datetime.date.fromisoformat,
    datetime.time: _time,
    uuid.UUID: uuid.UUID,
    Decimal: _decimal,
}
