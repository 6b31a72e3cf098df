"""The validation engine: fastjsonschema's draft-07 generator extended to Ajv 8's behaviour.

Public API::

    from framework.validation import ValidatorEngine, format_errors
    engine = ValidatorEngine(custom_options={"coerce_types": "array"}, plugins=())
    validate = engine.compile(schema, shared={"commonSchema": {...}}, http_part="body")
    value = validate(data)            # or raises framework.errors.SchemaValidationFailure

See :class:`ValidatorEngine` for the options and the error-record shape.
"""
from .engine import DEFAULT_OPTIONS, ValidatorEngine, compile_schema, format_errors
from .generator import SchemaCompileError

__all__ = ["DEFAULT_OPTIONS", "SchemaCompileError", "ValidatorEngine", "compile_schema", "format_errors"]
