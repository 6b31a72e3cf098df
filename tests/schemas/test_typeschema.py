"""Python types as route schemas (framework.schemas.typeschema and the route's annotations).

Each type form converts to the schema one would write by hand, and a route declared
with the type answers exactly as the route declared with that hand-written schema.
"""
from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import annotated_types as at
import msgspec
import pydantic
import pytest
from typing_extensions import Doc, NotRequired, Required

from framework import Framework, Reply, Request
from framework.errors import TypeSchemaError
from framework.request import BodyT, HeadersT, ParamsT, QueryT
from framework.schemas.typeschema import Keywords, builder_of, schema_of


class Color(enum.Enum):
    """A colour."""

    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Item(TypedDict):
    """An item."""

    name: Annotated[str, at.MinLen(1), at.MaxLen(20)]
    size: Literal["S", "M"]
    tags: NotRequired[list[str]]


class Partial(TypedDict, total=False):
    name: Required[str]
    limit: Annotated[int, at.Ge(1), at.Le(100)]


class Dashed(TypedDict):
    x_key: str


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0
    label: Optional[str] = None
    note: str = dataclasses.field(default="", metadata={"description": "free text"})
    color: Color = Color.RED


@dataclasses.dataclass
class Node:
    value: int
    children: list[Node]


@dataclasses.dataclass
class Stamp:
    at: datetime.datetime
    day: datetime.date
    hour: datetime.time
    id: uuid.UUID
    price: decimal.Decimal
    level: Level
    pair: tuple[int, str]
    unique: set[str]


