"""Ajv 8's ``useDefaults`` and ``removeAdditional`` tests (``spec/options/*``) as data.

Data: ``tests/data/ajv/options.json`` (each case: options, schema, data, whether it is
valid, the data afterwards, optionally the error count); the outcomes were confirmed by
running the same data through Ajv 8. Each case runs with ``all_errors`` off and on, on
the engine and through a route (JSON body).
"""
from __future__ import annotations

import json
import pathlib

import pytest

from framework import Framework
from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine

DATA = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" / "ajv" / "options.json")
                  .read_text(encoding="utf-8"))
CASES = DATA["cases"]


@pytest.mark.parametrize("all_errors", [False, True])
@pytest.mark.parametrize("case", CASES, ids=[c["source"] for c in CASES])
def test_option_case(case, all_errors):
    validate = ValidatorEngine(dict(case["options"], all_errors=all_errors)).compile(case["schema"])
    data = json.loads(json.dumps(case["data"]))
    try:
        data = validate(data)
        valid, errors = True, []
    except SchemaValidationFailure as failure:
        valid, errors = False, failure.errors
    assert valid is case["valid"]
    assert data == case["after"]
    if "errors" in case:
        assert len(errors) == case["errors"]


@pytest.mark.parametrize("case", [c for c in CASES if c["valid"]], ids=[c["source"] for c in CASES if c["valid"]])
def test_option_case_through_a_route(case):
    app = Framework(validator={"custom_options": case["options"]})
    app.post("/x", {"schema": {"body": case["schema"]}}, lambda request, reply: {"body": request.body})
    response = app.inject(method="POST", url="/x", json=case["data"])
    assert response.status_code == 200 and response.json()["body"] == case["after"]
