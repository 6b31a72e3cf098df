"""Ours: the framework as its DESIGN.md shows it - routes with JSON schemas,
params/querystring coercion for S2, a body schema and a 201 response schema
for S3, and a response schema that drops the undeclared ``secret`` in S4."""

from __future__ import annotations

import itertools

NAME = "ours"
LABEL = "framework (ours)"
KIND = "wsgi"
REQUIRES = ("framework",)
DIST = "framework"


def create_app(**options):
    """``options`` go to ``Framework`` (``ours_logged`` passes ``request_logging=True``)."""
    from framework import Framework

    from benchmarks import scenarios as sc

    ids = itertools.count(1)
    app = Framework(**options)

    @app.get("/hello")
    def hello(request, reply):
        return {"hello": "world"}

    @app.get("/users/:id", schema={"params": sc.USER_PARAMS_SCHEMA,
                                   "querystring": sc.USER_QUERY_SCHEMA})
    def user(request, reply):
        return {"id": request.params["id"], "fields": request.query.get("fields", [])}

    @app.post("/items", schema={"body": sc.ITEM_SCHEMA,
                                "response": {201: sc.ITEM_RESPONSE_SCHEMA}})
    def create_item(request, reply):
        reply.code(201)
        item = {"id": next(ids)}
        item.update(request.body)
        return item

    @app.get("/report", schema={"response": {200: sc.REPORT_SCHEMA}})
    def report(request, reply):
        return sc.ROWS

    app.ready()
    return app
