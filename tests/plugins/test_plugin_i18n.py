"""framework.plugins.i18n: localized messages built from each record's keyword and params."""
from __future__ import annotations

import copy

import pytest

from framework.plugins.i18n import LANGUAGES, localize, message_for, negotiate


def record(keyword, params, instance_path="/x", message="engine text"):
    return {"keyword": keyword, "instance_path": instance_path,
            "schema_path": f"#/properties/x/{keyword}", "params": params, "message": message}


#: One record per draft-7 keyword, with Ajv 8's params, and the English text the engine writes.
CASES = [
    ("type", {"type": "integer"}, "should be integer"),
    ("type", {"type": ["string", "null"]}, "should be string,null"),
    ("required", {"missingProperty": "name"}, "should have required property 'name'"),
    ("additionalProperties", {"additionalProperty": "extra"}, "should NOT have additional properties"),
    ("enum", {"allowedValues": ["a", "b"]}, "should be equal to one of the allowed values"),
    ("const", {"allowedValue": 3}, "should be equal to constant"),
    ("minLength", {"limit": 3}, "should NOT have fewer than 3 characters"),
    ("maxLength", {"limit": 5}, "should NOT have more than 5 characters"),
    ("minItems", {"limit": 2}, "should NOT have fewer than 2 items"),
    ("maxItems", {"limit": 4}, "should NOT have more than 4 items"),
    ("minProperties", {"limit": 2}, "should NOT have fewer than 2 properties"),
    ("maxProperties", {"limit": 7}, "should NOT have more than 7 properties"),
    ("minimum", {"comparison": ">=", "limit": 1}, "should be >= 1"),
    ("maximum", {"comparison": "<=", "limit": 9.5}, "should be <= 9.5"),
    ("exclusiveMinimum", {"comparison": ">", "limit": 0}, "should be > 0"),
    ("exclusiveMaximum", {"comparison": "<", "limit": 100.0}, "should be < 100"),
    ("multipleOf", {"multipleOf": 0.5}, "should be multiple of 0.5"),
    ("pattern", {"pattern": "^a+$"}, 'should match pattern "^a+$"'),
    ("format", {"format": "email"}, 'should match format "email"'),
    ("uniqueItems", {"i": 3, "j": 1}, "should NOT have duplicate items (items ## 1 and 3 are identical)"),
    ("additionalItems", {"limit": 2}, "should NOT have more than 2 items"),
    ("contains", {"minContains": 1}, "should contain at least 1 valid item(s)"),
    ("dependencies", {"property": "card", "missingProperty": "cvc", "depsCount": 1, "deps": "cvc"},
     "should have property cvc when property card is present"),
    ("dependencies", {"property": "card", "missingProperty": "cvc", "depsCount": 2, "deps": "cvc, exp"},
     "should have properties cvc, exp when property card is present"),
    ("propertyNames", {"propertyName": "Bad"}, "property name should be valid"),
    ("anyOf", {}, "should match a schema in anyOf"),
    ("oneOf", {"passingSchemas": [0, 1]}, "should match exactly one schema in oneOf"),
    ("not", {}, "should NOT be valid"),
    ("if", {"failingKeyword": "then"}, 'should match "then" schema'),
    ("false schema", {}, "boolean schema is false"),
]


@pytest.mark.parametrize("keyword,params,english", CASES)
def test_english_is_the_engine_wording(keyword, params, english):
    assert localize([record(keyword, params)], "en")[0]["message"] == english


@pytest.mark.parametrize("keyword,params,english", CASES)
@pytest.mark.parametrize("lang", ["de", "fr", "es", "ru"])
def test_every_keyword_is_translated(lang, keyword, params, english):
    message = localize([record(keyword, params)], lang)[0]["message"]
    assert message and message != english and message != "engine text"
    # The params that the English text shows appear in the translation too.
    shown = [str(v).removesuffix(".0") for v in params.values() if not isinstance(v, list)]
    shown = [v for v in shown if v in english]
    assert all(v in message for v in shown), (lang, keyword, message, shown)


