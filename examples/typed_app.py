"""The items API with typed handlers: Python types instead of JSON Schemas.

The body, query and params types below become the routes' schemas (validated and
coerced as any schema), and the return types their response schemas; ``mypy --strict``
and ``pyright --strict`` check every handler against them (tests/test_typing.py).

    pip install -e . annotated-types
    gunicorn -b 127.0.0.1:3000 examples.typed_app:app
"""
from __future__ import annotations

import dataclasses
import itertools
import threading
from typing import Annotated, Literal, TypedDict

from annotated_types import Ge, Le, MaxLen, MinLen
from typing_extensions import NotRequired

from framework import Framework, Reply, Request, create_error
from framework.request import BodyT, HeadersT, ParamsT, QueryT

Size = Literal["S", "M", "L"]


class ItemIn(TypedDict):
    """A new item."""

    name: Annotated[str, MinLen(1), MaxLen(100)]
    size: Size
    tags: NotRequired[list[Annotated[str, MaxLen(30)]]]


class ListQuery(TypedDict, total=False):
    limit: Annotated[int, Ge(1), Le(100)]
    size: Size


class ItemParams(TypedDict):
    id: Annotated[int, Ge(1)]


@dataclasses.dataclass(frozen=True)
class ItemOut:
    """An item as stored."""

    id: int
    name: str
    size: Size
    tags: list[str]
    owner: str


@dataclasses.dataclass(frozen=True)
class User:
    name: str


class AppRequest(Request[BodyT, QueryT, ParamsT, HeadersT]):
    """This application's requests: ``user`` is the request decorator ``identify`` sets."""

    user: User


ItemNotFound = create_error("ITEM_NOT_FOUND", "Item %s not found", 404)

app = Framework()
app.decorate_request("user", None)

_items: dict[int, ItemOut] = {}
_ids = itertools.count(1)
_lock = threading.Lock()


def identify(request: AppRequest, reply: Reply) -> None:
    """Every request has a user: the ``x-user`` header's, or ``anonymous``."""
    request.user = User(request.environ.get("HTTP_X_USER") or "anonymous")


app.add_hook("on_request", identify)


@app.post("/items", schema={"response": {201: ItemOut}})
def create_item(request: AppRequest[ItemIn], reply: Reply) -> ItemOut:
    body = request.body
    with _lock:
        item = ItemOut(id=next(_ids), name=body["name"], size=body["size"], tags=body.get("tags", []),
                       owner=request.user.name)
        _items[item.id] = item
    reply.code(201)
    return item


@app.get("/items")
def list_items(request: AppRequest[None, ListQuery], reply: Reply) -> list[ItemOut]:
    query = request.query
    items = [item for item in _items.values() if item.size == query.get("size", item.size)]
    return items[:query.get("limit", 20)]


@app.get("/items/:id")
def get_item(request: AppRequest[None, None, ItemParams], reply: Reply) -> ItemOut:
    item = _items.get(request.params["id"])
    if item is None:
        raise ItemNotFound(request.params["id"])
    return item
