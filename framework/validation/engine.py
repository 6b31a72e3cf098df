"""``ValidatorEngine``: options, the plugin API, the compile cache."""
from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Pattern, Union

from ..errors import SchemaValidationFailure
from ..schemas import RefIndex
from .formats import make_check
from .generator import ValidatorCodeGenerator
from .runtime import Invalid

Schema = Any
Validator = Callable[[Any], Any]
FormatCheck = Union[str, Pattern[str], Callable[[Any], bool]]
Transform = Callable[[dict, Mapping[str, dict]], dict]
ErrorProcessor = Callable[[list, dict], list]

DEFAULT_OPTIONS: dict[str, Any] = {
    "coerce_types": "array",
    "use_defaults": True,
    "remove_additional": True,
    "all_errors": False,
    "nullable": True,
    "formats": {},
}

_ALLOWED = {
    "coerce_types": (True, False, "array"),
    "use_defaults": (True, False, "empty"),
    "remove_additional": (True, False, "all"),
    "all_errors": (True, False),
    "nullable": (True, False),
}


# Generated source depends only on a schema's shape (its values are bound as globals), so
# schemas of the same shape share one code object; compile() is most of a compile's cost.
_CODE_CACHE: dict[str, Any] = {}
_CODE_CACHE_SIZE = 4096


def _normalize_options(custom_options: Mapping[str, Any] | None) -> dict[str, Any]:
    options = dict(DEFAULT_OPTIONS)
    for name, value in (custom_options or {}).items():
        if name not in DEFAULT_OPTIONS:
            raise TypeError(f"unknown validator option {name!r} (known: {', '.join(DEFAULT_OPTIONS)})")
        if name in _ALLOWED and not any(value is allowed or (isinstance(allowed, str) and value == allowed)
                                        for allowed in _ALLOWED[name]):
            raise TypeError(f"validator option {name!r} must be one of {_ALLOWED[name]!r}, not {value!r}")
        options[name] = value
    if not isinstance(options["formats"], Mapping):
        raise TypeError("validator option 'formats' must be a mapping of name -> regex or predicate")
    options["formats"] = dict(options["formats"])
    return options


