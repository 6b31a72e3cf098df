"""Flask: view functions returning dicts/lists (Flask's JSON provider),
``request.get_json()`` and fastjsonschema compiled once for S3."""

from __future__ import annotations

import itertools

NAME = "flask"
LABEL = "Flask"
KIND = "wsgi"
REQUIRES = ("flask", "fastjsonschema")
DIST = "flask"


def create_app():
    import fastjsonschema
    from flask import Flask, request

    from benchmarks import scenarios as sc

    validate_item = fastjsonschema.compile(sc.ITEM_SCHEMA)
    fields = sc.ROW_FIELDS
    ids = itertools.count(1)

    app = Flask(__name__)

    @app.get("/hello")
    def hello():
        return {"hello": "world"}

    @app.get("/users/<int:user_id>")
    def user(user_id):
        return {"id": user_id, "fields": request.args.getlist("fields")}

    @app.post("/items")
    def create_item():
        try:
            item = validate_item(request.get_json())
        except fastjsonschema.JsonSchemaException as exc:
            return {"error": "Bad Request", "message": exc.message}, 400
        return {"id": next(ids), **item}, 201

    @app.get("/report")
    def report():
        return [{k: row[k] for k in fields} for row in sc.ROWS]

    return app
