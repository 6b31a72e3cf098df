"""Response-schema serialization: each schema compiled once into a Python function.

>>> from framework.serialization import compile_serializer
>>> serialize = compile_serializer({"type": "object", "required": ["id"],
...     "properties": {"name": {"type": "string"}, "id": {"type": "integer"}}})
>>> serialize({"name": "Ada", "id": 1.9, "password": "hunter2"})
b'{"id":1,"name":"Ada"}'

Only declared properties appear; values are coerced to the declared type as
fast-json-stringify v5 does; a missing required property, or a value no coercion fits,
raises :class:`SerializationError`, whose ``pointer`` is the JSON pointer of the value
(a reply answers it with the fixed 500 and logs it). A serializer returns UTF-8 JSON ``bytes``.

Layout: ``generator.py`` (schema -> source; see it for the architecture), ``merging.py``
(``allOf`` and ``anyOf`` branches merged into one shape), ``runtime.py`` (coercions and
the final encode generated code calls). ``$ref`` goes through
:class:`framework.schemas.store.RefIndex`, the resolver the validator uses; code emission
(the ``Emitter``), constants, ``linecache`` registration and the compile cache through
:mod:`framework.schemas.codegen`, as the validator's;
errors live in :mod:`framework.errors`. See ``benchmarks/serialization.py`` for the
measured design choices:

Encoding strategy: shape in generated code, encode once in C. ``benchmarks/serialization.py``
runs every contender interleaved, round by round, and reports medians and ratios from
one run (these machines are noisy: load 4-12 on 2 CPUs during these runs, so absolute
times moved 2x between runs while the ratios held). Figures, ``rows50`` = 50 rows of
8 declared fields plus an undeclared ``secret``; ``small5`` = one 5-field object:

==========================================  ==================  =================
contender                                   rows50 (time vs     small5 (time vs
                                            compiled)           compiled)
==========================================  ==================  =================
compiled (this package, orjson encode)      1.00                1.00
same generated shaping, ujson encode        1.68 - 1.82         1.61 - 1.74
f-string text built in generated code       1.62 - 1.96         0.81 - 0.92
hand dict-comprehension filter + ujson      1.57 - 1.90         1.84 - 1.92
hand filter + json.dumps                    3.25 - 3.87         -
hand filter + orjson                        0.87 - 1.12         -
bare ujson.dumps of the unfiltered value    -                   0.68 - 1.03
==========================================  ==================  =================

What was tried and why this one won:

* **Shaped dict per object, literal keys, one C encode** (kept). Generated code reads
  each declared property with one subscript inside a ``try`` (a ``KeyError`` means
  "take the general path"), checks exact types (``type(v) is int``: cheaper than
  ``isinstance`` and it keeps ``bool`` out of integers), and builds a dict literal.
  A dict literal costs about half a comprehension over a key tuple. The tree holds
  only exact JSON types, so the encoder needs no ``default`` hook.
* **orjson vs ujson for that encode**: orjson's encode of the rows is about 4x
  faster than ujson's, and it writes ``inf``/``nan`` as ``null`` (the rule here), so
  number checks skip the finiteness test. With ujson the same shaping only ties
  with hand filter + ujson: ujson's own per-value cost dominates, and ujson's keyword
  arguments cost about 1 us per call, so it is called without any (``/`` then comes
  out as ``\\/``, valid JSON). orjson is required, and the only encoder here.
* **Building the JSON text in generated code** (f-strings with literal keys,
  ``encode_basestring_ascii`` per string, ``int.__repr__`` per integer): wins
  slightly on a 5-field object but loses on rows; Python-level number formatting
  (``float.__repr__`` ~0.3 us here) cannot match a C encoder.
* ``operator.itemgetter`` + ``dict(zip(keys, values))`` + ``map(type, ...)`` checks:
  about 2x slower than the dict literal (prototype). Inlining each row's fast path
  into the array comprehension with ``:=``: no gain measured (prototype).
* Calling the encoder through a helper cost 5-10% of a small object's time: the
  encode is inlined into ``serialize``.

Strings: escaped by the encoder (quotes, backslashes, control characters). Non-ASCII
comes out raw (UTF-8-safe text). A lone surrogate, which orjson refuses, sends the
tree to the stdlib encoder, which writes it as a ``\\udXXX`` escape: the output still
``json.loads`` back to the same ``str`` and still encodes to UTF-8.
"""
from __future__ import annotations

import json
import threading
from functools import partial
from collections.abc import Mapping
from typing import Any, Callable

from ..schemas.codegen import CodeCache, compile_cache, load_lazy, load_stored
from ..errors import SchemaCompileError, SerializationError
from ..schemas.store import RefIndex, draft07_meta_schema
from ..schemas.keywords import StrictMode
from .checks import check_schema, check_shared, check_strict
from .generator import SerializerGenerator, Shaper, ValidatorCompiler

__all__ = ["compile_serializer", "compile_source", "SerializationError", "SerializerGenerator",
           "Shaper", "SchemaCompileError"]

#: ``serialize(data) -> bytes``: UTF-8 JSON, ready to send.
Serializer = Callable[[Any], bytes]

_cache: dict[str, Serializer] = {}
#: The (cache key, strict mode, extra keywords) whose build-time checks passed: the checks
#: read nothing else, so a route reusing a compiled schema does not repeat them (1,000
#: routes answering one shared schema checked it 1,000 times). Not for strict "log",
#: whose warnings each compile shows.
_checked: set[tuple[str, bool, tuple[str, ...]]] = set()
_lock = threading.Lock()
_CODE_CACHE = CodeCache("serializer")


