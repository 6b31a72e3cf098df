"""Hardening of headers, replies, errors and boot (through inject and the WSGI callable).

Real-server counterparts (raw sockets, gunicorn sync/gthread, granian) are in
``test_hardening_server.py``.
"""
import datetime
import decimal
import logging
import threading
import time
import wsgiref.validate

import pytest
from werkzeug.exceptions import Forbidden, NotFound, abort
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Response

from framework import Framework
from framework.testing import inject

FIXED_500 = {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}


def wsgi(app):
    """The app as a bare WSGI callable: inject() then does not call ready() first."""
    return lambda environ, start_response: app(environ, start_response)


# B1. Header rules.
@pytest.mark.parametrize("name, value", [
    ("x-a", "a\r\nx-forged: 1"), ("x-a", "a\nb"), ("x-a", "a\x00b"), ("x-a", "a\x7fb"), ("x-a", "日本"),
    ("x a", "1"), ("x-a:", "1"), ("x-a\r\nx-forged", "1"), ("", "1"),
])
def test_invalid_header_is_a_500_json_naming_the_header(name, value):
    app = Framework()
    app.get("/", lambda request, reply: reply.header(name, value).send({"ok": True}))
    response = app.inject(url="/")
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    payload = response.json()
    assert payload["code"] in ("FST_ERR_REP_INVALID_HEADER", "FST_ERR_REP_INVALID_HEADER_NAME")
    assert repr(name if payload["code"].endswith("NAME") else name.lower()) in payload["message"]
    assert "x-forged" not in {key.lower() for key in response.headers.keys()}
    assert "x-a" not in response.headers


def test_redirect_percent_encodes_its_target():
    app = Framework()
    app.get("/go", lambda request, reply: reply.redirect("/日本?q=a b"))
    app.get("/evil", lambda request, reply: reply.redirect("/x\r\nx-forged: 1"))
    response = app.inject(url="/go")
    assert response.status_code == 302
    assert response.headers["location"] == "/%E6%97%A5%E6%9C%AC?q=a%20b"
    response = app.inject(url="/evil")
    assert response.headers["location"] == "/x%0D%0Ax-forged:%201" and "x-forged" not in response.headers


def test_error_headers_with_crlf_fall_back_to_the_fixed_500(caplog):
    app = Framework()

    class Teapot(Exception):
        status_code = 418
        headers = {"x-ok": "1", "x-bad": "a\r\nx-forged: 1"}

    def handler(request, reply):
        raise Teapot("short and stout")

    app.get("/", handler)
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/")
    assert response.status_code == 500 and response.json() == FIXED_500
    assert "x-forged" not in response.headers and "x-ok" not in response.headers
    assert any("default error handler failed" in record.getMessage() and record.exc_info for record in caplog.records)


# B3. Multi-valued headers and cookies.
def test_set_cookie_header_accumulates_and_lists_give_one_line_each():
    app = Framework()

    def handler(request, reply):
        reply.header("set-cookie", "a=1").header("Set-Cookie", "b=2")
        reply.header("x-many", ["1", "2"])
        return {"ok": True}

    app.get("/", handler)
    response = app.inject(url="/")
    assert response.headers.getlist("set-cookie") == ["a=1", "b=2"]
    assert response.headers.getlist("x-many") == ["1", "2"]


def test_set_cookie_and_clear_cookie():
    app = Framework()

    def handler(request, reply):
        reply.set_cookie("session", "abc", max_age=3600, httponly=True, secure=True, samesite="Lax")
        reply.set_cookie("theme", "dark", path="/app", domain="example.com",
                         expires=datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))
        reply.clear_cookie("old", path="/x")
        return {"seen": request.cookies}

    app.get("/", handler)
    response = app.inject(url="/", headers={"Cookie": "a=1; b=two"})
    assert response.json() == {"seen": {"a": "1", "b": "two"}}
    session, theme, old = response.headers.getlist("set-cookie")
    assert session.startswith("session=abc;")
    assert {"Max-Age=3600", "HttpOnly", "Secure", "SameSite=Lax", "Path=/"} <= set(session.split("; "))
    assert {"theme=dark", "Domain=example.com", "Path=/app", "Expires=Wed, 02 Jan 2030 03:04:05 GMT"} <= set(theme.split("; "))
    assert {"old=", "Max-Age=0", "Path=/x", "Expires=Thu, 01 Jan 1970 00:00:00 GMT"} <= set(old.split("; "))


def test_set_cookie_refuses_a_value_that_would_forge_headers():
    app = Framework()
    app.get("/", lambda request, reply: reply.set_cookie("a", "1", domain="x\r\nx-forged: 1").send("no"))
    response = app.inject(url="/")
    assert response.status_code == 500 and "x-forged" not in response.headers


