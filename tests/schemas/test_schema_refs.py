"""One ``$ref`` resolver for both engines: a shared schema's nested relative ``$id``.

Through the public API: the request validates against the schema and the reply is
shaped by the same schema (only declared properties), so validator and serializer must
agree on what every ``$ref`` names.
"""
import pytest

from framework import Framework
from framework.schemas.store import RefIndex, absolutize, base_inside
from schema_fixtures import NESTED_RELATIVE_IDS

ROOT = NESTED_RELATIVE_IDS


def echo(request, reply):
    return dict(request.body, secret="hunter2")

@pytest.mark.parametrize("ref", ["http://example.com/item.json",
                                 "http://example.com/item.json#",
                                 "http://example.com/root.json#/definitions/item"])
def test_nested_relative_id_in_shared_schema_validates_and_serializes(ref):
    app = Framework()
    app.add_schema(ROOT)
    app.post("/items", {"schema": {"body": {"$ref": ref}, "response": {200: {"$ref": ref}}}}, echo)
    ok = app.inject(method="POST", url="/items", json={"a": "5", "b": "x"})
    assert ok.status_code == 200, ok.text
    assert ok.json() == {"a": 5, "b": "x"}
    bad = app.inject(method="POST", url="/items", json={"a": "five"})
    assert bad.status_code == 400

def test_allof_part_from_a_nested_id_keeps_its_references():
    app = Framework()
    app.add_schema(ROOT)
    schema = {"allOf": [{"$ref": "http://example.com/item.json"},
                        {"type": "object", "properties": {"c": {"type": "boolean"}}}]}
    app.post("/merged", {"schema": {"body": schema, "response": {200: schema}}}, echo)
    answer = app.inject(method="POST", url="/merged", json={"a": 1, "c": True})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"a": 1, "c": True}

def test_ref_index_applies_nested_ids():
    index = RefIndex({"type": "object"}, {"http://example.com/root.json": ROOT})
    target, outer = index.resolve("http://example.com/item.json", "")
    assert target is ROOT["definitions"]["item"]
    inner = base_inside(target, outer)
    assert inner == "http://example.com/item.json"
    assert index.resolve("#/definitions/x", inner)[0] == {"type": "integer"}
    moved = absolutize(target, inner)
    assert moved["properties"]["a"] == {"$ref": "http://example.com/item.json#/definitions/x"}

def test_absolutize_leaves_data_keywords_alone():
    schema = {"const": {"$ref": "#/x"}, "properties": {"p": {"$ref": "#/definitions/p"}}}
    moved = absolutize(schema, "http://e.com/a.json")
    assert moved["const"] == {"$ref": "#/x"}
    assert moved["properties"]["p"]["$ref"] == "http://e.com/a.json#/definitions/p"
