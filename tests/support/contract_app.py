"""A small application for ``python -m framework contract`` tests, in versions.

``CONTRACT_APP_VERSION`` (read at import) picks the version:

``1``
    ``GET /items`` (``limit`` 1-100), ``POST /items`` (``name`` required, maxLength 100),
    ``GET /items/:id`` answering a shared ``item`` schema by ``$ref``, and ``GET /private``
    guarded by bearer_auth; the OpenAPI plugin is registered (auth is read from it).
``2`` (breaking)
    ``POST /items`` also requires ``price``; the shared ``item`` loses ``name``.
``3`` (compatible)
    ``GET /items`` gains an optional ``sort``; the shared ``item`` gains an optional ``tags``.
"""
from __future__ import annotations

import os
from typing import Any

from framework import Framework
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.openapi import openapi

VERSION = os.environ.get("CONTRACT_APP_VERSION", "1")


def create_app(version: str = VERSION) -> Framework:
    app = Framework()
    app.register(openapi, route_prefix=None)
    item: dict[str, Any] = {"$id": "item", "type": "object", "required": ["id", "name"],
                            "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    create: dict[str, Any] = {"type": "object", "required": ["name"],
                              "properties": {"name": {"type": "string", "maxLength": 100},
                                             "price": {"type": "number", "minimum": 0}}}
    query: dict[str, Any] = {"limit": {"type": "integer", "minimum": 1, "maximum": 100}}
    if version == "2":
        create["required"] = ["name", "price"]
        del item["properties"]["name"]
        item["required"] = ["id"]
    elif version == "3":
        query["sort"] = {"type": "string", "enum": ["asc", "desc"]}
        item["properties"]["tags"] = {"type": "array", "items": {"type": "string"}}
    app.add_schema(item)
    app.get("/items", {"schema": {"querystring": query, "response": {200: {"type": "array", "items": {"$ref": "item#"}}}}},
            lambda request, reply: [])
    app.post("/items", {"schema": {"body": create, "response": {201: {"$ref": "item#"}}}},
             lambda request, reply: reply.code(201).send({"id": 1, **request.body}))
    app.get("/items/:id", {"schema": {"params": {"id": {"type": "integer"}}, "response": {200: {"$ref": "item#"}}}},
            lambda request, reply: {"id": request.params["id"], "name": "x"})

    def private(instance: Any, opts: dict[str, Any]) -> None:
        instance.register(bearer_auth, keys={"secret"})
        instance.get("/private", lambda request, reply: {"ok": True})

    app.register(private)
    return app


app = create_app()
