"""Each route's entry is emitted with only the steps the route has: per
optional feature, its code is absent from a route that does not use it and present in one
that does (read through ``app.explain(...)["entry"]``), and the route still answers."""
import logging
import traceback

import pytest

from framework import Framework

ITEM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def entry_of(app, method, url):
    return app.explain(method, url)["entry"]


def plain_app(**options):
    app = Framework(**options)
    app.get("/plain", lambda request, reply: {"ok": True})
    return app


@pytest.mark.parametrize("hook", ["on_request", "pre_parsing", "pre_validation", "pre_handler"])
def test_a_request_hook_is_inlined_only_where_a_route_has_it(hook):
    app = plain_app()
    calls = []
    app.get("/hooked", {hook: lambda request, reply: calls.append(hook)}, lambda request, reply: {"ok": True})
    assert hook not in entry_of(app, "GET", "/plain")
    assert f"# {hook} hook 1" in entry_of(app, "GET", "/hooked")
    assert app.inject(url="/hooked").json() == {"ok": True}
    assert app.inject(url="/plain").json() == {"ok": True}
    assert calls == [hook]


def test_a_hook_that_sends_the_reply_ends_the_entry_before_the_handler():
    app = Framework()
    handled = []

    def refuse(request, reply):
        reply.code(403).send({"refused": True})

    app.get("/guarded", {"on_request": refuse}, lambda request, reply: handled.append(1) or {"ok": True})
    assert "if reply.sent:" in entry_of(app, "GET", "/guarded")
    response = app.inject(url="/guarded")
    assert (response.status_code, response.json(), handled) == (403, {"refused": True}, [])


@pytest.mark.parametrize("hook", ["pre_serialization", "on_send", "on_response"])
def test_a_reply_hook_takes_the_route_off_the_inlined_json_answer(hook):
    # Reply hooks run in Reply.render: a route with one answers through it, one without inline.
    app = plain_app()
    seen = []

    def record(request, reply, *payload):
        seen.append(hook)
        return payload[0] if payload else None

    app.get("/hooked", {hook: record}, lambda request, reply: {"ok": True})
    assert "the JSON answer" in entry_of(app, "GET", "/plain")
    assert "the JSON answer" not in entry_of(app, "GET", "/hooked")
    assert app.inject(url="/hooked").json() == {"ok": True}
    assert seen == [hook]


def test_a_body_schema_is_validated_only_where_a_route_has_one():
    app = Framework()
    app.post("/free", lambda request, reply: {"got": request.body})
    app.post("/item", {"schema": {"body": ITEM}}, lambda request, reply: {"got": request.body})
    assert "validate body" not in entry_of(app, "POST", "/free")
    assert "validate body" in entry_of(app, "POST", "/item")
    assert app.inject(method="POST", url="/free", json={"x": 1}).json() == {"got": {"x": 1}}
    refused = app.inject(method="POST", url="/item", json={"x": 1})
    assert refused.status_code == 400
    assert refused.json()["message"] == "body should have required property 'name'"


def test_no_route_without_a_body_parses_one():
    app = Framework()
    app.get("/read", lambda request, reply: {"body": request.body})
    app.post("/write", lambda request, reply: {"body": request.body})
    assert "BodyParsing" not in entry_of(app, "GET", "/read")
    assert "BodyParsing" in entry_of(app, "POST", "/write")


def test_query_params_and_headers_are_validated_in_the_entry():
    app = Framework()
    schema = {"params": {"type": "object", "properties": {"id": {"type": "integer"}}},
              "querystring": {"type": "object", "properties": {"n": {"type": "integer"}}},
              "headers": {"type": "object", "properties": {"x-n": {"type": "integer"}}, "required": ["x-n"]}}
    app.get("/users/:id", {"schema": schema},
            lambda request, reply: {"id": request.params["id"], "n": request.query["n"], "h": request.headers["x-n"]})
    source = entry_of(app, "GET", "/users/1")
    for part in ("params", "querystring", "headers"):
        assert f"validate {part}" in source
    assert "validate" not in entry_of(plain_app(), "GET", "/plain")
    response = app.inject(url="/users/7?n=3", headers={"x-n": "5"})
    assert response.json() == {"id": 7, "n": 3, "h": 5}
    refused = app.inject(url="/users/7?n=three", headers={"x-n": "5"})
    assert refused.status_code == 400
    assert refused.json()["message"] == "querystring/n should be integer"


