"""The twin: a hand-written WSGI callable, as fast as honest Python gets.

No framework: a dict lookup on the path, a hand-rolled query-string split,
fastjsonschema compiled once for S3 and the fastest JSON codec installed
(orjson, else ujson - the framework picks its encoder the same way).  Every answer is
encoded per request from the handler's value (no response bytes cached: that
would measure a cache, not request handling).  It still does
what a real endpoint must: it validates, answers 400 on a bad body and 404 on
an unknown path, and it reads the body by CONTENT_LENGTH.
"""

from __future__ import annotations

import itertools
from urllib.parse import unquote_plus

NAME = "handwritten"
LABEL = "hand-written WSGI"
KIND = "wsgi"
REQUIRES = ("fastjsonschema",)
DIST = None


def create_app():
    import fastjsonschema

    from benchmarks import scenarios as sc

    try:
        import orjson

        dumps, loads = orjson.dumps, orjson.loads
    except ImportError:  # pragma: no cover - depends on the environment
        import ujson

        def dumps(value, _dumps=ujson.dumps):
            return _dumps(value, ensure_ascii=False).encode()

        loads = ujson.loads
    validate_item = fastjsonschema.compile(sc.ITEM_SCHEMA)
    JsonSchemaException = fastjsonschema.JsonSchemaException
    fields = sc.ROW_FIELDS
    rows = sc.ROWS
    ids = itertools.count(1)

    JSON = ("Content-Type", "application/json")
    not_found = b'{"error":"not found"}'
    bad_request = b'{"error":"bad request"}'

    def reply(start_response, status, body):
        start_response(status, [JSON, ("Content-Length", str(len(body)))])
        return [body]

    def hello(environ, start_response):
        if environ["REQUEST_METHOD"] not in ("GET", "HEAD"):
            return reply(start_response, "404 Not Found", not_found)
        return reply(start_response, "200 OK", dumps({"hello": "world"}))

    def report(environ, start_response):
        if environ["REQUEST_METHOD"] not in ("GET", "HEAD"):
            return reply(start_response, "404 Not Found", not_found)
        out = [{k: row[k] for k in fields} for row in rows]
        return reply(start_response, "200 OK", dumps(out))

    def items(environ, start_response):
        if environ["REQUEST_METHOD"] != "POST":
            return reply(start_response, "404 Not Found", not_found)
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
            item = validate_item(loads(environ["wsgi.input"].read(length)))
        except (ValueError, JsonSchemaException):
            return reply(start_response, "400 Bad Request", bad_request)
        out = {"id": next(ids)}
        out.update(item)
        return reply(start_response, "201 Created", dumps(out))

    def user(environ, start_response, user_id):
        try:
            uid = int(user_id)
        except ValueError:
            return reply(start_response, "400 Bad Request", bad_request)
        wanted = []
        qs = environ.get("QUERY_STRING")
        if qs:
            for part in qs.split("&"):
                key, _, value = part.partition("=")
                if key == "fields":
                    wanted.append(unquote_plus(value) if ("%" in value or "+" in value) else value)
        return reply(start_response, "200 OK", dumps({"id": uid, "fields": wanted}))

    static = {"/hello": hello, "/report": report, "/items": items}

    def app(environ, start_response):
        path = environ["PATH_INFO"]
        handler = static.get(path)
        if handler is not None:
            return handler(environ, start_response)
        if path.startswith("/users/"):
            rest = path[7:]
            if rest and "/" not in rest:
                return user(environ, start_response, rest)
        return reply(start_response, "404 Not Found", not_found)

    return app
