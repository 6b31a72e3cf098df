"""Response-schema serialization: each schema compiled once into a Python function.

>>> from framework.serialization import compile_serializer
>>> serialize = compile_serializer({"type": "object", "required": ["id"],
...     "properties": {"name": {"type": "string"}, "id": {"type": "integer"}}})
>>> serialize({"name": "Ada", "id": 1.9, "password": "hunter2"})
'{"id":1,"name":"Ada"}'

Only declared properties appear; values are coerced to the declared type as
fast-json-stringify v5 does; a missing required property raises
:class:`SerializationError` (a 500). See :mod:`.generator` for the architecture and
``benchmarks/serialization.py`` for the measured design choices:

Encoding strategy (measured on 50 rows of 8 declared fields plus an undeclared one, all
contenders interleaved in one run, medians; see the benchmark for today's figures):

* shape in generated code (a dict literal with literal keys per object, exact-type
  checks ``type(v) is int`` before any coercion, one subscript per property inside a
  ``try``) and encode once with orjson: fastest; ~1.5-2x hand filter + ujson.
* the same shaping, encoded with ujson: ~1.1-1.3x hand filter + ujson; ujson's own
  per-row cost dominates, and passing it keyword arguments costs ~1 us per call.
* building the JSON text in generated code (f-strings with literal keys,
  ``json.encoder.encode_basestring_ascii`` per string, ``int.__repr__`` per integer):
  ~1.0-1.15x; Python-level number formatting (``float.__repr__`` ~0.3 us) loses to
  C encoders. For a 5-field object it ties with bare ``ujson.dumps``, as does the winner.
* a ``dict`` comprehension over a key tuple (the hand filter) is slower than a dict
  literal; ``operator.itemgetter`` + ``dict(zip(...))`` is slower still.

Without orjson installed, ujson encodes (``/`` is then written ``\\/``, which is valid JSON).
"""
from __future__ import annotations

import json
import linecache
import threading
from collections.abc import Mapping
from typing import Any, Callable

from ..schemas import iter_subschemas, resolve_ref
from .generator import SchemaCompileError, SerializerGenerator, Shaper
from .runtime import SerializationError

__all__ = ["compile_serializer", "compile_source", "SerializationError", "SerializerGenerator",
           "Shaper", "SchemaCompileError"]

Serializer = Callable[[Any], str]

_cache: dict[str, Serializer] = {}
_lock = threading.Lock()
_counter = 0


def _reached_shared(schema: Any, shared: Mapping[str, Any]) -> dict[str, Any]:
    """The shared schemas ``schema`` reaches through ``$ref``, transitively (checks every ref)."""
    reached: dict[str, Any] = {}
    by_identity = {id(doc): key for key, doc in shared.items()}
    seen: set[int] = set()
    pending = [(schema, schema)]
    while pending:
        node, document = pending.pop()
        for sub in iter_subschemas(node):
            ref = sub.get("$ref")
            if not isinstance(ref, str):
                continue
            target, target_doc = resolve_ref(ref, document, shared)
            key = by_identity.get(id(target_doc))
            if key is not None:
                reached[key] = target_doc
            if id(target) not in seen:
                seen.add(id(target))
                pending.append((target, target_doc))
    return reached


def _cache_key(schema: Any, shared: Mapping[str, Any]) -> str:
    reached = _reached_shared(schema, shared)
    return json.dumps([schema, reached], sort_keys=True, default=repr)


def compile_source(schema: Any, shared: Mapping[str, Any] | None = None) -> str:
    """The Python source generated for ``schema``: readable, for debugging and inspection.

    Raises :class:`framework.schemas.UnresolvableRefError` for a ``$ref`` that names nothing.
    """
    shared = shared if shared is not None else {}
    _reached_shared(schema, shared)
    return SerializerGenerator(schema, shared).source


def compile_serializer(schema: Any, shared: Mapping[str, Any] | None = None) -> Serializer:
    """Compile ``schema`` (a response JSON schema) into ``serialize(data) -> str``.

    ``shared`` maps ``$id`` to the shared schemas ``$ref`` may name. Identical schemas
    (with identical shared schemas reached) compile once. Neither argument is mutated.
    An unresolvable ``$ref`` raises :class:`framework.schemas.UnresolvableRefError` now;
    at run time a value that does not fit raises :class:`SerializationError`.
    """
    global _counter
    shared = shared if shared is not None else {}
    key = _cache_key(schema, shared)
    serializer = _cache.get(key)
    if serializer is not None:
        return serializer
    with _lock:
        serializer = _cache.get(key)
        if serializer is not None:
            return serializer
        generator = SerializerGenerator(schema, shared)
        _counter += 1
        filename = f"<serializer {_counter}>"
        code = compile(generator.source, filename, "exec")
        # Tracebacks through generated code then show its lines.
        linecache.cache[filename] = (len(generator.source), None, generator.source.splitlines(True), filename)
        namespace = generator.namespace
        exec(code, namespace)  # noqa: S102 - our own generated source; schema text enters via repr()/constants only
        serializer = namespace["serialize"]
        serializer.source = generator.source  # type: ignore[attr-defined]
        _cache[key] = serializer
        return serializer
