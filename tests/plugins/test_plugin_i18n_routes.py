"""framework.plugins.i18n with real engine errors: the seed's error-handler pattern (7, note 4)."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.plugins.error_messages import error_messages
from framework.plugins.i18n import localize, negotiate

BODY = {"type": "object", "required": ["name"], "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "exclusiveMaximum": 150, "multipleOf": 1},
            "email": {"type": "string", "format": "email"},
            "kind": {"enum": ["a", "b"]}, "fixed": {"const": 1},
            "tags": {"type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": True,
                     "contains": {"const": "x"}},
            "tuple": {"type": "array", "items": [{"type": "string"}], "additionalItems": False},
            "meta": {"type": "object", "minProperties": 1, "maxProperties": 2,
                     "propertyNames": {"pattern": "^[a-z]+$"},
                     "dependencies": {"card": ["cvc"]}},
            "any": {"anyOf": [{"type": "string"}, {"type": "number"}]},
            "one": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
            "no": {"not": {"type": "string"}},
            "cond": {"if": {"type": "string"}, "then": {"minLength": 3}},
            "never": False,
        }}

#: Bodies each breaking one keyword of BODY.
BAD_BODIES = {
    "required": {}, "type": {"name": "ab", "age": "x"}, "minLength": {"name": "a"},
    "maxLength": {"name": "abcdef"}, "pattern": {"name": "AB"}, "minimum": {"name": "ab", "age": -1},
    "exclusiveMaximum": {"name": "ab", "age": 150}, "format": {"name": "ab", "email": "nope"},
    "enum": {"name": "ab", "kind": "c"}, "const": {"name": "ab", "fixed": 2},
    "minItems": {"name": "ab", "tags": []}, "maxItems": {"name": "ab", "tags": ["x", "y", "z"]},
    "uniqueItems": {"name": "ab", "tags": ["x", "x"]}, "contains": {"name": "ab", "tags": ["y"]},
    "additionalItems": {"name": "ab", "tuple": ["a", "b"]},
    "minProperties": {"name": "ab", "meta": {}}, "maxProperties": {"name": "ab", "meta": {"a": 1, "b": 2, "c": 3}},
    "propertyNames": {"name": "ab", "meta": {"Bad": 1}}, "dependencies": {"name": "ab", "meta": {"card": 1}},
    "anyOf": {"name": "ab", "any": {}}, "oneOf": {"name": "ab", "one": 1}, "not": {"name": "ab", "no": "s"},
    "if": {"name": "ab", "cond": "ab"}, "false schema": {"name": "ab", "never": 1},
}


def make_app(lang="de", all_errors=False, plugins=()):
    app = Framework(validator={"custom_options": {"all_errors": all_errors, "remove_additional": False,
                                                  "coerce_types": False},
                               "plugins": list(plugins)})
    seen = []

    def handle(error, request, reply):
        if getattr(error, "validation", None):
            seen.append(error.validation)
            language = lang or negotiate(request.headers.get("accept-language"))
            return reply.code(400).send(localize(error.validation, language))
        return reply.send(error)

    app.set_error_handler(handle)
    app.post("/", {"schema": {"body": BODY}}, lambda request, reply: {"ok": True})
    return app, seen


def test_seed_pattern_answers_400_with_localized_records():
    app, seen = make_app("de")
    response = app.inject(method="POST", url="/", json={})
    assert response.status_code == 400
    assert response.json() == [{"keyword": "required", "instance_path": "", "schema_path": "#/required",
                                "params": {"missingProperty": "name"},
                                "message": "muss das erforderliche Attribut 'name' enthalten"}]
    # The error's own records keep the engine's English text.
    assert seen[0][0]["message"] == "should have required property 'name'"


@pytest.mark.parametrize("keyword", sorted(BAD_BODIES))
def test_every_reported_keyword(keyword):
    app, seen = make_app("fr", all_errors=True)
    response = app.inject(method="POST", url="/", json=BAD_BODIES[keyword])
    assert response.status_code == 400
    engine_records = seen[0]
    assert keyword in [r["keyword"] for r in engine_records], engine_records
    # English reproduces what the engine wrote, record for record.
    assert [r["message"] for r in localize(engine_records, "en")] == [r["message"] for r in engine_records]
    # French rewrites every message, and nothing else.
    localized = response.json()
    assert len(localized) == len(engine_records)
    for before, after in zip(engine_records, localized):
        assert {k: v for k, v in before.items() if k != "message"} == \
            {k: v for k, v in after.items() if k != "message"}
        assert after["message"] != before["message"], after


def test_accept_language_negotiation():
    app, _ = make_app(lang=None)
    spanish = app.inject(method="POST", url="/", json={"name": "a"}, headers={"accept-language": "es-MX, en;q=0.5"})
    assert spanish.json()[0]["message"] == "no debe tener menos de 2 caracteres"
    russian = app.inject(method="POST", url="/", json={"name": "a"}, headers={"accept-language": "ru"})
    assert russian.json()[0]["message"] == "должно иметь не менее 2 символов"
    fallback = app.inject(method="POST", url="/", json={"name": "a"}, headers={"accept-language": "ja"})
    assert fallback.json()[0]["message"] == "should NOT have fewer than 2 characters"


def test_error_message_records_keep_the_users_text():
    app = Framework(validator={"custom_options": {"all_errors": True}, "plugins": [error_messages]})
    app.set_error_handler(lambda error, request, reply: reply.code(400).send(localize(error.validation, "de")))
    app.post("/", {"schema": {"body": {"type": "object", "properties": {
        "a": {"type": "integer", "errorMessage": "a: ganze Zahl bitte"}, "b": {"type": "integer"}}}}},
        lambda request, reply: {})
    response = app.inject(method="POST", url="/", json={"a": "x", "b": "y"})
    assert [r["message"] for r in response.json()] == ["a: ganze Zahl bitte", "muss vom Typ integer sein"]
