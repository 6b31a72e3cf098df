"""The code generator: one response schema in, the Python source of its serializer out.

Architecture (read this first)
------------------------------
:class:`SerializerGenerator` walks the schema once. For each subschema it returns a
:class:`Shaper`: how to turn a Python value held in a local variable into its *shaped*
value (the JSON tree with only declared properties, coerced to the declared types),
written as a Python expression. Scalars are inlined (``v if type(v) is str else
_to_str(v)``); objects, arrays, type lists and ``anyOf``/``oneOf`` become functions
(``_obj_3``) so recursive schemas terminate and each subschema is written once. The
entry point ``serialize(data)`` shapes the whole value and encodes it once, in C.

A value that does not fit raises ``SerializationError``; as it leaves each property or
item, a ``try`` around the statement that shaped it prepends the key or index to the
error's ``pointer`` (:meth:`SerializerGenerator.located`; a ``try`` costs nothing until
it catches), so the reply can log where the value is.

Each keyword has its method (``generate_object``, ``generate_string``, ``generate_const``,
``generate_any_of``...). Extend by subclassing: override a method, or add a ``format``
to :attr:`SerializerGenerator.FORMATS` (name -> a runtime callable returning a ``str``).

Safety: no schema text is ever spliced into the source raw; schema values reach it as
:mod:`framework.schemas.codegen` says. Property names, literal
``const`` values and defaults, messages and paths are written out through ``repr()``
(:func:`framework.schemas.codegen.literal`: always a valid literal of the same value); ``enum``
lists, other defaults and compiled patterns through the constants table (globals
``_c1``, ``_c2``...). Comments carry paths through ``repr()`` too
(:func:`framework.schemas.codegen.comment`), so a newline in a property name cannot end a comment.

Emission: the module is written through one :class:`framework.schemas.codegen.Emitter`
(:attr:`SerializerGenerator.emitter`), each function's ``def`` line and each property
line carrying its schema path as the line's comment. A subschema that needs a function
gets its name at once (so recursion terminates) and its body is queued, then written
after the function being written: the functions come out one after another, top-down
from ``serialize``.
"""
from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..schemas.codegen import Constants, Emitter, comment
from ..errors import SchemaCompileError
from ..schemas.keywords import TYPE_KEYWORDS
from ..schemas.store import JSONData, RefIndex, absolutize, base_inside
from ..undefined import UNDEFINED
from . import runtime
from .merging import merge_schemas

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

Schema = dict[str, Any]
#: ``compile(schema, shared) -> validate``: a plain validator (it changes nothing: no
#: coercion, no defaults, not strict) whose ``validate(data)`` raises on invalid data.
#: The serializer gets it from its caller (:func:`framework.serialization.compile_serializer`
#: passes the framework's): the two engines do not import each other.
ValidatorCompiler = Callable[[Any, Mapping[str, Any]], Callable[[Any], Any]]


def _check_not_undefined(var: str) -> str:
    return f"{var} is not _U"


def _ref_of(node: JSONData) -> str | None:
    """The ``$ref`` of a schema node, when it has one (a string)."""
    ref: JSONData = node.get("$ref") if isinstance(node, dict) else None
    return ref if isinstance(ref, str) else None


def _extras_of(schema: Schema) -> tuple[dict[str, Any], Any, bool]:
    """An object schema's ``patternProperties`` (a dict, perhaps empty), its
    ``additionalProperties``, and whether either lets members beyond the declared ones out."""
    declared: JSONData = schema.get("patternProperties")
    patterns: dict[str, Any] = declared if isinstance(declared, dict) else {}
    additional = schema.get("additionalProperties")
    return patterns, additional, bool(patterns) or (additional is not None and additional is not False)


@dataclass(frozen=True)
class _FastPath:
    """An object schema's fast path: its properties in output order, the required names it
    does not declare, and each declared property's shaper."""

    order: list[str]
    only_required: list[str]
    shapers: dict[str, "Shaper"]


@dataclass(frozen=True)
class Shaper:
    """How one subschema shapes the value held in a local variable.

    ``expr(var)`` is a Python expression giving the shaped value of ``var``. ``check(var)``
    is a cheap condition under which the object fast path may use ``var`` itself (when
    ``identity``) or ``expr(var)`` without falling back to the general path.
    """

    expr: Callable[[str], str]
    check: Callable[[str], str] = _check_not_undefined
    identity: bool = False


# fast-json-stringify infers a missing ``type`` from the keywords of one type present
# (not from ``propertyNames`` or ``format``, which it leaves out).
_INFERRED_TYPES = tuple(
    (kind, tuple(k for k in TYPE_KEYWORDS[kind] if k not in ("propertyNames", "format")))
    for kind in ("object", "array", "string", "number"))

#: The id under which an ``if`` validator finds a root document that has no ``$id``.
_ROOT_ID = "urn:x-framework-serializer:root"

_JSON_TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")


