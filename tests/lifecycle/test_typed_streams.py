"""Typed streams: a response ``content`` entry with an ``itemSchema`` (JSON Lines, NDJSON,
JSON text sequences, server-sent events) writes each streamed item through the item
schema's compiled serializer; typed handlers declare it with ``-> Iterator[Item]``."""
from __future__ import annotations

import dataclasses
import logging
from typing import Generator, Iterator

import pytest

from framework import Framework
from framework.errors import SchemaSerializationBuildError

ITEM = {"type": "object", "required": ["id"],
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}


def jsonl(item_schema=ITEM, media_type="application/jsonl", status=200) -> dict:
    return {"schema": {"response": {status: {"content": {media_type: {"itemSchema": item_schema}}}}}}


@dataclasses.dataclass
class Item:
    id: int
    name: str


def test_each_item_is_one_line_through_the_item_schema():
    app = Framework()
    app.get("/items", jsonl(), lambda request, reply: (
        {"id": n, "name": f"n{n}", "password": "hunter2"} for n in range(3)))
    response = app.inject(url="/items")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/jsonl"
    assert "content-length" not in response.headers
    # Undeclared properties are left out, as in any response schema.
    assert response.text == '{"id":0,"name":"n0"}\n{"id":1,"name":"n1"}\n{"id":2,"name":"n2"}\n'


def test_values_are_coerced_as_the_item_schema_says():
    app = Framework()
    app.get("/items", jsonl(), lambda request, reply: iter([{"id": "7", "name": 8}]))
    assert app.inject(url="/items").text == '{"id":7,"name":"8"}\n'


def test_an_empty_stream_is_an_empty_body():
    app = Framework()
    app.get("/items", jsonl(), lambda request, reply: iter(()))
    response = app.inject(url="/items")
    assert (response.status_code, response.text, response.headers["content-type"]) == (200, "", "application/jsonl")


