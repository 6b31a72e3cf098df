"""framework.plugins.openapi for client generators: default operationIds, tags and summaries,
Python models as named components, one path item per mount, the document as YAML."""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
from typing import TypedDict

import msgspec
import pydantic
import pytest
import yaml
from openapi_spec_validator import validate
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.wrappers import Response

from framework import Framework, plugin
from framework.plugins.openapi import OpenAPIError, openapi
from framework.serving.cli import main


def document(app: Framework) -> dict:
    app.ready()
    doc = app.openapi()
    validate(doc)
    return doc


def new_app(**options) -> Framework:
    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"}, **options)
    return app


def operations(doc: dict) -> dict[tuple[str, str], dict]:
    return {(method.upper(), path): operation for path, item in doc["paths"].items()
            for method, operation in item.items() if isinstance(operation, dict) and "responses" in operation}


# --- operationId -------------------------------------------------------------------------

def list_things(request, reply):
    return []


def shared(request, reply):
    return {}


def test_default_operation_ids():
    app = new_app()
    app.get("/things", list_things)
    app.get("/a", shared)
    app.post("/b", shared)
    app.get("/items/:id", lambda request, reply: {})
    app.get("/files/*", lambda request, reply: {})
    app.get("/", lambda request, reply: {})
    app.get("/opt/:id?", list_things_optional)
    app.get("/named", {"schema": {"operation_id": "myName"}}, lambda request, reply: {})

    def items(instance, opts):
        def get_item(request, reply):
            return {}
        instance.get("/:id", get_item)

        def versioned(inner, opts):
            def get_item(request, reply):
                return {}
            inner.get("/x", get_item)
        instance.register(versioned, prefix="/v1")

    app.register(items, prefix="/items-store")
    ids = {key: operation["operationId"] for key, operation in operations(document(app)).items()}
    assert ids == {
        ("GET", "/things"): "list_things",  # the handler's name (root: no prefix)
        ("GET", "/a"): "get_a", ("POST", "/b"): "post_b",  # one handler, two operations: method and path
        ("GET", "/items/{id}"): "get_items_id",  # a lambda: method and path
        ("GET", "/files/{*}"): "get_files_rest",
        ("GET", "/"): "get_root",
        # an optional parameter is two paths of one route: method and path
        ("GET", "/opt/{id}"): "get_opt_id", ("GET", "/opt"): "get_opt",
        ("GET", "/named"): "myName",  # the schema's operation_id wins
        ("GET", "/items-store/{id}"): "items_store_get_item",  # the context's prefix, then the name
        ("GET", "/items-store/v1/x"): "items_store_v1_get_item",
    }


def list_things_optional(request, reply):
    return {}


def test_colliding_operation_ids_fail_ready_with_both_routes():
    app = new_app()

    def one(instance, opts):
        def show(request, reply):
            return {}
        instance.get("/one", show)

    def two(instance, opts):
        def show(request, reply):
            return {}
        instance.get("/two", show)

    app.register(one)
    app.register(two)
    with pytest.raises(OpenAPIError, match="duplicate operation_id 'show': GET /one and GET /two"):
        app.ready()


def test_an_explicit_operation_id_colliding_with_a_default_one_fails():
    app = new_app()
    app.get("/things", list_things)
    app.get("/other", {"schema": {"operation_id": "list_things"}}, lambda request, reply: {})
    with pytest.raises(OpenAPIError, match="duplicate operation_id 'list_things': GET /things and GET /other"):
        app.ready()


# --- tags, summary, description ----------------------------------------------------------------

def test_tags_from_the_declaring_plugin_and_summaries_from_docstrings():
    app = new_app()

    def at_root(request, reply):
        """Answers at the root.

        Nothing is tagged here: the root is no plugin.
        """
        return {}

    app.get("/root", at_root)

    def users(instance, opts):
        def get_user(request, reply):
            """One user."""
            return {}
        instance.get("/:id", get_user)
        instance.get("/", {"schema": {"tags": ["people"], "summary": "Given", "description": "Given too"}}, get_user)

    def orders(instance, opts):
        instance.get("/orders", lambda request, reply: {})

    def health(instance, opts):
        instance.get("/health", lambda request, reply: {})

    app.register(plugin(users, name="users-api", encapsulate=True), prefix="/users")
    app.register(orders)
    app.register(plugin(health, name="probes"))  # runs in the root context, named all the same
    found = operations(document(app))
    assert found[("GET", "/root")]["summary"] == "Answers at the root."
    assert found[("GET", "/root")]["description"] == "Nothing is tagged here: the root is no plugin."
    assert "tags" not in found[("GET", "/root")]
    assert found[("GET", "/users/{id}")]["tags"] == ["users-api"]  # plugin(..., name=)
    assert found[("GET", "/users/{id}")]["summary"] == "One user."
    assert "description" not in found[("GET", "/users/{id}")]
    assert {key: found[("GET", "/users")][key] for key in ("tags", "summary", "description")} == {
        "tags": ["people"], "summary": "Given", "description": "Given too"}
    assert found[("GET", "/orders")]["tags"] == ["orders"]  # the function's name
    assert "summary" not in found[("GET", "/orders")]  # a lambda has no docstring
    assert found[("GET", "/health")]["tags"] == ["probes"]


