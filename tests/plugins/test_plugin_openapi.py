"""framework.plugins.openapi: the document, route by route, on small applications."""
from __future__ import annotations

import json

import pytest
from openapi_spec_validator import validate

from framework import Framework
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.error_messages import error_messages
from framework.plugins.merge_patch import merge_patch
from framework.plugins.openapi import OpenAPIError, openapi, to_openapi_schema


def ok(request, reply):
    return {}


def document(app: Framework) -> dict:
    app.ready()
    doc = app.openapi()
    validate(doc)  # every document these tests build is valid OpenAPI 3.1
    return doc


def build(declare, **options) -> dict:
    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"}, **options)
    declare(app)
    return document(app)


def test_info_servers_and_the_document_route():
    app = Framework()
    app.register(openapi, info={"title": "Pets", "version": "2.0.0"}, servers=[{"url": "http://127.0.0.1:3000"}])
    app.get("/pets", ok)
    doc = document(app)
    assert doc["openapi"] == "3.1.0"
    assert doc["info"] == {"title": "Pets", "version": "2.0.0"}
    assert doc["servers"] == [{"url": "http://127.0.0.1:3000"}]
    # The plugin's own routes and the automatic HEAD are not operations.
    assert list(doc["paths"]) == ["/pets"] and list(doc["paths"]["/pets"]) == ["get"]
    response = app.inject(url="/documentation/json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert json.loads(response.body) == doc


def test_path_parameters_and_wildcards():
    def declare(app):
        app.get("/users/:id/posts/:post", {"schema": {"params": {
            "id": {"type": "integer", "description": "the user"}, "post": {"type": "string"}}}}, ok)
        app.get("/files/*", ok)
        app.get("/plain/:name", ok)

    doc = build(declare)
    parameters = doc["paths"]["/users/{id}/posts/{post}"]["get"]["parameters"]
    assert parameters == [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer", "description": "the user"},
         "description": "the user"},
        {"name": "post", "in": "path", "required": True, "schema": {"type": "string"}},
    ]
    wildcard = doc["paths"]["/files/{*}"]["get"]["parameters"]
    assert wildcard[0]["name"] == "*" and wildcard[0]["in"] == "path" and wildcard[0]["schema"] == {"type": "string"}
    assert doc["paths"]["/plain/{name}"]["get"]["parameters"][0]["schema"] == {"type": "string"}


def test_query_and_header_parameters_full_and_short_forms():
    def declare(app):
        app.get("/search", {"schema": {
            "querystring": {"type": "object", "required": ["q"],
                            "properties": {"q": {"type": "string"}, "page": {"type": "integer", "default": 1}}},
            "headers": {"X-Trace": {"type": "string"}},
        }}, ok)
        app.get("/short", {"schema": {"query": {"limit": {"type": "integer"}}}}, ok)
        app.get("/free", {"schema": {"querystring": {"type": "object", "additionalProperties": {"type": "string"}}}}, ok)

    doc = build(declare)
    assert doc["paths"]["/search"]["get"]["parameters"] == [
        {"name": "q", "in": "query", "schema": {"type": "string"}, "required": True},
        {"name": "page", "in": "query", "schema": {"type": "integer", "default": 1}},
        {"name": "x-trace", "in": "header", "schema": {"type": "string"}},  # lower-cased, as validated
    ]
    assert doc["paths"]["/short"]["get"]["parameters"] == [
        {"name": "limit", "in": "query", "schema": {"type": "integer"}}]
    assert doc["paths"]["/free"]["get"]["parameters"] == [
        {"name": "querystring", "in": "query", "style": "form", "explode": True,
         "schema": {"type": "object", "additionalProperties": {"type": "string"}}}]


