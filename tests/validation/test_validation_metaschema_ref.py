"""``$ref: "http://json-schema.org/draft-07/schema#"`` resolves to the shipped meta-schema.

As in Ajv, which ships it: no network, no ``add_schema``. Ajv applies neither defaults
nor ``removeAdditional`` inside a meta-schema; neither does this engine.
"""
from __future__ import annotations

import json
import pathlib
import socket
import urllib.request

import pytest

from framework import Framework
from framework.schemas.store import draft07_meta_schema

META = "http://json-schema.org/draft-07/schema#"


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def echo(request, reply):
    return {"body": request.body}


def test_a_route_validates_a_schema_document_against_the_meta_schema():
    app = Framework()
    app.post("/schemas", {"schema": {"body": {"$ref": META}}}, echo)
    ok = app.inject(method="POST", url="/schemas", json={"type": "object", "properties": {"a": {}}})
    assert ok.status_code == 200
    assert ok.json()["body"] == {"type": "object", "properties": {"a": {}}}   # no meta-schema defaults
    bad = app.inject(method="POST", url="/schemas", json={"minLength": -1})
    assert bad.status_code == 400 and bad.json()["message"] == "body/minLength should be >= 0"


@pytest.mark.parametrize("ref", [META, "http://json-schema.org/draft-07/schema",
                                 META + "/definitions/nonNegativeInteger"])
def test_every_spelling_resolves(ref):
    app = Framework(validator={"custom_options": {"remove_additional": "all"}})
    app.post("/x", {"schema": {"body": {"type": "object", "properties": {"s": {"$ref": ref}}}}}, echo)
    app.ready()
    value = 3 if ref.endswith("Integer") else {"type": "string", "x-extra": 1}
    response = app.inject(method="POST", url="/x", json={"s": value})
    assert response.status_code == 200 and response.json()["body"] == {"s": value}


def test_the_shipped_copy_is_the_draft07_meta_schema():
    copy = json.loads((pathlib.Path(__file__).parent / "test_validation_draft07_metaschema.json").read_text())
    assert draft07_meta_schema() == copy
    assert copy["$id"] == META
