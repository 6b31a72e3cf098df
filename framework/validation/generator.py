"""The validator's code generator: one schema in, a module of validation functions out.

One ``generate_*`` method per keyword (the layout of fastjsonschema's generator, which
this one started from and no longer depends on), with Ajv 8's semantics. Lines are
written through :class:`framework.schemas.codegen.Emitter`; each subschema's first line carries
its schema path as a comment, so the source reads next to the schema it checks (see
:meth:`ValidatorEngine.compile_source <framework.validation.ValidatorEngine.compile_source>`):

- error records are Ajv's (``keyword``, ``instance_path``, ``schema_path``, ``params``,
  ``message``), built from a constants table; the generated code never contains
  schema text: every schema value (property names, limits, patterns, defaults, enum
  values) is a name bound in the module's globals (:class:`framework.schemas.codegen.Constants`:
  ``_c``, ``_err``, ``_re``...), and schema paths appear only in comments, through
  ``repr()``. The code therefore depends only on the schema's shape, and its code
  object is shared by schemas of the same shape;
- ``type`` coerces (ajv-compat.md 1.1) and writes the coerced value back into its
  parent container; ``default``, ``removeAdditional``, ``nullable``, ``$ref`` siblings,
  ``format`` (ajv-formats), ECMA ``pattern`` and ``multipleOf`` follow Ajv / the docs;
- every ``$ref`` target (and any subschema nested too deep for CPython's compiler)
  becomes its own function ``validate_N(data, path, errors) -> data`` (the root is
  ``validate``); ``path`` is the JSON pointer of ``data``, ``errors`` the list records
  go to.

With ``all_errors=False`` the first error is recorded and :class:`~framework.errors.Invalid`
unwinds; with ``True`` errors are recorded and validation goes on. ``anyOf``,
``oneOf``, ``not``, ``if``, ``contains`` and ``propertyNames`` run their subschemas on
trial: the branch's records are kept or dropped as Ajv does.
"""
from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Literal, NamedTuple, TypeAlias

from ..schemas.codegen import Constants, Emitter, comment
from . import runtime
from .ecma_regex import CompiledPattern, compile_pattern
from .formats import NUMBER_FORMATS, STRING_FORMATS
from ..errors import Invalid, SchemaCompileError
from ..schemas.store import DRAFT07_META_URI, JSONValue, RefIndex, Schema, base_inside, escape_token as ptr, json_equal
from ..schemas.keywords import IN_PLACE_APPLICATORS, TYPE_KEYWORDS, check_keywords, location
from .messages import english

#: A user keyword's check: ``validate(data, keyword_value, parent_schema) -> bool``.
KeywordCheck: TypeAlias = Callable[[Any, Any, Schema], bool]
#: Where the current data is, below the ``path`` of its function: ``("s", key)`` a static
#: key or index, ``("i", name)`` / ``("k", name)`` a local variable holding an index / a key.
_DataPath: TypeAlias = tuple[tuple[str, str], ...]
#: ``(container source, key source)``: where a coerced value is written back.
_Slot: TypeAlias = tuple[str, str]


class Shape(NamedTuple):
    """What is known of a value before any keyword checks it: its type group (``"object"``,
    ``"string"``...; ``None``: any), and the shapes of its property values and of its array items."""

    type: str | None = None
    values: "Shape | None" = None
    items: "Shape | None" = None


_STRING = Shape("string")
#: The inputs as the framework parses them: path parameters and headers are a dict of
#: strings, the query string a dict of strings and lists of strings.
PARSED_SHAPES = {
    "params": Shape("object", values=_STRING),
    "headers": Shape("object", values=_STRING),
    "querystring": Shape("object", values=Shape(items=_STRING)),
}

#: The per-block state :meth:`ValidatorCodeGenerator._save` returns.
_State: TypeAlias = tuple[Any, str, _DataPath, str, _Slot | None, str, int, int, str | None, Shape | None]

_TYPES = ("null", "boolean", "number", "integer", "string", "array", "object")
_SCALARS = ("null", "boolean", "number", "integer", "string")
# CPython refuses more than 20 statically nested blocks and 100 indentation levels.
_MAX_STATIC_BLOCKS = 14
_MAX_INDENT = 60


def _type_check(kind: str, var: str) -> str:
    if kind == "string":
        return f"type({var}) is str"
    if kind == "integer":
        return f"(type({var}) is int or type({var}) is float and _isint({var}))"
    if kind == "number":
        return f"(type({var}) in _NUMT and {var} - {var} == 0)"
    if kind == "boolean":
        return f"type({var}) is bool"
    if kind == "null":
        return f"{var} is None"
    if kind == "object":
        return f"isinstance({var}, dict)"
    return f"type({var}) is list"


_NEGATED_CHECKS = {
    "string": "type({v}) is not str",
    "boolean": "type({v}) is not bool",
    "null": "{v} is not None",
    "object": "not isinstance({v}, dict)",
    "array": "type({v}) is not list",
}