def test_request_bodies():
    def declare(app):
        app.post("/json", {"schema": {"body": {"type": "object", "properties": {"a": {"type": "string"}}}}}, ok)
        app.put("/short", {"schema": {"body": {"a": {"type": "string"}}}}, ok)
        app.post("/map", {"schema": {"body": {"content": {
            "application/json": {"schema": {"type": "object"}},
            "text/plain": {"schema": {"type": "string"}}}}}}, ok)
        app.patch("/consumes", {"schema": {"consumes": ["application/merge-patch+json"],
                                           "body": {"type": "object"}}}, ok)
        app.delete("/gone", ok)

    doc = build(declare)
    assert doc["paths"]["/json"]["post"]["requestBody"] == {"required": True, "content": {"application/json": {
        "schema": {"type": "object", "properties": {"a": {"type": "string"}}}}}}
    assert doc["paths"]["/short"]["put"]["requestBody"]["content"]["application/json"]["schema"] == {
        "type": "object", "properties": {"a": {"type": "string"}}}  # normalized as the validator gets it
    assert doc["paths"]["/map"]["post"]["requestBody"]["content"] == {
        "application/json": {"schema": {"type": "object"}}, "text/plain": {"schema": {"type": "string"}}}
    assert list(doc["paths"]["/consumes"]["patch"]["requestBody"]["content"]) == ["application/merge-patch+json"]
    assert "requestBody" not in doc["paths"]["/gone"]["delete"]


def test_responses_exact_class_default_content_maps_and_descriptions():
    def declare(app):
        app.get("/r", {"schema": {"response": {
            200: {"description": "The thing", "type": "object", "properties": {"id": {"type": "integer"}}},
            "4xx": {"type": "object", "properties": {"message": {"type": "string"}}},
            "default": {"type": "object"},
            "201": {"content": {"text/csv": {"schema": {"type": "string"}}}, "description": "As CSV"},
        }}}, ok)
        app.get("/produces", {"schema": {"produces": ["application/json", "application/x-ndjson"],
                                         "response": {200: {"type": "object"}}}}, ok)
        app.get("/none", ok)

    doc = build(declare)
    responses = doc["paths"]["/r"]["get"]["responses"]
    assert list(responses) == ["200", "4XX", "default", "201"]
    assert responses["200"]["description"] == "The thing"
    assert responses["200"]["content"]["application/json"]["schema"]["properties"] == {"id": {"type": "integer"}}
    assert responses["4XX"]["description"] == "Client Error"
    assert responses["default"]["description"] == "Default Response"
    assert responses["201"] == {"description": "As CSV", "content": {"text/csv": {"schema": {"type": "string"}}}}
    assert list(doc["paths"]["/produces"]["get"]["responses"]["200"]["content"]) == [
        "application/json", "application/x-ndjson"]
    assert doc["paths"]["/none"]["get"]["responses"] == {"default": {"description": "Default Response"}}


