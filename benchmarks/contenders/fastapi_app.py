"""FastAPI (ASGI, under uvicorn): pydantic models for the body and the
responses (``response_model`` drops ``secret``), async endpoints, and a
``RequestValidationError`` handler answering 400 instead of FastAPI's 422."""


import itertools

NAME = "fastapi"
LABEL = "FastAPI"
KIND = "asgi"
REQUIRES = ("fastapi", "pydantic", "uvicorn")
DIST = "fastapi"


def create_app():
    from typing import Annotated, Literal

    from fastapi import FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from pydantic import BaseModel, ConfigDict, Field

    from benchmarks import scenarios as sc

    ids = itertools.count(1)

    class Dimensions(BaseModel):
        model_config = ConfigDict(extra="forbid")
        width: int = Field(ge=0)
        height: int = Field(ge=0)
        depth: int = Field(ge=0)

    class Item(BaseModel):
        model_config = ConfigDict(extra="forbid")
        name: str = Field(max_length=100)
        sku: str = Field(max_length=32)
        description: str | None = Field(default=None, max_length=1000)
        category: Literal["tools", "garden", "kitchen", "toys"]
        color: str | None = Field(default=None, max_length=20)
        price: int = Field(ge=0)
        quantity: int = Field(ge=0)
        weight: int | None = Field(default=None, ge=1)
        tags: list[Annotated[str, Field(max_length=20)]] = Field(max_length=5)
        dimensions: Dimensions

    class CreatedItem(Item):
        id: int

    class Row(BaseModel):
        id: int
        name: str
        email: str
        role: str
        team: str
        score: int
        active: bool
        created: str

    app = FastAPI()

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError):
        return JSONResponse({"detail": jsonable(exc.errors())}, status_code=400)

    def jsonable(errors):
        from fastapi.encoders import jsonable_encoder

        return jsonable_encoder(errors)

    @app.get("/hello")
    async def hello():
        return {"hello": "world"}

    @app.get("/users/{user_id}")
    async def user(user_id: int, fields: Annotated[list[str], Query()] = []):  # noqa: B006
        return {"id": user_id, "fields": fields}

    @app.post("/items", status_code=201, response_model=CreatedItem,
              response_model_exclude_unset=True)
    async def create_item(item: Item):
        return CreatedItem(id=next(ids), **item.model_dump(exclude_unset=True))

    @app.get("/report", response_model=list[Row])
    async def report():
        return sc.ROWS

    return app
