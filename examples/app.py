"""The example application: encapsulation, bearer authentication, a validated CRUD API.

Run it (from the repository root)::

    gunicorn examples.app:app --bind 127.0.0.1:3000      # or: python -m examples.app

Environment:

- ``API_KEYS``: comma-separated keys accepted on ``/private`` (default ``demo-key``).
- ``EXAMPLE_WRAP_GRANDCHILD=1``: register the grandchild wrapped with ``plugin(...)``
  (``examples.app_wrapped`` is the same application with the flag set).

The context tree is the seed's scenario (2.1)::

    root                 decorate_request("root_decorator", "root")
    ├── private          bearer_auth(keys=API_KEYS)         GET /private
    ├── child            decorate_request("child_decorator", "child")   GET /child
    │   └── grandchild   decorate_request("grandchild_decorator", "grandchild")   GET /grandchild
    └── items            prefix /items: the CRUD routes, shared schemas "item-input" and "item"

Each of the three GET routes answers the three decorators as it sees them; a decorator
that is not visible in the route's context is ``UNDEFINED`` and so absent from the JSON:

=================  ==================================================  =====================================
route              body                                                with the grandchild wrapped
=================  ==================================================  =====================================
``/private``       ``{"root_decorator":"root"}`` (with a valid key)    same
``/child``         root and child                                      root, child and grandchild
``/grandchild``    all three                                           same
=================  ==================================================  =====================================

Only ``/private`` needs ``Authorization: Bearer <key>``: bearer_auth is registered in
its context, so its siblings stay public.

Items (in memory, one store per process: run a single worker):

- ``POST /items`` with ``{"name": str 1-100, "price": number >= 0, "tags": [str] <= 5}``:
  201 and the item (the body is validated without type coercion: ``"price": "1"`` or a
  ``null`` tag is a 400); undeclared input properties are dropped by the body schema
  (``additionalProperties: false``), and the store's bookkeeping (``revision``) by the
  response schema.
- ``GET /items?limit=N`` (1-100, default 20), ``GET /items/:id``, ``PUT /items/:id``
  (replace; same body as POST), ``DELETE /items/:id`` (204). ``id`` is a positive
  integer (``/items/abc`` is a 400); an unknown one is a 404 ``ITEM_NOT_FOUND``.
"""
from __future__ import annotations

import os
import threading
from typing import Any

from framework import UNDEFINED, Framework, create_error, plugin
from framework.validation import ValidatorEngine
from plugins.bearer_auth import bearer_auth
from plugins.openapi import openapi

#: The key accepted when ``API_KEYS`` is not set. For trying the example only.
DEMO_KEY = "demo-key"
DECORATORS = ("root_decorator", "child_decorator", "grandchild_decorator")

ItemNotFoundError = create_error("ITEM_NOT_FOUND", "item %s not found", 404)

ITEM_INPUT = {
    "$id": "item-input",
    "type": "object",
    "required": ["name", "price"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 100},
        "price": {"type": "number", "minimum": 0},
        "tags": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 20}, "default": []},
    },
}
ITEM = {
    "$id": "item",
    "type": "object",
    "required": ["id", "name", "price", "tags"],
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "price": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}
ITEM_ID = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 1}}}
#: The body of the framework's error replies (the 404 ``ITEM_NOT_FOUND``).
ERROR = {
    "$id": "error",
    "type": "object",
    "properties": {"statusCode": {"type": "integer"}, "code": {"type": "string"},
                   "error": {"type": "string"}, "message": {"type": "string"}},
}
NOT_FOUND = {"description": "No item has this id", "$ref": "error#"}


def api_keys_from_env(environ: Any = os.environ) -> list[str]:
    """``API_KEYS`` split on commas (blank entries ignored), or ``[DEMO_KEY]``."""
    raw = environ.get("API_KEYS")
    if raw is None:
        return [DEMO_KEY]
    return [key.strip() for key in raw.split(",") if key.strip()]


def decorator_values(request: Any, reply: Any) -> dict[str, Any]:
    """The three decorators as this route's request sees them (invisible ones: UNDEFINED)."""
    return {name: getattr(request, name, UNDEFINED) for name in DECORATORS}


