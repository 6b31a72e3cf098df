"""Request and reply per DESIGN 4; content-type parsing; not-found handlers."""
import re

from werkzeug.wrappers import Response

from framework import Framework


def test_request_attributes():
    app = Framework()

    @app.post("/items/:id")
    def handler(request, reply):
        return {"body": request.body, "query": request.query, "params": request.params,
                "header": request.headers["x-trace"], "method": request.method, "url": request.url,
                "path": request.path, "id": request.id, "ip": request.ip, "hostname": request.hostname,
                "protocol": request.protocol, "cookies": request.cookies, "raw_path": request.raw.path,
                "server_is_app": request.server is app, "validation_error": request.validation_error}

    data = app.inject(method="POST", url="/items/7?tag=a&tag=b&flag", json={"x": 1},
                      headers={"X-Trace": "t1", "Cookie": "session=abc"}).json()
    assert data["body"] == {"x": 1}
    assert data["query"] == {"tag": ["a", "b"], "flag": ""}
    assert data["params"] == {"id": "7"}
    assert data["header"] == "t1"
    assert data["method"] == "POST"
    assert data["url"] == "/items/7?tag=a&tag=b&flag"
    assert data["path"] == "/items/7"
    assert re.fullmatch(r"req-[0-9a-f]{12}-[0-9a-f]+", data["id"])
    assert data["ip"] == "127.0.0.1"
    assert data["hostname"] == "localhost"
    assert data["protocol"] == "http"
    assert data["cookies"] == {"session": "abc"}
    assert data["raw_path"] == "/items/7"
    assert data["server_is_app"] is True
    assert data["validation_error"] is None


def test_body_is_none_without_one_and_text_plain_is_str():
    app = Framework()
    app.post("/b", lambda request, reply: {"body": request.body})
    app.delete("/d", lambda request, reply: {"body": request.body})
    assert app.inject(method="POST", url="/b").json() == {"body": None}
    assert app.inject(method="DELETE", url="/d").json() == {"body": None}
    assert app.inject(method="POST", url="/b", body="héllo",
                      headers={"Content-Type": "text/plain; charset=utf-8"}).json() == {"body": "héllo"}


def test_json_with_any_charset_and_odd_but_valid_forms():
    app = Framework()
    app.post("/b", lambda request, reply: {"body": request.body})
    for content_type in ("application/json; charset=utf-8", "APPLICATION/JSON", "application/json ;charset=UTF-8",
                         "application/json\t;\tcharset=utf-8", 'application/json; charset="utf-8"'):
        response = app.inject(method="POST", url="/b", body=b'{"a":1}', headers={"Content-Type": content_type})
        assert response.json() == {"body": {"a": 1}}, content_type


def test_content_types_that_do_not_parse_are_415():
    app = Framework()
    app.post("/b", lambda request, reply: {"body": request.body})
    for content_type in ("application/json, text/plain", "application /json", "application/json;charset",
                         "json", "application/json\x00"):
        response = app.inject(method="POST", url="/b", body=b'{"a":1}', headers={"Content-Type": content_type})
        assert response.status_code == 415, content_type


def test_content_type_parser_is_encapsulated():
    app = Framework()

    def child(instance, opts):
        instance.add_content_type_parser("application/x-kv",
                                         lambda request, body: dict(p.split("=") for p in body.decode().split("&")))
        instance.add_content_type_parser(re.compile(r"^application/vnd\..*\+csv$"),
                                         lambda request, body: body.decode().split(","))
        instance.post("/form", lambda request, reply: {"body": request.body})

    app.register(child)
    app.post("/root", lambda request, reply: {"body": request.body})
    form = {"Content-Type": "application/x-kv"}
    assert app.inject(method="POST", url="/form", body="a=1&b=2", headers=form).json() == {"body": {"a": "1", "b": "2"}}
    assert app.inject(method="POST", url="/form", body="x,y",
                      headers={"Content-Type": "application/vnd.acme+csv"}).json() == {"body": ["x", "y"]}
    assert app.inject(method="POST", url="/root", body="a=1", headers=form).status_code == 415
    assert app.has_content_type_parser("application/json")
    assert not app.has_content_type_parser("application/x-kv")


