"""Ajv 8's coercion tests (``spec/coercion.spec.ts``) as data, run through this engine.

The data is ``tests/data/ajv/coercion.json``: Ajv's rule tables (``to_type``,
``from_type``, ``from``, ``to``; no ``to``: cannot be coerced) and its document cases,
written out as JSON; the code here is ours and follows what each Ajv test checks:

- a value alone against ``{"type": to_type, "enum": [to]}`` (or ``{"type": to_type}``
  when it cannot be coerced): valid exactly when it can be coerced;
- ``coerce_types=True`` only: the value as an array item, an object property and a
  property of an object in an array, which must hold the coerced value afterwards;
- both ``all_errors`` settings, as Ajv runs each test on two instances.

Every expected outcome was also confirmed by running the same data through Ajv 8.
A sample runs through routes (``app.inject``): a query string and a JSON body.
"""
from __future__ import annotations

import json
import pathlib

import pytest

from framework import Framework
from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine

DATA = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" / "ajv" / "coercion.json")
                  .read_text(encoding="utf-8"))


def _schema_for(rule: dict) -> dict:
    if "to" not in rule:
        return {"type": rule["to_type"]}
    if isinstance(rule["to"], list):
        return {"type": rule["to_type"], "items": {"type": rule["from_type"], "enum": [rule["to"][0]]}}
    return {"type": rule["to_type"], "enum": [rule["to"]]}


def _run(engine: ValidatorEngine, schema: object, data: object) -> tuple[bool, object, list]:
    validate = engine.compile(schema)
    try:
        return True, validate(data), []
    except SchemaValidationFailure as failure:
        return False, data, failure.errors


def _same(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) and type(a) is type(b) \
        or (isinstance(a, (int, float)) and not isinstance(a, bool) and isinstance(b, (int, float))
            and not isinstance(b, bool) and a == b)


def _ids(rules: list) -> list[str]:
    return [f"{r['from_type']}->{r['to_type']}:{json.dumps(r['from'])}" for r in rules]


@pytest.mark.parametrize("all_errors", [False, True])
@pytest.mark.parametrize("rule", DATA["rules"], ids=_ids(DATA["rules"]))
def test_scalar_rules(rule, all_errors):
    engine = ValidatorEngine({"coerce_types": True, "all_errors": all_errors})
    schema, can = _schema_for(rule), "to" in rule
    assert _run(engine, schema, json.loads(json.dumps(rule["from"])))[0] is can
    for wrapper, before, after in (
            ({"type": "array", "items": schema}, [rule["from"]], [rule.get("to")]),
            ({"type": "object", "properties": {"foo": schema}}, {"foo": rule["from"]}, {"foo": rule.get("to")}),
            ({"type": "array", "items": {"type": "object", "properties": {"foo": schema}}},
             [{"foo": rule["from"]}], [{"foo": rule.get("to")}])):
        valid, value, _ = _run(engine, wrapper, json.loads(json.dumps(before)))
        assert valid is can
        if valid:
            assert json.dumps(value) == json.dumps(after) or value == after


@pytest.mark.parametrize("all_errors", [False, True])
@pytest.mark.parametrize("rule", DATA["rules_array_mode"], ids=_ids(DATA["rules_array_mode"]))
def test_scalar_rules_array_mode(rule, all_errors):
    engine = ValidatorEngine({"coerce_types": "array", "all_errors": all_errors})
    assert _run(engine, _schema_for(rule), json.loads(json.dumps(rule["from"])))[0] is ("to" in rule)


@pytest.mark.parametrize("all_errors", [False, True])
@pytest.mark.parametrize("case", DATA["multiple_types"],
                         ids=[f"{c['type'][0]}:{json.dumps(c['from'])}" for c in DATA["multiple_types"]])
def test_multiple_types_in_order(case, all_errors):
    engine = ValidatorEngine({"coerce_types": True, "all_errors": all_errors})
    valid, value, _ = _run(engine, {"type": "object", "properties": {"foo": {"type": case["type"]}}},
                           {"foo": json.loads(json.dumps(case["from"]))})
    assert valid is ("to" in case)
    if valid:
        assert _same(value["foo"], case["to"])
    else:
        assert value == {"foo": case["from"]}    # unchanged


@pytest.mark.parametrize("mode", [True, "array"])
@pytest.mark.parametrize("all_errors", [False, True])
@pytest.mark.parametrize("doc", DATA["documents"], ids=[d["title"] for d in DATA["documents"]])
def test_documents(doc, all_errors, mode):
    engine = ValidatorEngine({"coerce_types": mode, "all_errors": all_errors})
    valid, value, errors = _run(engine, doc["schema"], json.loads(json.dumps(doc["data"])))
    assert valid is doc["valid"]
    if "after" in doc:
        assert value == doc["after"]
    if "errors" in doc:
        assert len(errors) == doc["errors"]
    if "last_keyword" in doc:
        assert errors[-1]["keyword"] == doc["last_keyword"]


def pass_counts() -> tuple[int, int]:
    """(passed, total) checks of this file's data, for the report and the README."""
    passed = total = 0
    for key, mode in (("rules", True), ("rules_array_mode", "array")):
        for rule in DATA[key]:
            for all_errors in (False, True):
                total += 1
                engine = ValidatorEngine({"coerce_types": mode, "all_errors": all_errors})
                passed += _run(engine, _schema_for(rule), json.loads(json.dumps(rule["from"])))[0] is ("to" in rule)
    return passed, total


# ------------------------------------------------------------------------------ through routes

ROUTE_RULES = [r for r in DATA["rules_array_mode"] if r["to_type"] in ("number", "integer", "boolean", "null", "string")
               and r["from_type"] in ("string", "array", "number", "boolean", "null")]


@pytest.mark.parametrize("rule", ROUTE_RULES, ids=_ids(ROUTE_RULES))
def test_rules_through_a_json_body(rule):
    app = Framework()   # Fastify's defaults: coerce_types "array"
    schema = {"type": "object", "properties": {"foo": _schema_for(rule)}}
    app.post("/x", {"schema": {"body": schema}}, lambda request, reply: {"foo": request.body["foo"]})
    response = app.inject(method="POST", url="/x", json={"foo": rule["from"]})
    assert (response.status_code == 200) is ("to" in rule), response.text
    if "to" in rule:
        assert _same(response.json()["foo"], rule["to"])


@pytest.mark.parametrize("to_type, text, result", [
    (r["to_type"], r["from"], r.get("to")) for r in DATA["rules"] if r["from_type"] == "string"])
def test_string_rules_through_a_query_string(to_type, text, result):
    app = Framework(validator={"custom_options": {"coerce_types": True}})   # the table's mode
    schema = {"type": "object", "properties": {"q": {"type": to_type}}}
    app.get("/x", {"schema": {"querystring": schema}}, lambda request, reply: {"q": request.query["q"]})
    from urllib.parse import quote
    response = app.inject(url="/x?q=" + quote(text))
    expected = result is not None or (to_type == "null" and text == "")
    assert (response.status_code == 200) is expected, response.text
    if expected:
        assert _same(response.json()["q"], result)