_GROUP_GUARDS = {
    "number": "type({v}) is int or type({v}) is float",
    "string": "type({v}) is str",
    "array": "type({v}) is list",
    "object": "isinstance({v}, dict)",
}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class ValidatorCodeGenerator:
    """Generates one module of validation functions for one root schema."""

    def __init__(self, definition: JSONValue, index: RefIndex, options: dict[str, Any],
                 formats: dict[str, Callable[[Any], bool]],
                 keywords: dict[str, KeywordCheck | None], document: str = "",
                 shape: Shape | None = None) -> None:
        self._out = Emitter()
        self._fast_fail: bool = not options["all_errors"]
        # The schema of the block being generated (a dict inside the generate_* methods).
        self._definition: Any = definition
        self._variable = "data"
        self._index = index
        self._coerce: bool | str = options["coerce_types"]
        self._array_mode: bool = options["coerce_types"] == "array"
        self._use_defaults: bool | str = options["use_defaults"]
        self._remove: bool | str = options["remove_additional"]
        self._nullable: bool = options["nullable"]
        self._strict = options["strict"]
        # What the schema is, for strict mode's messages ("body": ``body#/properties/a``).
        self._document = document
        # Schema objects strict mode has seen: one generated twice (a $ref target used
        # inside and outside anyOf) is reported once.
        self._checked: set[int] = set()
        self._user_formats = formats
        self._keywords = keywords
        self._globals: dict[str, Any] = {
            "_fail": runtime.fail, "_add": runtime.add, "_fail_d": runtime.fail_d,
            "_add_d": runtime.add_d, "_Invalid": Invalid, "_ptr": ptr,
            "_coerce": runtime.coerce, "_NO": runtime.NO, "_jeq": json_equal,
            "_in_enum": runtime.in_enum, "_dup": runtime.duplicate, "_mult": runtime.multiple_of,
            "_jcopy": runtime.json_copy, "_coerce_fail": runtime.coerce_or_fail,
            "_coerce_add": runtime.coerce_or_add, "_required": runtime.required,
            "_isint": runtime.is_integer_value, "_NUMT": (int, float),
        }
        self._constants = Constants(self._globals)
        self._keep: list[Any] = []
        self._counter = 0
        self._functions: dict[tuple[int, str, bool, Shape | None], str] = {}
        self._queue: list[tuple[str, Any, str, str, bool, Shape | None]] = []
        # Per-block state (saved and restored around subschemas).
        self._path: _DataPath = ()
        self._spath = "#"
        self._slot: _Slot | None = None
        self._base = ""
        self._composite = 0
        self._static_blocks = 0
        self._known_type: str | None = None
        # What is known of the current value before its keywords check it (the root's
        # ``shape``: an input as the framework parsed it); checks it settles are left out.
        self._shape: Shape | None = None
        self.root_name = self._function_for(definition, "", "#", False, shape)

    # ------------------------------------------------------------------ output
    def emit(self, line: str, note: str | None = None) -> AbstractContextManager[None]:
        """Append one line; usable as ``with`` to indent the lines emitted inside.

        The line is never ``str.format()``-ed with schema values (a property name with
        braces in it stays inert).
        """
        return self._out.line(line, note)

    def emitter(self) -> Emitter:
        """The finished module (every queued function generated)."""
        while self._queue:
            self.generate_validation_function(*self._queue.pop())
        return self._out

    @property
    def globals(self) -> dict[str, Any]:
        """The generated module's namespace: the runtime helpers and the constants table."""
        return self._globals

    @property
    def constants(self) -> dict[str, Any]:
        """The constants table alone: ``{name: value}``."""
        return self._constants.table()

    def _var(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def const(self, value: Any, kind: str = "c") -> str:
        """A global name bound to ``value`` (the constants table), ``_<kind><n>``."""
        return self._constants.name(value, kind)

    def lit(self, value: Any) -> str:
        """Source text for a schema value: a constant's name (``None``/booleans as themselves).

        Keeping every schema value out of the source also makes two schemas of the same
        shape produce the same source, so its compiled code object is reused.
        """
        if value is None or isinstance(value, bool):
            return repr(value)
        return self.const(value)

    def _path_expr(self, path: _DataPath | None = None) -> str:
        """Source of the JSON pointer of the current data (``path`` plus what is below it)."""
        prefix, suffix = self._path_split(path)
        return prefix if not suffix else f"({prefix} + {self.const(suffix)})"

    def _path_split(self, path: _DataPath | None = None) -> tuple[str, str]:
        """``(source of a dynamic prefix, static suffix)`` of the current data's JSON pointer."""
        parts = ["path"]
        text = ""
        for kind, value in (self._path if path is None else path):
            if kind == "s":
                text += "/" + ptr(value)
            else:
                parts.append(self.const(text + "/"))
                text = ""
                parts.append(f"str({value})" if kind == "i" else f"_ptr({value})")
        prefix = parts[0] if len(parts) == 1 else "(" + " + ".join(parts) + ")"
        return prefix, text

    # ------------------------------------------------------------------ errors
    def error(self, keyword: str, params: dict[str, Any] | None = None,
              schema_path: str | None = None, dynamic: str | None = None,
              dynamic_message: str | None = None, path: _DataPath | None = None) -> None:
        """Emit the code that records one Ajv error (and stops, with ``all_errors=False``).

        ``dynamic`` is source text for a dict of run-time params, ``dynamic_message``
        source text for a run-time message; everything else is static and goes to the
        constants table.
        """
        spath = schema_path if schema_path is not None else self._spath + "/" + ptr(keyword)
        # The static message comes from the one English table (messages.py).
        message = english(keyword, params or {}) if dynamic_message is None else ""
        where, suffix = self._path_split(path)
        spec = self.const((keyword, spath, params or {}, message, suffix), "err")
        fn = "_fail" if self._fast_fail else "_add"
        note = comment(spath)
        if dynamic is None and dynamic_message is None:
            self.emit(f"{fn}(errors, {spec}, {where})", note)
        else:
            self.emit(f"{fn}_d(errors, {spec}, {where}, {dynamic or '{}'}, {dynamic_message or 'None'})", note)

    # ------------------------------------------------------------------ structure
    def _function_for(self, node: Any, outer: str, spath: str, composite: bool, shape: Shape | None = None) -> str:
        # (The root's function, made for its shape, is not the one a "$ref": "#" calls.)
        key = (id(node), outer, composite, shape)
        name = self._functions.get(key)
        if name is None:
            name = "validate" if not self._functions else f"validate_{len(self._functions)}"
            self._functions[key] = name
            self._queue.append((name, node, outer, spath, composite, shape))
            self._keep.append(node)  # so that id() stays unique while compiling
        return name

    def generate_validation_function(self, name: str, node: Any, outer: str, spath: str,
                                     composite: bool, shape: Shape | None = None) -> None:
        """Generate ``def <name>(data, path, errors)`` validating against ``node``."""
        state = self._save()
        self._path, self._spath, self._slot, self._base = (), spath, None, outer
        self._composite = 1 if composite else 0
        self._static_blocks = 0
        self._known_type = None
        self.emit("")
        with self.emit(f"def {name}(data, path, errors):", comment(spath)):
            self.generate_func_code_block(node, "data", shape=shape)
            self.emit("return data")
        self._restore(state)

    def _save(self) -> _State:
        return (self._definition, self._variable, self._path, self._spath, self._slot, self._base,
                self._composite, self._static_blocks, self._known_type, self._shape)

    def _restore(self, state: _State) -> None:
        (self._definition, self._variable, self._path, self._spath, self._slot, self._base,
         self._composite, self._static_blocks, self._known_type, self._shape) = state

    def generate_func_code_block(self, definition: JSONValue, variable: str, path: _DataPath | None = None,
                                 spath: str | None = None, slot: _Slot | None | Literal["same"] = "same",
                                 clear_variables: bool = True, shape: Shape | None = None) -> int:
        """Validate ``variable`` against ``definition`` (a subschema at ``spath``, data at ``path``).

        ``slot`` is ``(container_source, key_source)`` where a coerced value is written
        back, ``None`` for a function's own ``data`` (returned), or ``"same"`` to keep
        the current one (subschemas applied to the same value: allOf, anyOf, ...).
        ``shape`` is what is known of ``variable`` before the keywords check it.
        """
        state = self._save()
        self._definition, self._variable = definition, variable
        if path is not None:
            self._path = path
        if spath is not None:
            self._spath = spath
        if slot != "same":
            self._slot = slot
        self._shape = shape
        self._known_type = shape.type if shape is not None else None
        start = len(self._out)
        self._out.pending_comment = comment(self._spath)
        try:
            if (isinstance(definition, dict) and definition
                    and (self._out.indent > _MAX_INDENT or self._static_blocks > _MAX_STATIC_BLOCKS)):
                self._call_function(self._function_for(definition, self._base, self._spath,
                                                       bool(self._composite)))
            else:
                self._generate_func_code_block(definition)
        finally:
            self._out.pending_comment = None
            self._restore(state)
        return len(self._out) - start

    def _generate_func_code_block(self, definition: JSONValue) -> int:
        if definition is True:
            return 0
        if definition is False:
            self.error("false schema", schema_path=self._spath + "/false schema")
            return 1
        if not isinstance(definition, dict):
            raise SchemaCompileError(f"schema at {self._spath} must be an object or a boolean")
        self._base = base_inside(definition, self._base)
        return self.run_generate_functions(definition)

    def run_generate_functions(self, definition: dict[str, Any]) -> int:
        """Generate the checks of every keyword of ``definition``; the number of keywords handled."""
        if self._strict and id(definition) not in self._checked:
            self._checked.add(id(definition))
            check_keywords(definition, location(self._document, self._spath), self._strict, self._keywords)
        count = 0
        for keys, func in _ORDER:
            for key in keys:
                if key in definition:
                    func(self)
                    count += 1
                    if key in _SAME_VALUE_APPLICATORS:
                        # A subschema may have filled defaults in, or coerced the value or
                        # its members to another type (["x"] -> "x"): the group guards are
                        # needed again.
                        self._shape = None
                        if self._coerce:
                            self._known_type = None
                    break
        for name, check in self._keywords.items():
            if name in definition and check is not None:
                self.generate_custom_keyword(name, check)
                count += 1
        return count

    def _sub(self, definition: JSONValue, variable: str, path: _DataPath | None = None, spath_suffix: str = "",
             slot: _Slot | None | Literal["same"] = "same", shape: Shape | None = None) -> None:
        self.generate_func_code_block(definition, variable, path, self._spath + spath_suffix, slot, shape=shape)

    @contextmanager
    def _trial(self) -> Generator[None, None, None]:
        self._composite += 1
        try:
            yield
        finally:
            self._composite -= 1

    @contextmanager
    def _static_block(self) -> Generator[None, None, None]:
        self._static_blocks += 1
        try:
            yield
        finally:
            self._static_blocks -= 1

    def _guard(self, group: str) -> AbstractContextManager[None]:
        """Open ``if <value is of group's type>:`` unless the ``type`` keyword settled it."""
        if self._known_type == group:
            return nullcontext()
        return self.emit("if " + _GROUP_GUARDS[group].format(v=self._variable) + ":")

    def _write_back(self, value: str) -> None:
        if self._slot is not None:
            container, key = self._slot
            self.emit(f"{container}[{key}] = {value}")

    def _call_function(self, name: str) -> None:
        call = f"{name}({self._variable}, {self._path_expr()}, errors)"
        if self._coerce:
            result = self._var("result")
            self.emit(f"{result} = {call}")
            with self.emit(f"if {result} is not {self._variable}:"):
                self.emit(f"{self._variable} = {result}")
                self._write_back(result)
        else:
            self.emit(call)

    # ------------------------------------------------------------------ type
    def generate_type(self) -> None:
        definition, var = self._definition, self._variable
        types: str | list[str] = definition["type"]  # anything else fails the check below
        type_list = list(types) if isinstance(types, list) else [types]
        for kind in type_list:
            if kind not in _TYPES:
                raise SchemaCompileError(f"unknown type {kind!r} at {self._spath}/type")
        if self._nullable and definition.get("nullable") is True and "null" not in type_list:
            type_list.append("null")
        if not type_list:
            return
        known = self._known_type
        if known is not None and known in type_list:
            return  # the value's shape settles it (and nothing is coerced)
        # With all_errors on, a failed check leaves the value as it was: below, the type is
        # known only when a failed check stops validation.
        self._known_type = None
        if len(type_list) == 1:
            negated = _NEGATED_CHECKS.get(type_list[0])
            condition = negated.format(v=var) if negated else f"not {_type_check(type_list[0], var)}"
        else:
            condition = "not (" + " or ".join(_type_check(kind, var) for kind in type_list) + ")"
        # A value known to be of another group (a parsed input's string) always fails the check.
        fails = known is not None and known != "number"  # ("number" may be an integer)
        with nullcontext() if fails else self.emit(f"if {condition}:"):
            if self._coerce:
                where, suffix = self._path_split()
                spec = ("type", self._spath + "/type", {"type": types}, english("type", {"type": types}), suffix)
                plan = self.const((tuple(type_list), self._array_mode, spec))
                helper = "_coerce_fail" if self._fast_fail else "_coerce_add"
                target = f"{self._slot[0]}[{self._slot[1]}] = {var}" if self._slot is not None else var
                if type_list[0] in ("integer", "number"):
                    # Path and query integers arrive as digit strings: skip the runtime call.
                    # Only short ones: int() of a long digit string is quadratic (request data).
                    is_str = "" if known == "string" else f"type({var}) is str and "
                    with self.emit(f"if {is_str}len({var}) <= 15 and {var}.isdigit() and {var}.isascii():"):
                        self.emit(f"{target} = int({var})")
                    with self.emit("else:"):
                        self.emit(f"{target} = {helper}({var}, {plan}, errors, {where})")
                else:
                    self.emit(f"{target} = {helper}({var}, {plan}, errors, {where})")
            else:
                self.error("type", {"type": types})
        if self._fast_fail and len(type_list) == 1:
            kind = type_list[0]
            self._known_type = "number" if kind == "integer" else kind

    def generate_nullable(self) -> None:
        if self._nullable and self._definition["nullable"] is True and "type" not in self._definition:
            raise SchemaCompileError(f'"nullable" cannot be used without "type" at {self._spath}')

    # ------------------------------------------------------------------ $ref
    def generate_ref(self) -> None:
        ref = self._definition["$ref"]
        if not isinstance(ref, str):
            raise SchemaCompileError(f"$ref must be a string at {self._spath}")
        target, outer = self._index.resolve(ref, self._base)
        spath = ref if "#" in ref else ref + "#"
        self._call_function(self._function_for(target, outer, spath, bool(self._composite)))

    # ------------------------------------------------------------------ any type
    def generate_const(self) -> None:
        value, var = self._definition["const"], self._variable
        if isinstance(value, str):
            check = f"type({var}) is str and {var} == {self.lit(value)}"
        elif value is None:
            check = f"{var} is None"
        else:
            check = f"_jeq({var}, {self.const(value)})"
        with self.emit(f"if not ({check}):"):
            self.error("const", {"allowedValue": value})

    def generate_enum(self) -> None:
        values: JSONValue = self._definition["enum"]
        var = self._variable
        if not isinstance(values, list):
            raise SchemaCompileError(f"enum must be an array at {self._spath}")
        if values and all(isinstance(v, str) for v in values):
            check = f"type({var}) is str and {var} in {self.const(frozenset(values))}"
        else:
            check = f"_in_enum({var}, {self.const(values)})"
        with self.emit(f"if not ({check}):"):
            self.error("enum", {"allowedValues": values})

    def _branch(self, definition: JSONValue, suffix: str, ok: str) -> None:
        """Try one subschema; afterwards ``ok`` is True if it passed (its records stay in ``errors``)."""
        if self._fast_fail:
            with self._static_block():
                with self.emit("try:"):
                    self._sub(definition, self._variable, spath_suffix=suffix)
                    self.emit(f"{ok} = True")
                self.emit("except _Invalid: pass")
        else:
            mark = self._var("mark")
            self.emit(f"{mark} = len(errors)")
            self._sub(definition, self._variable, spath_suffix=suffix)
            self.emit(f"{ok} = len(errors) == {mark}")

    def generate_not(self) -> None:
        mark, ok = self._var("mark"), self._var("ok")
        self.emit(f"{mark} = len(errors)")
        self.emit(f"{ok} = False")
        with self._trial():
            self._branch(self._definition["not"], "/not", ok)
        with self.emit(f"if {ok}:"):
            self.error("not", {})
        with self.emit("else:"):
            self.emit(f"del errors[{mark}:]")

    def generate_any_of(self) -> None:
        branches = self._definition["anyOf"]
        mark, ok = self._var("mark"), self._var("ok")
        self.emit(f"{mark} = len(errors)")
        self.emit(f"{ok} = False")
        with self._trial():
            for i, branch in enumerate(branches):
                with self.emit(f"if not {ok}:"):
                    self._branch(branch, f"/anyOf/{i}", ok)
        with self.emit(f"if {ok}:"):
            self.emit(f"del errors[{mark}:]")
        with self.emit("else:"):
            self.error("anyOf", {})

    def generate_one_of(self) -> None:
        branches = self._definition["oneOf"]
        mark, passing, ok = self._var("mark"), self._var("passing"), self._var("ok")
        self.emit(f"{mark} = len(errors)")
        self.emit(f"{passing} = []")
        with self._trial():
            for i, branch in enumerate(branches):
                with self.emit(f"if len({passing}) < 2:"):
                    self.emit(f"{ok} = False")
                    self._branch(branch, f"/oneOf/{i}", ok)
                    with self.emit(f"if {ok}:"):
                        self.emit(f"{passing}.append({i})")
        with self.emit(f"if len({passing}) == 1:"):
            self.emit(f"del errors[{mark}:]")
        with self.emit("else:"):
            self.error("oneOf", {}, dynamic=f'{{"passingSchemas": {passing} or None}}')

    def generate_all_of(self) -> None:
        for i, branch in enumerate(self._definition["allOf"]):
            self._sub(branch, self._variable, spath_suffix=f"/allOf/{i}")

    def generate_if_then_else(self) -> None:
        definition = self._definition
        if "then" not in definition and "else" not in definition:
            return
        mark, ok = self._var("mark"), self._var("ok")
        self.emit(f"{mark} = len(errors)")
        self.emit(f"{ok} = False")
        with self._trial():
            self._branch(definition["if"], "/if", ok)
        self.emit(f"del errors[{mark}:]")
        for keyword, condition in (("then", ok), ("else", f"not {ok}")):
            if keyword not in definition:
                continue
            with self.emit(f"if {condition}:"):
                passed = self._var("ok")
                self.emit(f"{passed} = False")
                self._branch(definition[keyword], "/" + keyword, passed)
                with self.emit(f"if not {passed}:"):
                    self.error("if", {"failingKeyword": keyword}, schema_path=self._spath + "/if")

    # ------------------------------------------------------------------ numbers
    def _number_keyword(self, keyword: str, operator: str, comparison: str) -> None:
        limit = self._definition[keyword]
        if not _is_number(limit):
            raise SchemaCompileError(f"{keyword} must be a number at {self._spath}")
        var = self._variable
        if isinstance(limit, int) and abs(limit) > 2 ** 53:
            # A float (a JSON number too big for a 64-bit int) is compared with the limit as
            # a double, as JavaScript compares: -18446744073709551600 is not below
            # -18446744073709551615 (both are -2**64 as doubles). Ints compare exactly.
            try:
                as_double: float = float(limit)
            except OverflowError:
                as_double = float("inf") if limit > 0 else float("-inf")
            test = (f"({var} {operator} {self.lit(limit)} if type({var}) is int "
                    f"else {var} {operator} {self.lit(as_double)})")
        else:
            test = f"{var} {operator} {self.lit(limit)}"
        with self.emit(f"if {test}:"):
            self.error(keyword, {"comparison": comparison, "limit": limit})

    def generate_number(self) -> None:
        definition = self._definition
        present = [k for k in TYPE_KEYWORDS["number"] if k in definition]
        fmt = definition.get("format")
        number_format = fmt if isinstance(fmt, str) and fmt in NUMBER_FORMATS and fmt not in self._user_formats \
            else None
        if not present and number_format is None:
            return
        with self._guard("number"):
            for keyword in present:
                if keyword == "maximum":
                    self._number_keyword("maximum", ">", "<=")
                elif keyword == "minimum":
                    self._number_keyword("minimum", "<", ">=")
                elif keyword == "exclusiveMaximum":
                    self._number_keyword("exclusiveMaximum", ">=", "<")
                elif keyword == "exclusiveMinimum":
                    self._number_keyword("exclusiveMinimum", "<=", ">")
                else:
                    self.generate_multiple_of()
            if number_format is not None:
                check = self.const(NUMBER_FORMATS[number_format], "format")
                with self.emit(f"if not {check}({self._variable}):"):
                    self.error("format", {"format": number_format})

    def generate_multiple_of(self) -> None:
        divisor, var = self._definition["multipleOf"], self._variable
        if not _is_number(divisor) or divisor <= 0:
            raise SchemaCompileError(f"multipleOf must be a number > 0 at {self._spath}")
        if isinstance(divisor, int):
            lit = self.lit(divisor)
            check = f"({var} % {lit} != 0) if type({var}) is int else not _mult({var}, {lit})"
        else:
            check = f"not _mult({var}, {self.lit(divisor)})"
        with self.emit(f"if {check}:"):
            self.error("multipleOf", {"multipleOf": divisor})

    # ------------------------------------------------------------------ strings
    def _limit(self, keyword: str) -> int:
        limit = self._definition[keyword]
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            if isinstance(limit, float) and limit.is_integer() and limit >= 0:
                return int(limit)
            raise SchemaCompileError(f"{keyword} must be a non-negative integer at {self._spath}")
        return limit

    def generate_string(self) -> None:
        definition, var = self._definition, self._variable
        fmt = definition.get("format")
        if fmt is not None and not isinstance(fmt, str):
            raise SchemaCompileError(f"format must be a string at {self._spath}")
        string_format = fmt if fmt is not None and (fmt in self._user_formats or fmt in STRING_FORMATS) else None
        if fmt is not None and string_format is None and fmt not in NUMBER_FORMATS:
            raise SchemaCompileError(f'unknown format "{fmt}" at {self._spath}/format '
                                     "(add it with the formats option or engine.add_format)")
        if not ("maxLength" in definition or "minLength" in definition or "pattern" in definition
                or string_format is not None):
            return
        with self._guard("string"):
            if "maxLength" in definition:
                limit = self._limit("maxLength")
                with self.emit(f"if len({var}) > {self.lit(limit)}:"):
                    self.error("maxLength", {"limit": limit})
            if "minLength" in definition:
                limit = self._limit("minLength")
                with self.emit(f"if len({var}) < {self.lit(limit)}:"):
                    self.error("minLength", {"limit": limit})
            if "pattern" in definition:
                self.generate_pattern()
            if string_format is not None:
                check = self.const(self._user_formats.get(string_format) or STRING_FORMATS[string_format], "format")
                with self.emit(f"if not {check}({var}):"):
                    self.error("format", {"format": string_format})

    def generate_pattern(self) -> None:
        pattern = self._definition["pattern"]
        if not isinstance(pattern, str):
            raise SchemaCompileError(f"pattern must be a string at {self._spath}")
        try:
            regex = compile_pattern(pattern)
        except ValueError as exc:
            raise SchemaCompileError(f"{exc} at {self._spath}/pattern") from exc
        with self.emit(f"if not {self.const(regex, 're')}.search({self._variable}):"):
            self.error("pattern", {"pattern": pattern})

    # ------------------------------------------------------------------ arrays
    def generate_array(self) -> None:
        definition = self._definition
        if not any(k in definition for k in _ARRAY_CHECKS):
            return
        guard = self._guard("array")
        with guard:
            start = len(self._out)
            var = self._variable
            items: JSONValue = definition.get("items")
            if isinstance(items, list):
                self._tuple_defaults(items)
            if "maxItems" in definition:
                limit = self._limit("maxItems")
                with self.emit(f"if len({var}) > {self.lit(limit)}:"):
                    self.error("maxItems", {"limit": limit})
            if "minItems" in definition:
                limit = self._limit("minItems")
                with self.emit(f"if len({var}) < {self.lit(limit)}:"):
                    self.error("minItems", {"limit": limit})
            # Ajv's order: items (and additionalItems) and contains run before uniqueItems,
            # so uniqueItems and contains judge the coerced items ([1, "2", 2] has a duplicate).
            if "items" in definition:
                self.generate_items()
            if "contains" in definition:
                self.generate_contains()
            if definition.get("uniqueItems") is True:
                self.generate_unique_items()
            if len(self._out) == start and not isinstance(guard, nullcontext):
                self.emit("pass")

    def _tuple_defaults(self, items: list[JSONValue]) -> None:
        if not self._use_defaults or self._composite or self._in_meta_schema():
            return
        var = self._variable
        for index, item in enumerate(items):
            if isinstance(item, dict) and "default" in item:
                with self.emit(f"if len({var}) == {index}:"):
                    self.emit(f"{var}.append({self._default_source(item['default'])})")
                if self._use_defaults == "empty":
                    # "empty" also replaces a null or "" item, as it does for properties.
                    element = f"{var}[{index}]"
                    with self.emit(f"elif len({var}) > {index} and ({element} is None "
                                   f"or type({element}) is str and {element} == ''):"):
                        self.emit(f"{element} = {self._default_source(item['default'])}")

    def generate_unique_items(self) -> None:
        var = self._variable
        items: JSONValue = self._definition.get("items")
        scalar = None
        if isinstance(items, dict) and "type" in items:
            item_types = items["type"] if isinstance(items["type"], list) else [items["type"]]
            if item_types and all(t in _SCALARS for t in item_types):
                scalar = tuple(item_types)
        with self.emit(f"if len({var}) > 1:"):
            found = self._var("dup")
            self.emit(f"{found} = _dup({var}, {self.const(scalar) if scalar else None})")
            with self.emit(f"if {found} is not None:"):
                self.error("uniqueItems", {}, dynamic=f'{{"i": {found}[0], "j": {found}[1]}}',
                           dynamic_message=f'"should NOT have duplicate items (items ## " + str({found}[1])'
                                           f' + " and " + str({found}[0]) + " are identical)"')

    def generate_items(self) -> None:
        definition, var = self._definition, self._variable
        items: JSONValue = definition["items"]
        if items is True or items == {}:
            return
        if isinstance(items, list):
            additional = definition.get("additionalItems", True)
            if additional is False:
                # Ajv checks additionalItems first: a too-long tuple is rejected before
                # any of its items is coerced.
                limit = len(items)
                with self.emit(f"if len({var}) > {limit}:"):
                    self.error("additionalItems", {"limit": limit})
            for position, item in enumerate(items):
                if item is True or item == {}:
                    continue
                element = self._var("item")
                with self.emit(f"if len({var}) > {position}:"):
                    self.emit(f"{element} = {var}[{position}]")
                    self._sub(item, element, self._path + (("s", str(position)),), f"/items/{position}",
                              (var, str(position)))
            if additional is not False and additional is not True and additional != {}:
                index, element = self._var("index"), self._var("item")
                with self._static_block():
                    with self.emit(f"for {index} in range({len(items)}, len({var})):"):
                        self.emit(f"{element} = {var}[{index}]")
                        self._sub(additional, element, self._path + (("i", index),), "/additionalItems",
                                  (var, index))
            return
        index, element = self._var("index"), self._var("item")
        start = len(self._out)
        with self._static_block():
            with self.emit(f"for {index}, {element} in enumerate({var}):"):
                self._sub(items, element, self._path + (("i", index),), "/items", (var, index),
                          self._shape.items if self._shape is not None else None)
                checked = len(self._out) > start + 1
        if not checked:  # the items' shape settles every check
            self._out.truncate(start)

    def generate_contains(self) -> None:
        var, contains = self._variable, self._definition["contains"]
        found, mark = self._var("ok"), self._var("mark")
        self.emit(f"{found} = False")
        self.emit(f"{mark} = len(errors)")
        index, element = self._var("index"), self._var("item")
        with self._trial(), self._static_block():
            with self.emit(f"for {index}, {element} in enumerate({var}):"):
                saved = self._variable, self._path, self._slot
                self._variable, self._path, self._slot = element, self._path + (("i", index),), (var, index)
                self._branch(contains, "/contains", found)
                self._variable, self._path, self._slot = saved
                with self.emit(f"if {found}:"):
                    self.emit("break")
        self.emit(f"del errors[{mark}:]")
        with self.emit(f"if not {found}:"):
            self.error("contains", {"minContains": 1})

    # ------------------------------------------------------------------ objects
    def generate_object(self) -> None:
        definition = self._definition
        if not any(k in definition for k in TYPE_KEYWORDS["object"]):
            return
        guard = self._guard("object")
        with guard:
            start = len(self._out)
            self._property_defaults()
            var = self._variable
            removing = self._removes_additional()
            if removing:
                # Removal happens as the object is entered, before ``required`` can stop
                # the branch: Ajv's documented oneOf gotcha (ajv-compat.md 1.2).
                self.generate_additional_properties()
            if "maxProperties" in definition:
                limit = self._limit("maxProperties")
                with self.emit(f"if len({var}) > {self.lit(limit)}:"):
                    self.error("maxProperties", {"limit": limit})
            if "minProperties" in definition:
                limit = self._limit("minProperties")
                with self.emit(f"if len({var}) < {self.lit(limit)}:"):
                    self.error("minProperties", {"limit": limit})
            if "required" in definition:
                self.generate_required()
            if "propertyNames" in definition:
                self.generate_property_names()
            if not removing and "additionalProperties" in definition:
                self.generate_additional_properties()
            if "dependencies" in definition:
                self.generate_dependencies()
            if "properties" in definition:
                self.generate_properties()
            if "patternProperties" in definition:
                self.generate_pattern_properties()
            if len(self._out) == start and not isinstance(guard, nullcontext):
                self.emit("pass")

    def _in_meta_schema(self) -> bool:
        # Ajv applies neither defaults nor removeAdditional inside a meta-schema.
        return self._base == DRAFT07_META_URI

    def _removes_additional(self) -> bool:
        if self._in_meta_schema():
            return False
        definition = self._definition
        if self._remove == "all":
            return "additionalProperties" in definition or "properties" in definition
        return bool(self._remove) and definition.get("additionalProperties", True) is False

    def _default_source(self, value: Any) -> str:
        if isinstance(value, (dict, list)):
            return f"_jcopy({self.const(value)})"
        return self.lit(value)

    def _property_defaults(self) -> None:
        properties: JSONValue = self._definition.get("properties")
        if not self._use_defaults or self._composite or not isinstance(properties, dict) or self._in_meta_schema():
            return
        var = self._variable
        for name, sub in properties.items():
            if isinstance(sub, dict) and "default" in sub:
                key = self.lit(name)
                if self._use_defaults == "empty":
                    condition = f"{key} not in {var} or {var}[{key}] is None or {var}[{key}] == ''"
                else:
                    condition = f"{key} not in {var}"
                with self.emit(f"if {condition}:"):
                    self.emit(f"{var}[{key}] = {self._default_source(sub['default'])}")

    def generate_required(self) -> None:
        required: JSONValue = self._definition["required"]
        var = self._variable
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise SchemaCompileError(f"required must be an array of strings at {self._spath}")
        if not required:
            return
        where, suffix = self._path_split()
        spec = self.const(("required", self._spath + "/required", {}, "", suffix))
        names = list(dict.fromkeys(required))
        if len(names) == 1:  # (a few look-ups cost less than a keys view against a set)
            missing = f"{self.lit(names[0])} not in {var}"
        elif len(names) <= 3:
            missing = "not (" + " and ".join(f"{self.lit(name)} in {var}" for name in names) + ")"
        else:
            missing = f"not {var}.keys() >= {self.const(frozenset(required))}"
        with self.emit(f"if {missing}:"):
            self.emit(f"_required(errors, {spec}, {where}, {var}, {self.const(names)}, {self._fast_fail})")

    def generate_property_names(self) -> None:
        names, var = self._definition["propertyNames"], self._variable
        if names is True or names == {}:
            return
        key, mark, ok = self._var("key"), self._var("mark"), self._var("ok")
        with self._trial(), self._static_block():
            with self.emit(f"for {key} in list({var}):"):
                self.emit(f"{mark} = len(errors)")
                self.emit(f"{ok} = False")
                saved = self._variable, self._slot
                self._variable, self._slot = key, None
                # The key is a local copy: coercing it must not write into anything.
                self._slot = None
                self._branch(names, "/propertyNames", ok)
                self._variable, self._slot = saved
                with self.emit(f"if not {ok}:"):
                    item = self._var("error")
                    with self.emit(f"for {item} in errors[{mark}:]:"):
                        self.emit(f'{item}["property_name"] = {key}')
                    self.error("propertyNames", {}, dynamic=f'{{"propertyName": {key}}}')

    def _unmatched_test(self, key: str) -> str:
        """Source of a test that ``key`` matches neither ``properties`` nor ``patternProperties``."""
        definition = self._definition
        properties: Schema = definition.get("properties") if isinstance(definition.get("properties"), dict) else {}
        test = f"{key} not in {self.const(frozenset(properties))}"
        patterns: Schema = definition.get("patternProperties") or {}
        for pattern in patterns:
            test += f" and not {self.const(self._regex(pattern), 're')}.search({key})"
        return test

    def _regex(self, pattern: str) -> CompiledPattern:
        try:
            return compile_pattern(pattern)
        except ValueError as exc:
            raise SchemaCompileError(f"{exc} at {self._spath}/patternProperties") from exc

    def generate_additional_properties(self) -> None:
        definition, var = self._definition, self._variable
        additional = definition.get("additionalProperties", True)
        properties: Schema = definition.get("properties") if isinstance(definition.get("properties"), dict) else {}
        declared = self.const(frozenset(properties))
        has_patterns = bool(definition.get("patternProperties"))
        precheck = f"if not {var}.keys() <= {declared}:"
        key = self._var("key")
        if self._removes_additional():
            with self.emit(precheck):
                with self._static_block():
                    with self.emit(f"for {key} in [{key} for {key} in {var} if {self._unmatched_test(key)}]:"):
                        self.emit(f"del {var}[{key}]")
            return
        if additional is True or additional == {}:
            return
        with self.emit(precheck) if not has_patterns else nullcontext():
            with self._static_block():
                with self.emit(f"for {key} in list({var}):"):
                    with self.emit(f"if {self._unmatched_test(key)}:"):
                        if additional is False:
                            self.error("additionalProperties", {}, dynamic=f'{{"additionalProperty": {key}}}')
                        else:
                            value = self._var("item")
                            self.emit(f"{value} = {var}[{key}]")
                            self._sub(additional, value, self._path + (("k", key),), "/additionalProperties",
                                      (var, key))

    def generate_dependencies(self) -> None:
        var = self._variable
        dependency: list[str] | Schema | bool  # a schema, or the names the property requires
        for name, dependency in self._definition["dependencies"].items():
            if dependency is True or dependency == [] or dependency == {}:
                continue
            with self.emit(f"if {self.lit(name)} in {var}:"):
                if isinstance(dependency, list):
                    deps = ", ".join(dependency)
                    missing = self._var("missing")
                    with self._static_block():
                        with self.emit(f"for {missing} in {self.const(list(dependency))}:"):
                            with self.emit(f"if {missing} not in {var}:"):
                                self.error("dependencies", {"property": name, "depsCount": len(dependency),
                                                            "deps": deps},
                                           dynamic=f'{{"missingProperty": {missing}}}')
                else:
                    self._sub(dependency, var, spath_suffix="/dependencies/" + ptr(name))

    def generate_properties(self) -> None:
        var = self._variable
        properties: JSONValue = self._definition["properties"]
        if not isinstance(properties, dict):
            raise SchemaCompileError(f"properties must be an object at {self._spath}")
        # The members' shape holds unless a default may stand in for a member, or
        # ``dependencies`` (which runs first) may have coerced members.
        members = self._shape.values if self._shape is not None and "dependencies" not in self._definition else None
        # Past ``required`` (checked just before), its names are present when a missing one
        # stops validation.
        required: JSONValue = self._definition.get("required") if self._fast_fail else None
        present = frozenset(name for name in required if isinstance(name, str)) if isinstance(required, list) \
            else frozenset[str]()
        for name, sub in properties.items():
            if sub is True or sub == {}:
                continue
            if not isinstance(sub, (dict, bool)):
                raise SchemaCompileError(f"properties/{name!r} must be a schema at {self._spath}")
            key, value = self.lit(name), self._var("prop")
            start = len(self._out)
            with nullcontext() if name in present else self.emit(f"if {key} in {var}:"):
                self.emit(f"{value} = {var}[{key}]")
                before = len(self._out)
                shape = None if isinstance(sub, dict) and "default" in sub else members
                self._sub(sub, value, self._path + (("s", name),), "/properties/" + ptr(name), (var, key), shape)
                if len(self._out) == before:
                    self._out.truncate(start)

    def generate_pattern_properties(self) -> None:
        var = self._variable
        patterns = self._definition["patternProperties"]
        key = self._var("key")
        if not patterns:
            return
        with self._static_block():
            with self.emit(f"for {key} in list({var}):"):
                for pattern, sub in patterns.items():
                    with self.emit(f"if {self.const(self._regex(pattern), 're')}.search({key}):"):
                        value = self._var("item")
                        self.emit(f"{value} = {var}[{key}]")
                        self._sub(sub, value, self._path + (("k", key),), "/patternProperties/" + ptr(pattern),
                                  (var, key))

    # ------------------------------------------------------------------ user keywords
    def generate_custom_keyword(self, name: str, check: Callable[..., bool]) -> None:
        function = self.const(check, "keyword")
        args = f"{self._variable}, {self.const(self._definition[name])}, {self.const(self._definition)}"
        with self.emit(f"if not {function}({args}):"):
            self.error(name, {})


_SAME_VALUE_APPLICATORS = frozenset(("$ref", *IN_PLACE_APPLICATORS))
#: The array keywords that check something by themselves (``additionalItems`` only
#: applies next to tuple ``items``).
_ARRAY_CHECKS = tuple(k for k in TYPE_KEYWORDS["array"] if k != "additionalItems")
G = ValidatorCodeGenerator
# Ajv 8's evaluation order: type (and its coercion) first, then the keywords that apply
# to any type, then the number, string, array and object groups (defaults at the start
# of the object/array group), user keywords last.
_ORDER: tuple[tuple[tuple[str, ...], Callable[[ValidatorCodeGenerator], None]], ...] = (
    (("nullable",), G.generate_nullable),
    (("type",), G.generate_type),
    (("$ref",), G.generate_ref),
    (("const",), G.generate_const),
    (("enum",), G.generate_enum),
    (("not",), G.generate_not),
    (("anyOf",), G.generate_any_of),
    (("oneOf",), G.generate_one_of),
    (("allOf",), G.generate_all_of),
    (("if",), G.generate_if_then_else),
    # ``format`` names number formats too (ajv-formats' ``int32``, ``double``).
    ((*TYPE_KEYWORDS["number"], "format"), G.generate_number),
    (TYPE_KEYWORDS["string"], G.generate_string),
    (_ARRAY_CHECKS, G.generate_array),
    (TYPE_KEYWORDS["object"], G.generate_object),
)