# B4. A werkzeug Response goes through on_send and on_response.
def test_werkzeug_response_runs_on_send_and_on_response():
    app = Framework()
    seen = []

    def on_send(request, reply, payload):
        seen.append(("on_send", type(payload).__name__))
        if request.query.get("replace"):
            return Response("replaced", status=202)
        return payload

    app.add_hook("on_send", on_send)
    app.add_hook("on_response", lambda request, reply: seen.append(("on_response", reply.status_code)))
    app.get("/", lambda request, reply: Response("hi", status=201, headers={"x-w": "1"}))
    response = app.inject(url="/")
    assert (response.status_code, response.body, response.headers["x-w"]) == (201, b"hi", "1")
    assert seen == [("on_send", "Response"), ("on_response", 201)]
    seen.clear()
    response = app.inject(url="/?replace=1")
    assert (response.status_code, response.body) == (202, b"replaced")
    assert seen == [("on_send", "Response"), ("on_response", 202)]


# B5. An encoded slash is not a path separator.
def test_encoded_slash_does_not_split_a_path():
    app = Framework()
    app.get("/users/:id", lambda request, reply: {"id": request.params["id"]})
    app.get("/a/b", lambda request, reply: {"static": True})
    app.get("/files/:dir/:name", lambda request, reply: request.params)
    assert app.inject(url="/users%2F42").status_code == 404
    assert app.inject(url="/a%2Fb").status_code == 404
    assert app.inject(url="/a%2fb").status_code == 404
    assert app.inject(url="/users/a%2Fb").json() == {"id": "a/b"}
    assert app.inject(url="/users/a%2Fb%20c?x=%2F").json() == {"id": "a/b c"}
    assert app.inject(url="/files/x%2Fy/z%25").json() == {"dir": "x/y", "name": "z%"}
    assert app.inject(url="/users/42").json() == {"id": "42"}
    assert app.inject(url="/a/b").json() == {"static": True}


# B6. wsgiref's validator accepts every kind of answer.
def test_wsgiref_validator_accepts_bodiless_answers_and_redirects():
    app = Framework()
    app.get("/none", lambda request, reply: None)
    app.get("/redirect", lambda request, reply: reply.redirect("/none"))
    app.get("/empty", lambda request, reply: reply.code(204).send())
    app.get("/not-modified", lambda request, reply: reply.code(304).send())
    app.get("/json", lambda request, reply: {"a": 1})
    app.post("/small", {"body_limit": 10, "handler": lambda request, reply: {"a": 1}})
    app.ready()
    validated = wsgiref.validate.validator(app)
    assert inject(validated, url="/none").headers["content-type"] == "text/plain; charset=utf-8"
    assert inject(validated, url="/redirect").status_code == 302
    assert "content-type" not in inject(validated, url="/empty").headers
    assert "content-type" not in inject(validated, url="/not-modified").headers
    assert inject(validated, url="/json").json() == {"a": 1}
    too_large = inject(validated, "POST", url="/small", json={"x": "y" * 100})
    assert too_large.status_code == 413 and "connection" not in too_large.headers


# D7. werkzeug and Starlette-style exceptions.
def test_werkzeug_http_exceptions_and_detail():
    app = Framework()

    def not_found(request, reply):
        raise NotFound()

    def forbidden(request, reply):
        raise Forbidden("not yours")

    def aborted(request, reply):
        abort(403)

    class StarletteStyle(Exception):
        def __init__(self, status_code, detail):
            super().__init__(detail)
            self.status_code = status_code
            self.detail = detail

    def starlette(request, reply):
        raise StarletteStyle(409, "already there")

    for path, handler in [("/nf", not_found), ("/fb", forbidden), ("/ab", aborted), ("/st", starlette)]:
        app.get(path, handler)
    response = app.inject(url="/nf")
    assert response.status_code == 404
    assert response.json() == {"statusCode": 404, "error": "Not Found", "message": NotFound.description}
    assert app.inject(url="/fb").json() == {"statusCode": 403, "error": "Forbidden", "message": "not yours"}
    assert app.inject(url="/ab").json() == {"statusCode": 403, "error": "Forbidden", "message": Forbidden.description}
    assert app.inject(url="/st").json() == {"statusCode": 409, "error": "Conflict", "message": "already there"}


# D8. An unexpected exception's text goes to the log, not to the client.
def test_unexpected_exception_text_is_logged_not_sent(caplog):
    app = Framework()

    def handler(request, reply):
        raise RuntimeError("password=hunter2")

    app.get("/", handler)
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/?x=1")
    assert response.status_code == 500 and response.json() == FIXED_500
    assert b"hunter2" not in response.body
    [record] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert record.req_id.startswith("req-")
    assert "hunter2" in record.getMessage() and "/?x=1" in record.getMessage()
    assert record.exc_info[0] is RuntimeError
    assert "password=hunter2" in caplog.text and "Traceback" in caplog.text


