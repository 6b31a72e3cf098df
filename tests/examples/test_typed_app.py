"""examples/typed_app.py through inject: the schemas its types declare are enforced, and
its answers are shaped by its return types."""
from __future__ import annotations

import importlib
from typing import Any

import pytest


@pytest.fixture
def app() -> Any:
    module = importlib.import_module("examples.typed_app")
    return importlib.reload(module).app  # fresh items for each test


def test_create_validates_the_typeddict_body_and_answers_the_dataclass(app: Any) -> None:
    created = app.inject("POST", "/items", json={"name": "pen", "size": "S", "tags": ["blue"], "extra": 1},
                         headers={"x-user": "ada"})
    assert created.status_code == 201
    assert created.json() == {"id": 1, "name": "pen", "size": "S", "tags": ["blue"], "owner": "ada"}
    for body, message in [({"name": "", "size": "S"}, "body/name should NOT have fewer than 1 characters"),
                          ({"name": "pen", "size": "XL"}, "body/size should be equal to one of the allowed values"),
                          ({"size": "S"}, "body should have required property 'name'"),
                          ({"name": "pen", "size": "S", "tags": ["x" * 31]},
                           "body/tags/0 should NOT have more than 30 characters")]:
        refused = app.inject("POST", "/items", json=body)
        assert (refused.status_code, refused.json()["message"]) == (400, message)


def test_the_annotated_query_coerces_and_bounds(app: Any) -> None:
    for name, size in [("a", "S"), ("b", "M"), ("c", "S")]:
        app.inject("POST", "/items", json={"name": name, "size": size})
    listed = app.inject("GET", "/items?size=S&limit=1")
    assert listed.json() == [{"id": 1, "name": "a", "size": "S", "tags": [], "owner": "anonymous"}]
    assert [item["name"] for item in app.inject("GET", "/items?size=S").json()] == ["a", "c"]
    refused = app.inject("GET", "/items?limit=101")
    assert (refused.status_code, refused.json()["message"]) == (400, "querystring/limit should be <= 100")


def test_params_are_coerced_to_int_and_a_missing_item_is_a_404(app: Any) -> None:
    app.inject("POST", "/items", json={"name": "pen", "size": "L"})
    assert app.inject("GET", "/items/1").json()["name"] == "pen"
    missing = app.inject("GET", "/items/9")
    assert (missing.status_code, missing.json()["message"]) == (404, "Item 9 not found")
    refused = app.inject("GET", "/items/zero")
    assert (refused.status_code, refused.json()["message"]) == (400, "params/id should be integer")
    assert app.inject("GET", "/items/0").status_code == 400
