"""framework.plugins.merge_patch through the engine: $merge/$patch in route schemas."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.plugins.merge_patch import merge_patch

ITEM = {"$id": "item", "type": "object", "required": ["name"],
        "properties": {"name": {"type": "string", "maxLength": 10},
                       "qty": {"$ref": "#/definitions/qty"}},
        "definitions": {"qty": {"type": "integer", "minimum": 1}},
        "additionalProperties": False}


def make_app(plugins=(merge_patch,)):
    app = Framework(validator={"plugins": list(plugins)})
    app.add_schema(ITEM)
    echo = lambda request, reply: request.body  # noqa: E731
    app.post("/merged", {"schema": {"body": {"$merge": {
        "source": {"$ref": "item#"},
        "with": {"properties": {"price": {"type": "number"}}, "required": ["name", "price"]}}}}}, echo)
    app.post("/patched", {"schema": {"body": {"$patch": {
        "source": {"$ref": "item#"},
        "with": [{"op": "remove", "path": "/required"},
                 {"op": "add", "path": "/properties/note", "value": {"type": "string"}}]}}}}, echo)
    app.post("/inline", {"schema": {"body": {"$merge": {
        "source": {"type": "object", "properties": {"a": {"type": "integer"}}},
        "with": [{"required": ["a"]}, {"properties": {"b": {"type": "boolean", "default": False}}}]}}}}, echo)
    app.post("/nested", {"schema": {"body": {"type": "object", "properties": {
        "items": {"type": "array", "maxItems": 2,
                  "items": {"$merge": {"source": {"$ref": "item#"}, "with": {"required": ["name", "qty"]}}}}}}}},
             echo)
    return app


def post(app, url, body):
    return app.inject(method="POST", url=url, json=body)


def test_merge_adds_a_property_and_requirement():
    app = make_app()
    ok = post(app, "/merged", {"name": "pen", "price": 1.5, "extra": True})
    assert ok.status_code == 200
    assert ok.json() == {"name": "pen", "price": 1.5}  # additionalProperties: false kept from the source
    missing = post(app, "/merged", {"name": "pen"})
    assert missing.status_code == 400
    assert missing.json()["message"] == "body should have required property 'price'"


def test_merged_source_keeps_its_local_refs():
    bad = post(make_app(), "/merged", {"name": "pen", "price": 1, "qty": 0})
    assert bad.status_code == 400
    assert bad.json()["message"] == "body/qty should be >= 1"


def test_patch_removes_required_and_adds_property():
    app = make_app()
    assert post(app, "/patched", {"note": "hi"}).json() == {"note": "hi"}
    bad = post(app, "/patched", {"note": 5, "name": "x" * 11})
    assert bad.status_code == 400
    assert bad.json()["message"] == "body/name should NOT have more than 10 characters"


def test_inline_source_and_list_of_patches():
    app = make_app()
    assert post(app, "/inline", {"a": "7"}).json() == {"a": 7, "b": False}  # coercion and defaults apply
    assert post(app, "/inline", {}).json()["message"] == "body should have required property 'a'"


def test_nested_in_items():
    app = make_app()
    assert post(app, "/nested", {"items": [{"name": "a", "qty": 2}]}).status_code == 200
    bad = post(app, "/nested", {"items": [{"name": "a", "qty": 2}, {"name": "b"}]})
    assert bad.json()["message"] == "body/items/1 should have required property 'qty'"


def test_shared_schema_is_unchanged_for_other_routes():
    app = make_app()
    app.post("/plain", {"schema": {"body": {"$ref": "item#"}}}, lambda request, reply: request.body)
    assert post(app, "/plain", {"name": "a"}).status_code == 200  # no "price" required here
    assert app.get_schema("item") == ITEM


def test_shared_schema_built_with_merge():
    app = Framework(validator={"plugins": [merge_patch]})
    app.add_schema({"$id": "base", "type": "object", "properties": {"id": {"type": "integer"}}})
    app.add_schema({"$id": "user", "$merge": {"source": {"$ref": "base#"},
                                              "with": {"properties": {"name": {"type": "string"}},
                                                       "required": ["id", "name"]}}})
    app.post("/users", {"schema": {"body": {"$ref": "user#"}}}, lambda request, reply: request.body)
    assert post(app, "/users", {"id": "3", "name": "x"}).json() == {"id": 3, "name": "x"}
    assert post(app, "/users", {"id": 3}).json()["message"] == "body should have required property 'name'"


def test_params_and_querystring_schemas_too():
    app = Framework(validator={"plugins": [merge_patch]})
    app.get("/q/:id", {"schema": {
        "params": {"$merge": {"source": {"type": "object", "properties": {"id": {"type": "integer"}}},
                              "with": {"required": ["id"]}}},
        "querystring": {"$patch": {"source": {"type": "object", "properties": {"n": {"type": "string"}}},
                                   "with": [{"op": "replace", "path": "/properties/n/type", "value": "integer"}]}},
    }}, lambda request, reply: {"id": request.params["id"], "n": request.query.get("n")})
    assert app.inject(method="GET", url="/q/5?n=2").json() == {"id": 5, "n": 2}
    assert app.inject(method="GET", url="/q/x").json()["message"] == "params/id should be integer"


@pytest.mark.parametrize("schema,match", [
    ({"$merge": {"source": {"$ref": "missing#"}, "with": {}}}, "can't resolve the source reference 'missing#'"),
    ({"$patch": {"source": {"type": "object"}, "with": [{"op": "test", "path": "/type", "value": "array"}]}},
     "test failed"),
    ({"$merge": {"with": {}}}, "needs an object with 'source' and 'with'"),
])
def test_bad_merge_or_patch_fails_ready(schema, match):
    app = Framework(validator={"plugins": [merge_patch]})
    app.post("/", {"schema": {"body": schema}}, lambda request, reply: {})
    with pytest.raises(Exception, match=match):
        app.ready()


def test_without_the_plugin_merge_is_an_unknown_keyword():
    # Control for the tests above: without the plugin nothing would be merged, so strict
    # mode refuses the keyword; with strict off the body /merged refuses with the plugin
    # is accepted.
    def build(**validator):
        app = Framework(validator=validator)
        app.add_schema(ITEM)
        app.post("/merged", {"schema": {"body": {"$merge": {
            "source": {"$ref": "item#"}, "with": {"required": ["name", "price"]}}}}},
            lambda request, reply: {"ok": True})
        return app
    with pytest.raises(Exception, match=r'strict mode: unknown keyword "\$merge" at body#/'):
        build().ready()
    assert post(build(custom_options={"strict": False}), "/merged", {"name": "pen"}).json() == {"ok": True}