class SerializerGenerator:
    """Generate the serializer source of ``schema`` (``shared``: ``$id`` -> shared schema).

    ``emitter`` holds the generated module, ``source`` is its text (header and path
    comments included); ``namespace`` the globals it runs in (the runtime helpers and
    the constants table).

    >>> "def serialize(data):" in SerializerGenerator({"type": "string"}).source
    True
    """

    #: ``format`` name -> runtime function turning a value into its ``str``.
    FORMATS: dict[str, Callable[[Any], str]] = {
        "date-time": runtime.fmt_date_time,
        "date": runtime.fmt_date,
        "time": runtime.fmt_time,
    }

    #: ``type`` -> the method generating it.
    TYPE_METHODS: dict[str, str] = {
        "string": "generate_string",
        "integer": "generate_integer",
        "number": "generate_number",
        "boolean": "generate_boolean",
        "null": "generate_null",
        "object": "generate_object",
        "array": "generate_array",
    }

    def __init__(self, schema: Any, shared: Mapping[str, Any] | None = None,
                 index: RefIndex | None = None, compile_validator: ValidatorCompiler | None = None) -> None:
        self.root: JSONData = schema
        #: Compiles the ``if`` checks and the checks of overlapping ``anyOf`` branches.
        self.compile_validator = compile_validator
        self.shared: Mapping[str, Any] = shared if shared is not None else {}
        #: The ``$ref`` resolver; ``base`` arguments below are base URIs in its terms
        #: (the base in effect inside the schema at hand, :func:`framework.schemas.store.base_inside`).
        self.index = index if index is not None else RefIndex(schema, self.shared)
        self.emitter = Emitter()
        #: Function bodies to write (``_new_function`` names them before they are written).
        self._queue: deque[Callable[[], None]] = deque()
        self.namespace: dict[str, Any] = self.base_namespace()
        self._constants = Constants(self.namespace, self.emitter)
        self._function_names: dict[tuple[Any, ...], str] = {}
        self._normalized: dict[tuple[Any, ...], tuple[Schema, str]] = {}
        self._branches: dict[tuple[Any, ...], list[Schema]] = {}
        # Derived schemas (merges, type-list members) live as long as the generator, so
        # the ids that key _function_names are never reused by another object.
        self._keep: list[Any] = []
        self._counter = 0
        entry = self.shaper(schema, "", "#").expr("data")
        self.entry_point(entry)
        while self._queue:
            self._queue.popleft()()

    @cached_property
    def source(self) -> str:
        """The generated module: :attr:`HEADER`, then the code with its path comments."""
        return self.emitter.source(self.HEADER)

    def entry_point(self, entry: str) -> None:
        """``serialize(data) -> bytes``: shape the whole value, then encode it once, in C.

        The encoder call is inlined rather than going through a helper: one Python frame
        less is 5-10% of a small object's time.
        """
        out = self.emitter
        with self.function("serialize", "#", "data"):
            with out.line("try:"):
                out.line(f"shaped = {entry}")
            with out.line("except RecursionError:"):
                out.line("raise _Error('The value is nested too deeply to serialize.') from None")
            with out.line("try:"):
                out.line("return _orjson_dumps(shaped)")
            with out.line("except TypeError:", "# orjson refuses integers beyond 64 bits and lone surrogates:"):
                out.line("return _encode_fallback(shaped)",
                         "# the stdlib writes those (a lone surrogate as a \\udXXX escape)")

    # ------------------------------------------------------------------ plumbing

    @staticmethod
    def base_namespace() -> dict[str, Any]:
        """The runtime helpers every generated module reads (its namespace before constants)."""
        return {
            "_U": UNDEFINED,
            "_to_str": runtime.to_str, "_to_int": runtime.to_int, "_to_num": runtime.to_num,
            "_to_bool": runtime.to_bool, "_plain": runtime.plain, "_key_str": runtime.key_str,
            "_as_mapping": runtime.as_mapping, "_as_list": runtime.as_list,
            "_required": runtime.required_error, "_mismatch": runtime.mismatch_error,
            "_at": runtime.at, "_item_error": runtime.item_error,
            "_Error": runtime.SerializationError, "_orjson_dumps": runtime.orjson_dumps,
            "_encode_fallback": runtime.encode_fallback,
            "_Mapping": Mapping, "_PLAIN_SCALARS": frozenset((str, int, bool, type(None))),
            "_datetime_types": runtime.DATETIME_TYPES,
        }

    #: The comment lines above the generated code in :attr:`source`.
    HEADER = ("# Generated by framework.serialization.SerializerGenerator.\n"
              "# One function per object, array, type list and anyOf/oneOf subschema;\n"
              "# scalars are inlined. Property names are written as repr() literals; names\n"
              "# starting with _c are constants (values, compiled patterns) from the schema.\n\n")

    def function(self, name: str, path: str, argument: str = "v") -> AbstractContextManager[None]:
        """Start ``def name(argument):`` (its schema path as the comment); ``with`` it for the body."""
        if len(self.emitter):
            self.emitter.line("")
        return self.emitter.line(f"def {name}({argument}):", comment(path))

    @property
    def constants(self) -> dict[str, Any]:
        """The constants table alone (in :attr:`namespace` too): ``{name: value}``."""
        return self._constants.table()

    def constant(self, value: Any) -> str:
        """The global name under which generated code reads ``value`` (the constants table)."""
        return self._constants.name(value)

    def expression(self, value: Any) -> str:
        """Source text for a schema value: its ``repr()`` when it is a literal (a property
        name), else a constant's name (:meth:`framework.schemas.codegen.Constants.source`)."""
        return self._constants.source(value)

    def located(self, statement: str, segment: str, note: str | None = None) -> None:
        """Write ``statement`` (which shapes one property or item) so that a
        ``SerializationError`` it raises leaves with ``segment`` (a Python expression: the
        key or index) prepended to its JSON pointer. A ``try`` costs nothing until it catches."""
        out = self.emitter
        with out.line("try:", note):
            out.line(statement)
        with out.line("except _Error as e:"):
            out.line(f"raise _at(e, {segment})")

    def located_items(self, statement: str, item: Shaper, start: int, note: str | None = None) -> None:
        """Write ``statement``, a comprehension shaping ``v[start:]`` with ``item``, so that
        a ``SerializationError`` leaves with the failing item's index in its JSON pointer
        (found by :func:`runtime.item_error`, only once the comprehension has failed)."""
        out = self.emitter
        with out.line("try:", note):
            out.line(statement)
        with out.line("except _Error as e:"):
            out.line(f"raise _item_error(e, v, lambda x: {item.expr('x')}, {start})")

    def _new_function(self, kind: str, key: tuple[Any, ...],
                      body: Callable[[str], None]) -> Shaper:
        """The shaper calling the function of ``key``; a new one's ``body(name)`` is queued."""
        name = self._function_names.get(key)
        if name is None:
            self._counter += 1
            name = f"_{kind}_{self._counter}"
            self._function_names[key] = name
            self._queue.append(lambda: body(name))
        return Shaper(expr=lambda v: f"{name}({v})")

    def resolve(self, schema: Any, outer: str) -> tuple[Any, str]:
        """Follow ``$ref`` (siblings of ``$ref`` are ignored, as in draft 7); return the
        target and the base URI inside it."""
        for _ in range(64):
            ref = _ref_of(schema)
            if ref is None:
                return schema, base_inside(schema, outer)
            schema, outer = self.index.resolve(ref, outer)
        raise SchemaCompileError(f"$ref loop at {schema.get('$ref')!r}")

    def normalize(self, schema: Any, base: str, depth: int = 0) -> tuple[Schema, str]:
        """``schema`` with ``$ref`` followed and ``allOf`` merged; boolean schemas as ``{}``.

        ``base`` is the base URI around ``schema``; the base URI inside the result is
        returned with it (what its subschemas resolve against).
        """
        if depth > 64:
            raise SchemaCompileError("allOf/$ref nesting too deep (a loop?)")
        target: JSONData
        target, base = self.resolve(schema, base)
        if not isinstance(target, dict):
            return {}, base
        all_of: JSONData = target.get("allOf")
        if not isinstance(all_of, list):
            return target, base
        key = ("allOf", id(target), base)
        cached = self._normalized.get(key)
        if cached is None:
            # The key holds id(target): keep target alive, or a later temporary (a merge
            # result) could get its id and be taken for it.
            self._keep.append(target)
            own_keywords = {k: v for k, v in target.items() if k != "allOf"}
            parts: list[Any] = [own_keywords]
            for part in all_of:
                part_schema, part_base = self.normalize(part, base, depth + 1)
                parts.append(part_schema if part_base == base else absolutize(part_schema, part_base))
            merged = merge_schemas(parts)
            cached = self._normalized[key] = self.normalize(merged, base, depth + 1)
            self._keep.append(merged)
        return cached

    @staticmethod
    def types_of(schema: Schema, path: str = "#") -> list[str] | None:
        """The declared (or, as fast-json-stringify does, inferred) types; ``None``: untyped."""
        declared: JSONData = schema.get("type")
        if declared is None:
            for inferred, keywords in _INFERRED_TYPES:
                if any(keyword in schema for keyword in keywords):
                    return [inferred]
            return None
        types: list[Any] = declared if isinstance(declared, list) else [declared]
        for kind in types:
            if kind not in _JSON_TYPES:
                raise SchemaCompileError(f"{path}/type: {kind!r} unsupported")
        return list(dict.fromkeys(types))

    # ------------------------------------------------------------------ dispatch

    def shaper(self, schema: Any, base: str, path: str) -> Shaper:
        """The :class:`Shaper` of any subschema: the dispatch on its keywords."""
        schema, base = self.normalize(schema, base)
        if schema.get("if") is not None and schema.get("then") is not None:
            return self.generate_if_then_else(schema, base, path)
        if isinstance(schema.get("anyOf"), list) or isinstance(schema.get("oneOf"), list):
            return self.generate_any_of(schema, base, path)
        types = self.types_of(schema, path)
        nullable = schema.get("nullable") is True
        if "const" in schema:
            return self.generate_const(schema, base, path,
                                       nullable=nullable or bool(types and "null" in types))
        if types is None:
            shaper = self.generate_untyped(schema, base, path)
        elif len(types) > 1:
            return self.generate_type_list(schema, base, path, types)
        else:
            shaper = getattr(self, self.TYPE_METHODS[types[0]])(schema, base, path)
        if nullable and types != ["null"]:
            return self.generate_nullable(shaper)
        return shaper

    # ------------------------------------------------------------------ keywords

    def generate_nullable(self, inner: Shaper) -> Shaper:
        """``nullable: true``: ``None`` stays ``null`` instead of coercing to ``""``/``0``/``{}``."""
        return Shaper(expr=lambda v: f"(None if {v} is None else {inner.expr(v)})",
                      check=inner.check, identity=inner.identity)

    def generate_const(self, schema: Schema, base: str, path: str, nullable: bool) -> Shaper:
        """``const``: the constant, whatever the value (fast-json-stringify does the same)."""
        name = self.expression(runtime.plain(schema["const"]))
        if nullable:
            return Shaper(expr=lambda v: f"(None if {v} is None else {name})")
        return Shaper(expr=lambda v: name)

    def generate_untyped(self, schema: Schema, base: str, path: str) -> Shaper:
        """No type (``{}``, ``true``, an ``enum`` alone): the value as plain JSON."""
        return Shaper(expr=lambda v: f"({v} if type({v}) in _PLAIN_SCALARS else _plain({v}))",
                      check=lambda v: f"type({v}) in _PLAIN_SCALARS", identity=True)

    def generate_string(self, schema: Schema, base: str, path: str) -> Shaper:
        """``string``, with ``format`` date-time/date/time for datetime objects."""
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in self.FORMATS:
            helper = self.constant(self.FORMATS[fmt])
            return Shaper(expr=lambda v: f"{helper}({v})")
        return Shaper(expr=lambda v: f"({v} if type({v}) is str else _to_str({v}))",
                      check=lambda v: f"type({v}) is str", identity=True)

    def generate_integer(self, schema: Schema, base: str, path: str) -> Shaper:
        """``integer``: floats truncate; ``type(v) is int`` keeps bools on the coercing path."""
        return Shaper(expr=lambda v: f"({v} if type({v}) is int else _to_int({v}))",
                      check=lambda v: f"type({v}) is int", identity=True)

    def generate_number(self, schema: Schema, base: str, path: str) -> Shaper:
        """``number``: ints and finite floats as they are; ``+-inf``/``nan`` become ``null``."""
        # orjson writes inf and nan as null already, which is the rule here.
        def check(v: str) -> str:
            return f"(type({v}) is float or type({v}) is int)"
        return Shaper(expr=lambda v: f"({v} if {check(v)} else _to_num({v}))", check=check, identity=True)

    def generate_boolean(self, schema: Schema, base: str, path: str) -> Shaper:
        """``boolean``: the truthiness of the value."""
        return Shaper(expr=lambda v: f"({v} if type({v}) is bool else _to_bool({v}))",
                      check=lambda v: f"type({v}) is bool", identity=True)

    def generate_null(self, schema: Schema, base: str, path: str) -> Shaper:
        """``null``: always ``null``."""
        return Shaper(expr=lambda v: "None")

    def generate_object(self, schema: Schema, base: str, path: str) -> Shaper:
        """``object``: a function with a fast path and a general path (see :meth:`object_body`)."""
        return self._new_function("obj", ("object", id(schema), base),
                                  lambda name: self.object_body(name, schema, base, path))

    def object_body(self, name: str, schema: Schema, base: str, path: str) -> None:
        """Write the object function ``name``.

        Fast path: a plain dict holding every declared property with values already of
        their exact types, and no ``patternProperties``/``additionalProperties``: one
        subscript per property (a ``KeyError`` leaves it), one cheap check each, and a
        dict literal with literal keys. Anything else takes the general path, which
        handles missing properties, defaults, ``UNDEFINED``, coercions and extras.
        """
        properties, required, fast = self.object_members(schema, base, path)
        required_set = set(required)
        order, only_required, shapers = fast.order, fast.only_required, fast.shapers
        patterns, additional, has_extras = _extras_of(schema)

        out = self.emitter
        with self.function(name, path):
            if order and not has_extras:
                self.fast_path(fast, "v", lambda value: out.line(f"return {value}"))

            with out.line("if v is None or v is _U:"):
                out.line("return {}")
            with out.line("if type(v) is not dict:"):
                out.line(f"v = _as_mapping(v, {self.expression(path)})")
            out.line("out = {}")
            for key in order:
                prop_schema, _ = self.normalize(properties[key], base)
                quoted = json.dumps(key, ensure_ascii=False)
                out.line(f"p = v.get({self.expression(key)}, _U)", comment(f"{path}/properties/{key}"))
                with out.line("if p is not _U:"):
                    self.located(f"out[{self.expression(key)}] = {shapers[key].expr('p')}", self.expression(key))
                if "default" in prop_schema:
                    with out.line("else:"):
                        default = self.expression(runtime.plain(prop_schema["default"]))
                        out.line(f"out[{self.expression(key)}] = {default}")
                elif key in required_set:
                    with out.line("else:"):
                        out.line(f"raise _required({self.expression(quoted)})")
            for key in only_required:
                quoted = json.dumps(key, ensure_ascii=False)
                with out.line(f"if v.get({self.expression(key)}, _U) is _U:", comment(f"{path}/required")):
                    out.line(f"raise _required({self.expression(quoted)})")
            if has_extras:
                self.extras(schema, base, path, properties, patterns, additional)
            out.line("return out")

    def fast_path(self, fast: "_FastPath", var: str, answer: Callable[[str], object]) -> None:
        """Write an object's fast path for the value in ``var``; ``answer(dict_literal)``
        writes what it does with the shaped object."""
        out = self.emitter
        with out.line(f"if type({var}) is dict:"):
            with out.line("try:"):
                for index, key in enumerate(fast.order):
                    out.line(f"p{index} = {var}[{self.expression(key)}]")
                for index, key in enumerate(fast.only_required):
                    out.line(f"r{index} = {var}[{self.expression(key)}]")
            with out.line("except KeyError:"):
                out.line("pass")
            with out.line("else:"):
                checks = [fast.shapers[key].check(f"p{index}") for index, key in enumerate(fast.order)]
                checks += [f"r{index} is not _U" for index in range(len(fast.only_required))]
                values = ", ".join(f"{self.expression(key)}: p{index}" for index, key in enumerate(fast.order))
                with out.line(f"if {' and '.join(checks)}:"):
                    for index, key in enumerate(fast.order):
                        if not fast.shapers[key].identity:  # shaped one by one: a failure names its key
                            self.located(f"p{index} = {fast.shapers[key].expr(f'p{index}')}", self.expression(key))
                    answer(f"{{{values}}}")

    def object_members(self, schema: Schema, base: str, path: str) -> tuple[dict[str, Any], list[str], "_FastPath"]:
        """An object schema's declared properties, its required names, and its fast path:
        the properties in output order (fast-json-stringify v5: required ones first, each
        group in schema order), the required names it does not declare, and each
        property's shaper."""
        declared: JSONData = schema.get("properties")
        properties: dict[str, Any] = declared if isinstance(declared, dict) else {}
        listed: Iterable[object] = schema.get("required") or ()
        required = [key for key in dict.fromkeys(listed) if isinstance(key, str)]
        for key in required:
            if properties.get(key) is False:
                raise SchemaCompileError(
                    f"{path}/required: the required property {key!r} has the schema false "
                    f"({path}/properties/{key}): no value can be serialized")
        required_set = set(required)
        order = sorted(properties, key=lambda key: key not in required_set)
        shapers = {key: self.shaper(properties[key], base, f"{path}/properties/{key}") for key in order}
        return properties, required, _FastPath(order, [key for key in required if key not in properties], shapers)

    def inline_fast_path(self, schema: Any, base: str, path: str) -> "_FastPath | None":
        """The fast path of an array's items when they are objects whose fast path shapes no
        member (each is already of its type): the array's loop runs it without a call per item."""
        schema, base = self.normalize(schema, base)
        has_extras = _extras_of(schema)[2]
        if (self.types_of(schema, path) != ["object"] or schema.get("nullable") is True or "const" in schema
                or (schema.get("if") is not None and schema.get("then") is not None)
                or isinstance(schema.get("anyOf"), list) or isinstance(schema.get("oneOf"), list)
                or has_extras):
            return None
        fast = self.object_members(schema, base, path)[2]
        if not fast.order or not all(shaper.identity for shaper in fast.shapers.values()):
            return None
        return fast

    def extras(self, schema: Schema, base: str, path: str, properties: dict[str, Any],
               patterns: dict[str, Any], additional: Any) -> None:
        """``patternProperties`` (first matching pattern wins) then ``additionalProperties``."""
        declared = self.constant(frozenset(properties))
        out = self.emitter
        with out.line("for k, p in v.items():"):
            with out.line("if p is _U:"):
                out.line("continue")
            with out.line("if type(k) is not str:"):
                out.line("k = _key_str(k)")
            with out.line(f"if k in {declared}:"):
                out.line("continue")
            for pattern, sub in patterns.items():
                try:
                    search = re.compile(pattern).search
                except re.error as error:
                    raise SchemaCompileError(f"invalid patternProperties pattern {pattern!r}: {error}") from None
                sub_path = f"{path}/patternProperties/{pattern}"
                shaper = self.shaper(sub, base, sub_path)
                with out.line(f"if {self.constant(search)}(k):", comment(sub_path)):
                    self.located(f"out[k] = {shaper.expr('p')}", "k")
                    out.line("continue")
            if additional is True:
                self.located(f"out[k] = {self.generate_untyped({}, base, path).expr('p')}", "k",
                             comment(f"{path}/additionalProperties"))
            elif isinstance(additional, dict):
                shaper = self.shaper(additional, base, f"{path}/additionalProperties")
                self.located(f"out[k] = {shaper.expr('p')}", "k", comment(f"{path}/additionalProperties"))

    def generate_array(self, schema: Schema, base: str, path: str) -> Shaper:
        """``array``: ``items`` as one schema, or a tuple with ``additionalItems``."""
        return self._new_function("arr", ("array", id(schema), base),
                                  lambda name: self.array_body(name, schema, base, path))

    def array_body(self, name: str, schema: Schema, base: str, path: str) -> None:
        """Write the array function ``name``."""
        out = self.emitter
        with self.function(name, path):
            with out.line("if type(v) is not list:"):
                out.line(f"v = _as_list(v, {self.expression(path)})")
            items: JSONData = schema.get("items")
            if isinstance(items, list):
                self.tuple_body(schema, base, path, items)
            else:
                item = self.shaper(items if items is not None else {}, base, f"{path}/items")
                fast = self.inline_fast_path(items, base, f"{path}/items") if isinstance(items, dict) else None
                if fast is None:
                    self.located_items(f"return [{item.expr('x')} for x in v]", item, 0, comment(f"{path}/items"))
                    return
                # Objects already in shape (a list of database rows) skip the call per item.
                out.line("out = []")
                out.line("append = out.append")
                with out.line("try:", comment(f"{path}/items")):
                    with out.line("for x in v:"):
                        self.fast_path(fast, "x", lambda value: (out.line(f"append({value})"), out.line("continue")))
                        out.line(f"append({item.expr('x')})")
                with out.line("except _Error as e:"):
                    out.line(f"raise _item_error(e, v, lambda x: {item.expr('x')}, 0)")
                out.line("return out")

    def tuple_body(self, schema: Schema, base: str, path: str, items: list[Any]) -> None:
        """Tuple form. Extra items need ``additionalItems`` (true or a schema), as in fast-json-stringify."""
        count = len(items)
        additional = schema.get("additionalItems")
        out = self.emitter
        out.line("n = len(v)")
        if not additional:
            with out.line(f"if n > {count}:"):
                out.line(f"raise _Error({self.expression(f'Item at {count} does not match schema definition.')})")
        out.line("out = []")
        for index, sub in enumerate(items):
            sub_path = f"{path}/items/{index}"
            shaper = self.shaper(sub, base, sub_path)
            with out.line(f"if n > {index}:", comment(sub_path)):
                out.line(f"x = v[{index}]")
                self.located(f"out.append({shaper.expr('x')})", str(index))
        if additional:
            shaper = (self.generate_untyped({}, base, path) if additional is True
                      else self.shaper(additional, base, f"{path}/additionalItems"))
            self.located_items(f"out.extend([{shaper.expr('x')} for x in v[{count}:]])", shaper, count,
                               comment(f"{path}/additionalItems"))
        out.line("return out")

    #: The type checks of a type list, in fast-json-stringify's lenient form: ``None``
    #: passes as a string, number or boolean (and is coerced) when ``null`` is not listed.
    TYPE_LIST_CHECKS: dict[str, str] = {
        "null": "v is None",
        "string": "isinstance(v, str) or v is None or isinstance(v, _datetime_types)",
        "integer": "(isinstance(v, int) and v is not True and v is not False)"
                   " or (type(v) is float and v.is_integer()) or v is None",
        "number": "(isinstance(v, (int, float)) and v is not True and v is not False) or v is None",
        "boolean": "v is True or v is False or v is None",
        "object": "isinstance(v, _Mapping)",
        "array": "isinstance(v, (list, tuple))",
    }

    def generate_type_list(self, schema: Schema, base: str, path: str, types: list[str]) -> Shaper:
        """``type: [...]``: the first type whose check passes (``null`` tried first)."""
        return self._new_function("types", ("types", id(schema), base),
                                  lambda name: self.type_list_body(name, schema, base, path, types))

    def type_list_body(self, name: str, schema: Schema, base: str, path: str, types: list[str]) -> None:
        """Write the type-list function ``name``."""
        out = self.emitter
        with self.function(name, path):
            if schema.get("nullable") is True and "null" not in types:
                with out.line("if v is None:"):
                    out.line("return None")
            for kind in sorted(types, key=lambda t: t != "null"):
                single = {k: val for k, val in schema.items() if k not in ("type", "nullable", "$id")}
                single["type"] = kind
                self._keep.append(single)
                shaper = self.shaper(single, base, path)
                with out.line(f"if {self.TYPE_LIST_CHECKS[kind]}:"):
                    out.line(f"return {shaper.expr('v')}")
            out.line(f"raise _mismatch({self.expression(path)})")

    def if_validator(self, schema: Any, base: str) -> Callable[[Any], bool]:
        """``check(value) -> bool`` for an ``if`` subschema, compiled by :attr:`compile_validator`.

        Its ``$ref`` are made absolute first (the root document joins the shared schemas
        under an internal id when it has none), so they keep their meaning out of place.
        """
        if self.compile_validator is None:
            raise SchemaCompileError("if/then/else needs a validator: pass compile_validator to SerializerGenerator")
        shared = dict(self.shared)
        root_id = base_inside(self.root, "")
        if not base:
            base = root_id = _ROOT_ID
        if root_id and root_id not in shared and isinstance(self.root, dict):
            shared[root_id] = {**self.root, "$id": root_id}
        if schema is True or schema is False:
            schema = {} if schema else {"not": {}}
        validate = self.compile_validator(absolutize(schema, base), shared)
        return runtime.matcher(validate)

    def generate_if_then_else(self, schema: Schema, base: str, path: str) -> Shaper:
        """``if``/``then``/``else``: the data validated against ``if`` picks the branch.

        As fast-json-stringify 5: each branch is merged with the schema around it (minus
        ``if``/``then``/``else``); a missing ``else`` is ``{"additionalProperties": true}``.
        The ``if`` check is a validator compiled now; it runs on the value's JSON form.
        """
        return self._new_function("if", ("if", id(schema), base),
                                  lambda name: self.if_then_else_body(name, schema, base, path))

    def if_then_else_body(self, name: str, schema: Schema, base: str, path: str) -> None:
        """Write the ``if``/``then``/``else`` function ``name``."""
        self._keep.append(schema)
        outside = {k: v for k, v in schema.items() if k not in ("if", "then", "else")}
        check = self.constant(self.if_validator(schema["if"], base))
        otherwise = schema.get("else")
        if otherwise is None:
            otherwise = {"additionalProperties": True}
        shapers: list[Shaper] = []
        for keyword, branch in (("then", schema["then"]), ("else", otherwise)):
            branch_schema, branch_base = self.normalize(branch, base)
            if branch_base != base:
                branch_schema = absolutize(branch_schema, branch_base)
            merged = merge_schemas([outside, branch_schema])
            self._keep.append(merged)
            shapers.append(self.shaper(merged, base, f"{path}/{keyword}"))
        out = self.emitter
        with self.function(name, path):
            with out.line(f"if {check}(v):", comment(f"{path}/if")):
                out.line(f"return {shapers[0].expr('v')}", comment(f"{path}/then"))
            out.line(f"return {shapers[1].expr('v')}", comment(f"{path}/else"))

    def branches(self, schema: Schema, base: str) -> list[Schema]:
        """The ``anyOf``/``oneOf`` branches of ``schema``, each merged with the schema around it."""
        keyword = "anyOf" if isinstance(schema.get("anyOf"), list) else "oneOf"
        key = ("branches", id(schema), base)
        cached = self._branches.get(key)
        if cached is None:
            self._keep.append(schema)
            outside = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
            merged_branches: list[Schema] = []
            for branch in schema[keyword]:
                branch_schema, branch_base = self.normalize(branch, base)
                if branch_base != base:
                    branch_schema = absolutize(branch_schema, branch_base)
                merged, _ = self.normalize(merge_schemas([outside, branch_schema]), base)
                self._keep.append(merged)
                merged_branches.append(merged)
            cached = self._branches[key] = merged_branches
        return cached

    def generate_any_of(self, schema: Schema, base: str, path: str) -> Shaper:
        """``anyOf``/``oneOf``: the first branch whose cheap check (:meth:`branch_check`) passes.

        Each branch is merged with the schema around the ``anyOf`` (minus the ``anyOf``),
        as fast-json-stringify does. Where branches overlap in type (two object shapes,
        two arrays), the cheap check cannot tell them apart: those branches are tried
        first by validating the value against them, as fast-json-stringify chooses (a
        validator compiled now), then, when none validates, by the cheap check alone.
        """
        keyword = "anyOf" if isinstance(schema.get("anyOf"), list) else "oneOf"
        return self._new_function("any", (keyword, id(schema), base),
                                  lambda name: self.any_of_body(name, schema, base, path, keyword))

    def any_of_body(self, name: str, schema: Schema, base: str, path: str, keyword: str) -> None:
        """Write the ``anyOf``/``oneOf`` function ``name``."""
        branches = self.branches(schema, base)
        kinds = [self._branch_types(merged, base) for merged in branches]
        shaped: list[tuple[str, str]] = []
        for index, merged in enumerate(branches):
            shaper = self.shaper(merged, base, f"{path}/{keyword}/{index}")
            shaped.append((self.branch_check(merged, base), shaper.expr("v")))
        out = self.emitter
        with self.function(name, path):
            for index, merged in enumerate(branches):
                if any(other != index and self._overlap(kinds[index], kinds[other]) for other in range(len(branches))):
                    validator = self._branch_validator(merged, base)
                    if validator is not None:
                        check, expr = shaped[index]
                        with out.line(f"if {check} and {self.constant(validator)}(v):",
                                      comment(f"{path}/{keyword}/{index}")):
                            out.line(f"return {expr}")
            for index, (check, expr) in enumerate(shaped):
                with out.line(f"if {check}:", comment(f"{path}/{keyword}/{index}")):
                    out.line(f"return {expr}")
            out.line(f"raise _mismatch({self.expression(path)})")

    def _branch_types(self, schema: Schema, base: str, depth: int = 0) -> "set[str] | None":
        """The JSON types a branch may take (``None``: any)."""
        if isinstance(schema.get("anyOf"), list) or isinstance(schema.get("oneOf"), list):
            if depth > 8:
                return None
            found: set[str] = set()
            for sub in self.branches(schema, base):
                kinds = self._branch_types(sub, base, depth + 1)
                if kinds is None:
                    return None
                found |= kinds
            return found
        if "const" in schema or isinstance(schema.get("enum"), list):
            return set()  # decided by its value: the cheap check is exact
        types = self.types_of(schema)
        if types is None:
            return None
        found = set(types) | ({"number"} if "integer" in types else set())
        return found | ({"null"} if schema.get("nullable") is True else set())

    @staticmethod
    def _overlap(first: "set[str] | None", second: "set[str] | None") -> bool:
        if first is None or second is None:
            return first != set() and second != set()
        return bool((first & second) & {"object", "array", "string", "number"})

    def _branch_validator(self, schema: Schema, base: str) -> "Callable[[Any], bool] | None":
        try:
            return self.if_validator(schema, base)
        except Exception:  # noqa: BLE001 - a branch the validator cannot compile keeps the cheap check
            return None

    #: Strict type checks for ``anyOf`` branches: ``None`` matches only ``null``/nullable.
    BRANCH_CHECKS: dict[str, str] = {
        "null": "v is None",
        "string": "isinstance(v, str)",
        "integer": "((isinstance(v, int) and v is not True and v is not False)"
                   " or (type(v) is float and v.is_integer()))",
        "number": "(isinstance(v, (int, float)) and v is not True and v is not False)",
        "boolean": "(v is True or v is False)",
        "object": "isinstance(v, _Mapping)",
        "array": "isinstance(v, (list, tuple))",
    }

    def branch_check(self, schema: Schema, base: str, depth: int = 0) -> str:
        """A cheap test that ``v`` fits a branch: its type, ``const``/``enum``, and for
        objects the ``required`` keys present and ``const``/``enum`` properties matching
        (what discriminated unions rely on). A branch that is itself an ``anyOf``/``oneOf``
        (often through ``$ref``) fits when one of its own branches does."""
        if isinstance(schema.get("anyOf"), list) or isinstance(schema.get("oneOf"), list):
            if depth > 8:
                return "True"
            inner = [self.branch_check(sub, base, depth + 1) for sub in self.branches(schema, base)]
            return "(" + " or ".join(f"({check})" for check in inner) + ")" if inner else "False"
        types = self.types_of(schema)
        conditions: list[str] = []
        if types is not None:
            type_checks = [self.BRANCH_CHECKS[kind] for kind in types]
            if "string" in types:
                # fast-json-stringify lets a Date through every string schema (its fjs_type).
                type_checks.append("isinstance(v, _datetime_types)")
            if schema.get("nullable") is True and "null" not in types:
                type_checks.append("v is None")
            conditions.append("(" + " or ".join(type_checks) + ")")
        if "const" in schema:
            conditions.append(f"v == {self.expression(schema['const'])}")
        elif isinstance(schema.get("enum"), list):
            conditions.append(f"v in {self.constant(list(schema['enum']))}")
        if types == ["object"]:
            listed: Iterable[object] = schema.get("required") or ()
            for key in dict.fromkeys(listed):
                if isinstance(key, str):
                    conditions.append(f"v.get({self.expression(key)}, _U) is not _U")
            properties: JSONData = schema.get("properties")
            for key, sub in (properties.items() if isinstance(properties, dict) else ()):
                sub, _ = self.normalize(sub, base)  # always a dict
                if "const" in sub:
                    conditions.append(f"v.get({self.expression(key)}, _U) == {self.expression(sub['const'])}")
                elif isinstance(sub.get("enum"), list):
                    conditions.append(f"v.get({self.expression(key)}, _U) in {self.constant(list(sub['enum']))}")
        return " and ".join(conditions) or "True"