class ItemStore:
    """A dict of items behind a lock (gunicorn may run a worker's requests in threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[int, dict[str, Any]] = {}
        self._next_id = 1

    def create(self, data: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            item = {"id": self._next_id, **data, "revision": 1}
            self._items[item["id"]] = item
            self._next_id += 1
            return dict(item)

    def list(self, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(item) for item in list(self._items.values())[:limit]]

    def get(self, item_id: int) -> dict[str, Any]:
        with self._lock:
            if item_id not in self._items:
                raise ItemNotFoundError(item_id)
            return dict(self._items[item_id])

    def replace(self, item_id: int, data: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if item_id not in self._items:
                raise ItemNotFoundError(item_id)
            revision = self._items[item_id]["revision"] + 1
            item = self._items[item_id] = {"id": item_id, **data, "revision": revision}
            return dict(item)

    def delete(self, item_id: int) -> None:
        with self._lock:
            if self._items.pop(item_id, None) is None:
                raise ItemNotFoundError(item_id)


def items_plugin(instance: Any, opts: dict[str, Any]) -> None:
    """The CRUD routes; register with ``prefix="/items"``."""
    store = ItemStore()
    instance.add_schema(ITEM_INPUT)
    instance.add_schema(ITEM)
    instance.add_schema(ERROR)
    # A JSON body is typed already: it is validated without coercion (a null tag is a 400,
    # not ""), while the querystring and path parameters, which arrive as text, are coerced.
    strict, coercing = ValidatorEngine({"coerce_types": False}), ValidatorEngine()

    def compile_validator(schema: Any, method: str, url: str, http_part: str) -> Any:
        engine = strict if http_part == "body" else coercing
        return engine.compile(schema, shared=instance.get_schemas(), http_part=http_part)

    instance.set_validator_compiler(compile_validator)

    @instance.get("/", schema={
        "summary": "List the items", "tags": ["items"], "operation_id": "listItems",
        "querystring": {"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20,
                                  "description": "How many items at most"}},
        "response": {200: {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "item#"}}}}},
    })
    def list_items(request: Any, reply: Any) -> Any:
        return {"items": store.list(request.query["limit"])}

    @instance.post("/", schema={"summary": "Create an item", "tags": ["items"], "operation_id": "createItem",
                                "body": {"$ref": "item-input#"}, "response": {201: {"$ref": "item#"}}})
    def create_item(request: Any, reply: Any) -> Any:
        return reply.code(201).send(store.create(request.body))

    @instance.get("/:id", schema={"summary": "Read an item", "tags": ["items"], "operation_id": "getItem",
                                  "params": ITEM_ID, "response": {200: {"$ref": "item#"}, 404: NOT_FOUND}})
    def get_item(request: Any, reply: Any) -> Any:
        return store.get(request.params["id"])

    @instance.put("/:id", schema={"summary": "Replace an item", "tags": ["items"], "operation_id": "replaceItem",
                                  "params": ITEM_ID, "body": {"$ref": "item-input#"},
                                  "response": {200: {"$ref": "item#"}, 404: NOT_FOUND}})
    def replace_item(request: Any, reply: Any) -> Any:
        return store.replace(request.params["id"], request.body)

    @instance.delete("/:id", schema={"summary": "Delete an item", "tags": ["items"], "operation_id": "deleteItem",
                                     "params": ITEM_ID,
                                     "response": {204: {"description": "Deleted", "type": "null"}, 404: NOT_FOUND}})
    def delete_item(request: Any, reply: Any) -> Any:
        store.delete(request.params["id"])
        return reply.code(204).send()


def create_app(*, api_keys: list[str] | None = None, wrap_grandchild: bool = False) -> Framework:
    """Build the example application (``api_keys`` default: :func:`api_keys_from_env`)."""
    # A known path asked with a method it does not declare answers 405 with Allow (API clients
    # and schemathesis expect it), not Fastify's default 404.
    app = Framework(method_not_allowed=True)
    app.decorate_request("root_decorator", "root")
    # GET /documentation (Swagger UI) and /documentation/json: every route of the application.
    app.register(openapi, info={"title": "framework example", "version": "1.0.0",
                                "description": "Encapsulation, bearer authentication and a validated CRUD API."},
                 tags=[{"name": "items", "description": "The in-memory item store"}])

    def private(instance: Any, opts: dict[str, Any]) -> None:
        instance.register(bearer_auth, keys=opts["keys"])
        instance.get("/private", decorator_values)

    def grandchild(instance: Any, opts: dict[str, Any]) -> None:
        instance.decorate_request("grandchild_decorator", "grandchild")
        instance.get("/grandchild", decorator_values)

    def child(instance: Any, opts: dict[str, Any]) -> None:
        instance.decorate_request("child_decorator", "child")
        instance.get("/child", decorator_values)
        instance.register(plugin(grandchild, name="grandchild") if wrap_grandchild else grandchild)

    app.register(private, keys=api_keys if api_keys is not None else api_keys_from_env())
    app.register(child)
    app.register(items_plugin, prefix="/items")
    return app


app = create_app(wrap_grandchild=os.environ.get("EXAMPLE_WRAP_GRANDCHILD") == "1")
app.ready()  # fail at import (gunicorn boot), not on the first request

if __name__ == "__main__":
    app.listen(port=int(os.environ.get("PORT", "3000")))
