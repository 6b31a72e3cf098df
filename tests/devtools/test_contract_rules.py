"""``contract check``'s classification, one schema change per row, as oasdiff classifies it.

Each row declares a route twice (before and after one change) on a real application, locks
both with :func:`framework.devtools.contract.lock` and checks that :func:`check` finds
exactly that change: oasdiff's rule id, whether ``oasdiff breaking`` reports it (its ``ERR``
and ``WARN`` levels; ``INFO`` is compatible) and the JSON pointer into the route's entry.
The levels are oasdiff's rule table (``checker/rules.go`` as of v1.11); ids in ``OWN_RULES``
are not oasdiff's. Security follows oasdiff's later release (v1.30: a removed alternative
requirement and an added scope fail ``breaking``), and a requirement on a route that had none
is breaking, as the issue asks (a client without credentials now gets 401); a requirement
added beside others, or the last one removed, is compatible.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from framework import Framework
from framework.devtools.contract import OWN_RULES, RULES, check, lock

ROUTE = "POST /things"


def body(properties: dict[str, Any], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    return {"body": {"type": "object", "properties": properties, "required": list(required), **extra}}


def query(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"querystring": {"type": "object", "properties": properties, "required": list(required)}}


def headers(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"headers": {"type": "object", "properties": properties, "required": list(required)}}


def reply(properties: dict[str, Any], required: tuple[str, ...] = (), status: int = 200) -> dict[str, Any]:
    return {"response": {status: {"type": "object", "properties": properties, "required": list(required)}}}


def field(name: str, required: bool = True, **schema: Any) -> dict[str, Any]:
    """``body({name: schema}, required)``: one body property."""
    return body({name: schema}, (name,) if required else ())


def qfield(name: str, required: bool = False, **schema: Any) -> dict[str, Any]:
    return query({name: schema}, (name,) if required else ())


def rfield(name: str, required: bool = True, **schema: Any) -> dict[str, Any]:
    return reply({name: schema}, (name,) if required else ())


STR = {"type": "string"}
INT = {"type": "integer"}


class Row(NamedTuple):
    rule: str
    breaking: bool
    before: Any
    after: Any
    pointer: str
    route: str = ROUTE


BODY = "/request/body/application~1json"
QUERY = "/request/querystring/properties"
OK_200 = "/responses/200/application~1json"

ROWS = [
    # ---- request body properties
    Row("new-required-request-property", True, body({"a": STR}, ("a",)), body({"a": STR, "b": STR}, ("a", "b")),
        f"{BODY}/properties/b"),
    Row("new-optional-request-property", False, body({"a": STR}), body({"a": STR, "b": STR}), f"{BODY}/properties/b"),
    Row("new-required-request-property-with-default", False, body({"a": STR}),
        body({"a": STR, "b": {"type": "string", "default": "x"}}, ("b",)), f"{BODY}/properties/b"),
    Row("request-property-removed", True, body({"a": STR, "b": STR}), body({"a": STR}), f"{BODY}/properties/b"),
    Row("request-property-became-required", True, field("a", False, type="string"), field("a", type="string"),
        f"{BODY}/properties/a"),
    Row("request-property-became-optional", False, field("a", type="string"), field("a", False, type="string"),
        f"{BODY}/properties/a"),
    Row("request-property-type-changed", True, field("a", type="string"), field("a", type="integer"),
        f"{BODY}/properties/a/type"),
    Row("request-property-type-generalized", False, field("a", type="integer"), field("a", type="number"),
        f"{BODY}/properties/a/type"),
    Row("request-property-max-length-decreased", True, field("a", type="string", maxLength=100),
        field("a", type="string", maxLength=50), f"{BODY}/properties/a/maxLength"),
    Row("request-property-max-length-increased", False, field("a", type="string", maxLength=50),
        field("a", type="string", maxLength=100), f"{BODY}/properties/a/maxLength"),
    Row("request-property-max-length-set", True, field("a", type="string"), field("a", type="string", maxLength=9),
        f"{BODY}/properties/a/maxLength"),
    Row("request-property-min-length-increased", True, field("a", type="string", minLength=1),
        field("a", type="string", minLength=3), f"{BODY}/properties/a/minLength"),
    Row("request-property-min-length-decreased", False, field("a", type="string", minLength=3),
        field("a", type="string", minLength=1), f"{BODY}/properties/a/minLength"),
    Row("request-property-max-decreased", True, field("a", type="number", maximum=10),
        field("a", type="number", maximum=5), f"{BODY}/properties/a/maximum"),
    Row("request-property-max-increased", False, field("a", type="number", maximum=5),
        field("a", type="number", maximum=10), f"{BODY}/properties/a/maximum"),
    Row("request-property-min-increased", True, field("a", type="number", minimum=0),
        field("a", type="number", minimum=1), f"{BODY}/properties/a/minimum"),
    Row("request-property-min-decreased", False, field("a", type="number", minimum=1),
        field("a", type="number", minimum=0), f"{BODY}/properties/a/minimum"),
    Row("request-property-min-set", True, field("a", type="number"), field("a", type="number", minimum=0),
        f"{BODY}/properties/a/minimum"),
    Row("request-property-pattern-added", True, field("a", type="string"),
        field("a", type="string", pattern="^[a-z]+$"), f"{BODY}/properties/a/pattern"),
    Row("request-property-pattern-changed", True, field("a", type="string", pattern="^[a-z]+$"),
        field("a", type="string", pattern="^[a-z0-9]+$"), f"{BODY}/properties/a/pattern"),
    Row("request-property-pattern-removed", False, field("a", type="string", pattern="^[a-z]+$"),
        field("a", type="string"), f"{BODY}/properties/a/pattern"),
    Row("request-property-became-enum", True, field("a", type="string"), field("a", type="string", enum=["x", "y"]),
        f"{BODY}/properties/a/enum"),
    Row("request-property-enum-value-removed", True, field("a", type="string", enum=["x", "y"]),
        field("a", type="string", enum=["x"]), f"{BODY}/properties/a/enum"),
    Row("request-property-enum-value-added", False, field("a", type="string", enum=["x"]),
        field("a", type="string", enum=["x", "y"]), f"{BODY}/properties/a/enum"),
    Row("request-property-became-not-nullable", True, field("a", type=["string", "null"]), field("a", type="string"),
        f"{BODY}/properties/a/type"),
    Row("request-property-became-nullable", False, field("a", type="string"), field("a", type="string", nullable=True),
        f"{BODY}/properties/a/type"),
    Row("request-property-min-items-increased", True, field("a", type="array", items=STR, minItems=1),
        field("a", type="array", items=STR, minItems=2), f"{BODY}/properties/a/minItems"),
    Row("request-property-min-items-set", True, field("a", type="array", items=STR),
        field("a", type="array", items=STR, minItems=1), f"{BODY}/properties/a/minItems"),
    Row("request-property-any-of-removed", True, field("a", anyOf=[STR, INT, {"type": "boolean"}]),
        field("a", anyOf=[STR, INT]), f"{BODY}/properties/a/anyOf/2"),
    Row("request-property-one-of-added", False, field("a", oneOf=[STR, INT]),
        field("a", oneOf=[STR, INT, {"type": "boolean"}]), f"{BODY}/properties/a/oneOf/2"),
    Row("request-property-default-value-changed", False, field("a", False, type="string", default="x"),
        field("a", False, type="string", default="y"), f"{BODY}/properties/a/default"),
    Row("request-property-type-changed", True, body({"a": {"type": "object", "properties": {"b": INT}}}),
        body({"a": {"type": "object", "properties": {"b": STR}}}), f"{BODY}/properties/a/properties/b/type"),
    # ---- the request body itself
    Row("request-body-added-required", True, {}, body({"a": STR}), "/request/body"),
    Row("request-body-media-type-removed", True,
        {"body": {"content": {"application/json": {"schema": STR}, "text/plain": {"schema": STR}}}},
        {"body": {"content": {"application/json": {"schema": STR}}}}, "/request/body/text~1plain"),
    Row("request-body-media-type-added", False, {"body": {"content": {"application/json": {"schema": STR}}}},
        {"body": {"content": {"application/json": {"schema": STR}, "text/plain": {"schema": STR}}}},
        "/request/body/text~1plain"),
    Row("request-body-type-changed", True, {"body": {"type": "object"}}, {"body": {"type": "array"}}, f"{BODY}/type"),
    Row("request-body-max-length-decreased", True, {"body": {"type": "string", "maxLength": 9}},
        {"body": {"type": "string", "maxLength": 8}}, f"{BODY}/maxLength"),
    # ---- parameters: query string, headers, path
    Row("new-required-request-parameter", True, qfield("a", type="string"), query({"a": STR, "b": STR}, ("b",)),
        f"{QUERY}/b"),
    Row("new-optional-request-parameter", False, qfield("a", type="string"), query({"a": STR, "b": STR}),
        f"{QUERY}/b"),
    Row("new-required-request-parameter", True, {}, headers({"X-Tenant": STR}, ("X-Tenant",)),
        "/request/headers/properties/x-tenant"),
    Row("request-parameter-became-required", True, qfield("a", type="string"), qfield("a", True, type="string"),
        f"{QUERY}/a"),
    Row("request-parameter-became-optional", False, qfield("a", True, type="string"), qfield("a", type="string"),
        f"{QUERY}/a"),
    Row("request-parameter-removed", True, query({"a": STR, "b": STR}), qfield("a", type="string"), f"{QUERY}/b"),
    Row("request-parameter-max-decreased", True, qfield("limit", type="integer", maximum=100),
        qfield("limit", type="integer", maximum=50), f"{QUERY}/limit/maximum"),
    Row("request-parameter-max-increased", False, qfield("limit", type="integer", maximum=50),
        qfield("limit", type="integer", maximum=100), f"{QUERY}/limit/maximum"),
    Row("request-parameter-min-increased", True, qfield("limit", type="integer", minimum=1),
        qfield("limit", type="integer", minimum=5), f"{QUERY}/limit/minimum"),
    Row("request-parameter-max-length-decreased", True, headers({"x-tag": {"type": "string", "maxLength": 20}}),
        headers({"x-tag": {"type": "string", "maxLength": 10}}), "/request/headers/properties/x-tag/maxLength"),
    Row("request-parameter-min-length-increased", True, qfield("q", type="string", minLength=1),
        qfield("q", type="string", minLength=2), f"{QUERY}/q/minLength"),
    Row("request-parameter-pattern-added", True, qfield("q", type="string"), qfield("q", type="string", pattern="^a"),
        f"{QUERY}/q/pattern"),
    Row("request-parameter-became-enum", True, qfield("sort", type="string"),
        qfield("sort", type="string", enum=["asc", "desc"]), f"{QUERY}/sort/enum"),
    Row("request-parameter-enum-value-removed", True, qfield("sort", type="string", enum=["asc", "desc"]),
        qfield("sort", type="string", enum=["asc"]), f"{QUERY}/sort/enum"),
    Row("request-parameter-enum-value-added", False, qfield("sort", type="string", enum=["asc"]),
        qfield("sort", type="string", enum=["asc", "desc"]), f"{QUERY}/sort/enum"),
    Row("request-parameter-type-changed", True, {"params": {"id": STR}}, {"params": {"id": INT}},
        "/request/params/properties/id/type", "POST /things/:id"),
    Row("request-parameter-type-generalized", False, qfield("n", type="integer"), qfield("n", type="number"),
        f"{QUERY}/n/type"),
    Row("request-parameter-default-value-changed", True, qfield("limit", type="integer", default=20),
        qfield("limit", type="integer", default=10), f"{QUERY}/limit/default"),
    Row("request-parameter-max-items-decreased", True, qfield("tag", type="array", items=STR, maxItems=5),
        qfield("tag", type="array", items=STR, maxItems=3), f"{QUERY}/tag/maxItems"),
    # ---- responses
    Row("response-required-property-removed", True, reply({"a": STR, "b": STR}, ("a", "b")), reply({"a": STR}, ("a",)),
        f"{OK_200}/properties/b"),
    Row("response-optional-property-removed", True, reply({"a": STR, "b": STR}), reply({"a": STR}),
        f"{OK_200}/properties/b"),
    Row("response-optional-property-added", False, reply({"a": STR}), reply({"a": STR, "b": STR}),
        f"{OK_200}/properties/b"),
    Row("response-required-property-added", False, reply({"a": STR}), reply({"a": STR, "b": STR}, ("b",)),
        f"{OK_200}/properties/b"),
    Row("response-property-became-optional", True, rfield("a", type="string"), rfield("a", False, type="string"),
        f"{OK_200}/properties/a"),
    Row("response-property-became-required", False, rfield("a", False, type="string"), rfield("a", type="string"),
        f"{OK_200}/properties/a"),
    Row("response-property-type-changed", True, rfield("a", type="integer"), rfield("a", type="string"),
        f"{OK_200}/properties/a/type"),
    Row("response-body-type-changed", True, {"response": {200: {"type": "object"}}},
        {"response": {200: {"type": "array"}}}, f"{OK_200}/type"),
    Row("response-property-became-nullable", True, rfield("a", type="string"), rfield("a", type=["string", "null"]),
        f"{OK_200}/properties/a/type"),
    Row("response-property-enum-value-added", True, rfield("s", type="string", enum=["on"]),
        rfield("s", type="string", enum=["on", "off"]), f"{OK_200}/properties/s/enum"),
    Row("response-property-enum-value-removed", False, rfield("s", type="string", enum=["on", "off"]),
        rfield("s", type="string", enum=["on"]), f"{OK_200}/properties/s/enum"),
    Row("response-property-max-length-increased", True, rfield("a", type="string", maxLength=5),
        rfield("a", type="string", maxLength=9), f"{OK_200}/properties/a/maxLength"),
    Row("response-property-max-length-unset", True, rfield("a", type="string", maxLength=5), rfield("a", type="string"),
        f"{OK_200}/properties/a/maxLength"),
    Row("response-property-min-decreased", True, rfield("a", type="integer", minimum=1),
        rfield("a", type="integer", minimum=0), f"{OK_200}/properties/a/minimum"),
    Row("response-property-max-increased", True, rfield("a", type="integer", maximum=9),
        rfield("a", type="integer", maximum=99), f"{OK_200}/properties/a/maximum"),
    Row("response-property-min-items-decreased", True, rfield("a", type="array", items=STR, minItems=2),
        rfield("a", type="array", items=STR, minItems=1), f"{OK_200}/properties/a/minItems"),
    Row("response-property-pattern-added", False, rfield("a", type="string"), rfield("a", type="string", pattern="^x"),
        f"{OK_200}/properties/a/pattern"),
    Row("response-property-one-of-added", True, rfield("a", oneOf=[STR, INT]),
        rfield("a", oneOf=[STR, INT, {"type": "boolean"}]), f"{OK_200}/properties/a/oneOf/2"),
    Row("response-success-status-removed", True, {"response": {200: STR, 404: STR}}, {"response": {404: STR}},
        "/responses/200"),
    Row("response-success-status-added", False, {"response": {200: STR}}, {"response": {200: STR, 201: STR}},
        "/responses/201"),
    Row("response-non-success-status-removed", False, {"response": {200: STR, 404: STR}}, {"response": {200: STR}},
        "/responses/404"),
    Row("response-non-success-status-added", False, {"response": {200: STR}}, {"response": {200: STR, 409: STR}},
        "/responses/409"),
    Row("response-media-type-removed", True,
        {"response": {200: {"content": {"application/json": {"schema": STR}, "text/csv": {"schema": STR}}}}},
        {"response": {200: {"content": {"application/json": {"schema": STR}}}}}, "/responses/200/text~1csv"),
    # ---- ids of our own (OWN_RULES): what oasdiff's table does not classify
    Row("schema-keyword-changed", True, field("a", type="number"), field("a", type="number", multipleOf=2),
        f"{BODY}/properties/a/multipleOf"),
    Row("request-body-removed", False, body({"a": STR}), {}, "/request/body"),
    Row("response-property-became-not-nullable", False, rfield("a", type=["string", "null"]), rfield("a", type="string"),
        f"{OK_200}/properties/a/type"),
    Row("response-property-max-length-decreased", False, rfield("a", type="string", maxLength=9),
        rfield("a", type="string", maxLength=5), f"{OK_200}/properties/a/maxLength"),
    # ---- routes and auth (security from the route's own schema: no openapi plugin here)
    Row("endpoint-added", False, None, {}, ""),
    Row("api-path-removed-without-deprecation", True, {}, None, ""),
    Row("api-removed-with-deprecation", False, {"deprecated": True}, None, ""),
    Row("api-security-added", True, {"security": []}, {"security": [{"bearerAuth": []}]}, "/security"),  # own level
    Row("api-security-added", False, {"security": [{"bearerAuth": []}]},
        {"security": [{"bearerAuth": []}, {"apiKey": []}]}, "/security"),
    Row("api-security-removed", True, {"security": [{"bearerAuth": []}, {"apiKey": []}]},
        {"security": [{"bearerAuth": []}]}, "/security"),
    Row("api-security-removed", False, {"security": [{"bearerAuth": []}]}, {"security": []}, "/security"),
    Row("api-security-scope-added", True, {"security": [{"oauth": ["read"]}]},
        {"security": [{"oauth": ["read", "write"]}]}, "/security"),
    Row("api-security-scope-removed", False, {"security": [{"oauth": ["read", "write"]}]},
        {"security": [{"oauth": ["read"]}]}, "/security"),
]


def contract(schema: dict[str, Any] | None, route: str = ROUTE) -> dict[str, Any]:
    """The contract of an application with ``GET /health`` and, unless ``schema`` is
    ``None``, ``route`` declared with ``schema``."""
    app = Framework()
    app.get("/health", lambda request, reply: {"ok": True})
    if schema is not None:
        method, _, url = route.partition(" ")
        app.route(method=method, url=url, schema=schema, handler=lambda request, reply: {})
    try:
        return lock(app)
    finally:
        app.close()


def test_the_table_has_at_least_40_changes_and_covers_oasdiff_rules():
    assert len(ROWS) >= 40
    oasdiff_rules = {row.rule for row in ROWS} - OWN_RULES
    assert len(oasdiff_rules) >= 40


@pytest.mark.parametrize("row", ROWS, ids=[f"{index:02}-{row.rule}" for index, row in enumerate(ROWS)])
def test_one_schema_change_is_classified_as_oasdiff_does(row: Row):
    changes = check(contract(row.before, row.route), contract(row.after, row.route))
    assert [(change.rule, change.breaking, change.route, change.pointer) for change in changes] == \
        [(row.rule, row.breaking, row.route, row.pointer)], [str(change) for change in changes]
    if row.rule not in OWN_RULES and not row.rule.startswith("api-security-"):
        # (the security rules' level depends on what is left: see the module's text)
        assert (RULES[row.rule] != "info") is row.breaking


def test_a_change_and_its_reverse_are_both_reported():
    for row in ROWS:
        if row.before is None or row.after is None:
            continue
        backwards = check(contract(row.after, row.route), contract(row.before, row.route))
        assert backwards, row.rule


def test_the_same_schemas_are_no_change():
    for row in ROWS[:10]:
        assert check(contract(row.before), contract(row.before)) == []