def test_errors_carrying_a_status_keep_their_message():
    app = Framework()

    class Unavailable(Exception):
        status_code = 503

    def handler(request, reply):
        raise Unavailable("down for maintenance")

    app.get("/", handler)
    assert app.inject(url="/").json()["message"] == "down for maintenance"


# D9. Decimal, pydantic-style and __json__ objects; anything else is a logged 500.
class Model:
    def __init__(self, **fields):
        self.fields = fields

    def model_dump(self):
        return dict(self.fields)


class Jsonable:
    def __json__(self):
        return ["j", decimal.Decimal("0.1")]


def test_decimal_model_dump_and_json_hook_are_encoded():
    app = Framework()
    app.get("/", lambda request, reply: {"price": decimal.Decimal("19.990"), "big": decimal.Decimal("1E+400"),
                                         "model": Model(a=decimal.Decimal("-0.5")), "j": Jsonable()})
    app.get("/hooked", {"handler": lambda request, reply: [decimal.Decimal("1.10")]},)
    app.add_hook("on_request", lambda request, reply: None)
    response = app.inject(url="/")
    assert response.status_code == 200
    assert response.body == b'{"price":19.990,"big":1E+400,"model":{"a":-0.5},"j":["j",0.1]}'


def test_pydantic_models_are_encoded():
    pydantic = pytest.importorskip("pydantic")

    class Item(pydantic.BaseModel):
        name: str
        price: decimal.Decimal
        at: datetime.date

    app = Framework()
    app.get("/", lambda request, reply: {"item": Item(name="pen", price=decimal.Decimal("1.50"),
                                                      at=datetime.date(2024, 1, 5))})
    assert app.inject(url="/").body == b'{"item":{"name":"pen","price":1.50,"at":"2024-01-05"}}'


@pytest.mark.parametrize("value, type_name", [(decimal.Decimal("NaN"), "Decimal"), (decimal.Decimal("-Infinity"), "Decimal"),
                                              (object(), "object")])
def test_unserializable_values_are_a_500_naming_route_and_type(caplog, value, type_name):
    app = Framework()
    app.get("/things/:id", lambda request, reply: {"value": value})
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/things/7")
    assert response.status_code == 500 and response.json() == FIXED_500
    [record] = [r for r in caplog.records if r.levelno == logging.ERROR]
    message = record.getMessage()
    assert "GET /things/:id" in message and type_name in message
    assert record.exc_info[1].__cause__ is None and record.exc_info[1].__suppress_context__


# D10. Generators and Flask-style tuples.
def test_generator_reply_is_streamed():
    app = Framework()
    app.get("/", lambda request, reply: (str(n) for n in range(3)))
    assert app.inject(url="/").body == b"012"


def test_flask_style_tuple_is_a_500_saying_how_to_set_the_status(caplog):
    app = Framework()
    app.get("/", lambda request, reply: ({"created": True}, 201))
    app.get("/headers", lambda request, reply: ("text", 200, {"x-a": "1"}))
    app.get("/array", lambda request, reply: (1, "two"))
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/")
        assert app.inject(url="/headers").status_code == 500
    assert response.status_code == 500 and response.json() == FIXED_500
    messages = [record.getMessage() for record in caplog.records]
    assert "(body, status) tuple" in messages[0] and "reply.code(201)" in messages[0]
    assert "(body, status, headers) tuple" in messages[1]
    assert app.inject(url="/array").json() == [1, "two"]  # other tuples stay JSON arrays


# E11. A failed boot stays failed.
def test_failed_boot_stays_failed_and_never_serves_unguarded(caplog):
    from framework.plugins.bearer_auth import bearer_auth

    calls = []

    def flaky(instance, opts):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("flaky start")

    app = Framework()
    app.register(flaky)
    app.register(bearer_auth, keys=["secret"])
    app.get("/private", lambda request, reply: {"secret": "data"})
    with caplog.at_level(logging.ERROR, logger="framework"):
        first = inject(wsgi(app), url="/private")
        second = inject(wsgi(app), url="/private")
    assert first.status_code == 503 and first.headers["retry-after"]  # see test_boot_recovery.py
    assert second.status_code == 503 and first.json() == second.json()
    with pytest.raises(RuntimeError, match="flaky start"):
        app.ready()
    assert any("could not start" in record.getMessage() for record in caplog.records)


