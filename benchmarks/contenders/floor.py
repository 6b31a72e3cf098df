"""S2's floor: the least any implementation of the framework's API can do for S2.

``GET /users/:id`` is answered with the twin's routing, then what the API asks of any
implementation, written out by hand with no call that could be inlined: a request object
holding the environ, ``params`` and ``query``; a reply object with a status and a header
dict; the path parameter coerced to an integer as Ajv coerces it; the whole query string
parsed into ``request.query`` (a handler may read any key: ``parse_query_string()``'s
loop, inlined), with ``fields`` made an array; the handler of ``ours.py`` called with both;
its dict encoded as the JSON answer.

Every other request (and an S2 request the floor does not model, such as a bad id) goes to
the hand-written twin, so the HTTP runner's checks pass; only S2 measures the floor. Not in
``ORDER``: name it (``--contenders ours,handwritten,floor --scenarios S2``) to run it.
``python -m benchmarks.floor`` times it in-process.
"""

from __future__ import annotations

from urllib.parse import unquote_plus

NAME = "floor"
LABEL = "S2 floor (the API, by hand)"
KIND = "wsgi"
REQUIRES = ("orjson", "fastjsonschema")
DIST = None


def create_app():
    from orjson import dumps

    from benchmarks.contenders import handwritten
    from framework.http.encoding import default as encoding_default

    twin = handwritten.create_app()

    class Request:
        pass

    class Reply:
        status_code = 200
        sent = False

    new = object.__new__
    json = ("content-type", "application/json; charset=utf-8")

    def handler(request, reply):  # ours.py's user()
        return {"id": request.params["id"], "fields": request.query.get("fields", [])}

    def floor(environ, start_response):
        path = environ.get("PATH_INFO") or "/"
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
        if (raw and "%2" in raw) or environ["REQUEST_METHOD"] != "GET" or not path.startswith("/users/"):
            return twin(environ, start_response)
        value = path[7:]
        if not (len(value) <= 15 and value.isdigit() and value.isascii()):
            return twin(environ, start_response)
        params = {"id": value}
        request = new(Request)
        request.environ = environ
        request.params = params
        reply = new(Reply)
        reply.request = request
        reply.headers = {}
        params["id"] = int(value)
        query = {}  # parse_query_string(), inlined
        query_string = environ.get("QUERY_STRING")
        if query_string:
            encoded = "%" in query_string or "+" in query_string
            for pair in query_string.split("&"):
                if pair:
                    key, _, item = pair.partition("=")
                    if encoded:
                        key = unquote_plus(key)
                        item = unquote_plus(item)
                    existing = query.get(key)
                    if existing is None:
                        query[key] = item
                    elif type(existing) is list:
                        existing.append(item)
                    else:
                        query[key] = [existing, item]
        fields = query.get("fields")
        if fields is not None and type(fields) is not list:
            query["fields"] = [fields]
        request.query = query
        result = handler(request, reply)
        if result.__class__ is dict and not reply.sent and reply.status_code == 200 and not reply.headers:
            body = dumps(result, default=encoding_default)
            start_response("200 OK", [json, ("content-length", str(len(body)))])
            return [body]
        raise NotImplementedError("the floor answers a plain JSON dict only")

    return floor
