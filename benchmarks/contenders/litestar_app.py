"""Litestar (ASGI, under uvicorn): msgspec structs for the body and the
responses (a struct has no ``secret`` field, so converting the rows drops it),
async handlers; Litestar answers an invalid body with 400 by default."""


import itertools

NAME = "litestar"
LABEL = "Litestar"
KIND = "asgi"
REQUIRES = ("litestar", "msgspec", "uvicorn")
DIST = "litestar"


def create_app():
    from typing import Annotated, Literal

    import msgspec
    from litestar import Litestar, get, post
    from msgspec import Meta, Struct

    from benchmarks import scenarios as sc

    ids = itertools.count(1)
    Natural = Annotated[int, Meta(ge=0)]

    class Dimensions(Struct, forbid_unknown_fields=True):
        width: Natural
        height: Natural
        depth: Natural

    class Item(Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
        name: Annotated[str, Meta(max_length=100)]
        sku: Annotated[str, Meta(max_length=32)]
        category: Literal["tools", "garden", "kitchen", "toys"]
        price: Natural
        quantity: Natural
        tags: Annotated[list[Annotated[str, Meta(max_length=20)]], Meta(max_length=5)]
        dimensions: Dimensions
        description: Annotated[str, Meta(max_length=1000)] | None = None
        color: Annotated[str, Meta(max_length=20)] | None = None
        weight: Annotated[int, Meta(ge=1)] | None = None

    class CreatedItem(Item, kw_only=True):
        id: int

    class Row(Struct):
        id: int
        name: str
        email: str
        role: str
        team: str
        score: int
        active: bool
        created: str

    @get("/hello")
    async def hello() -> dict[str, str]:
        return {"hello": "world"}

    @get("/users/{user_id:int}")
    async def user(user_id: int, fields: list[str] | None = None) -> dict:
        return {"id": user_id, "fields": fields or []}

    @post("/items")
    async def create_item(data: Item) -> CreatedItem:
        return CreatedItem(id=next(ids), **msgspec.structs.asdict(data))

    @get("/report")
    async def report() -> list[Row]:
        return msgspec.convert(sc.ROWS, list[Row])

    return Litestar(route_handlers=[hello, user, create_item, report])
