"""Schemas are application code: the framework reads the dicts a caller gives it (route
schemas, every input part and response, shared schemas) and never writes into them, with
every plugin that touches schemas in play, after ready() and after requests that build
what is built lazily. A second app given the very same dict objects sees them unchanged
too, and the first app keeps answering as before (nothing compiled aliases them)."""
from __future__ import annotations

import copy
import dataclasses
from typing import Any

from framework import Framework, Reply, Request
from framework.plugins.error_messages import error_messages
from framework.plugins.i18n import localize
from framework.plugins.merge_patch import merge_patch
from framework.plugins.multipart import multipart
from framework.plugins.openapi import openapi


@dataclasses.dataclass
class NewItem:
    name: str
    price: float = 0.0


@dataclasses.dataclass
class Paging:
    page: int = 1


@dataclasses.dataclass
class ItemOut:
    id: int
    name: str


def caller_schemas() -> dict[str, Any]:
    """Every dict a caller hands the framework, by the name the test uses for it."""
    return {
        "item": {"$id": "item", "type": "object", "required": ["name"], "additionalProperties": False,
                 "properties": {"name": {"type": "string", "minLength": 1}, "price": {"type": "number"}}},
        "address": {"$id": "address", "type": "object", "definitions": {"zip": {"type": "string", "pattern": "^[0-9]+$"}},
                    "properties": {"zip": {"$ref": "#/definitions/zip"}}},
        "full": {
            "summary": "Every input part", "tags": ["items"],
            "body": {"type": "object", "required": ["name"], "additionalProperties": False,
                     "properties": {"name": {"type": "string", "maxLength": 5,
                                             "errorMessage": "name: at most five characters"},
                                    "address": {"$ref": "address#"}, "count": {"type": "integer"},
                                    "kind": {"type": "string", "default": "plain"}}},
            "querystring": {"type": "object", "properties": {"limit": {"type": "integer", "maximum": 10},
                                                             "flag": {"type": "boolean"}}},
            "params": {"type": "object", "properties": {"id": {"type": "integer"}}},
            "headers": {"type": "object", "required": ["X-Token"],
                        "properties": {"X-Token": {"type": "string"}, "X-Count": {"type": "integer"}}},
            "response": {201: {"$ref": "item#"}, "2xx": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                         "4xx": {"type": "object", "properties": {"errors": {"type": "array"}}},
                         "default": {"type": "object", "properties": {"error": {"type": "string"}}}},
        },
        "alias": {"query": {"type": "object", "properties": {"q": {"type": "string", "minLength": 2}},
                            "required": ["q"]},
                  "response": {200: {"allOf": [{"type": "object", "properties": {"q": {"type": "string"}}},
                                               {"properties": {"q": {"maxLength": 9}, "n": {"type": "integer"}}}]}}},
        "content": {
            "body": {"content": {"application/json": {"schema": {"type": "object", "required": ["name"],
                                                                 "properties": {"name": {"type": "string"}}}},
                                 "text/plain": {"schema": {"type": "string", "maxLength": 3}}}},
            "response": {200: {"description": "v1 or v2", "content": {
                "application/json": {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}},
                "application/vnd.v2+json": {"schema": {"type": "object", "properties": {"id": {"type": "integer"}}}}}}},
        },
        "typed": {"querystring": Paging, "response": {201: {"description": "Created"}}},
        "attached": {"body": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        "merged": {"body": {"$merge": {"source": {"$ref": "item#"},
                                       "with": {"properties": {"color": {"type": "string"}}}}}},
        "patched": {"body": {"$patch": {"source": {"$ref": "item#"},
                                        "with": [{"op": "remove", "path": "/required"}]}},
                    "description": "the item, nothing required"},
        "upload": {"body": {"content": {"multipart/form-data": {"schema": {
            "type": "object", "required": ["title", "document"],
            "properties": {"title": {"type": "string"}, "document": {"type": "string", "format": "binary"},
                           "pages": {"type": "array", "items": {"type": "string", "format": "binary"}}}}}}}},
        "messages": {"body": {"type": "object", "required": ["age"],
                              "properties": {"age": {"type": "integer", "minimum": 0}},
                              "errorMessage": {"required": {"age": "age is required (${0/age})"},
                                               "properties": {"age": "age: a whole number, at least 0"}}}},
    }