def test_exact_translations():
    assert message_for("maxLength", {"limit": 5}, "de") == "darf nicht länger als 5 Zeichen sein"
    assert message_for("required", {"missingProperty": "name"}, "de") == \
        "muss das erforderliche Attribut 'name' enthalten"
    assert message_for("type", {"type": "integer"}, "fr") == "doit être de type integer"
    assert message_for("minimum", {"comparison": ">=", "limit": 18}, "es") == "debe ser >= 18"
    assert message_for("maxItems", {"limit": 3}, "ru") == "должно иметь не более 3 элементов"


@pytest.mark.parametrize("limit,expected", [
    (1, "должно иметь не менее 1 символа"), (2, "должно иметь не менее 2 символов"),
    (5, "должно иметь не менее 5 символов"), (11, "должно иметь не менее 11 символов"),
    (21, "должно иметь не менее 21 символа"),
])
def test_russian_plurals(limit, expected):
    assert message_for("minLength", {"limit": limit}, "ru") == expected


def test_singular_and_plural():
    assert message_for("minItems", {"limit": 1}, "de") == "darf nicht weniger als 1 Element haben"
    assert message_for("minItems", {"limit": 2}, "de") == "darf nicht weniger als 2 Elemente haben"
    assert message_for("maxLength", {"limit": 1}, "fr") == "ne doit pas dépasser 1 caractère"
    assert message_for("maxLength", {"limit": 2}, "fr") == "ne doit pas dépasser 2 caractères"
    assert message_for("maxProperties", {"limit": 1}, "es") == "no debe tener más de 1 propiedad"
    assert message_for("maxProperties", {"limit": 3}, "es") == "no debe tener más de 3 propiedades"


def test_comparison_defaults_from_the_keyword_when_params_lack_it():
    assert message_for("exclusiveMaximum", {"limit": 3}, "en") == "should be < 3"
    assert message_for("minimum", {"limit": 3}, "de") == "muss >= 3 sein"


def test_input_records_are_untouched_and_outputs_are_new():
    errors = [record("maxLength", {"limit": 5}, message="should NOT have more than 5 characters"),
              record("required", {"missingProperty": "a"}, instance_path="")]
    errors[0]["extra"] = "kept"
    before = copy.deepcopy(errors)
    out = localize(errors, "fr")
    assert errors == before
    assert out[0] is not errors[0] and out[0]["params"] is not errors[0]["params"]
    assert out[0]["extra"] == "kept"
    assert {k: v for k, v in out[0].items() if k != "message"} == \
        {k: v for k, v in errors[0].items() if k != "message"}
    out[0]["params"]["limit"] = 99
    assert errors[0]["params"]["limit"] == 5


def test_error_message_records_pass_through():
    custom = record("errorMessage", {"errors": []}, message="name is mandatory")
    assert localize([custom], "ru")[0]["message"] == "name is mandatory"


def test_unknown_keyword_gets_generic_text():
    assert localize([record("even", {})], "en")[0]["message"] == 'should pass "even" keyword validation'
    assert localize([record("even", {})], "de")[0]["message"] == \
        'muss die Prüfung des Schlüsselworts "even" bestehen'


def test_record_without_needed_params_keeps_its_message():
    assert localize([record("maxLength", {}, message="too long")], "de")[0]["message"] == "too long"
    assert localize([{"keyword": "type", "message": "x"}], "de")[0]["message"] == "x"


def test_languages_and_tags():
    assert set(LANGUAGES) >= {"en", "de", "fr", "es", "ru"}
    assert localize([record("not", {})], "de-CH")[0]["message"] == \
        localize([record("not", {})], "DE")[0]["message"]
    assert localize([record("not", {})], "pt_BR".replace("pt", "es"))[0]["message"] == \
        'no debe ser válido según el esquema en "not"'
    with pytest.raises(ValueError, match="unsupported language 'pt'.*en, de, fr, es, ru"):
        localize([record("not", {})], "pt")
    with pytest.raises(ValueError):
        localize([], "xx")  # checked even with nothing to translate
    assert localize(None, "de") == []


@pytest.mark.parametrize("header,expected", [
    ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "fr"),
    ("pt-BR, ja", "en"),
    ("ja, ru;q=0.2, de;q=0.3", "de"),
    ("de;q=0, es", "es"),
    ("", "en"),
    (None, "en"),
])
def test_negotiate(header, expected):
    assert negotiate(header) == expected


def test_negotiate_default():
    assert negotiate("ja", default="de") == "de"