#: The validator options of the serializer's checks: a plain validator, which changes
#: nothing. (Strict mode is the response schema's check, with the app's option and
#: keywords: not here.)
PLAIN_VALIDATOR_OPTIONS: dict[str, Any] = {"coerce_types": False, "use_defaults": False,
                                           "remove_additional": False, "strict": False}
_validators: list[tuple[ValidatorCompiler, Callable[[Any], Any]]] = []
_validators_lock = threading.Lock()


def _plain_validators() -> tuple[ValidatorCompiler, Callable[[Any], Any]]:
    """``(compile, meta_validate)``: the framework's plain validator, and its validator of
    the draft-07 meta-schema, built once.

    The one place the serializer meets the validator: its generator and checks take
    these as arguments and import no validator.
    """
    if not _validators:
        with _validators_lock:
            if not _validators:
                from ..validation import ValidatorEngine
                engine = ValidatorEngine(PLAIN_VALIDATOR_OPTIONS)
                meta = ValidatorEngine(PLAIN_VALIDATOR_OPTIONS)
                # Formats are not asserted by the meta-schema check (a deliberate difference):
                # ``$ref`` targets and patterns are checked by the resolver and the generator,
                # with their own messages, and a definition named "my name" needs no
                # percent-encoding.
                for name in ("uri", "uri-reference", "regex"):
                    meta.add_format(name, lambda value: True)
                _validators.append((engine.compile, meta.compile(draft07_meta_schema())))
    return _validators[0]


def _cache_key(schema: Any, index: RefIndex) -> str:
    return json.dumps([schema, index.reached], sort_keys=True, default=repr)


def _render(schema: Any, shared: Mapping[str, Any], index: RefIndex, compile_validator: ValidatorCompiler) -> str:
    return SerializerGenerator(schema, shared, index, compile_validator).source


def compile_source(schema: Any, shared: Mapping[str, Any] | None = None) -> str:
    """The Python source generated for ``schema``: readable, for debugging and inspection.

    Raises :class:`framework.schemas.store.UnresolvableRefError` for a ``$ref`` that names nothing.
    """
    shared = shared if shared is not None else {}
    return SerializerGenerator(schema, shared, RefIndex(schema, shared).preload(), _plain_validators()[0]).source


def compile_serializer(schema: Any, shared: Mapping[str, Any] | None = None, *, strict: StrictMode = False,
                       keywords: "tuple[str, ...] | frozenset[str]" = (), document: str = "") -> Serializer:
    """Compile ``schema`` (a response JSON schema) into ``serialize(data) -> bytes`` (UTF-8 JSON).

    ``shared`` maps ``$id`` to the shared schemas ``$ref`` may name. Identical schemas
    (with identical shared schemas reached) compile once. Neither argument is mutated.
    An unresolvable ``$ref`` raises :class:`framework.schemas.store.UnresolvableRefError` now;
    a schema that is not valid draft 7 (checked against the meta-schema, as
    fast-json-stringify does) or that the generator cannot shape raises
    :class:`SchemaCompileError` naming its schema path. ``strict``: Ajv's strict mode,
    unknown keywords (other than ``keywords``) and formats are errors too (``"log"``:
    warnings), named in ``document`` (``response 200``). At run time a
    value that does not fit raises :class:`SerializationError`.
    """
    shared = shared if shared is not None else {}
    index = RefIndex(schema, shared).preload()
    key = _cache_key(schema, index)
    serializer = _cache.get(key)
    checked = None if strict == "log" else (key, bool(strict), tuple(sorted(keywords)))
    if serializer is not None and (not strict or checked in _checked):
        return serializer
    compile_validator, meta_validate = _plain_validators()
    # No source kept: regenerated when a traceback or generated_source(serializer) asks.
    render = partial(_render, schema, shared, index, compile_validator)
    # The on-disk cache's key: what the module depends on (the schema and the shared schemas
    # it reaches; the framework's and Python's code are in the cache's own key) and the
    # strict-mode settings its checks passed with. A module found there passed the checks
    # below with them when it was stored: they are not run again (they cost as much as
    # loading it). Not with strict "log", whose warnings each start must show.
    stored_key = (json.dumps([key, strict is True, sorted(keywords)])
                  if serializer is None and compile_cache() is not None and strict != "log" else None)
    if stored_key is not None:
        with _lock:
            serializer = _cache.get(key)
            if serializer is None:
                namespace = SerializerGenerator.base_namespace()
                if load_stored(_CODE_CACHE, namespace, render, stored_key):
                    loaded: Serializer = namespace["serialize"]  # the stored module defines it
                    _cache[key] = loaded
                    return loaded
    check_schema(schema, meta_validate)
    if strict:
        check_strict(schema, keywords, SerializerGenerator.FORMATS, document, strict)
    check_shared(shared, index.reached, strict, keywords, SerializerGenerator.FORMATS, meta_validate)
    if checked is not None:
        _checked.add(checked)
    if serializer is not None:
        return serializer
    with _lock:
        serializer = _cache.get(key)
        if serializer is not None:
            return serializer
        generator = SerializerGenerator(schema, shared, index, compile_validator)
        namespace = generator.namespace
        load_lazy(_CODE_CACHE, generator.emitter, namespace, generator.HEADER, render, generator.constants,
                  stored_key)
        compiled: Serializer = namespace["serialize"]  # the generated module defines it
        _cache[key] = compiled
        return compiled
