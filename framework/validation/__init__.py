"""The validation engine: JSON Schema draft 7 compiled to Python, with Ajv 8's behaviour.

Public API::

    from framework.validation import ValidatorEngine, format_errors
    engine = ValidatorEngine(custom_options={"coerce_types": "array"}, plugins=())
    validate = engine.compile(schema, shared={"commonSchema": {...}}, http_part="body")
    value = validate(data)            # or raises framework.errors.SchemaValidationFailure
    validate.root(data, "", errors)   # the generated function itself (hot path; may raise Invalid)
    print(engine.compile_source(schema))   # the generated module, commented with schema paths

See :class:`ValidatorEngine` for the options and the error-record shape, and
:class:`Validator` for what ``compile`` returns.

Layout (one concern per module):

- ``engine.py``: :class:`ValidatorEngine`, its options, the plugin API
  (formats, keywords, transforms, error processors) and the per-engine compile cache;
- ``generator.py``: the code generator, one ``generate_*`` method per keyword, writing
  through :class:`framework.codegen.Emitter` (shared with the serializer);
- ``runtime.py``: the helpers generated code calls (error records, coercion, ``uniqueItems``...);
- ``formats.py`` and ``ecma_regex.py``: ``format`` checks and ECMA-262 patterns.

``$ref`` is resolved by :class:`framework.schemas.RefIndex`, the resolver the serializer
and the schema plugins use too; errors (:class:`SchemaCompileError`, :class:`Invalid`,
``UnresolvableRefError``) live in :mod:`framework.errors`.

Where this engine follows Ajv 8 (Fastify 4's validator) and where it decides otherwise:

- Coercion, ``useDefaults``, ``removeAdditional``, ``nullable``, ``$ref`` with sibling
  keywords (validated), NaN/Infinity not being numbers, error records and messages
  follow Ajv 8 (messages say "should" where Ajv 8 says "must").
- An unknown ``format`` is a compile error (Ajv's strict mode), so a misspelt format
  never silently validates nothing; add formats with the ``formats`` option or
  ``engine.add_format``. The draft-07 formats ajv-formats lacks (``iri``,
  ``iri-reference``, ``idn-email``, ``idn-hostname``) are built in.
- Unknown keywords fail compilation (Ajv's strict mode, on by default): ``strict="log"``
  warns instead, ``strict=False`` ignores them. Known: :data:`KNOWN_KEYWORDS` (with
  OpenAPI's annotations, such as ``example``, which Ajv would refuse), any ``x-...``
  extension, and the keywords added with ``add_keyword``. A ``default`` where Ajv ignores
  it (inside ``anyOf``/``oneOf``/``not``/``if``/``contains``/``propertyNames``, at the
  root) is ignored too, without Ajv's strict-mode error.
- ``multipleOf`` is exact (decimal arithmetic on the JSON numbers: 19.01 is a multiple
  of 0.01), where Ajv divides floats.
- String-to-number coercion follows JavaScript's ``Number()``; a plain integer literal
  gives an exact Python ``int``, other integral results an ``int`` below 2**53, the
  rest a ``float``.
- Tuple-item defaults fill missing items in order and stop at the first missing item
  without a default (a Python list has no holes).
- ``pattern`` is an ECMA-262 regex (``u`` flag) translated to Python's ``re``; one
  with ``\\p{...}``/``\\P{...}`` is compiled with the ``regex`` package instead.
- An error raised under ``propertyNames`` carries ``property_name`` (Ajv's
  ``propertyName``), like the other fields in snake_case.
"""
from ..errors import Invalid, SchemaCompileError, format_errors
from .engine import DEFAULT_OPTIONS, Validator, ValidatorEngine, compile_schema
from ..schema_keywords import KNOWN_KEYWORDS, unknown_keywords
from .runtime import js_string

__all__ = ["DEFAULT_OPTIONS", "Invalid", "KNOWN_KEYWORDS", "SchemaCompileError", "Validator", "ValidatorEngine",
           "compile_schema", "format_errors", "js_string", "unknown_keywords"]