def test_the_reply_s_media_type_chooses_among_the_declared_ones():
    app = Framework()
    schema = {"schema": {"response": {200: {"content": {
        "application/jsonl": {"itemSchema": ITEM},
        "application/x-ndjson": {"itemSchema": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "application/json-seq": {"itemSchema": ITEM}}}}}}

    def handler(request, reply):
        media_type = request.query.get("as")
        if media_type:
            reply.type(media_type)
        return iter([{"id": 1, "name": "a"}])

    app.get("/items", schema, handler)
    assert app.inject(url="/items").text == '{"id":1,"name":"a"}\n'  # the first declared
    ndjson = app.inject(url="/items", query={"as": "application/x-ndjson; charset=utf-8"})
    assert (ndjson.headers["content-type"], ndjson.text) == ("application/x-ndjson; charset=utf-8", '{"id":"1"}\n')
    # RFC 7464: each JSON text is preceded by RS and followed by a line feed.
    assert app.inject(url="/items", query={"as": "application/json-seq"}).text == '\x1e{"id":1,"name":"a"}\n'


def test_a_media_type_without_an_item_schema_streams_as_before():
    app = Framework()

    def handler(request, reply):
        reply.type("text/plain")
        return iter(["raw ", "text"])

    app.get("/items", jsonl(), handler)
    assert app.inject(url="/items").text == "raw text"


def test_status_class_and_default_entries_apply_and_an_error_never_uses_default():
    app = Framework()
    app.get("/created", jsonl(status="2xx"), lambda request, reply: reply.code(201).send(iter([{"id": 1, "x": 2}])))
    app.get("/default", jsonl(status="default"), lambda request, reply: reply.code(202).send(iter([{"id": 1, "x": 2}])))
    app.get("/teapot", jsonl(status="default"), lambda request, reply: reply.code(418).send(iter([{"id": 1, "x": 2}])))
    assert app.inject(url="/created").text == '{"id":1}\n'
    assert app.inject(url="/default").text == '{"id":1}\n'
    assert app.inject(url="/teapot").text == '{"id":1}\n'  # a 418 sent is not an error payload: default applies...
    app2 = Framework()

    def failing(request, reply):
        raise RuntimeError("boom")

    app2.get("/fails", jsonl(status="default"), failing)
    app2.set_error_handler(lambda error, request, reply: reply.code(500).send(iter(["not items"])))
    assert app2.inject(url="/fails").text == "not items"  # ...but an error's answer never takes default


def test_str_and_bytes_items_are_data_not_pre_encoded_lines(caplog):
    app = Framework()
    app.get("/strings", jsonl({"type": "string"}), lambda request, reply: iter(["a", 'say "hi"']))
    app.get("/bytes", jsonl(), lambda request, reply: iter([b'{"id": 1}\n']))
    assert app.inject(url="/strings").text == '"a"\n"say \\"hi\\""\n'
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/bytes")
    assert response.status_code == 500
    assert response.json() == {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}


def test_an_item_refused_before_the_first_line_is_a_500_through_the_error_handlers(caplog):
    app = Framework()
    closed = []
    seen = []

    def items(request, reply):
        try:
            yield {"name": "no id"}
        finally:
            closed.append(True)

    def on_error(error, request, reply):
        seen.append(type(error).__name__)
        return reply.code(500).send({"message": "could not list the items"})

    app.get("/items", jsonl(), items)
    app.set_error_handler(on_error)
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/items")
    assert response.status_code == 500
    assert response.json() == {"message": "could not list the items"}
    assert response.headers["content-type"].startswith("application/json")
    assert seen == ["ReplySerializationError"] and closed == [True]


@pytest.mark.parametrize("status", [200, 404])
def test_the_fixed_500_names_the_item_only_in_the_log(caplog, status):
    app = Framework()
    app.get("/items", jsonl(status="default"),
            lambda request, reply: reply.code(status).send(iter([{"id": {"not": "an integer"}}])))
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/items")
    assert response.json() == {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert f"cannot serialize the reply of GET /items (status {status}): item 0 at /id" in logged


def test_an_item_refused_after_the_status_went_out_is_logged_and_cuts_the_stream(caplog):
    app = Framework()
    closed = []

    def items(request, reply):
        try:
            yield {"id": 1}
            yield {"id": 2}
            yield {"name": "no id"}
            yield {"id": 4}
        finally:
            closed.append(True)

    app.get("/items", jsonl(), items)
    with caplog.at_level(logging.ERROR, logger="framework"), \
            pytest.raises(TypeError, match="item 2 at its top level"):  # raised to the server
        app.inject(url="/items")
    assert closed == [True]
    messages = [record.getMessage() for record in caplog.records]
    assert any("after its status was sent" in message and "item 2" in message for message in messages)


def test_on_send_hooks_see_the_serialized_lines():
    app = Framework()
    seen = []

    def on_send(request, reply, payload):
        def lines():
            for line in payload:
                seen.append(line)
                yield line
        return lines()

    app.add_hook("on_send", on_send)
    app.get("/items", jsonl(), lambda request, reply: iter([{"id": 1, "x": 0}]))
    assert app.inject(url="/items").text == '{"id":1}\n'
    assert seen == [b'{"id":1}\n']


def test_head_sends_no_body_and_closes_the_items_unread():
    app = Framework()
    pulled = []

    def items(request, reply):
        pulled.append(True)
        yield {"id": 1}

    app.get("/items", jsonl(), items)
    response = app.inject(method="HEAD", url="/items")
    assert (response.status_code, response.text, response.headers["content-type"]) == (200, "", "application/jsonl")
    assert pulled == []


def test_a_json_body_of_the_same_route_keeps_its_own_schema():
    app = Framework()
    schema = {"schema": {"response": {200: {"content": {
        "application/json": {"schema": {"type": "object", "properties": {"total": {"type": "integer"}}}},
        "application/jsonl": {"itemSchema": ITEM}}}}}}

    def handler(request, reply):
        if request.query.get("stream"):
            return iter([{"id": 1, "total": 3}])
        return {"total": 3, "id": 1}

    app.get("/items", schema, handler)
    assert app.inject(url="/items").json() == {"total": 3}
    streamed = app.inject(url="/items", query={"stream": "1"})
    assert (streamed.headers["content-type"], streamed.text) == ("application/jsonl", '{"id":1}\n')


def test_routes_without_an_item_schema_build_no_item_serializers():
    app = Framework()
    app.get("/plain", lambda request, reply: iter(["a"]))
    app.get("/json", {"schema": {"response": {200: ITEM}}}, lambda request, reply: iter(["b"]))
    app.get("/typed", jsonl(), lambda request, reply: iter([{"id": 1}]))
    app.ready()
    # (The compiled routes: nothing a client sees says "decided at ready()".)
    compiled = {route.url: route.compiled for route in app.routes() if route.method == "GET"}
    assert compiled["/plain"].serializers.items is None
    assert compiled["/json"].serializers.items is None
    assert compiled["/typed"].serializers.items is not None
    assert app.inject(url="/plain").text == "a" and app.inject(url="/json").text == "b"


def test_an_item_schema_on_a_media_type_that_is_not_sequential_fails_ready():
    app = Framework()
    app.get("/items", jsonl(media_type="application/json"), lambda request, reply: iter(()))
    with pytest.raises(SchemaSerializationBuildError, match="itemSchema describes the items of a sequential media type"):
        app.ready()


def test_a_broken_item_schema_fails_ready():
    app = Framework()
    app.get("/items", jsonl({"type": "object", "properties": {"id": {"type": "integr"}}}), lambda request, reply: iter(()))
    with pytest.raises(SchemaSerializationBuildError, match="/items"):
        app.ready()


def test_hostile_property_names_stay_data():
    name = "a'\"]); import os; os._exit(1) #\n"
    app = Framework()
    app.get("/items", jsonl({"type": "object", "properties": {name: {"type": "string", "default": "x'\")"}}}),
            lambda request, reply: iter([{name: "v"}, {}]))
    assert app.inject(url="/items").text == '{"a\'\\"]); import os; os._exit(1) #\\n":"v"}\n' \
                                            '{"a\'\\"]); import os; os._exit(1) #\\n":"x\'\\")"}\n'


def test_an_application_serializer_compiler_compiles_the_item_schema_too():
    app = Framework()
    calls = []

    def compiler(schema, method, url, http_status, content_type):
        calls.append((url, http_status, content_type))
        return lambda item: f"<{item['id']}>"

    app.set_serializer_compiler(compiler)
    app.get("/items", jsonl(), lambda request, reply: iter([{"id": 1}, {"id": 2}]))
    assert app.inject(url="/items").text == "<1>\n<2>\n"
    assert set(calls) == {("/items", "200", "application/jsonl")}  # (GET and its HEAD twin)


# Typed handlers.
def test_a_generator_handler_annotated_iterator_of_a_type_streams_typed_lines():
    app = Framework()

    @app.get("/items", schema={"produces": "application/jsonl"})
    def items(request, reply) -> Iterator[Item]:
        yield Item(1, "one")
        yield Item(2, "two")

    response = app.inject(url="/items")
    assert (response.headers["content-type"], response.text) == (
        "application/jsonl", '{"id":1,"name":"one"}\n{"id":2,"name":"two"}\n')
    assert app.find_route("GET", "/items")["options"]["schema"]["response"] == {200: {"content": {
        "application/jsonl": {"itemSchema": {"type": "object", "properties": {
            "id": {"type": "integer"}, "name": {"type": "string"}}, "required": ["id", "name"]}}}}}


def test_generator_annotations_and_several_produced_media_types():
    app = Framework()

    @app.get("/items", schema={"produces": ["application/x-ndjson", "application/json-seq"]})
    def items(request, reply) -> Generator[Item, None, None]:
        yield Item(1, "one")

    assert app.inject(url="/items").text == '{"id":1,"name":"one"}\n'


def test_iterator_annotations_without_a_sequential_produces_stay_untyped():
    app = Framework()

    @app.get("/text")
    def text(request, reply) -> Iterator[str]:
        reply.type("text/plain")
        yield "a\n"

    @app.get("/json", schema={"produces": "application/json"})
    def json_items(request, reply) -> Iterator[str]:
        yield "b"

    assert app.inject(url="/text").text == "a\n"
    assert app.inject(url="/json").text == "b"
    assert "response" not in app.find_route("GET", "/text")["options"].get("schema", {})


def test_a_declared_success_schema_wins_over_the_annotation():
    app = Framework()

    @app.get("/items", schema={"produces": "application/jsonl",
                               "response": {200: {"content": {"application/jsonl": {"itemSchema": {
                                   "type": "object", "properties": {"id": {"type": "integer"}}}}}}}})
    def items(request, reply) -> Iterator[Item]:
        yield Item(1, "one")

    assert app.inject(url="/items").text == '{"id":1}\n'


def test_a_python_type_as_item_schema():
    app = Framework()
    app.get("/items", jsonl(Item), lambda request, reply: iter([Item(3, "three")]))
    assert app.inject(url="/items").text == '{"id":3,"name":"three"}\n'


# Server-sent events.
EVENTS = {"schema": {"response": {200: {"content": {"text/event-stream": {"itemSchema": ITEM}}}}}}


@pytest.mark.parametrize("heartbeat", [None, 30.0])
def test_each_event_s_data_goes_through_the_item_schema(heartbeat):
    app = Framework()
    app.get("/events", EVENTS, lambda request, reply: reply.sse(
        [{"event": "tick", "id": 1, "data": {"id": "5", "password": "x"}}, {"data": {"id": 6}}], heartbeat=heartbeat))
    response = app.inject(url="/events")
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    text = response.text.replace(": heartbeat\n\n", "")  # (a slow machine may send one)
    assert text == ': stream open\n\nevent: tick\nid: 1\ndata: {"id":5}\n\ndata: {"id":6}\n\n'


def test_a_str_event_is_data_of_the_item_schema():
    app = Framework()
    schema = {"schema": {"response": {200: {"content": {"text/event-stream": {"itemSchema": {"type": "string"}}}}}}}
    app.get("/events", schema, lambda request, reply: reply.sse(["line", {"data": "two\nlines"}], heartbeat=None))
    assert app.inject(url="/events").text == ': stream open\n\ndata: "line"\n\ndata: "two\\nlines"\n\n'


def test_an_event_its_schema_refuses_is_logged_and_cuts_the_stream(caplog):
    app = Framework()
    app.get("/events", EVENTS, lambda request, reply: reply.sse([{"data": {"id": 1}}, {"data": {}}], heartbeat=None))
    with caplog.at_level(logging.ERROR, logger="framework"), pytest.raises(TypeError, match="an event's data"):
        app.inject(url="/events")
    assert any("after its status was sent" in record.getMessage() for record in caplog.records)


def test_untyped_event_streams_are_unchanged():
    app = Framework()
    app.get("/events", jsonl(), lambda request, reply: reply.sse([{"data": {"id": "5", "x": 1}}], heartbeat=None))
    assert app.inject(url="/events").text == ': stream open\n\ndata: {"id":"5","x":1}\n\n'