# --- Python models as components ---------------------------------------------------------------

class Tag(TypedDict):
    name: str


class ItemIn(TypedDict):
    name: str
    tags: list[Tag]


@dataclasses.dataclass
class Item:
    """An item as stored."""
    id: int
    name: str
    tags: list[Tag]


class Owner(pydantic.BaseModel):
    login: str


class Point(msgspec.Struct):
    x: int
    y: int


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def test_typed_models_are_components_referenced_by_ref():
    app = new_app()
    app.post("/items", {"schema": {"body": ItemIn, "response": {201: Item}}}, lambda request, reply: {})
    app.get("/items", {"schema": {"response": {200: list[Item]}}}, lambda request, reply: [])
    app.get("/owner", {"schema": {"response": {200: Owner}}}, lambda request, reply: {})
    app.get("/point", {"schema": {"response": {200: Point}}}, lambda request, reply: {})
    doc = document(app)
    found = operations(doc)
    schemas = doc["components"]["schemas"]
    assert found[("POST", "/items")]["requestBody"]["content"]["application/json"]["schema"] == ref("ItemIn")
    assert found[("POST", "/items")]["responses"]["201"]["content"]["application/json"]["schema"] == ref("Item")
    assert found[("GET", "/items")]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "type": "array", "items": ref("Item")}
    # Nested models are references too, and each model is one component.
    assert schemas["ItemIn"]["properties"]["tags"] == {"type": "array", "items": ref("Tag")}
    assert schemas["Item"]["properties"]["tags"] == {"type": "array", "items": ref("Tag")}
    assert schemas["Item"]["description"] == "An item as stored."
    assert schemas["Tag"] == {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    assert schemas["Owner"]["properties"] == {"login": {"title": "Login", "type": "string"}}
    assert found[("GET", "/owner")]["responses"]["200"]["content"]["application/json"]["schema"] == ref("Owner")
    assert found[("GET", "/point")]["responses"]["200"]["content"]["application/json"]["schema"] == ref("Point")
    assert "python-model" not in json.dumps(doc)


class Label(pydantic.BaseModel):
    text: str


class Product(pydantic.BaseModel):
    labels: list[Label]


class Order(pydantic.BaseModel):
    products: list[Product]


class Segment(msgspec.Struct):
    start: Point
    end: Point


class TreeNode(TypedDict):
    name: str
    children: list[TreeNode]


class Forest(TypedDict):
    trees: list[TreeNode]


def test_nested_pydantic_msgspec_and_recursive_models_are_components_too():
    app = new_app()
    app.get("/order", {"schema": {"response": {200: Order}}}, lambda request, reply: {})
    app.get("/product", {"schema": {"response": {200: Product}}}, lambda request, reply: {})
    app.get("/segment", {"schema": {"response": {200: Segment}}}, lambda request, reply: {})
    app.get("/forest", {"schema": {"response": {200: Forest}}}, lambda request, reply: {})
    doc = document(app)
    schemas = doc["components"]["schemas"]
    assert "$defs" not in json.dumps(schemas)  # the exports' own definitions became components
    assert schemas["Order"]["properties"]["products"]["items"] == ref("Product")
    assert schemas["Product"]["properties"]["labels"]["items"] == ref("Label")
    assert schemas["Label"]["properties"] == {"text": {"title": "Text", "type": "string"}}
    assert schemas["Segment"]["properties"] == {"start": ref("Point"), "end": ref("Point")}
    assert schemas["Point"]["properties"] == {"x": {"type": "integer"}, "y": {"type": "integer"}}
    assert schemas["Forest"]["properties"]["trees"] == {"type": "array", "items": ref("TreeNode")}
    assert schemas["TreeNode"]["properties"]["children"] == {"type": "array", "items": ref("TreeNode")}


def two_models_named_alike():
    def first():
        class Thing(TypedDict):
            a: int
        return Thing

    def second():
        class Thing(TypedDict):
            b: str
        return Thing
    return first(), second()


def test_two_models_with_one_name_get_distinct_deterministic_names():
    names = []
    for _ in range(2):  # the same declarations give the same names
        one, other = two_models_named_alike()
        app = new_app()
        app.get("/one", {"schema": {"response": {200: one}}}, lambda request, reply: {})
        app.get("/other", {"schema": {"response": {200: other}}}, lambda request, reply: {})
        doc = document(app)
        found = operations(doc)
        pair = [found[("GET", path)]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
                for path in ("/one", "/other")]
        names.append(pair)
        first, second = (value.rsplit("/", 1)[1] for value in pair)
        assert doc["components"]["schemas"][first]["properties"] == {"a": {"type": "integer"}}
        assert doc["components"]["schemas"][second]["properties"] == {"b": {"type": "string"}}
    assert names[0] == names[1]
    assert names[0] == ["#/components/schemas/Thing",
                        f"#/components/schemas/{__name__}.two_models_named_alike._locals_.second._locals_.Thing"]


def test_shared_schemas_with_an_id_are_components():
    app = new_app()
    app.add_schema({"$id": "user", "type": "object", "properties": {"name": {"type": "string"}}})
    app.get("/users", {"schema": {"response": {200: {"type": "array", "items": {"$ref": "user#"}}}}},
            lambda request, reply: [])
    doc = document(app)
    assert operations(doc)[("GET", "/users")]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "type": "array", "items": ref("user")}
    assert doc["components"]["schemas"]["user"] == {"type": "object", "properties": {"name": {"type": "string"}}}


