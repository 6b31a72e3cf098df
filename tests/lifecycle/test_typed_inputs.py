"""What a route's inputs promise: a body nested too deeply is a 400 naming the part (never
a RecursionError), a typed handler receives the values its annotations name, a typed
route documents the success status it declares, and body coercion can be turned off."""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, TypedDict

import msgspec
import pydantic
import pytest

from framework import Framework, Reply, Request
from framework.plugins.openapi import openapi


@dataclasses.dataclass
class Node:
    child: Optional[Node] = None


class StructNode(msgspec.Struct):
    child: Optional[StructNode] = None


class ModelNode(pydantic.BaseModel):
    child: Optional[ModelNode] = None


RECURSIVE_SCHEMA = {"$ref": "#/definitions/node", "definitions": {"node": {
    "type": "object", "properties": {"child": {"anyOf": [{"$ref": "#/definitions/node"}, {"type": "null"}]}}}}}


def nested(levels: int) -> bytes:
    """``levels`` objects, each the ``child`` of the one around it."""
    return ('{"child":' * levels + "null" + "}" * levels).encode()


def deep_app(**options: Any) -> Framework:
    app = Framework(**options)

    @app.post("/dataclass")
    def dataclass_body(request: Request[Node], reply: Reply) -> dict[str, Any]:
        return {"built": type(request.body).__name__}

    @app.post("/msgspec")
    def msgspec_body(request: Request[StructNode], reply: Reply) -> dict[str, Any]:
        return {"built": type(request.body).__name__}

    @app.post("/pydantic")
    def pydantic_body(request: Request[ModelNode], reply: Reply) -> dict[str, Any]:
        return {"built": type(request.body).__name__}

    @app.post("/ref", schema={"body": RECURSIVE_SCHEMA})
    def ref_body(request: Any, reply: Any) -> Any:
        return {"built": type(request.body).__name__}

    @app.post("/plain")
    def plain_body(request: Any, reply: Any) -> Any:
        return {"built": type(request.body).__name__}

    return app


def post(app: Framework, url: str, body: bytes) -> Any:
    return app.inject("POST", url, body=body, headers={"content-type": "application/json"})


def too_deep(limit: int) -> dict[str, Any]:
    return {"statusCode": 400, "code": "FST_ERR_VALIDATION", "error": "Bad Request",
            "message": f"body is nested too deeply (more than {limit} levels)"}


@pytest.mark.parametrize("url, levels, built", [
    ("/dataclass", 300, "Node"), ("/pydantic", 300, "ModelNode"),
    ("/msgspec", 1000, "StructNode"), ("/ref", 1000, "dict")])
def test_a_body_nested_past_the_limit_is_a_400_naming_the_body(url: str, levels: int, built: str) -> None:
    app = deep_app()
    refused = post(app, url, nested(levels))
    assert (refused.status_code, refused.json()) == (400, too_deep(128))
    # The limit is 128 levels: 128 are built as usual, 129 are refused.
    assert (post(app, url, nested(128)).status_code, post(app, url, nested(128)).json()) == (200, {"built": built})
    assert post(app, url, nested(129)).json() == too_deep(128)


def test_the_depth_limit_is_a_framework_option() -> None:
    app = deep_app(max_body_depth=10)
    assert post(app, "/dataclass", nested(10)).json() == {"built": "Node"}
    refused = post(app, "/dataclass", nested(11))
    assert (refused.status_code, refused.json()) == (400, too_deep(10))
    with pytest.raises(ValueError, match="max_body_depth must be a positive integer"):
        Framework(max_body_depth=0)


def test_a_plain_json_body_past_the_parser_limit_is_a_400_saying_so() -> None:
    # No schema and no type: nothing recurses over the body, which the JSON parser
    # itself bounds (1024 levels): malformed JSON, a 400 without a code (DESIGN 7).
    app = deep_app()
    assert post(app, "/plain", nested(1000)).json() == {"built": "dict"}
    refused = post(app, "/plain", nested(1100))
    assert (refused.status_code, refused.json()) == (400, {
        "statusCode": 400, "error": "Bad Request", "message": "body is nested too deeply (more than 1024 levels)"})