class ValidatorEngine:
    """Compiles JSON Schema (draft 7) into validation functions with Ajv 8's behaviour.

    ``custom_options`` (snake_case, as Fastify's ``customOptions``):

    ============================ =========== ==========================================================
    option                       default     meaning
    ============================ =========== ==========================================================
    ``coerce_types``             ``"array"`` Ajv's coercion; ``True`` without the scalar<->array rule;
                                             ``False`` off
    ``use_defaults``             ``True``    fill ``default`` of missing properties / tuple items
                                             (``"empty"``: also ``None`` and ``""``)
    ``remove_additional``        ``True``    drop properties ``additionalProperties: false`` forbids;
                                             ``"all"``: every undeclared one; ``False``: report them
    ``all_errors``               ``False``   collect every error instead of stopping at the first
    ``nullable``                 ``True``    honour OpenAPI's ``nullable: true``
    ``formats``                  ``{}``      extra formats: name -> regex source, compiled regex or
                                             predicate ``check(value) -> bool``
    ============================ =========== ==========================================================

    ``plugins``: each item is ``fn`` or ``(fn, opts)``, called as ``fn(engine, opts)`` in order.

    A compiled validator returns the validated value (coercion, defaults and removal
    change containers in place; a changed root value is returned) or raises
    :class:`framework.errors.SchemaValidationFailure` whose ``errors`` are records::

        {"keyword": "maxLength", "instance_path": "/name", "schema_path": "#/properties/name/maxLength",
         "params": {"limit": 5}, "message": "should NOT have more than 5 characters"}

    Example::

        engine = ValidatorEngine({"all_errors": True})
        validate = engine.compile({"type": "object", "properties": {"n": {"type": "integer"}}})
        validate({"n": "5"})   # -> {"n": 5}
    """

    def __init__(self, custom_options: Mapping[str, Any] | None = None,
                 plugins: Iterable[Any] = ()) -> None:
        self.options: dict[str, Any] = _normalize_options(custom_options)
        self._formats: dict[str, Callable[[Any], bool]] = {}
        self._keywords: dict[str, Callable[..., bool] | None] = {}
        self._transforms: list[Transform] = []
        self._error_processors: list[ErrorProcessor] = []
        self._cache: dict[str, Callable[[Any], Any]] = {}
        self._shared_memo: dict[int, tuple[Schema, Schema]] = {}
        for name, check in self.options["formats"].items():
            self.add_format(name, check)
        for item in plugins:
            if isinstance(item, tuple):
                fn, opts = item
            else:
                fn, opts = item, {}
            fn(self, opts if opts is not None else {})

    # ---------------------------------------------------------------- plugin API
    def add_format(self, name: str, check: FormatCheck) -> "ValidatorEngine":
        """Add (or replace) format ``name``: a regex source, a compiled regex, or ``check(value) -> bool``.

        The check is applied to strings only; other values pass.
        """
        if not isinstance(name, str):
            raise TypeError("a format name must be a string")
        predicate = make_check(check)

        def string_only(value: Any, _check: Callable[[Any], bool] = predicate) -> bool:
            return not isinstance(value, str) or bool(_check(value))
        self._formats[name] = string_only
        self._cache.clear()
        return self

    def add_keyword(self, name: str, validate: Callable[[Any, Any, dict], bool] | None = None) -> "ValidatorEngine":
        """Declare keyword ``name``; ``validate(data, keyword_value, parent_schema) -> bool``.

        A ``False`` result records ``{"keyword": name, "message": 'should pass "<name>" keyword
        validation', "params": {}}``. Without ``validate`` the keyword is an annotation
        (error processors may read it).
        """
        if not isinstance(name, str) or not name:
            raise TypeError("a keyword name must be a non-empty string")
        self._keywords[name] = validate
        self._cache.clear()
        return self

    def add_transform(self, fn: Transform) -> "ValidatorEngine":
        """Rewrite every schema before it is compiled: ``fn(schema, shared) -> schema``.

        Applied in order to the route's schema and to each shared schema (``shared`` is
        the mapping of ``$id`` to shared schema). ``fn`` gets a copy it may change.
        """
        self._transforms.append(fn)
        self._cache.clear()
        self._shared_memo.clear()
        return self

    def add_error_processor(self, fn: ErrorProcessor) -> "ValidatorEngine":
        """On failure, ``fn(errors, schema) -> errors`` runs (in order) before the error is raised.

        ``schema`` is the compiled (transformed) root schema.
        """
        self._error_processors.append(fn)
        return self

    # ---------------------------------------------------------------- compiling
    def compile(self, schema: Schema, shared: Mapping[str, Schema] | None = None,
                http_part: str = "body") -> Validator:
        """Compile ``schema`` into ``validate(data) -> value``.

        ``shared`` maps ``$id`` to the shared schemas ``$ref`` may name. An unresolvable
        ``$ref`` raises :class:`framework.schemas.UnresolvableRefError`; a schema the
        engine cannot compile raises :class:`SchemaCompileError`. Identical schemas (same
        canonical JSON, same shared schemas reached) compile once per engine.
        """
        shared = shared or {}
        if self._transforms:
            schema, shared = self._transform(schema, shared)
        index = RefIndex(schema, shared)
        index.preload()
        key = self._cache_key(schema, index)
        if key is not None and key in self._cache:
            return self._cache[key]
        generator = ValidatorCodeGenerator(schema, index, self.options, self._formats, self._keywords)
        source = generator.source()
        namespace = generator.globals
        code = _CODE_CACHE.get(source)
        if code is None:
            if len(_CODE_CACHE) >= _CODE_CACHE_SIZE:
                _CODE_CACHE.clear()
            code = _CODE_CACHE[source] = compile(source, "<validator>", "exec")
        exec(code, namespace)  # noqa: S102 - generated code, see generator.py
        validator = self._wrap(namespace[generator.root_name], schema, source)
        if key is not None:
            self._cache[key] = validator
        return validator

    def _transform(self, schema: Schema, shared: Mapping[str, Schema]) -> tuple[Schema, Mapping[str, Schema]]:
        schema = copy.deepcopy(schema)
        for fn in self._transforms:
            schema = fn(schema, shared)
        return schema, _TransformedShared(self, shared)

    def _transformed_shared(self, item: Schema, shared: Mapping[str, Schema]) -> Schema:
        # Each shared schema is transformed once per engine (routes share them), lazily:
        # only the ones a compiled schema reaches.
        memo = self._shared_memo.get(id(item))
        if memo is not None and memo[0] is item:
            return memo[1]
        value = copy.deepcopy(item)
        for fn in self._transforms:
            value = fn(value, shared)
        self._shared_memo[id(item)] = (item, value)
        return value

    def _cache_key(self, schema: Schema, index: RefIndex) -> str | None:
        try:
            return json.dumps([schema, sorted(index.reached.items())], sort_keys=True,
                              separators=(",", ":"), allow_nan=True)
        except (TypeError, ValueError):
            return None

    def _wrap(self, root: Callable[[Any, str, list], Any], schema: Schema, source: str) -> Validator:
        processors = self._error_processors

        def validate(data: Any) -> Any:
            errors: list[dict[str, Any]] = []
            try:
                data = root(data, "", errors)
            except Invalid:
                pass
            if errors:
                for fn in processors:
                    errors = fn(errors, schema)
                raise SchemaValidationFailure(errors)
            return data

        validate.schema = schema  # type: ignore[attr-defined]
        validate.source = source  # type: ignore[attr-defined]
        # ``root(data, path, errors)`` for callers that can run the steps above themselves
        # (the route pipeline does, to save a frame per request): only without processors.
        validate.root = None if processors else root  # type: ignore[attr-defined]
        return validate


class _TransformedShared(Mapping):
    """The shared schemas as the transforms make them, transformed on first access."""

    def __init__(self, engine: ValidatorEngine, shared: Mapping[str, Schema]) -> None:
        self._engine = engine
        self._shared = shared

    def __getitem__(self, key: str) -> Schema:
        return self._engine._transformed_shared(self._shared[key], self._shared)

    def __contains__(self, key: object) -> bool:
        return key in self._shared

    def __iter__(self) -> Any:
        return iter(self._shared)

    def __len__(self) -> int:
        return len(self._shared)


def compile_schema(schema: Schema, shared: Mapping[str, Schema] | None = None, **custom_options: Any) -> Validator:
    """One-off: ``ValidatorEngine(custom_options).compile(schema, shared)``."""
    return ValidatorEngine(custom_options).compile(schema, shared)