# --- mount() ---------------------------------------------------------------------------------

def legacy(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"legacy"]


def test_a_mounted_application_is_one_path_item():
    app = new_app()
    app.get("/things", list_things)

    def api(instance, opts):
        instance.mount("/legacy", legacy)

    app.register(api, prefix="/api")
    doc = document(app)
    assert sorted(doc["paths"]) == ["/api/legacy/{path}", "/things"]
    item = doc["paths"]["/api/legacy/{path}"]
    assert item["summary"] == "Mounted WSGI application mount(legacy)"
    assert "mounted WSGI application" in item["description"] and "/api/legacy" in item["description"]
    assert item["parameters"] == [{"name": "path", "in": "path", "required": True, "schema": {"type": "string"},
                                   "description": "the rest of the path, given to the mounted application "
                                                  "(it may contain '/')"}]
    assert not any(method in item for method in ("get", "post", "put", "delete", "patch", "head", "options"))
    assert app.inject(url="/api/legacy/x").body == b"legacy"


# --- YAML --------------------------------------------------------------------------------------

def test_the_document_as_yaml():
    app = new_app()
    app.get("/things", {"schema": {"summary": "Things: all of them"}}, list_things)
    doc = document(app)
    response = app.inject(url="/documentation/openapi.yaml")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/yaml"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert yaml.safe_load(response.body) == doc
    assert response.body.startswith(b"openapi: 3.1.0\n")


def test_the_yaml_document_below_a_mount_point_names_it():
    app = new_app()
    app.get("/things", list_things)
    app.ready()
    mounted = DispatcherMiddleware(Response("host"), {"/api/v1": app})
    chunks: list[bytes] = []
    environ = {"REQUEST_METHOD": "GET", "SCRIPT_NAME": "", "PATH_INFO": "/api/v1/documentation/openapi.yaml",
               "SERVER_NAME": "localhost", "SERVER_PORT": "80", "wsgi.url_scheme": "http",
               "wsgi.input": __import__("io").BytesIO(), "SERVER_PROTOCOL": "HTTP/1.1"}
    body = mounted(environ, lambda status, headers, exc_info=None: chunks.append(status.encode()))
    loaded = yaml.safe_load(b"".join(body))
    assert loaded["servers"] == [{"url": "/api/v1"}]
    assert loaded["paths"] == app.openapi()["paths"]


def test_cli_prints_yaml(tmp_path, capsys):
    target = tmp_path / "openapi.yaml"
    assert main(["openapi", "examples.app:create_app", "--yaml", "--output", str(target)]) == 0
    loaded = yaml.safe_load(target.read_text(encoding="utf-8"))
    assert loaded["info"]["title"] == "framework example"
    assert loaded["paths"]["/items/{id}"]["get"]["operationId"] == "getItem"


def test_a_client_generated_from_a_typed_application_has_a_class_per_model(tmp_path, monkeypatch):
    pytest.importorskip("openapi_python_client")
    # A fresh copy of examples/typed_app.py (handlers typed with TypedDicts and dataclasses).
    import examples.typed_app
    spec = importlib.util.spec_from_file_location("typed_app_copy", examples.typed_app.__file__)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "typed_app_copy", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    app = module.app
    app.register(openapi, info={"title": "typed", "version": "1"})
    doc = document(app)
    assert {"ItemIn", "ItemOut"} <= set(doc["components"]["schemas"])
    (tmp_path / "doc.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "config.yaml").write_text("package_name_override: typed_client\npost_hooks: []\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", "doc.json",
                             "--output-path", "out", "--config", "config.yaml"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    models = tmp_path / "out" / "typed_client" / "models"
    assert {"item_in.py", "item_out.py"} <= {path.name for path in models.iterdir()}
    assert "class ItemOut" in (models / "item_out.py").read_text(encoding="utf-8")