def test_a_flat_route_is_not_walked_and_a_deep_value_under_any_is_not_refused() -> None:
    app = Framework()

    @app.post("/flat", schema={"body": {"type": "object", "properties": {"tags": {"type": "array"}}}})
    def flat(request: Any, reply: Any) -> Any:
        return {"ok": True}

    assert post(app, "/flat", nested(300)).json() == {"ok": True}


def test_deep_items_compared_by_unique_items_are_refused_too() -> None:
    app = Framework()

    @app.post("/unique", schema={"body": {"type": "array", "uniqueItems": True}})
    def unique(request: Any, reply: Any) -> Any:
        return {"ok": True}

    deep = "[" * 1000 + "]" * 1000
    refused = post(app, "/unique", f"[{deep}, {deep}]".encode())
    assert (refused.status_code, refused.json()) == (400, too_deep(128))
    assert post(app, "/unique", b"[[1], [2]]").json() == {"ok": True}


class SchemaDict(dict):  # type: ignore[type-arg]  # a schema may be a dict subclass
    pass


NODE_DEFINITIONS = RECURSIVE_SCHEMA["definitions"]


@pytest.mark.parametrize("schema, fine", [
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "array", "uniqueItems": True}}}},
     b'{"a": [[1], [2]]}'),
    ({"definitions": NODE_DEFINITIONS, "type": "object",
      "properties": {"a": {"type": "array", "items": {"allOf": [{"$ref": "#/definitions/node"}]}}}},
     b'{"a": [{"child": null}]}'),
    ({"type": "object", "properties": {"a": SchemaDict({"type": "array", "items": {"uniqueItems": True}})}},
     b'{"a": [[1], [2]]}'),
], ids=["unique items below", "a $ref cycle below", "in a dict subclass"])
def test_recursion_deep_inside_a_body_schema_is_found(schema: dict[str, Any], fine: bytes) -> None:
    app = Framework()

    @app.post("/inside", schema={"body": schema})
    def inside(request: Any, reply: Any) -> Any:
        return {"ok": True}

    deep = nested(200).decode()
    refused = post(app, "/inside", f'{{"a": [[{deep}], [{deep}]]}}'.encode()
                   if b"[[" in fine else f'{{"a": [{deep}, {deep}]}}'.encode())
    assert (refused.status_code, refused.json()) == (400, too_deep(128))
    assert post(app, "/inside", fine).json() == {"ok": True}


class Loose(TypedDict):
    data: Any
    count: int


def test_a_typed_route_without_recursion_hands_deep_any_values_on() -> None:
    app = Framework()

    @app.post("/loose")
    def loose(request: Request[Loose], reply: Reply) -> dict[str, Any]:
        return {"count": request.body["count"]}

    assert post(app, "/loose", b'{"count": 2.0, "data": ' + nested(300) + b"}").json() == {"count": 2}


def test_attach_validation_sees_the_depth_error() -> None:
    app = Framework()

    @app.post("/ref", schema={"body": RECURSIVE_SCHEMA}, attach_validation=True)
    def ref_body(request: Any, reply: Any) -> Any:
        return {"error": str(request.validation_error), "context": request.validation_error.validation_context}

    assert post(app, "/ref", nested(200)).json() == {
        "error": "body is nested too deeply (more than 128 levels)", "context": "body"}


# --- A typed handler receives what its annotations say ------------------------------------

class Count(TypedDict):
    n: int


class Page(TypedDict, total=False):
    n: int


@dataclasses.dataclass
class Counts:
    n: int
    all: list[int]


class CountStruct(msgspec.Struct):
    n: int