def test_a_hook_that_changes_the_query_is_seen_by_validation():
    app = Framework()

    def rewrite(request, reply):
        request.query = {"n": "9"}

    app.get("/q", {"schema": {"querystring": {"type": "object", "properties": {"n": {"type": "integer"}}}},
                   "pre_validation": rewrite}, lambda request, reply: request.query)
    assert app.inject(url="/q?n=1").json() == {"n": 9}


@pytest.mark.parametrize("hook", ["on_request", "pre_parsing", "pre_validation"])
def test_inputs_a_hook_may_have_changed_are_validated_as_any_data(hook):
    # Without a step before validation, the validators are compiled for the inputs as parsed
    # (strings) and given them directly; after a hook, anything the hook put there.
    schema = {"params": {"type": "object", "properties": {"id": {"type": "integer", "maxLength": 1}}},
              "querystring": {"type": "object", "properties": {"n": {"type": "array", "items": {"type": "integer"}}}},
              "headers": {"type": "object", "properties": {"x-n": {"type": "string", "maxLength": 1}}}}

    def answer(request, reply):
        return {"id": request.params["id"], "n": request.query["n"], "h": request.headers["x-n"]}

    def replace(request, reply):
        request.params = {"id": 12}
        request.query = {"n": [3, "4"]}
        request.headers = {"x-n": 5}

    app = Framework()
    app.get("/as-parsed/:id", {"schema": schema}, answer)
    app.get("/changed/:id", {"schema": schema, hook: replace}, answer)
    parsed, changed = entry_of(app, "GET", "/as-parsed/1"), entry_of(app, "GET", "/changed/1")
    assert "(params, " in parsed and "(request.params, " not in parsed
    assert "(request.params, " in changed and "(request.query, " in changed and "(request.headers, " in changed
    assert app.inject(url="/as-parsed/7?n=1&n=2", headers={"x-n": "5"}).json() == {"id": 7, "n": [1, 2], "h": "5"}
    assert app.inject(url="/changed/7", headers={"x-n": "x"}).json() == {"id": 12, "n": [3, 4], "h": "5"}