def build_app(schemas: dict[str, Any]) -> Framework:
    app = Framework(validator={"custom_options": {"all_errors": True}, "plugins": [error_messages, merge_patch]})
    app.register(openapi, info={"title": "Schemas", "version": "1.0.0"})
    app.register(multipart)
    app.add_schema(schemas["item"])
    app.add_schema(schemas["address"])

    @app.post("/items/:id", schema=schemas["full"])
    def full(request: Any, reply: Any) -> Any:
        if request.query.get("flag"):
            return reply.code(201).send({"name": request.body["name"], "extra": 1})
        return {"ok": True, "secret": 1}

    @app.get("/search", schema=schemas["alias"])
    def search(request: Any, reply: Any) -> Any:
        return {"q": request.query["q"]}

    @app.post("/content", schema=schemas["content"])
    def content(request: Any, reply: Any) -> Any:
        if request.query.get("v") == "2":
            reply.type("application/vnd.v2+json")
        return {"name": "ada", "id": 7}

    @app.post("/typed", schema=schemas["typed"])
    def typed(request: Request[NewItem], reply: Reply) -> ItemOut:
        reply.code(201)
        return ItemOut(id=request.query.page, name=request.body.name)

    @app.post("/attached", schema=schemas["attached"], attach_validation=True)
    def attached(request: Any, reply: Any) -> Any:
        return {"failed": request.validation_error is not None}

    @app.post("/merged", schema=schemas["merged"])
    def merged(request: Any, reply: Any) -> Any:
        return request.body

    @app.patch("/patched", schema=schemas["patched"])
    def patched(request: Any, reply: Any) -> Any:
        return request.body

    @app.post("/upload", schema=schemas["upload"])
    def upload(request: Any, reply: Any) -> Any:
        return {"title": request.body["title"], "name": request.body["document"].filename}

    @app.post("/messages", schema=schemas["messages"])
    def messages(request: Any, reply: Any) -> Any:
        return request.body

    def handle_error(error: Any, request: Any, reply: Any) -> Any:
        if getattr(error, "validation", None):
            return reply.code(400).send({"errors": localize(error.validation, "de")})
        return reply.send(error)

    app.set_error_handler(handle_error)
    app.ready()
    return app


def exercise(app: Framework) -> list[tuple[int, Any]]:
    """Valid and invalid requests on every route (what is built lazily gets built)."""
    token = {"X-Token": "t", "X-Count": "3"}
    multipart_body = (b"--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nT\r\n"
                      b"--b\r\nContent-Disposition: form-data; name=\"document\"; filename=\"a.txt\"\r\n"
                      b"Content-Type: text/plain\r\n\r\nhello\r\n--b--\r\n")
    requests: list[dict[str, Any]] = [
        {"method": "POST", "url": "/items/1?limit=3", "json": {"name": "ada", "address": {"zip": "123"}},
         "headers": token},
        {"method": "POST", "url": "/items/1?flag=true", "json": {"name": "ada"}, "headers": token},
        {"method": "POST", "url": "/items/x?limit=99", "json": {"name": "far too long", "address": {"zip": "a"}},
         "headers": {}},
        {"method": "GET", "url": "/search?q=ab"},
        {"method": "GET", "url": "/search?q=a"},
        {"method": "POST", "url": "/content", "json": {"name": "n"}},
        {"method": "POST", "url": "/content?v=2", "json": {}},
        {"method": "POST", "url": "/content", "body": "abcd", "headers": {"Content-Type": "text/plain"}},
        {"method": "POST", "url": "/typed?page=2", "json": {"name": "n", "price": 2}},
        {"method": "POST", "url": "/typed?page=x", "json": {"price": "x"}},
        {"method": "POST", "url": "/attached", "json": {"n": 1}},
        {"method": "POST", "url": "/attached", "json": {"n": "x"}},
        {"method": "POST", "url": "/merged", "json": {"name": "n", "color": "red"}},
        {"method": "POST", "url": "/merged", "json": {"color": 1}},
        {"method": "PATCH", "url": "/patched", "json": {"price": 1}},
        {"method": "PATCH", "url": "/patched", "json": {"price": "x"}},
        {"method": "POST", "url": "/upload", "body": multipart_body,
         "headers": {"Content-Type": "multipart/form-data; boundary=b"}},
        {"method": "POST", "url": "/upload", "body": multipart_body.replace(b'name="title"', b'name="other"'),
         "headers": {"Content-Type": "multipart/form-data; boundary=b"}},
        {"method": "POST", "url": "/messages", "json": {"age": 3}},
        {"method": "POST", "url": "/messages", "json": {"age": -1}},
        {"method": "POST", "url": "/messages", "json": {}},
    ]
    answers = []
    for request in requests:
        response = app.inject(**request)
        answers.append((response.status_code, response.json()))
    return answers


def containers(value: Any, found: set[int]) -> set[int]:
    """The ids of every dict and list in ``value``."""
    if isinstance(value, (dict, list)):
        found.add(id(value))
        for item in value.values() if isinstance(value, dict) else value:
            containers(item, found)
    return found


def changed(schemas: dict[str, Any], originals: dict[str, Any]) -> list[str]:
    return [name for name in originals if schemas[name] != originals[name]]


def test_the_callers_schema_dicts_are_never_modified() -> None:
    schemas = caller_schemas()
    originals = copy.deepcopy(schemas)

    first = build_app(schemas)
    answers = exercise(first)
    document = first.openapi()  # type: ignore[attr-defined]
    assert {status for status, _ in answers} == {200, 201, 400}
    assert "/items/{id}" in document["paths"]
    assert changed(schemas, originals) == []
    # Editing the document an application got cannot reach its route schemas.
    assert containers(document, set()) & containers(schemas, set()) == set()

    # The same dict objects in a second app: still unchanged, and the first app, compiled
    # from them, answers as it did.
    second = build_app(schemas)
    assert exercise(second) == answers
    assert second.openapi() == document  # type: ignore[attr-defined]
    assert exercise(first) == answers
    assert changed(schemas, originals) == []