def number_app() -> Framework:
    app = Framework()

    @app.post("/typeddict")
    def typeddict(request: Request[Count], reply: Reply) -> dict[str, Any]:
        return {"type": type(request.body["n"]).__name__, "value": str(request.body["n"])}

    @app.post("/dataclass")
    def dataclass_body(request: Request[Counts], reply: Reply) -> dict[str, Any]:
        body = request.body
        return {"type": type(body.n).__name__, "value": str(body.n), "all": [type(n).__name__ for n in body.all]}

    @app.post("/msgspec")
    def msgspec_body(request: Request[CountStruct], reply: Reply) -> dict[str, Any]:
        return {"type": type(request.body.n).__name__, "value": str(request.body.n)}

    @app.get("/query")
    def query(request: Request[None, Page], reply: Reply) -> dict[str, Any]:
        return {"type": type(request.query["n"]).__name__, "value": str(request.query["n"])}

    @app.post("/untyped", schema={"body": {"type": "object", "properties": {"n": {"type": "integer"}}}})
    def untyped(request: Any, reply: Any) -> Any:
        return {"type": type(request.body["n"]).__name__, "value": str(request.body["n"])}

    return app


@pytest.mark.parametrize("raw, value", [(b"1.0", "1"), (b"18446744073709551616", str(2 ** 64)), (b"1e20", str(10 ** 20))])
def test_an_int_annotation_receives_an_int(raw: bytes, value: str) -> None:
    app = number_app()
    body = b'{"n": ' + raw + b', "all": [' + raw + b"]}"
    for url in ("/typeddict", "/dataclass", "/msgspec"):
        answer = post(app, url, body)
        assert answer.status_code == 200, (url, answer.body)
        assert answer.json()["type"] == "int" and answer.json()["value"] == value, url
    assert post(app, "/dataclass", body).json()["all"] == ["int"]


@pytest.mark.parametrize("raw", [b'"Infinity"', b'"-Infinity"', b'"1e400"'])
def test_an_int_annotation_refuses_a_non_finite_number(raw: bytes) -> None:
    app = number_app()
    for url, message in [("/typeddict", "body/n should be a finite integer"),
                         ("/dataclass", "body/n should be a finite integer"),
                         ("/msgspec", "body/n should be a valid CountStruct: Expected `int`, got `float`")]:
        refused = post(app, url, b'{"n": ' + raw + b', "all": [1]}')
        assert (refused.status_code, refused.json()) == (400, {
            "statusCode": 400, "code": "FST_ERR_VALIDATION", "error": "Bad Request", "message": message}), url
    refused = post(app, "/dataclass", b'{"n": 1, "all": [1, 2, "Infinity"]}')
    assert refused.json()["message"] == "body/all/2 should be a finite integer"
    refused = app.inject("GET", "/query?n=Infinity")
    assert (refused.status_code, refused.json()["message"]) == (400, "querystring/n should be a finite integer")


def test_an_untyped_route_keeps_ajvs_numbers() -> None:
    app = number_app()
    assert post(app, "/untyped", b'{"n": 1.0}').json() == {"type": "float", "value": "1.0"}
    assert post(app, "/untyped", b'{"n": "Infinity"}').json() == {"type": "float", "value": str(math.inf)}


class Mixed(TypedDict):
    a: int | str
    b: int | float
    c: Optional[int]


def test_int_unions_still_build() -> None:
    app = Framework()

    @app.post("/mixed")
    def mixed(request: Request[Mixed], reply: Reply) -> dict[str, Any]:
        return {key: type(value).__name__ for key, value in request.body.items()}

    answer = post(app, "/mixed", b'{"a": 2.0, "b": 2.0, "c": 3.0}')
    assert answer.json() == {"a": "int", "b": "float", "c": "int"}
    assert post(app, "/mixed", b'{"a": "x", "b": 1, "c": null}').json() == {"a": "str", "b": "int", "c": "NoneType"}


# --- The success status of a typed route --------------------------------------------------

class ItemOut(TypedDict):
    id: int
    name: str


