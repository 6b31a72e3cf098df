"""What the validation-engine tests share: compile a schema with options and validate one
value, as the accepted (possibly coerced) value or the error records."""
from __future__ import annotations

from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine


def run(schema, data, shared=None, **options):
    """Validate; return ("ok", value) or ("errors", records)."""
    validate = ValidatorEngine(options).compile(schema, shared or {})
    try:
        return "ok", validate(data)
    except SchemaValidationFailure as failure:
        return "errors", failure.errors


def ok(schema, data, shared=None, **options):
    outcome, value = run(schema, data, shared, **options)
    assert outcome == "ok", value
    return value


def errors(schema, data, shared=None, **options):
    outcome, value = run(schema, data, shared, **options)
    assert outcome == "errors", f"accepted: {value!r}"
    return value


def one_error(schema, data, **options):
    found = errors(schema, data, **options)
    assert len(found) == 1, found
    return found[0]
