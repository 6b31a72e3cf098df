"""Falcon 4: resources, ``req.media``/``resp.media``, and Falcon's own jsonschema
media validator for S3 (``falcon.media.validators.jsonschema.validate``).
Default media handlers (the stdlib json module), as a Falcon app ships."""

from __future__ import annotations

import itertools

NAME = "falcon"
LABEL = "Falcon"
KIND = "wsgi"
REQUIRES = ("falcon", "jsonschema")
DIST = "falcon"


def create_app():
    import falcon
    from falcon.media.validators import jsonschema

    from benchmarks import scenarios as sc

    fields = sc.ROW_FIELDS
    ids = itertools.count(1)

    class Hello:
        def on_get(self, req, resp):
            resp.media = {"hello": "world"}

    class User:
        def on_get(self, req, resp, user_id):
            resp.media = {"id": user_id, "fields": req.get_param_as_list("fields", default=[])}

    class Items:
        @jsonschema.validate(req_schema=sc.ITEM_SCHEMA)
        def on_post(self, req, resp):
            item = {"id": next(ids)}
            item.update(req.get_media())
            resp.media = item
            resp.status = falcon.HTTP_201

    class Report:
        def on_get(self, req, resp):
            resp.media = [{k: row[k] for k in fields} for row in sc.ROWS]

    app = falcon.App()
    app.add_route("/hello", Hello())
    app.add_route("/users/{user_id:int}", User())
    app.add_route("/items", Items())
    app.add_route("/report", Report())
    return app
