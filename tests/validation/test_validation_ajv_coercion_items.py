"""Issue 11, validator items 1-4: coercion and defaults as Ajv 8 does them, through routes.

Each case failed before the fix. The expected outcomes were checked against Ajv 8 itself
(``coerceTypes: "array"``, ``useDefaults``, ``removeAdditional: true``: Fastify 4's options).
"""
from __future__ import annotations

import pytest

from framework import Framework


def echo(request, reply):
    return {"body": request.body}


def post(schema, body, **options):
    app = Framework(**({"validator": {"custom_options": options}} if options else {}))
    app.post("/x", {"schema": {"body": schema}}, echo)
    return app.inject(method="POST", url="/x", json=body)


# ---------------------------------------------------------------------- 1. no unwrap into objects

@pytest.mark.parametrize("schema, body, message", [
    ({"type": "object"}, [{}], "body should be object"),
    ({"type": "object", "properties": {"a": {"type": "object", "properties": {"x": {"type": "number"}}}}},
     {"a": [{"x": "1"}]}, "body/a should be object"),
    ({"type": "object", "properties": {"a": {"type": ["object", "string"]}}}, {"a": [{}]},
     "body/a should be object,string"),
    ({"type": "object", "properties": {"a": {"type": "string"}}}, {"a": [{}]}, "body/a should be string"),
    ({"type": "object", "properties": {"a": {"type": "number"}}}, {"a": [[1]]}, "body/a should be number"),
])
def test_a_one_item_array_is_never_unwrapped_into_an_object_or_array(schema, body, message):
    response = post(schema, body)
    assert response.status_code == 400 and response.json()["message"] == message


def test_a_one_item_array_is_still_unwrapped_into_a_scalar():
    schema = {"type": "object", "properties": {"s": {"type": "string"}, "n": {"type": "integer"},
                                               "o": {"type": ["object", "number"]}}}
    response = post(schema, {"s": ["abc"], "n": ["5"], "o": ["2"]})
    assert response.status_code == 200 and response.json()["body"] == {"s": "abc", "n": 5, "o": 2}


def test_object_in_a_tuple_slot_is_not_unwrapped():
    # Item 4: a tuple item that fails its schema is rejected, not coerced.
    schema = {"type": "array", "items": [{"type": "boolean"}, {"type": "object"}]}
    response = post(schema, ["true", [{}]])
    assert response.status_code == 400 and response.json()["message"] == "body/1 should be object"


def test_a_too_long_tuple_is_rejected_before_its_items_are_coerced():
    schema = {"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "number"}],
                                                     "additionalItems": False}}}
    app = Framework()
    seen = []
    app.post("/x", {"schema": {"body": schema}, "attach_validation": True},
             lambda request, reply: seen.append(request.body) or {"ok": True})
    body = {"t": ["1", "2"]}
    assert app.inject(method="POST", url="/x", json=body).status_code == 200
    assert seen == [{"t": ["1", "2"]}]


# ---------------------------------------------------------------------- 2. uniqueItems after coercion

@pytest.mark.parametrize("all_errors", [False, True])
def test_unique_items_judges_the_coerced_items(all_errors):
    schema = {"type": "array", "items": {"type": "number"}, "uniqueItems": True}
    response = post(schema, [1, "2", 2], all_errors=all_errors)
    assert response.status_code == 400
    assert response.json()["message"] == "body should NOT have duplicate items (items ## 2 and 1 are identical)"
    assert post(schema, [1, "2", 3], all_errors=all_errors).json()["body"] == [1, 2, 3]


def test_contains_judges_the_coerced_items():
    schema = {"type": "array", "items": {"type": "number"}, "contains": {"const": 2}}
    assert post(schema, [1, "2", 3]).json()["body"] == [1, 2, 3]
    response = post(schema, [1, "3", 4])
    assert response.status_code == 400 and response.json()["message"] == "body should contain at least 1 valid item(s)"


# ---------------------------------------------------------------------- 3. "empty" tuple defaults

TUPLE = {"type": "array", "items": [{"type": "string", "default": "x"}, {"type": "number", "default": 5}]}


@pytest.mark.parametrize("body, result", [
    ([None, ""], ["x", 5]),
    (["", None], ["x", 5]),
    ([None], ["x", 5]),
    ([""], ["x", 5]),
    (["a", None, 3], ["a", 5, 3]),
    ([], ["x", 5]),
    (["a", 0], ["a", 0]),
])
def test_use_defaults_empty_fills_null_and_empty_tuple_items(body, result):
    response = post(TUPLE, body, use_defaults="empty")
    assert response.status_code == 200 and response.json()["body"] == result


def test_use_defaults_true_keeps_null_tuple_items():
    response = post(TUPLE, [None, 1])
    assert response.status_code == 200 and response.json()["body"] == ["", 1]   # null coerced to ""
