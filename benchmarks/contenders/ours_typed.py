"""Ours with Python types instead of JSON Schemas: the ``ours`` app with S2's params and
query, S3's body and 201 answer, and S4's rows declared as ``TypedDict``s (through
``framework.schemas.typeschema``). The derived schemas equal ``ours``' hand-written ones, so any
difference in speed is the cost of typing a route (none is expected: the types become
schemas at declaration). ``ours_dataclass`` is the same with S3's body and answer as
dataclasses, which the framework builds and serializes per request."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Annotated, Any, Literal, TypedDict

from typing_extensions import NotRequired, Required

from benchmarks import scenarios as sc
from framework import Framework, Reply, Request
from framework.schemas.typeschema import Keywords

NAME = "ours_typed"
LABEL = "framework (ours), TypedDict routes"
KIND = "wsgi"
REQUIRES = ("framework",)
DIST = "framework"

Category = Literal["tools", "garden", "kitchen", "toys"]
Count = Annotated[int, Keywords(minimum=0)]


def _max(length: int) -> Keywords:
    return Keywords(maxLength=length)


class Dimensions(TypedDict):
    width: Count
    height: Count
    depth: Count


class ItemBody(TypedDict):
    name: Annotated[str, _max(100)]
    sku: Annotated[str, _max(32)]
    description: NotRequired[Annotated[str, _max(1000)]]
    category: Category
    color: NotRequired[Annotated[str, _max(20)]]
    price: Count
    quantity: Count
    weight: NotRequired[Annotated[int, Keywords(minimum=1)]]
    tags: Annotated[list[Annotated[str, _max(20)]], Keywords(maxItems=5)]
    dimensions: Annotated[Dimensions, Keywords(additionalProperties=False)]


#: ITEM_SCHEMA: additional properties refused, as the hand-written schema does.
ItemIn = Annotated[ItemBody, Keywords(additionalProperties=False)]


class ItemOut(TypedDict, total=False):
    # ITEM_RESPONSE_SCHEMA: the id, then the item's properties, none of them required.
    id: Required[int]
    name: Annotated[str, _max(100)]
    sku: Annotated[str, _max(32)]
    description: Annotated[str, _max(1000)]
    category: Category
    color: Annotated[str, _max(20)]
    price: Count
    quantity: Count
    weight: Annotated[int, Keywords(minimum=1)]
    tags: Annotated[list[Annotated[str, _max(20)]], Keywords(maxItems=5)]
    dimensions: Annotated[Dimensions, Keywords(additionalProperties=False)]


class UserParams(TypedDict):
    id: int


class UserQuery(TypedDict, total=False):
    fields: list[str]


class Row(TypedDict, total=False):
    id: int
    name: str
    email: str
    role: str
    team: str
    score: int
    active: bool
    created: str


@dataclasses.dataclass
class DimensionsData:
    width: Count
    height: Count
    depth: Count


@dataclasses.dataclass
class ItemData:
    name: Annotated[str, _max(100)]
    sku: Annotated[str, _max(32)]
    category: Category
    price: Count
    quantity: Count
    tags: Annotated[list[Annotated[str, _max(20)]], Keywords(maxItems=5)]
    dimensions: Annotated[DimensionsData, Keywords(additionalProperties=False)]
    description: Annotated[str, _max(1000)] | None = None
    color: Annotated[str, _max(20)] | None = None
    weight: Annotated[int, Keywords(minimum=1)] | None = None


@dataclasses.dataclass
class ItemDataOut(ItemData):
    id: int = 0


def create_app(variant: str = "typeddict") -> Any:
    ids = itertools.count(1)
    app = Framework()

    @app.get("/hello")
    def hello(request: Request, reply: Reply) -> dict[str, Any]:  # shapeless: no serializer, as ours
        return {"hello": "world"}

    @app.get("/users/:id")
    def user(request: Request[None, UserQuery, UserParams], reply: Reply) -> dict[str, Any]:
        return {"id": request.params["id"], "fields": request.query.get("fields", [])}

    if variant == "dataclass":
        @app.post("/items", schema={"response": {201: ItemDataOut}})
        def create_data(request: Request[Annotated[ItemData, Keywords(additionalProperties=False)]],
                        reply: Reply) -> ItemDataOut:
            reply.code(201)
            return ItemDataOut(**vars(request.body), id=next(ids))
    else:
        @app.post("/items", schema={"response": {201: ItemOut}})
        def create_item(request: Request[ItemIn], reply: Reply) -> ItemOut:
            reply.code(201)
            item: ItemOut = {"id": next(ids), **request.body}  # type: ignore[typeddict-item]
            return item

    @app.get("/report")
    def report(request: Request, reply: Reply) -> list[Row]:
        return sc.ROWS  # type: ignore[return-value]  # the rows carry a secret the schema drops

    app.ready()
    return app