def test_validation_errors_are_documented_unless_declared_or_turned_off():
    def declare(app):
        app.get("/v/:id", {"schema": {"params": {"id": {"type": "integer"}}}}, ok)
        app.get("/declared/:id", {"schema": {"params": {"id": {"type": "integer"}},
                                             "response": {"4xx": {"type": "object"}}}}, ok)

    doc = build(declare)
    responses = doc["paths"]["/v/{id}"]["get"]["responses"]
    assert responses["400"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/FrameworkError"}
    assert set(doc["components"]["schemas"]["FrameworkError"]["properties"]) == {"statusCode", "code", "error", "message"}
    assert "400" not in doc["paths"]["/declared/{id}"]["get"]["responses"]
    off = build(declare, error_responses=False)
    assert "400" not in off["paths"]["/v/{id}"]["get"]["responses"] and "components" not in off


def test_documentation_keys():
    def declare(app):
        app.get("/a", {"schema": {"summary": "S", "description": "D", "tags": ["t"], "operation_id": "getA",
                                  "deprecated": True, "external_docs": {"url": "https://example.com"},
                                  "security": []}, "config": {"anything": 1}}, ok)
        app.get("/hidden", {"schema": {"hide": True}}, ok)

    doc = build(declare)
    assert doc["paths"]["/a"]["get"] == {
        "summary": "S", "description": "D", "tags": ["t"], "deprecated": True, "security": [],
        "operationId": "getA", "externalDocs": {"url": "https://example.com"},
        "responses": {"default": {"description": "Default Response"}}}
    assert "/hidden" not in doc["paths"]


def test_duplicate_operation_id_fails_ready():
    app = Framework()
    app.register(openapi)
    app.get("/a", {"schema": {"operation_id": "same"}}, ok)
    app.get("/b", {"schema": {"operation_id": "same"}}, ok)
    with pytest.raises(OpenAPIError, match="duplicate operation_id 'same': GET /a and GET /b"):
        app.ready()


def test_shared_schemas_become_components_and_every_ref_form_points_there():
    def declare(app):
        app.add_schema({"$id": "defs", "definitions": {"name": {"type": "string"}},
                        "properties": {"age": {"type": "integer", "minimum": 0}},
                        "anyOf": [{"$id": "#flag", "type": "boolean"}]})
        app.add_schema({"$id": "user", "type": "object",
                        "properties": {"name": {"$ref": "defs#/definitions/name"},
                                       "friend": {"$ref": "#"}, "alias": {"$ref": "#/properties/name"}}})
        app.post("/u", {"schema": {
            "body": {"type": "object", "properties": {
                "whole": {"$ref": "user#"},
                "name": {"$ref": "defs#/definitions/name"},
                "age": {"$ref": "defs#/properties/age"},
                "flag": {"$ref": "defs#flag"},
            }},
            "response": {200: {"$ref": "user#"}},
        }}, ok)
        app.post("/local", {"schema": {"body": {
            "definitions": {"n": {"type": "number"}},
            "type": "object",
            "properties": {"n": {"$ref": "#/definitions/n"}, "m": {"$ref": "#inner"},
                           "inner": {"$id": "#inner", "type": "string"}}}}}, ok)

    doc = build(declare)
    schemas = doc["components"]["schemas"]
    assert schemas["defs"] == {"$defs": {"name": {"type": "string"}},
                               "properties": {"age": {"type": "integer", "minimum": 0}},
                               "anyOf": [{"type": "boolean"}]}
    assert schemas["user"]["properties"] == {"name": {"$ref": "#/components/schemas/defs/$defs/name"},
                                             "friend": {"$ref": "#/components/schemas/user"},
                                             "alias": {"$ref": "#/components/schemas/user/properties/name"}}
    body = doc["paths"]["/u"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"] == {
        "whole": {"$ref": "#/components/schemas/user"},
        "name": {"$ref": "#/components/schemas/defs/$defs/name"},
        "age": {"$ref": "#/components/schemas/defs/properties/age"},
        "flag": {"$ref": "#/components/schemas/defs/anyOf/0"},
    }
    assert doc["paths"]["/u"]["post"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/user"}
    # An inline schema with local references becomes a component of its own.
    local = doc["paths"]["/local"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert local == {"$ref": "#/components/schemas/post_local.body"}
    assert schemas["post_local.body"]["properties"] == {
        "n": {"$ref": "#/components/schemas/post_local.body/$defs/n"},
        "m": {"$ref": "#/components/schemas/post_local.body/properties/inner"},
        "inner": {"type": "string"}}


def test_query_parameters_through_a_shared_schema():
    def declare(app):
        app.add_schema({"$id": "paging", "type": "object", "required": ["page"],
                        "definitions": {"count": {"type": "integer", "minimum": 1}},
                        "properties": {"page": {"$ref": "#/definitions/count"}, "size": {"type": "integer"}}})
        app.get("/list", {"schema": {"querystring": {"$ref": "paging#"}}}, ok)

    doc = build(declare)
    assert doc["paths"]["/list"]["get"]["parameters"] == [
        {"name": "page", "in": "query", "schema": {"$ref": "#/components/schemas/paging/$defs/count"},
         "required": True},
        {"name": "size", "in": "query", "schema": {"type": "integer"}},
    ]


def test_sibling_contexts_with_the_same_id_get_two_components():
    def declare(app):
        def one(instance, opts):
            instance.add_schema({"$id": "thing", "type": "string"})
            instance.get("/one", {"schema": {"response": {200: {"$ref": "thing#"}}}}, ok)

        def two(instance, opts):
            instance.add_schema({"$id": "thing", "type": "integer"})
            instance.get("/two", {"schema": {"response": {200: {"$ref": "thing#"}}}}, ok)

        app.register(one)
        app.register(two)

    doc = build(declare)
    one = doc["paths"]["/one"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    two = doc["paths"]["/two"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert {one, two} == {"#/components/schemas/thing", "#/components/schemas/thing_2"}
    assert doc["components"]["schemas"][one.rsplit("/", 1)[1]] == {"type": "string"}
    assert doc["components"]["schemas"][two.rsplit("/", 1)[1]] == {"type": "integer"}


def test_draft7_keywords_become_openapi_31():
    assert to_openapi_schema({"type": "string", "nullable": True}) == {"type": ["string", "null"]}
    assert to_openapi_schema({"type": ["string", "integer"], "nullable": True}) == {
        "type": ["string", "integer", "null"]}
    assert to_openapi_schema({"enum": ["a"], "nullable": True}) == {"enum": ["a", None]}
    assert to_openapi_schema({"items": [{"type": "string"}], "additionalItems": False}) == {
        "prefixItems": [{"type": "string"}], "items": False}
    assert to_openapi_schema({"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}) == {
        "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}}
    assert to_openapi_schema({"properties": {"definitions": {"type": "string", "nullable": True}}}) == {
        "properties": {"definitions": {"type": ["string", "null"]}}}


def test_merge_patch_and_error_messages_show_the_schemas_as_validated():
    app = Framework(validator={"custom_options": {"all_errors": True}, "plugins": [merge_patch, error_messages]})
    app.register(openapi)
    app.add_schema({"$id": "item", "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string", "errorMessage": "name!"}}})
    app.post("/items", {"schema": {"body": {"$merge": {
        "source": {"$ref": "item#"}, "with": {"properties": {"price": {"type": "number"}}}}}}}, ok)
    app.patch("/items", {"schema": {"body": {"$patch": {
        "source": {"$ref": "item#"}, "with": [{"op": "remove", "path": "/required"}]}}}}, ok)
    doc = document(app)
    merged = doc["paths"]["/items"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert merged == {"type": "object", "required": ["name"],
                      "properties": {"name": {"type": "string"}, "price": {"type": "number"}}}
    patched = doc["paths"]["/items"]["patch"]["requestBody"]["content"]["application/json"]["schema"]
    assert patched == {"type": "object", "properties": {"name": {"type": "string"}}}
    assert doc["components"]["schemas"]["item"]["properties"]["name"] == {"type": "string"}
    # And the validator agrees: price is declared, name required on POST only.
    assert app.inject(method="POST", url="/items", json={"price": 1}).status_code == 400
    assert app.inject(method="PATCH", url="/items", json={"price": 1}).status_code == 200


def test_bearer_auth_marks_the_routes_it_guards():
    app = Framework()
    app.register(openapi)

    def private(instance, opts):
        instance.register(bearer_auth, keys=["k"])
        instance.get("/private", ok)

        def inner(child, opts):
            child.get("/private/deeper", ok)

        instance.register(inner)

    def manual(instance, opts):
        instance.register(bearer_auth, keys=["k"], add_hook=False)

        def routes(inner, opts):
            inner.get("/admin", ok, on_request=inner.verify_bearer_auth)
            inner.get("/status", ok)

        instance.register(routes)

    app.register(private)
    app.register(manual)
    app.get("/public", ok)
    doc = document(app)
    paths = doc["paths"]
    for path in ("/private", "/private/deeper", "/admin"):
        assert paths[path]["get"]["security"] == [{"bearerAuth": []}], path
        assert "401" in paths[path]["get"]["responses"], path
    for path in ("/public", "/status"):
        assert "security" not in paths[path]["get"] and "401" not in paths[path]["get"]["responses"], path
    assert doc["components"]["securitySchemes"] == {"bearerAuth": {"type": "http", "scheme": "bearer"}}
    assert app.inject(url="/admin").status_code == 401 and app.inject(url="/status").status_code == 200


def test_registered_in_a_context_documents_that_context_and_its_descendants():
    app = Framework()
    app.get("/outside", ok)

    def api(instance, opts):
        instance.register(openapi, route_prefix="/docs")
        instance.get("/inside", ok)

        def nested(child, opts):
            child.get("/nested", ok)

        instance.register(nested, prefix="/n")

    app.register(api, prefix="/api")
    app.ready()
    doc = app.inject(url="/api/docs/json").json()
    assert list(doc["paths"]) == ["/api/inside", "/api/n/nested"]
    assert not app.has_decorator("openapi")  # the decorator lives in the api context


def test_transform_rewrites_each_operation():
    seen = []

    def transform(operation, route):
        seen.append((route.method, route.url))
        return {**operation, "x-handler": route.options["handler"].__name__}

    doc = build(lambda app: app.get("/t", ok), transform=transform)
    assert seen == [("GET", "/t")]
    assert doc["paths"]["/t"]["get"]["x-handler"] == "ok"


def test_prefixed_root_route_is_documented_once():
    def declare(app):
        def items(instance, opts):
            instance.get("/", ok)
        app.register(items, prefix="/items")

    assert list(build(declare)["paths"]) == ["/items"]


def test_the_document_is_built_once_and_served_as_cached_bytes(monkeypatch):
    import framework.plugins.openapi as module
    calls = []
    real = module.build_document

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "build_document", counting)
    app = Framework()
    app.register(openapi)
    app.get("/a", ok)
    app.ready()
    assert len(calls) == 1
    bodies = {app.inject(url="/documentation/json").body for _ in range(5)}
    app.openapi()
    app.openapi()["paths"].clear()  # a copy: the cached document is untouched
    assert len(calls) == 1 and len(bodies) == 1
    assert "/a" in json.loads(bodies.pop())["paths"] and "/a" in app.openapi()["paths"]


def test_the_page_and_its_assets_are_served_from_the_package():
    app = Framework()
    app.register(openapi, info={"title": "<Pets>", "version": "1"})
    app.ready()
    page = app.inject(url="/documentation")
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    assert "&lt;Pets&gt;" in page.text and "//" not in page.text.replace("<!DOCTYPE", "")  # no CDN, no scheme
    assert 'data-url="/documentation/json"' in page.text
    init = app.inject(url="/documentation/static/init.js")
    assert b"dataset.url" in init.body and b"validatorUrl: null" in init.body
    script = app.inject(url="/documentation/static/swagger-ui-bundle.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.body
    assert app.inject(url="/documentation/static/swagger-ui.css").status_code == 200
    assert app.inject(url="/documentation/static/index.html").status_code == 404


def test_options_are_checked():
    for options, message in (({"nope": 1}, "unknown option"), ({"info": {"title": "t"}}, "info must be"),
                             ({"transform": 1}, "transform must be"), ({"route_prefix": "docs"}, "route_prefix"),
                             ({"servers": ["http://x"]}, "servers must be")):
        app = Framework()
        app.register(openapi, **options)
        with pytest.raises(OpenAPIError, match=message):
            app.ready()


def test_without_routes_served():
    app = Framework()
    app.register(openapi, route_prefix=None)
    app.get("/a", ok)
    app.ready()
    assert app.inject(url="/documentation/json").status_code == 404
    assert list(app.openapi()["paths"]) == ["/a"]


def test_remove_additional_false_keeps_closed_objects():
    schema = {"type": "object", "additionalProperties": False, "properties": {"a": {"type": "string"}}}
    default = build(lambda app: app.post("/x", {"schema": {"body": schema}}, ok))
    kept = build(lambda app: app.post("/x", {"schema": {"body": schema}}, ok), remove_additional=False)

    def body(doc):
        return doc["paths"]["/x"]["post"]["requestBody"]["content"]["application/json"]["schema"]

    assert "additionalProperties" not in body(default)
    assert body(kept)["additionalProperties"] is False


def test_docstring_example_and_doctests():
    import doctest

    import framework.plugins.openapi
    from test_plugin_docstrings import first_example

    namespace = first_example(framework.plugins.openapi)
    assert "/items/{id}" in namespace["document"]["paths"]
    result = doctest.testmod(framework.plugins.openapi)
    assert result.attempted > 0 and result.failed == 0