def created_app() -> Framework:
    app = Framework()
    app.register(openapi, {"ui": False})

    @app.post("/items", schema={"response": {201: ItemOut}})
    def create(request: Any, reply: Reply) -> ItemOut:
        reply.code(201)
        return {"id": 1, "name": "pen"}

    @app.post("/described", schema={"response": {201: {"description": "Created"}}})
    def described(request: Any, reply: Reply) -> ItemOut:
        reply.code(201)
        return {"id": 1, "name": "pen", "secret": "x"}  # type: ignore[typeddict-unknown-key]

    return app


def test_a_declared_201_is_the_only_success_the_annotation_documents() -> None:
    app = created_app()
    app.ready()
    routes = {route.url: route for route in app.routes()}
    assert list(routes["/items"].schema["response"]) == [201]
    document = app.inject("GET", "/documentation/json").json()
    assert sorted(document["paths"]["/items"]["post"]["responses"]) == ["201"]
    assert sorted(document["paths"]["/described"]["post"]["responses"]) == ["201"]


def test_the_return_annotation_fills_a_declared_success_status() -> None:
    app = created_app()
    answer = app.inject("POST", "/described")
    assert (answer.status_code, answer.json()) == (201, {"id": 1, "name": "pen"})
    route = next(route for route in app.routes() if route.url == "/described")
    assert route.schema["response"] == {201: {
        "type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
        "required": ["id", "name"], "description": "Created"}}
    assert route.options["types"] == {"response.201": (ItemOut, "annotation")}


# --- Body coercion --------------------------------------------------------------------------

class Titled(TypedDict):
    title: str
    count: int


TitleParams = TypedDict("TitleParams", {"id": int})


def titled_app(**options: Any) -> Framework:
    app = Framework(**options)

    @app.post("/titles/:id")
    def create(request: Request[Titled, Page, TitleParams], reply: Reply) -> dict[str, Any]:
        return {"body": request.body, "id": request.params["id"], "query": request.query}

    return app


def test_bodies_are_coerced_as_fastify_does_by_default() -> None:
    answer = titled_app().inject("POST", "/titles/7?n=2", json={"title": 5, "count": "3"})
    assert answer.json() == {"body": {"title": "5", "count": 3}, "id": 7, "query": {"n": 2}}


def test_coerce_body_false_validates_bodies_as_typed_but_still_coerces_text_parts() -> None:
    app = titled_app(coerce_body=False)
    refused = app.inject("POST", "/titles/7", json={"title": 5, "count": 3})
    assert (refused.status_code, refused.json()["message"]) == (400, "body/title should be string")
    answer = app.inject("POST", "/titles/7?n=2", json={"title": "x", "count": 3})
    assert answer.json() == {"body": {"title": "x", "count": 3}, "id": 7, "query": {"n": 2}}
    with pytest.raises(TypeError, match="coerce_body must be True or False"):
        Framework(coerce_body="no")  # type: ignore[arg-type]


def test_the_engine_decides_coercion_per_part_and_caches_each_apart() -> None:
    from framework.errors import SchemaValidationFailure
    from framework.validation import ValidatorEngine

    engine = ValidatorEngine(part_options={"body": {"coerce_types": False}})
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert engine.compile(schema, http_part="querystring")({"n": "5"}) == {"n": 5}
    with pytest.raises(SchemaValidationFailure):
        engine.compile(schema, http_part="body")({"n": "5"})
    assert engine.compile(schema, http_part="headers")({"n": "5"}) == {"n": 5}
    with pytest.raises(TypeError, match="unknown validator option 'coerce'"):
        ValidatorEngine(part_options={"body": {"coerce": False}})


def test_any_annotation_keeps_a_response_entry_documentation_only() -> None:
    # The annotations are the keyword table's: deprecated, readOnly... describe, not shape.
    app = Framework()

    @app.post("/old", schema={"response": {201: {"description": "Created", "deprecated": True}}})
    def old(request: Any, reply: Reply) -> ItemOut:
        reply.code(201)
        return {"id": 1, "name": "pen", "secret": "x"}  # type: ignore[typeddict-unknown-key]

    answer = app.inject("POST", "/old")
    assert (answer.status_code, answer.json()) == (201, {"id": 1, "name": "pen"})
