"""framework.plugins.openapi: typed streams (``itemSchema``) in a 3.2 document, and the
3.1 fallback (``x-oai-itemSchema`` beside a ``schema`` of an array of the items)."""
from __future__ import annotations

import dataclasses
from typing import Iterator

import pytest
from openapi_spec_validator import validate

from framework import Framework
from framework.plugins.openapi import OpenAPIError, openapi

ITEM = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
EVENT = {"type": "object", "properties": {
    "event": {"type": "string"}, "id": {"type": "string"}, "retry": {"type": "integer", "minimum": 0},
    "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": ITEM}}}


@dataclasses.dataclass
class Row:
    id: int


def streams(**options) -> dict:
    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"}, **options)
    app.get("/lines", {"schema": {"response": {200: {"description": "The items", "content": {
        "application/jsonl": {"itemSchema": ITEM},
        "application/json": {"schema": {"type": "array", "items": ITEM}}}}}}},
        lambda request, reply: iter(()))
    app.get("/events", {"schema": {"response": {200: {"content": {"text/event-stream": {"itemSchema": ITEM}}}}}},
            lambda request, reply: reply.sse([]))

    @app.get("/rows", schema={"produces": "application/x-ndjson"})
    def rows(request, reply) -> Iterator[Row]:
        yield Row(1)

    app.ready()
    document = app.openapi()
    validate(document)
    return document


def content(document: dict, path: str) -> dict:
    return document["paths"][path]["get"]["responses"]["200"]["content"]


def test_a_3_2_document_writes_item_schema():
    document = streams(openapi_version="3.2.0")
    assert document["openapi"] == "3.2.0"
    assert content(document, "/lines") == {"application/jsonl": {"itemSchema": ITEM},
                                           "application/json": {"schema": {"type": "array", "items": ITEM}}}
    assert document["paths"]["/lines"]["get"]["responses"]["200"]["description"] == "The items"
    assert content(document, "/rows") == {"application/x-ndjson": {"itemSchema": {"$ref": "#/components/schemas/Row"}}}
    assert document["components"]["schemas"]["Row"]["properties"] == {"id": {"type": "integer"}}


def test_an_event_stream_s_item_is_the_event_whose_data_has_the_route_s_schema():
    assert content(streams(openapi_version="3.2.0"), "/events") == {"text/event-stream": {"itemSchema": EVENT}}
    assert content(streams(), "/events") == {"text/event-stream": {
        "schema": {"type": "array", "items": EVENT}, "x-oai-itemSchema": EVENT}}


def test_a_3_1_document_falls_back_to_the_registered_extension_beside_an_array_schema():
    document = streams()
    assert document["openapi"] == "3.1.0"
    assert content(document, "/lines")["application/jsonl"] == {
        "schema": {"type": "array", "items": ITEM}, "x-oai-itemSchema": ITEM}
    row = {"$ref": "#/components/schemas/Row"}
    assert content(document, "/rows") == {"application/x-ndjson": {
        "schema": {"type": "array", "items": row}, "x-oai-itemSchema": row}}


def test_an_entry_with_both_a_schema_and_an_item_schema_keeps_both():
    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"}, openapi_version="3.2.0")
    app.get("/both", {"schema": {"response": {200: {"content": {"application/jsonl": {
        "schema": {"type": "array", "items": ITEM}, "itemSchema": ITEM}}}}}}, lambda request, reply: iter(()))
    app.ready()
    document = app.openapi()
    validate(document)
    assert content(document, "/both") == {"application/jsonl": {"schema": {"type": "array", "items": ITEM},
                                                                "itemSchema": ITEM}}


def test_a_3_2_document_without_streams_is_valid_too():
    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"}, openapi_version="3.2.0")
    app.post("/items", {"schema": {"body": ITEM, "response": {201: ITEM}}}, lambda request, reply: {})
    app.ready()
    validate(app.openapi())


def test_an_unknown_version_fails_at_registration():
    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"}, openapi_version="3.0.3")
    with pytest.raises(OpenAPIError, match="openapi_version must be one of 3.1.0, 3.2.0"):
        app.ready()
