"""The plugins' docstrings work as written: their doctests pass and their examples run."""
from __future__ import annotations

import doctest
import textwrap

import pytest

import framework.plugins.bearer_auth
import framework.plugins.error_messages
import framework.plugins.i18n
import framework.plugins.merge_patch


@pytest.mark.parametrize("module", [framework.plugins.i18n, framework.plugins.merge_patch])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def first_example(module) -> dict:
    """Run the first ``::`` block of the module docstring; return its namespace."""
    lines = module.__doc__.splitlines()
    start = next(i for i, line in enumerate(lines) if line.rstrip().endswith("::")) + 1
    block = []
    for line in lines[start:]:
        if line.strip() and not line.startswith("    "):
            break
        block.append(line)
    namespace: dict = {}
    exec(compile(textwrap.dedent("\n".join(block)), f"<{module.__name__} docstring>", "exec"), namespace)
    return namespace


def test_bearer_auth_example():
    app = first_example(framework.plugins.bearer_auth)["app"]

    def get(url, authorization=None):
        return app.inject(url=url, headers={"authorization": authorization} if authorization else None)

    assert (get("/public").status_code, get("/public").json()) == (200, {"hello": "world"})
    for authorization, status, body, challenge in [
        (None, 401, {"error": "missing authorization header"}, "Bearer"),
        ("Bearer nope", 401, {"error": "invalid authorization header"}, 'Bearer error="invalid_token"'),
        ("Basic a-secret-key", 401, {"error": "invalid authorization header"}, 'Bearer error="invalid_request"'),
        ("Bearer a-secret-key", 200, {"hello": "friend"}, None),
    ]:
        response = get("/private", authorization)
        assert (response.status_code, response.json(), response.headers.get("www-authenticate")) == \
            (status, body, challenge)


def test_error_messages_example():
    app = first_example(framework.plugins.error_messages)["app"]
    assert app.inject(method="POST", url="/users", json={"name": ""}).json()["message"] == \
        "body/name name must be a non-empty string, body age is required"
    assert app.inject(method="POST", url="/users", json={"name": "a", "age": -1}).json()["message"] == \
        "body/age age cannot be negative"


def test_merge_patch_example():
    app = first_example(framework.plugins.merge_patch)["app"]
    assert app.inject(method="POST", url="/items", json={"name": "a", "price": 1}).json() == \
        {"name": "a", "price": 1}
    assert app.inject(method="POST", url="/items", json={"name": "a"}).json()["message"] == \
        "body should have required property 'price'"
    assert app.inject(method="PATCH", url="/items/1", json={}).json() == {}


def test_i18n_example():
    app = first_example(framework.plugins.i18n)["app"]
    response = app.inject(method="POST", url="/users", json={})
    assert response.status_code == 400
    assert response.json() == [{"keyword": "required", "instance_path": "", "schema_path": "#/required",
                                "params": {"missingProperty": "name"},
                                "message": "muss das erforderliche Attribut 'name' enthalten"}]
    assert app.inject(method="POST", url="/users", json={"name": "x"}).json() == {"ok": True}
