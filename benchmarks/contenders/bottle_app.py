"""Bottle: routes on a ``Bottle()`` instance, its JSON plugin switched to
ujson, fastjsonschema compiled once for S3; S4 encodes its list with ujson
(Bottle's JSON plugin only handles dicts)."""

from __future__ import annotations

import itertools

NAME = "bottle"
LABEL = "Bottle"
KIND = "wsgi"
REQUIRES = ("bottle", "fastjsonschema", "ujson")
DIST = "bottle"


def create_app():
    import bottle
    import fastjsonschema
    import ujson
    from bottle import request, response

    from benchmarks import scenarios as sc

    validate_item = fastjsonschema.compile(sc.ITEM_SCHEMA)
    fields = sc.ROW_FIELDS
    ids = itertools.count(1)

    app = bottle.Bottle()
    app.uninstall(bottle.JSONPlugin)
    app.install(bottle.JSONPlugin(json_dumps=ujson.dumps))

    @app.get("/hello")
    def hello():
        return {"hello": "world"}

    @app.get("/users/<user_id:int>")
    def user(user_id):
        return {"id": user_id, "fields": request.query.getall("fields")}

    @app.post("/items")
    def create_item():
        try:
            item = validate_item(ujson.loads(request.body.read()))
        except (ValueError, fastjsonschema.JsonSchemaException) as exc:
            response.status = 400
            return {"error": "Bad Request", "message": str(exc)}
        response.status = 201
        return {"id": next(ids), **item}

    @app.get("/report")
    def report():
        response.content_type = "application/json"
        return ujson.dumps([{k: row[k] for k in fields} for row in sc.ROWS])

    return app