# E12. Requests wait for on_ready hooks.
def test_requests_wait_for_on_ready_hooks():
    app = Framework()
    release = threading.Event()
    entered = threading.Event()
    state = {"ready": False}

    def on_ready():
        entered.set()
        assert release.wait(10)
        state["ready"] = True

    app.add_hook("on_ready", on_ready)
    app.get("/", lambda request, reply: {"ready": state["ready"]})
    answers = []

    def request():
        answers.append(inject(wsgi(app), url="/").json())

    booting = threading.Thread(target=request)
    booting.start()
    assert entered.wait(10)
    late = threading.Thread(target=request)
    late.start()
    time.sleep(0.3)
    assert answers == [] and late.is_alive()  # neither is answered by a half-ready app
    release.set()
    booting.join(10)
    late.join(10)
    assert answers == [{"ready": True}, {"ready": True}]


# E13. One validator engine, however many threads compile at once.
def test_validator_engine_created_once_under_threads(monkeypatch):
    import framework.state

    created = []
    original = framework.state.ValidatorEngine

    class SlowEngine(original):
        def __init__(self, *args, **kwargs):
            created.append(1)
            time.sleep(0.05)  # widen the window a check-then-create race needs
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(framework.state, "ValidatorEngine", SlowEngine)
    app = Framework(lazy=True)
    schema = {"querystring": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    for index in range(16):
        app.get(f"/r{index}", {"schema": schema, "handler": lambda request, reply: request.query})
    app.ready()
    barrier = threading.Barrier(16)
    results = []

    def hit(index):
        barrier.wait()
        results.append(inject(wsgi(app), url=f"/r{index}?n=3").json())

    threads = [threading.Thread(target=hit, args=(index,)) for index in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert results == [{"n": 3}] * 16
    assert len(created) == 1


def test_validator_plugin_runs_once_under_threads():
    calls = []

    def plugin(engine, *args):
        calls.append(1)
        return engine

    app = Framework(lazy=True, validator={"plugins": [plugin]})
    schema = {"querystring": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    for index in range(8):
        app.get(f"/r{index}", {"schema": schema, "handler": lambda request, reply: request.query})
    threads = [threading.Thread(target=inject, args=(wsgi(app),), kwargs={"url": f"/r{index}?n=1"}) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(calls) == 1


# E14. The last error handler failing.
def test_error_whose_str_raises_gets_the_fixed_500_and_a_log_line(caplog):
    app = Framework()

    class Unprintable(Exception):
        status_code = 400

        def __str__(self):
            raise ValueError("no text")

    def handler(request, reply):
        raise Unprintable()

    app.get("/", handler)
    with caplog.at_level(logging.INFO, logger="framework"):
        response = app.inject(url="/")
    assert response.status_code == 500 and response.json() == FIXED_500
    assert any(record.levelno == logging.ERROR and record.exc_info for record in caplog.records)
    for record in caplog.records:
        record.getMessage()  # every record formats


def test_unexpected_error_whose_str_raises_is_a_plain_500_and_logged(caplog):
    app = Framework()

    class Unprintable(Exception):
        def __str__(self):
            raise ValueError("no text")

    def handler(request, reply):
        raise Unprintable()

    def on_response(request, reply):
        raise Unprintable()

    app.get("/", handler)
    app.get("/after", {"handler": lambda request, reply: "ok", "on_response": on_response})
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/")
        assert app.inject(url="/after").text == "ok"
    assert response.status_code == 500 and response.json() == FIXED_500
    messages = [record.getMessage() for record in caplog.records]
    assert "Unprintable" in messages[0] and "cannot be shown" in messages[0]
    assert messages[1].startswith("on_response hook failed: Unprintable")


# E15. Request text cannot forge log lines.
def test_newlines_from_the_request_do_not_forge_log_lines(caplog):
    app = Framework()

    class UnknownKey(Exception):
        status_code = 400

    def strict(request, reply):
        for key in request.body:
            raise UnknownKey(f"unknown key {key}")

    def crash(request, reply):
        raise ValueError(request.body["why"])

    app.post("/strict", strict)
    app.post("/crash", crash)
    forged = "x\nINFO:framework:admin logged in"
    formatter = logging.Formatter("%(levelname)s:%(name)s:%(message)s")
    with caplog.at_level(logging.INFO, logger="framework"):
        assert app.inject("POST", "/strict", json={forged: 1}).status_code == 400
        [record] = caplog.records
        assert "\n" not in formatter.format(record) and "admin logged in" in record.getMessage()
        caplog.clear()
        assert app.inject("POST", "/crash%0Aforged", json={"why": forged}).status_code == 404
        caplog.clear()
        assert app.inject("POST", "/crash", json={"why": forged}).status_code == 500
        [record] = caplog.records
        assert "\n" not in record.getMessage() and "admin logged in" in record.getMessage()
