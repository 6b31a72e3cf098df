"""``Framework(errors="problem+json")``: every error the framework answers itself is an
RFC 9457 problem document (``application/problem+json``: ``type``, ``title``, ``status``,
``detail``, ``instance``, and ``code``), through inject; handlers answer problems with
``Problem``, ``reply.problem()`` and ``ProblemError`` in either style."""
from __future__ import annotations

import json
import logging

import pytest
from werkzeug.exceptions import NotAcceptable, abort

from framework import Framework, Problem, ProblemError, create_error
from framework.testing import inject

PROBLEM = "application/problem+json; charset=utf-8"
SECRET = "password=hunter2"


def problem_app(**options):
    return Framework(errors="problem+json", **options)


def problem(response, status):
    """The response's problem document, after checking its status and media type."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    document = response.json()
    assert list(document)[:3] == ["type", "title", "status"] and document["status"] == status
    return document


def bare(app):
    """The app as a bare WSGI callable: inject() then does not call ready() first."""
    return lambda environ, start_response: app(environ, start_response)


# The option.
def test_the_default_stays_fastify_and_an_unknown_style_is_refused():
    assert Framework().error_format == "fastify"
    assert problem_app().error_format == "problem+json"
    with pytest.raises(ValueError, match="errors must be one of 'fastify', 'problem\\+json', got 'xml'"):
        Framework(errors="xml")


def test_every_context_knows_the_style():
    seen = []
    app = problem_app()
    app.register(lambda instance, opts: seen.append(instance.error_format), prefix="/api")
    app.ready()
    assert seen == ["problem+json"]


# Validation: the failing part and every pointer.
VALIDATED = {"type": "object", "required": ["name"], "additionalProperties": False,
             "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0},
                            "a/b": {"type": "integer"}}}


def test_a_validation_failure_lists_every_pointer_with_all_errors():
    app = problem_app(validator={"custom_options": {"all_errors": True, "remove_additional": False}})
    app.post("/people", {"schema": {"body": VALIDATED}}, lambda request, reply: request.body)
    response = app.inject(method="POST", url="/people", json={"age": -1, "a/b": "x", "extra": 1})
    assert problem(response, 400) == {
        "type": "about:blank", "title": "Bad Request", "status": 400,
        "detail": "body should have required property 'name', body should NOT have additional properties, "
                  "body/age should be >= 0, body/a~1b should be integer",
        "instance": "/people", "code": "FST_ERR_VALIDATION",
        "errors": [{"pointer": "/body/name", "detail": "should have required property 'name'"},
                   {"pointer": "/body/extra", "detail": "should NOT have additional properties"},
                   {"pointer": "/body/age", "detail": "should be >= 0"},
                   {"pointer": "/body/a~1b", "detail": "should be integer"}]}


def test_without_all_errors_the_first_failure_is_the_one_listed():
    app = problem_app()
    app.post("/people", {"schema": {"body": VALIDATED}}, lambda request, reply: request.body)
    response = app.inject(method="POST", url="/people", json={"name": 7, "age": -1})
    assert response.text == (
        '{"type":"about:blank","title":"Bad Request","status":400,"detail":"body/age should be >= 0",'
        '"instance":"/people","code":"FST_ERR_VALIDATION","errors":[{"pointer":"/body/age","detail":"should be >= 0"}]}')


@pytest.mark.parametrize("part, url, headers, pointer", [
    ("querystring", "/items/1?limit=500", {}, "/querystring/limit"),
    ("params", "/items/x", {}, "/params/id"),
    ("headers", "/items/1", {"x-version": "nine"}, "/headers/x-version"),
])
def test_each_input_part_is_named_by_the_pointer(part, url, headers, pointer):
    app = problem_app()
    schema = {"querystring": {"type": "object", "properties": {"limit": {"type": "integer", "maximum": 100}}},
              "params": {"type": "object", "properties": {"id": {"type": "integer"}}},
              "headers": {"type": "object", "properties": {"x-version": {"type": "integer"}}}}
    app.get("/items/:id", {"schema": schema}, lambda request, reply: {"ok": True})
    document = problem(app.inject(url=url, headers=headers), 400)
    assert [error["pointer"] for error in document["errors"]] == [pointer]
    assert document["detail"].startswith(part) and document["instance"] == url.partition("?")[0]


# The framework's other errors, one by one.
def test_malformed_json_and_an_empty_json_body():
    app = problem_app()
    app.post("/echo", lambda request, reply: request.body)
    malformed = problem(app.inject(method="POST", url="/echo", body=b"{nope",
                                   headers={"Content-Type": "application/json"}), 400)
    assert "code" not in malformed and malformed["instance"] == "/echo" and "errors" not in malformed
    empty = problem(app.inject(method="POST", url="/echo", body=b"", headers={"Content-Type": "application/json"}), 400)
    assert empty["code"] == "FST_ERR_CTP_EMPTY_JSON_BODY"


def test_404_names_the_route_and_the_path_as_instance():
    app = problem_app()
    response = app.inject(url="/caf%C3%A9/x y?token=abc")
    assert problem(response, 404) == {"type": "about:blank", "title": "Not Found", "status": 404,
                                      "detail": "Route GET:/caf%C3%A9/x y?token=abc not found",
                                      "instance": "/caf%C3%A9/x%20y"}


def test_the_instance_carries_script_name():
    app = problem_app()
    document = problem(app.inject(url="/missing", SCRIPT_NAME="/api"), 404)
    assert document["instance"] == "/api/missing"


def test_a_not_found_handler_of_a_context_still_answers_its_own_way():
    app = problem_app()

    def api(instance, opts):
        instance.set_not_found_handler(lambda request, reply: reply.code(404).send({"missing": request.url}))

    app.register(api, prefix="/api")
    assert app.inject(url="/api/x").json() == {"missing": "/api/x"}
    assert problem(app.inject(url="/elsewhere"), 404)["instance"] == "/elsewhere"


def test_405_keeps_allow():
    app = problem_app(method_not_allowed=True)
    app.get("/r", lambda request, reply: "ok")
    response = app.inject(method="DELETE", url="/r")
    assert problem(response, 405)["code"] == "FST_ERR_METHOD_NOT_ALLOWED"
    assert response.headers["allow"] == "GET, HEAD, OPTIONS"


def test_406_from_an_error_that_carries_it():
    app = problem_app()

    def strict(request, reply):
        raise NotAcceptable("only application/json is produced")

    app.get("/strict", strict)
    assert problem(app.inject(url="/strict"), 406)["detail"] == "only application/json is produced"


def test_413_body_too_large():
    app = problem_app(body_limit=10)
    app.post("/echo", lambda request, reply: request.body)
    document = problem(app.inject(method="POST", url="/echo", json={"text": "x" * 100}), 413)
    assert (document["title"], document["code"]) == ("Payload Too Large", "FST_ERR_CTP_BODY_TOO_LARGE")


def test_415_unsupported_media_type():
    app = problem_app()
    app.post("/echo", lambda request, reply: request.body)
    document = problem(app.inject(method="POST", url="/echo", body=b"<x/>",
                                  headers={"Content-Type": "application/xml"}), 415)
    assert document["detail"] == "Unsupported Media Type: application/xml"
    assert document["code"] == "FST_ERR_CTP_INVALID_MEDIA_TYPE"


RateLimited = create_error("RATE_LIMITED", "Rate limit exceeded, retry in %s seconds", 429)


def test_429_with_its_headers():
    app = problem_app()

    def limited(request, reply):
        raise RateLimited(30, headers={"retry-after": "30"})

    app.get("/limited", limited)
    response = app.inject(url="/limited")
    assert problem(response, 429) == {"type": "about:blank", "title": "Too Many Requests", "status": 429,
                                      "detail": "Rate limit exceeded, retry in 30 seconds", "instance": "/limited",
                                      "code": "RATE_LIMITED"}
    assert response.headers["retry-after"] == "30"


def test_403_from_werkzeug_abort():
    app = problem_app()
    app.get("/admin", lambda request, reply: abort(403))
    document = problem(app.inject(url="/admin"), 403)
    assert document["title"] == "Forbidden" and "permission" in document["detail"]


def test_an_unexpected_exception_is_a_500_without_its_text(caplog):
    app = problem_app()

    def crash(request, reply):
        raise RuntimeError(SECRET)

    app.get("/crash", crash)
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/crash")
    assert problem(response, 500) == {"type": "about:blank", "title": "Internal Server Error", "status": 500,
                                      "detail": "Internal Server Error", "instance": "/crash"}
    assert "hunter2" not in response.text and any("hunter2" in r.getMessage() for r in caplog.records)


FIXED_500 = {"type": "about:blank", "title": "Internal Server Error", "status": 500,
             "detail": "Internal Server Error", "instance": "/x"}


def test_the_fixed_500_when_every_error_handler_fails(caplog):
    app = problem_app()

    def broken(request, reply):
        raise create_error("BROKEN", "broken", 400)(headers={"x-bad": "a\r\nb"})

    app.get("/x", broken)
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/x")
    assert problem(response, 500) == FIXED_500 and "x-bad" not in response.headers


def test_the_fixed_500_when_the_error_reply_cannot_be_rendered(caplog):
    app = problem_app()

    def failing(request, reply, payload):
        raise RuntimeError(SECRET)

    app.get("/x", {"on_send": failing}, lambda request, reply: {"ok": True})
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/x")
    assert problem(response, 500) == FIXED_500 and "hunter2" not in response.text


def test_the_fixed_500_of_a_lazy_route_that_cannot_compile(caplog):
    app = problem_app(lazy=True)
    app.get("/x", {"schema": {"querystring": {"type": "nonsense"}}}, lambda request, reply: {})
    with caplog.at_level(logging.ERROR, logger="framework"):
        assert problem(app.inject(url="/x"), 500) == FIXED_500
        assert problem(app.inject(url="/x"), 500) == FIXED_500


def test_a_failed_boot_answers_a_503_problem_with_retry_after(caplog):
    app = problem_app()

    def failing(instance, opts):
        raise RuntimeError("database down")

    app.register(failing)
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = inject(bare(app), url="/x", SCRIPT_NAME="/app")
    assert problem(response, 503) == {"type": "about:blank", "title": "Service Unavailable", "status": 503,
                                      "detail": "The application could not start; retry later",
                                      "instance": "/app/x"}
    assert int(response.headers["retry-after"]) >= 1


def test_the_default_style_answers_a_failed_boot_as_before(caplog):
    app = Framework()
    app.register(lambda instance, opts: (_ for _ in ()).throw(RuntimeError("down")))
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = inject(bare(app), url="/x")
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.text == ('{"statusCode":503,"error":"Service Unavailable",'
                             '"message":"The application could not start; retry later"}')


# Problems a handler answers.
def test_a_custom_error_handler_returns_a_problem():
    app = problem_app()
    Conflict = create_error("ITEM_EXISTS", "item %s exists", 409)

    def create(request, reply):
        raise Conflict(7)

    def on_error(error, request, reply):
        return Problem(error.status_code, error.message, type="https://example.com/probs/exists",
                       code=error.code, item=7)

    app.set_error_handler(on_error)
    app.post("/items", create)
    assert problem(app.inject(method="POST", url="/items"), 409) == {
        "type": "https://example.com/probs/exists", "title": "Conflict", "status": 409,
        "detail": "item 7 exists", "instance": "/items", "code": "ITEM_EXISTS", "item": 7}


@pytest.mark.parametrize("errors", ["fastify", "problem+json"])
def test_problems_are_problems_in_either_style(errors):
    app = Framework(errors=errors)
    shared = Problem(402, "no credit left", balance=0)

    def credit(request, reply):
        raise ProblemError(403, "your balance is 30", type="https://example.com/probs/credit",
                           code="NO_CREDIT", headers={"x-balance": "30"}, balance=30,
                           extensions={"accounts-at-risk": ["/account/1"]})

    app.get("/shared", lambda request, reply: shared)
    app.get("/reply", lambda request, reply: reply.code(200).problem(410, "gone for good", instance="/items/7"))
    app.get("/members", lambda request, reply: reply.problem(409, "taken", extensions={"taken-by": "ann"}, retry=False))
    app.get("/credit", credit)
    assert problem(app.inject(url="/shared"), 402) == {
        "type": "about:blank", "title": "Payment Required", "status": 402, "detail": "no credit left",
        "instance": "/shared", "balance": 0}
    assert "instance" not in shared  # the problem sent is not changed
    assert problem(app.inject(url="/reply"), 410)["instance"] == "/items/7"
    assert problem(app.inject(url="/members"), 409) == {
        "type": "about:blank", "title": "Conflict", "status": 409, "detail": "taken", "instance": "/members",
        "taken-by": "ann", "retry": False}
    response = app.inject(url="/credit")
    assert problem(response, 403) == {
        "type": "https://example.com/probs/credit", "title": "Forbidden", "status": 403,
        "detail": "your balance is 30", "instance": "/credit", "code": "NO_CREDIT", "balance": 30,
        "accounts-at-risk": ["/account/1"]}
    assert response.headers["x-balance"] == "30"


def test_an_error_handler_sees_a_problem_error_as_any_error():
    app = Framework()
    app.set_error_handler(lambda error, request, reply: {"seen": [error.status_code, error.message, error.code]})
    app.get("/p", lambda request, reply: (_ for _ in ()).throw(ProblemError(409, "taken", code="TAKEN")))
    response = app.inject(url="/p")
    assert (response.status_code, response.json()) == (409, {"seen": [409, "taken", "TAKEN"]})


def test_a_problem_goes_through_a_response_schema_for_its_status():
    app = problem_app()
    schema = {"response": {"4xx": {"type": "object", "properties": {
        "title": {"type": "string"}, "status": {"type": "integer"}}}}}
    app.get("/p", {"schema": schema}, lambda request, reply: Problem(404, "no such item"))
    response = app.inject(url="/p")
    assert response.headers["content-type"] == PROBLEM
    assert json.loads(response.text) == {"title": "Not Found", "status": 404}


@pytest.mark.parametrize("make, message", [
    (lambda: Problem(200), "error status"),
    (lambda: Problem(True), "error status"),
    (lambda: Problem(400, extensions={"status": 401}), "standard member"),
    (lambda: Problem(400, detail=7), "detail is a string"),
    (lambda: ProblemError(302), "error status"),
])
def test_a_problem_is_checked_when_made(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()