def test_reply_send_rules():
    app = Framework()
    app.get("/dict", lambda request, reply: {"a": [1, 2]})
    app.get("/list", lambda request, reply: [1, "x"])
    app.get("/str", lambda request, reply: "plain")
    app.get("/json-str", lambda request, reply: reply.type("application/json").send('{"pre":1}'))
    app.get("/bytes", lambda request, reply: b"\x00\x01")
    app.get("/none", lambda request, reply: None)
    app.get("/no-content", lambda request, reply: reply.code(204).send({"dropped": True}))
    app.get("/werkzeug", lambda request, reply: Response("raw", status=202, mimetype="text/x-raw"))
    app.get("/redirect", lambda request, reply: reply.redirect("/dict"))
    app.get("/headers", lambda request, reply: reply.headers({"x-a": "1", "X-B": 2}).remove_header("x-a")
            .send({"b": reply.get_header("x-b")}))
    app.get("/chain", lambda request, reply: reply.status(201).code(202).send({"status": reply.status_code}))

    def checks(url):
        return app.inject(url=url)

    assert checks("/dict").headers["content-type"] == "application/json; charset=utf-8"
    assert checks("/list").json() == [1, "x"]
    assert checks("/str").headers["content-type"] == "text/plain; charset=utf-8"
    json_str = checks("/json-str")
    assert json_str.text == '{"pre":1}' and json_str.headers["content-type"] == "application/json; charset=utf-8"
    assert checks("/bytes").headers["content-type"] == "application/octet-stream"
    none = checks("/none")
    assert none.body == b"" and none.headers["content-length"] == "0" and none.headers["content-type"] == "text/plain; charset=utf-8"
    no_content = checks("/no-content")
    assert no_content.status_code == 204 and no_content.body == b"" and "content-type" not in no_content.headers
    raw = checks("/werkzeug")
    assert raw.status_code == 202 and raw.text == "raw" and raw.headers["content-type"].startswith("text/x-raw")
    redirect = checks("/redirect")
    assert redirect.status_code == 302 and redirect.headers["location"] == "/dict"
    headers = checks("/headers")
    assert headers.json() == {"b": "2"} and "x-a" not in headers.headers
    assert checks("/chain").json() == {"status": 202}


def test_undefined_entries_are_omitted_from_plain_json():
    from framework import UNDEFINED
    app = Framework()
    app.get("/u", lambda request, reply: {"a": UNDEFINED, "b": {"c": UNDEFINED, "d": 1}})
    assert app.inject(url="/u").text == '{"b":{"d":1}}'


def test_not_found_handler_encapsulated_by_prefix_and_call_not_found():
    app = Framework()
    app.set_not_found_handler(lambda request, reply: reply.code(404).send({"where": "root"}))

    def api(instance, opts):
        instance.set_not_found_handler(lambda request, reply: reply.code(404).send({"where": "api"}))
        instance.get("/missing", lambda request, reply: reply.call_not_found())

    app.register(api, prefix="/api")
    assert app.inject(url="/api/nothing").json() == {"where": "api"}
    assert app.inject(url="/apix").json() == {"where": "root"}
    assert app.inject(url="/other").json() == {"where": "root"}
    called = app.inject(url="/api/missing")
    assert called.status_code == 404 and called.json() == {"where": "api"}


def test_root_hooks_run_for_unknown_urls():
    app = Framework()
    app.add_hook("on_request", lambda request, reply: reply.code(401).send({"error": "no"}))
    assert app.inject(url="/nope").status_code == 401


def test_request_ids_increase_and_logs_carry_them(caplog):
    import logging
    app = Framework(logger=True)
    app.get("/log", lambda request, reply: request.log.info("inside") or {"id": request.id})
    with caplog.at_level(logging.INFO, logger="framework"):
        first = app.inject(url="/log").json()["id"]
        second = app.inject(url="/log").json()["id"]
    assert first != second and first.rsplit("-", 1)[0] == second.rsplit("-", 1)[0]
    assert int(first.rsplit("-", 1)[1], 16) < int(second.rsplit("-", 1)[1], 16)
    assert [r.req_id for r in caplog.records if r.getMessage() == "inside"] == [first, second]


def test_cookie_bytes_that_are_not_utf8_read_as_replacement_characters_never_a_500():
    app = Framework()
    app.get("/c", lambda request, reply: request.cookies)
    # WSGI gives header bytes as latin-1 text: \xff\xfe is not UTF-8, \xc3\xa9 is "é".
    answer = app.inject(url="/c", headers={"Cookie": "session=\xff\xfe; a=b; name=caf\xc3\xa9"})
    assert answer.status_code == 200
    assert answer.json() == {"session": "\ufffd\ufffd", "a": "b", "name": "café"}