FORMS: list[tuple[Any, dict[str, Any]]] = [
    (str, {"type": "string"}),
    (int, {"type": "integer"}),
    (float, {"type": "number"}),
    (bool, {"type": "boolean"}),
    (None, {"type": "null"}),
    (Any, {}),
    (decimal.Decimal, {"type": "number"}),
    (datetime.datetime, {"type": "string", "format": "date-time"}),
    (datetime.date, {"type": "string", "format": "date"}),
    (datetime.time, {"type": "string", "format": "time"}),
    (uuid.UUID, {"type": "string", "format": "uuid"}),
    (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
    (Literal[1, "a"], {"type": ["integer", "string"], "enum": [1, "a"]}),
    (Color, {"type": "string", "enum": ["red", "blue"], "description": "A colour."}),
    (Level, {"type": "integer", "enum": [1, 2]}),
    (Optional[int], {"type": ["integer", "null"]}),
    (Union[int, str, None], {"type": ["integer", "string", "null"]}),
    (int | Literal["x"], {"anyOf": [{"type": "integer"}, {"type": "string", "enum": ["x"]}]}),
    (list[int], {"type": "array", "items": {"type": "integer"}}),
    (Sequence[str], {"type": "array", "items": {"type": "string"}}),
    (list, {"type": "array"}),
    (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
    (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
    (tuple[int, str], {"type": "array", "items": [{"type": "integer"}, {"type": "string"}],
                       "minItems": 2, "maxItems": 2}),
    (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
    (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
    (Mapping[str, list[int]], {"type": "object", "additionalProperties": {"type": "array",
                                                                          "items": {"type": "integer"}}}),
    (dict[str, Any], {"type": "object"}),
    (Annotated[int, at.Gt(0), at.Lt(10)], {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}),
    (Annotated[float, at.Interval(ge=0, le=1)], {"type": "number", "minimum": 0, "maximum": 1}),
    (Annotated[int, at.MultipleOf(5)], {"type": "integer", "multipleOf": 5}),
    (Annotated[str, at.Len(2, 4)], {"type": "string", "minLength": 2, "maxLength": 4}),
    (Annotated[list[int], at.MinLen(1)], {"type": "array", "items": {"type": "integer"}, "minItems": 1}),
    (Annotated[str, re.compile(r"^[a-z]+$")], {"type": "string", "pattern": "^[a-z]+$"}),
    (Annotated[str, {"format": "email"}], {"type": "string", "format": "email"}),
    (Optional[Annotated[str, Keywords(format="email")]],
     {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]}),
    (Annotated[Item, Keywords({"additionalProperties": False})], {**schema_of(Item), "additionalProperties": False}),
    (Annotated[str, Doc("the name")], {"type": "string", "description": "the name"}),
    (Annotated[str, "someone else's metadata"], {"type": "string"}),
    (Item, {"type": "object", "description": "An item.", "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 20},
        "size": {"type": "string", "enum": ["S", "M"]},
        "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["name", "size"]}),
    (Partial, {"type": "object", "properties": {
        "name": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
        "required": ["name"]}),
    (Point, {"type": "object", "properties": {
        "x": {"type": "integer"},
        "y": {"type": "integer", "default": 0},
        "label": {"type": ["string", "null"], "default": None},
        "note": {"type": "string", "default": "", "description": "free text"},
        "color": {"type": "string", "enum": ["red", "blue"], "description": "A colour.", "default": "red"}},
        "required": ["x"]}),
    (Node, {"$ref": "#/definitions/Node", "definitions": {"Node": {"type": "object", "properties": {
        "value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}},
        "required": ["value", "children"]}}}),
]


@pytest.mark.parametrize("tp, expected", FORMS, ids=[repr(tp) for tp, _ in FORMS])
def test_each_type_form_converts_to_the_hand_written_schema(tp: Any, expected: dict[str, Any]) -> None:
    assert schema_of(tp) == expected


@pytest.mark.parametrize("tp", [bytes, object.__class__, dict[int, str], complex, Annotated[int, at.Predicate(bool)],
                                Literal[b"x"]])
def test_types_without_a_json_schema_form_are_refused_by_name(tp: Any) -> None:
    with pytest.raises(TypeSchemaError):
        schema_of(tp)


class Tag(msgspec.Struct):
    name: str
    rank: int = 0


class Post(pydantic.BaseModel):
    title: str
    tags: list[str] = []


def test_msgspec_and_pydantic_models_use_their_own_export() -> None:
    tag = schema_of(Tag)
    assert tag["$ref"] == "#/definitions/Tag" and tag["definitions"]["Tag"]["required"] == ["name"]
    post = schema_of(Post)
    assert post["properties"]["title"]["type"] == "string" and post["required"] == ["title"]


class Tagged(TypedDict):
    tags: list[Tag]
    first: Tag


def test_a_msgspec_model_inside_another_type_keeps_its_definitions_at_the_root() -> None:
    """The export's ``$ref`` s point at the document's root, wherever the model is placed."""
    schema = schema_of(Tagged)
    assert schema["properties"]["first"] == {"$ref": "#/definitions/Tag"}
    assert schema["definitions"]["Tag"]["required"] == ["name"]
    app = Framework()

    @app.post("/tagged")
    def tagged(request: Request[Tagged], reply: Reply) -> Tagged:
        return request.body

    ok = app.inject(method="POST", url="/tagged", json={"tags": [{"name": "a"}], "first": {"name": "b", "rank": 2}})
    assert ok.status_code == 200 and ok.json() == {"tags": [{"name": "a", "rank": 0}], "first": {"name": "b", "rank": 2}}
    bad = app.inject(method="POST", url="/tagged", json={"tags": [{"rank": 1}], "first": {"name": "b"}})
    assert bad.status_code == 400 and "name" in bad.json()["message"]


# --- Behaviour through inject: the derived route answers as the hand-written one -----------

class ItemIn(TypedDict):
    name: Annotated[str, at.MinLen(1)]
    size: Literal["S", "M"]
    count: NotRequired[Annotated[int, at.Ge(0)]]
    tags: NotRequired[list[str]]


class Page(TypedDict, total=False):
    limit: Annotated[int, at.Ge(1), at.Le(100)]
    sort: Literal["asc", "desc"]
    flag: bool


class IdParams(TypedDict):
    id: int


TokenHeaders = TypedDict("TokenHeaders", {"x-token": Annotated[str, at.MinLen(3)]})


ITEM_IN = {"type": "object", "properties": {
    "name": {"type": "string", "minLength": 1}, "size": {"type": "string", "enum": ["S", "M"]},
    "count": {"type": "integer", "minimum": 0}, "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["name", "size"]}
PAGE = {"type": "object", "properties": {
    "limit": {"type": "integer", "minimum": 1, "maximum": 100}, "sort": {"type": "string", "enum": ["asc", "desc"]},
    "flag": {"type": "boolean"}}}
ID_PARAMS = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}


def _echo(request: Request[Any], reply: Reply) -> Any:
    return {"body": request.body, "query": request.query, "params": request.params}


def typed_create(request: Request[ItemIn], reply: Reply) -> Any:
    return _echo(request, reply)


def typed_list(request: Request[None, Page, IdParams], reply: Reply) -> Any:
    return _echo(request, reply)


BODIES = [{"name": "a", "size": "S"}, {"name": "", "size": "S"}, {"name": "a", "size": "L"}, {"size": "S"},
          {"name": "a", "size": "M", "count": "3", "tags": ["x", 1]}, {"name": "a", "size": "M", "count": -1},
          {"name": 5, "size": "S"}, [], "text", None, {"name": "a", "size": "S", "extra": True}]
QUERIES = ["", "limit=5", "limit=0", "limit=101", "limit=x", "sort=asc", "sort=up", "flag=true", "flag=maybe",
           "limit=5&limit=6"]
PARAMS = ["1", "42", "x", "1.5"]


def _pair() -> tuple[Framework, Framework]:
    typed = Framework()
    typed.post("/items", typed_create)
    typed.get("/items/:id", typed_list)
    written = Framework()
    written.post("/items", {"schema": {"body": ITEM_IN}}, _echo)
    written.get("/items/:id", {"schema": {"querystring": PAGE, "params": ID_PARAMS}}, _echo)
    return typed, written


def _answer(app: Framework, method: str, url: str, **kwargs: Any) -> tuple[int, Any]:
    response = app.inject(method, url, **kwargs)
    return response.status_code, response.json()


def test_derived_schemas_equal_the_hand_written_ones() -> None:
    typed, written = _pair()
    typed_routes = {(r.method, r.url): r.schema for r in typed.routes()}
    written_routes = {(r.method, r.url): r.schema for r in written.routes()}
    assert typed_routes == written_routes


@pytest.mark.parametrize("body", BODIES, ids=[repr(b) for b in BODIES])
def test_a_typed_body_validates_as_the_hand_written_schema(body: Any) -> None:
    typed, written = _pair()
    answers = [_answer(app, "POST", "/items", json=body) for app in (typed, written)]
    assert answers[0] == answers[1]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("param", PARAMS)
def test_a_typed_query_and_params_validate_and_coerce_as_the_hand_written_schemas(query: str, param: str) -> None:
    typed, written = _pair()
    answers = [_answer(app, "GET", f"/items/{param}?{query}") for app in (typed, written)]
    assert answers[0] == answers[1]


def test_coercion_reaches_the_handler_with_the_annotated_types() -> None:
    typed, _ = _pair()
    assert _answer(typed, "GET", "/items/7?limit=5&flag=true") == (
        200, {"body": None, "query": {"limit": 5, "flag": True}, "params": {"id": 7}})
    status, answer = _answer(typed, "GET", "/items/7?limit=500")
    assert (status, answer["message"]) == (400, "querystring/limit should be <= 100")


def test_typed_headers() -> None:
    app = Framework()

    def handler(request: Request[None, None, None, TokenHeaders], reply: Reply) -> Any:
        return {"token": request.headers["x-token"]}
    app.get("/", handler)
    assert app.routes()[0].schema["headers"]["required"] == ["x-token"]
    assert _answer(app, "GET", "/", headers={"x-token": "abcd"}) == (200, {"token": "abcd"})
    status, answer = _answer(app, "GET", "/", headers={"x-token": "ab"})
    assert (status, answer["message"]) == (400, "headers/x-token should NOT have fewer than 3 characters")


# --- Instances: dataclasses and other non-JSON values are built from the validated data ----

def test_a_dataclass_body_is_built_with_its_nested_values() -> None:
    app = Framework()
    seen: list[Any] = []

    @app.post("/stamps")
    def create(request: Request[Stamp], reply: Reply) -> dict[str, str]:
        seen.append(request.body)
        return {"ok": "yes"}

    body = {"at": "2024-05-06T07:08:09Z", "day": "2024-05-06", "hour": "07:08:09Z", "price": 1.25,
            "id": "12345678-1234-5678-1234-567812345678", "level": 2, "pair": [1, "a"], "unique": ["a", "b"]}
    assert _answer(app, "POST", "/stamps", json=body) == (200, {"ok": "yes"})
    stamp = seen[0]
    assert stamp == Stamp(at=datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc),
                          day=datetime.date(2024, 5, 6), hour=datetime.time(7, 8, 9, tzinfo=datetime.timezone.utc),
                          id=uuid.UUID("12345678-1234-5678-1234-567812345678"), price=decimal.Decimal("1.25"),
                          level=Level.HIGH, pair=(1, "a"), unique={"a", "b"})
    status, answer = _answer(app, "POST", "/stamps", json={**body, "level": 3})
    assert (status, answer["message"]) == (400, "body/level should be equal to one of the allowed values")


def test_a_recursive_dataclass_body_and_defaults() -> None:
    app = Framework()
    seen: list[Any] = []

    @app.post("/tree")
    def tree(request: Request[Node], reply: Reply) -> None:
        seen.append(request.body)
        reply.code(204).send()

    @app.post("/point")
    def point(request: Request[Point], reply: Reply) -> None:
        seen.append(request.body)
        reply.code(204).send()

    assert app.inject("POST", "/tree", json={"value": 1, "children": [{"value": 2, "children": []}]}).status_code == 204
    assert seen[-1] == Node(1, [Node(2, [])])
    assert app.inject("POST", "/point", json={"x": 3, "unknown": 1}).status_code == 204
    assert seen[-1] == Point(x=3)  # defaults filled by the schema; unknown keys left out
    assert app.inject("POST", "/point", json={"y": 3}).status_code == 400


def test_a_typeddict_body_stays_the_validated_dict() -> None:
    app = Framework()
    seen: list[Any] = []

    @app.post("/items")
    def create(request: Request[ItemIn], reply: Reply) -> None:
        seen.append(request.body)
        reply.code(204).send()

    assert app.inject("POST", "/items", json={"name": "a", "size": "S"}).status_code == 204
    assert type(seen[0]) is dict and seen[0] == {"name": "a", "size": "S"}
    # Types of JSON values need no builder, but for int (an integral float becomes an int,
    # in place in a TypedDict: test_typed_inputs).
    assert builder_of(list[str]) is None and builder_of(dict[str, bool]) is None and builder_of(IdParams) is not None


def test_attach_validation_hands_the_failing_data_unbuilt() -> None:
    app = Framework()

    @app.post("/point", attach_validation=True)
    def point(request: Request[Point], reply: Reply) -> Any:
        return {"error": str(request.validation_error), "body": request.body}

    status, answer = _answer(app, "POST", "/point", json={"y": "x"})
    # The dict the validator saw (defaults filled), not a Point: building it would fail.
    assert status == 200 and answer["body"]["y"] == "x" and answer["error"].startswith("body")


# --- Responses: the return annotation is the 200 schema; instances serialize ------------

@dataclasses.dataclass
class Out:
    id: int
    name: str
    secret: str = dataclasses.field(default="hidden", metadata={"description": "not in the schema?"})


class PublicOut(TypedDict):
    id: int
    name: str


def test_the_return_annotation_is_the_200_schema_and_filters_the_reply() -> None:
    app = Framework()

    @app.get("/public")
    def public(request: Request, reply: Reply) -> PublicOut:
        return {"id": 1, "name": "a", "password": "x"}  # type: ignore[typeddict-unknown-key]

    @app.get("/dataclass")
    def instance(request: Request, reply: Reply) -> Out:
        return Out(2, "b")

    @app.get("/list")
    def listing(request: Request, reply: Reply) -> list[PublicOut]:
        return [{"id": 3, "name": "c"}]

    assert app.routes()[0].schema["response"] == {200: {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}}, "required": ["id", "name"]}}
    assert _answer(app, "GET", "/public") == (200, {"id": 1, "name": "a"})
    assert _answer(app, "GET", "/dataclass") == (200, {"id": 2, "name": "b", "secret": "hidden"})
    assert _answer(app, "GET", "/list") == (200, [{"id": 3, "name": "c"}])


def test_an_explicit_schema_always_wins_over_annotations() -> None:
    app = Framework()

    def handler(request: Request[ItemIn], reply: Reply) -> PublicOut:
        return {"id": 1, "name": "a"}

    app.post("/x", {"schema": {"body": {"type": "object"}, "response": {"2xx": {"type": "object"}}}}, handler)
    app.post("/y", {"schema": {"response": {201: PublicOut}}}, handler)
    x, y = app.routes()
    assert x.schema == {"body": {"type": "object"}, "response": {"2xx": {"type": "object"}}}
    assert x.options.get("types") is None
    assert set(y.options["types"]) == {"response.201", "body"}  # the declared 201 is the success status
    assert y.options["types"]["response.201"] == (PublicOut, "schema")
    assert y.options["types"]["body"] == (ItemIn, "annotation")


def test_return_types_that_say_nothing_of_the_shape_add_no_schema() -> None:
    app = Framework()

    def a(request: Request, reply: Reply) -> dict[str, Any]:
        return {}

    def b(request: Request, reply: Reply) -> None:
        reply.send("x")

    def c(request: Request, reply: Reply) -> Reply:
        return reply.send("x")

    def d(request: Request, reply: Reply) -> bytes:
        return b"x"

    for index, handler in enumerate((a, b, c, d)):
        app.get(f"/{index}", handler)
    assert all(route.schema == {} for route in app.routes())


class AppRequest(Request[BodyT, QueryT, ParamsT, HeadersT]):
    user: str


def test_a_request_subclass_carries_its_type_arguments() -> None:
    app = Framework()

    def handler(request: AppRequest[ItemIn, Page], reply: Reply) -> None:
        reply.send({})

    app.post("/", handler)
    schema = app.routes()[0].schema
    assert schema["body"] == ITEM_IN | {} and schema["querystring"] == PAGE


def test_an_unresolvable_annotation_is_refused_at_declaration() -> None:
    app = Framework()

    def handler(request: "Request[Missing]", reply: Reply) -> None:  # type: ignore[name-defined]  # noqa: F821
        pass

    with pytest.raises(TypeSchemaError, match="cannot be resolved"):
        app.post("/", handler)


def test_a_type_without_a_schema_form_names_the_route_and_part() -> None:
    app = Framework()
    with pytest.raises(TypeSchemaError, match=r"Route POST:/, schema.body: .*bytes"):
        app.post("/", {"schema": {"body": bytes}}, _echo)


def test_a_type_given_in_schema_is_converted_for_every_part() -> None:
    app = Framework()
    app.post("/:id", {"schema": {"body": ItemIn, "query": Page, "params": IdParams, "response": {201: PublicOut}}},
             _echo)
    schema = app.routes()[0].schema
    assert schema["body"] == ITEM_IN and schema["querystring"] == PAGE and schema["params"] == ID_PARAMS
    assert schema["response"][201]["required"] == ["id", "name"]


def test_msgspec_and_pydantic_bodies_are_built_and_their_replies_serialize() -> None:
    app = Framework()
    seen: list[Any] = []

    @app.post("/struct")
    def struct(request: Request[Tag], reply: Reply) -> Tag:
        seen.append(request.body)
        return Tag(name=request.body.name.upper(), rank=2)

    @app.post("/model")
    def model(request: Request[Post], reply: Reply) -> Post:
        seen.append(request.body)
        return Post(title=request.body.title, tags=["b"])

    @app.get("/plain")
    def plain(request: Request, reply: Reply) -> Any:  # no schema: the JSON encoder
        return {"tag": Tag(name="t", rank=1), "post": Post(title="p")}

    assert _answer(app, "POST", "/struct", json={"name": "x", "rank": 1}) == (200, {"name": "X", "rank": 2})
    assert type(seen[-1]) is Tag and seen[-1] == Tag(name="x", rank=1)
    assert _answer(app, "POST", "/struct", json={"name": "x", "rank": "one"})[0] == 400
    assert _answer(app, "POST", "/model", json={"title": "t"}) == (200, {"title": "t", "tags": ["b"]})
    assert type(seen[-1]) is Post and seen[-1].tags == []
    assert _answer(app, "POST", "/model", json={"tags": []})[0] == 400
    assert _answer(app, "GET", "/plain") == (200, {"tag": {"name": "t", "rank": 1},
                                                   "post": {"title": "p", "tags": []}})



def test_typed_routes_document_as_valid_openapi() -> None:
    from openapi_spec_validator import validate

    from framework.plugins.openapi import openapi

    app = Framework()
    app.register(openapi, info={"title": "typed", "version": "1"})

    def tree(request: Request[Node, Page], reply: Reply) -> Node:
        return request.body

    def stamp(request: Request[Stamp], reply: Reply) -> list[Out]:
        return []

    app.post("/tree", tree)
    app.post("/stamps", stamp)
    app.ready()
    document = app.openapi()
    validate(document)
    parameters = document["paths"]["/tree"]["post"]["parameters"]
    assert {(p["name"], p["in"]) for p in parameters} == {("limit", "query"), ("sort", "query"), ("flag", "query")}
    assert set(document["paths"]["/stamps"]["post"]["responses"]) >= {"200", "400"}


def test_print_routes_names_the_types_each_route_took() -> None:
    app = Framework()

    def create(request: Request[ItemIn], reply: Reply) -> PublicOut:
        return {"id": 1, "name": "a"}

    def listing(request: Request[None, Page], reply: Reply) -> list[PublicOut]:
        return []

    app.post("/items", {"schema": {"response": {201: Out}}}, create)
    app.get("/items", listing)
    app.get("/plain", _echo)
    app.ready()
    assert app.print_routes() == (
        "├── /items (POST, GET, HEAD)\n"
        "│   • POST 201 Out (schema); body ItemIn (annotations)\n"
        "│   • GET querystring Page, 200 list[PublicOut] (annotations)\n"
        "└── /plain (GET, HEAD)\n")


def test_types_in_content_maps() -> None:
    app = Framework()
    app.post("/", {"schema": {"body": {"content": {"application/json": {"schema": ItemIn}}},
                              "response": {200: {"description": "ok",
                                                 "content": {"application/json": {"schema": PublicOut}}}}}},
             lambda request, reply: {"id": 1, "name": request.body["name"], "secret": "x"})
    schema = app.routes()[0].schema
    assert schema["body"]["content"]["application/json"]["schema"] == ITEM_IN
    assert _answer(app, "POST", "/", json={"name": "a", "size": "S"}) == (200, {"id": 1, "name": "a"})
    assert _answer(app, "POST", "/", json={"name": "a", "size": "X"})[0] == 400


def test_a_union_that_cannot_tell_what_to_build_fails_ready_naming_the_route() -> None:
    app = Framework()

    def handler(request: Request[dict[str, datetime.date | str]], reply: Reply) -> None:
        pass

    app.post("/dates", handler)
    with pytest.raises(TypeSchemaError, match=r"Route POST:/dates, body: .*date needs building"):
        app.ready()