def test_a_response_schema_is_inlined_only_where_a_route_has_one():
    app = plain_app()
    schema = {"response": {200: {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}
    app.get("/shaped", {"schema": schema}, lambda request, reply: {"ok": True, "secret": "s"})
    assert "response schema" not in entry_of(app, "GET", "/plain")
    assert "the 2xx response schema of the status" in entry_of(app, "GET", "/shaped")
    assert app.inject(url="/shaped").json() == {"ok": True}


def test_request_logging_is_in_the_entry_only_when_enabled(caplog):
    quiet = plain_app()
    logged = plain_app(request_logging=True, logger=logging.getLogger("entry-test"))
    assert "request logging" not in entry_of(quiet, "GET", "/plain")
    assert "request logging" in entry_of(logged, "GET", "/plain")
    with caplog.at_level(logging.INFO, logger="entry-test"):
        assert logged.inject(url="/plain").json() == {"ok": True}
    assert [r.getMessage() for r in caplog.records] == ["incoming request", "request completed"]


def test_the_request_id_header_is_echoed_only_when_configured():
    quiet = plain_app()
    echoing = plain_app(request_id_header="x-request-id")
    assert "request_id_header" not in entry_of(quiet, "GET", "/plain")
    assert "request_id_header" in entry_of(echoing, "GET", "/plain")
    response = echoing.inject(url="/plain", headers={"x-request-id": "abc-1"})
    assert response.headers["x-request-id"] == "abc-1"
    assert "x-request-id" not in quiet.inject(url="/plain").headers


def test_decorators_add_no_code_to_the_entry():
    # Decorators live on the context's request and reply classes: nothing runs per request.
    app = plain_app()

    def decorated(instance, opts):
        instance.decorate_request("user", None)
        instance.decorate_reply("greet", lambda reply: reply.send({"hi": True}))
        instance.get("/decorated", lambda request, reply: reply.greet())

    app.register(decorated)
    assert entry_of(app, "GET", "/decorated") == entry_of(app, "GET", "/plain")
    assert app.inject(url="/decorated").json() == {"hi": True}


def test_a_head_route_answers_through_the_reply():
    app = plain_app()
    assert "the JSON answer" not in entry_of(app, "HEAD", "/plain")
    response = app.inject(method="HEAD", url="/plain")
    assert (response.status_code, response.body) == (200, b"")


def test_a_traceback_through_an_entry_shows_its_lines():
    app = Framework()
    seen = []

    def fail(request, reply):
        raise RuntimeError("boom")

    def handler(error, request, reply):
        seen.append("".join(traceback.format_exception(error)))
        return reply.code(500).send({"failed": True})

    app.set_error_handler(handler)
    app.get("/fail", fail)
    assert app.inject(url="/fail").status_code == 500
    assert "result = _handler" in seen[0] and 'File "<route entry' in seen[0]


def test_attach_validation_runs_the_whole_validation_step():
    app = Framework()
    schema = {"querystring": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    app.get("/attached", {"schema": schema, "attach_validation": True},
            lambda request, reply: {"error": str(request.validation_error) if request.validation_error else None})
    source = entry_of(app, "GET", "/attached")
    assert "'InputValidation'" in source and "validate querystring" not in source
    assert app.inject(url="/attached?n=x").json() == {"error": "querystring/n should be integer"}
    assert app.inject(url="/attached?n=1").json() == {"error": None}


def test_a_status_without_a_response_schema_answers_through_the_reply():
    app = Framework()
    schema = {"response": {200: {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}
    app.get("/created", {"schema": schema}, lambda request, reply: reply.code(202) and {"ok": True, "extra": 1})
    response = app.inject(url="/created")
    assert (response.status_code, response.json()) == (202, {"ok": True, "extra": 1})


def test_a_status_class_response_schema_is_inlined_too():
    app = Framework()
    schema = {"response": {"2xx": {"type": "object", "properties": {"id": {"type": "integer"}}}}}
    app.get("/classed", {"schema": schema}, lambda request, reply: reply.code(201) and {"id": 1, "secret": "s"})
    assert "the 2xx response schema of the status" in entry_of(app, "GET", "/classed")
    response = app.inject(url="/classed")
    assert (response.status_code, response.json()) == (201, {"id": 1})
    assert response.headers["content-type"] == "application/json; charset=utf-8"


@pytest.mark.parametrize("schema", [None, {"response": {"2xx": {"type": "object", "properties": {"a": {"type": "integer"}}}}}],
                         ids=["plain", "schema"])
@pytest.mark.parametrize("method", ["GET", "SEARCH"])  # (a SEARCH route answers through Reply.render)
@pytest.mark.parametrize("status", [200, 203, 250, 299])
def test_a_2xx_status_outside_nodes_table_is_answered_too(schema, method, status):
    # 250 and 299 have no status line of their own: the reply writes "299 Unknown".
    app = Framework()
    app.route(method, "/odd", lambda request, reply: reply.code(status) and {"a": 1}, schema=schema or {})
    response = app.inject(method, "/odd")
    assert (response.status_code, response.json()) == (status, {"a": 1})
    assert response.headers["content-type"] == "application/json; charset=utf-8"


def test_the_inlined_request_and_reply_are_built_as_their_constructors_build_them():
    # The entry inlines Request.__init__ and Reply.__init__ (a call less each): an attribute
    # one of them gains must be set by the entry too.
    from framework.lifecycle.reply import Reply
    from framework.lifecycle.request import Request

    seen = {}

    def handler(request, reply):
        seen["request"], seen["reply"] = dict(vars(request)), dict(vars(reply))
        built = Request(request.environ, request.params, request._route)
        seen["built_request"], seen["built_reply"] = vars(built), vars(Reply(built, reply._route))
        return {"ok": True}

    app = Framework()
    app.get("/items/:id", handler)
    assert "new(" in entry_of(app, "GET", "/items/1")  # (the inlined form)
    assert app.inject(url="/items/1").json() == {"ok": True}
    assert seen["request"].keys() == seen["built_request"].keys()
    assert seen["reply"].keys() == seen["built_reply"].keys()
    assert seen["request"]["params"] == {"id": "1"} and seen["reply"]["_headers"] == {}


@pytest.mark.parametrize("method", ["GET", "PROPFIND"])  # the inlined JSON answer, and Reply.render's
@pytest.mark.parametrize("schema", [{}, {"response": {200: {"type": "object", "properties": {"a": {"type": "integer"}}}}}])
def test_a_serializer_the_handler_set_writes_the_dict_it_returns(method, schema):
    def handler(request, reply):
        reply.serializer(lambda payload: "custom:" + ",".join(sorted(payload)))
        return {"a": 1}

    app = Framework()
    app.route(method, "/s", handler, schema=schema)
    response = app.inject(method=method, url="/s")
    assert (response.status_code, response.text) == (200, "custom:a")
