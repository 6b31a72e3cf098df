"""``Framework(response_check=rate)``: sampled replies checked against their response schema."""
import dataclasses
import logging
import random
from typing import NamedTuple

import pytest

from framework import Framework
from framework.lifecycle.drift import FINDINGS_LIMIT

ITEM = {"type": "object", "properties": {"n": {"type": "integer"}}}
USER = {"type": "object", "required": ["id"],
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "items": {"type": "array", "items": ITEM}}}
DROPPED = "undeclared property, not sent (the serializer drops what the schema does not declare)"


def drift_records(caplog):
    return [record for record in caplog.records if record.getMessage().startswith("response drift")]


def findings(app):
    return [(f["route"], f["status"], f["pointer"], f["message"], f["count"]) for f in app.response_drift()["findings"]]


def test_an_undeclared_field_is_reported_with_its_pointer_logged_once_and_counted(caplog):
    app = Framework(response_check=1.0)
    app.get("/user", {"schema": {"response": {200: USER}}},
            lambda request, reply: {"id": 1, "name": "ada", "password": "hunter2"})
    with caplog.at_level(logging.WARNING, logger="framework"):
        answers = [app.inject(url="/user") for _ in range(3)]
    assert [(answer.status_code, answer.text) for answer in answers] == [(200, '{"id":1,"name":"ada"}')] * 3
    assert findings(app) == [("GET /user", 200, "/password", DROPPED, 3)]
    assert app.response_drift()["checked"] == 3
    [record] = drift_records(caplog)
    assert record.levelno == logging.WARNING
    assert record.getMessage() == f"response drift: GET /user answered 200, at /password: {DROPPED}"
    assert (record.route, record.status_code, record.pointer) == ("GET /user", 200, "/password")


def test_a_value_the_schema_refuses_is_reported_with_the_validators_message():
    app = Framework(response_check=1.0)
    app.get("/user", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": "7", "name": 5})
    assert app.inject(url="/user").text == '{"id":7,"name":"5"}'  # the serializer coerced both
    assert findings(app) == [("GET /user", 200, "/id", "should be integer", 1),
                             ("GET /user", 200, "/name", "should be string", 1)]


def test_nested_pointers_and_one_finding_per_place_in_a_list():
    app = Framework(response_check=1.0)
    items = [{"n": 1, "extra": 1}, {"n": 2, "extra": 2}, {"n": 3, "extra": 3, "other": 1}]
    app.get("/user", {"schema": {"response": {200: USER}}},
            lambda request, reply: {"id": 1, "items": items, "a/b~c": 1})
    assert app.inject(url="/user").json() == {"id": 1, "items": [{"n": 1}, {"n": 2}, {"n": 3}]}
    assert [(pointer, count) for _, _, pointer, _, count in findings(app)] == [
        ("/a~1b~0c", 1), ("/items/0/extra", 1), ("/items/2/other", 1)]


def test_additional_properties_false_reports_the_validators_message_at_the_property():
    app = Framework(response_check=1.0)
    closed = {"type": "object", "additionalProperties": False, "properties": {"id": {"type": "integer"}}}
    app.get("/user", {"schema": {"response": {200: closed}}}, lambda request, reply: {"id": 1, "secret": "x"})
    assert app.inject(url="/user").text == '{"id":1}'
    assert findings(app) == [("GET /user", 200, "/secret", "should NOT have additional properties", 1)]


def test_replies_answered_by_the_reply_are_checked_too_error_statuses_included():
    app = Framework(response_check=1.0)
    app.add_hook("on_send", lambda request, reply, payload: payload)  # the answer goes through Reply.render
    schema = {"response": {200: USER, 404: {"type": "object", "properties": {"message": {"type": "string"}}}}}
    app.get("/user", {"schema": schema}, lambda request, reply: {"id": 1, "token": "t"})
    app.get("/gone", {"schema": schema}, lambda request, reply: reply.code(404).send({"message": "no", "trace": "x"}))
    assert app.inject(url="/user").text == '{"id":1}'
    assert app.inject(url="/gone").text == '{"message":"no"}'
    assert [(route, status, pointer) for route, status, pointer, _, _ in findings(app)] == [
        ("GET /gone", 404, "/trace"), ("GET /user", 200, "/token")]


def test_objects_the_serializer_reads_are_checked_as_it_reads_them():
    @dataclasses.dataclass
    class Item:
        n: int

    class User(NamedTuple):
        id: int
        items: list

    app = Framework(response_check=1.0)
    app.get("/user", {"schema": {"response": {200: USER}}}, lambda request, reply: {
        "id": 1, "items": [Item(1)]})
    app.get("/tuple", {"schema": {"response": {200: USER}}}, lambda request, reply: reply.send(User(2, [Item(2)])))
    assert app.inject(url="/user").json() == {"id": 1, "items": [{"n": 1}]}
    assert app.inject(url="/tuple").json() == {"id": 2, "items": [{"n": 2}]}
    assert app.response_drift()["checked"] == 2
    assert findings(app) == []


def test_a_check_that_fails_is_logged_and_the_answer_stands(caplog):
    app = Framework(response_check=1.0)
    # The serializer drops ``handle``; the check cannot make JSON of it.
    app.get("/user", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": 1, "handle": object()})
    with caplog.at_level(logging.WARNING, logger="framework"):
        answer = app.inject(url="/user")
    assert (answer.status_code, answer.text) == (200, '{"id":1}')
    [record] = [record for record in caplog.records if record.levelno == logging.ERROR]
    assert record.getMessage().startswith("response check of GET /user (status 200) failed: TypeError(")
    assert app.response_drift() == {"rate": 1.0, "checked": 0, "findings": [], "untracked": 0}


def test_findings_kept_are_bounded_and_the_rest_counted_as_untracked(caplog):
    app = Framework(response_check=1.0)
    # A handler that names a property after request data: each request a new pointer.
    app.get("/echo", {"schema": {"response": {200: USER}}},
            lambda request, reply: {"id": 1, request.query["key"]: 1})
    with caplog.at_level(logging.WARNING, logger="framework"):
        for number in range(FINDINGS_LIMIT + 5):
            assert app.inject(url="/echo", query={"key": f"k{number}"}).text == '{"id":1}'
    report = app.response_drift()
    assert (report["checked"], len(report["findings"]), report["untracked"]) == (FINDINGS_LIMIT + 5, FINDINGS_LIMIT, 5)
    records = drift_records(caplog)
    assert len(records) == FINDINGS_LIMIT + 1
    assert records[-1].getMessage() == (f"response drift: {FINDINGS_LIMIT} distinct findings kept; "
                                        "new ones are counted as untracked, not logged")


def test_the_rate_is_one_draw_per_request():
    app = Framework(response_check=0.25)
    app.get("/user", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": 1, "secret": 1})
    app.ready()
    random.seed(2026)
    expected = sum(random.random() < 0.25 for _ in range(200))
    random.seed(2026)
    for _ in range(200):
        assert app.inject(url="/user").text == '{"id":1}'
    assert app.response_drift()["checked"] == expected
    assert findings(app) == [("GET /user", 200, "/secret", DROPPED, expected)]


def test_routes_without_a_builtin_serializer_are_not_checked():
    app = Framework(response_check=1.0)
    app.get("/plain", lambda request, reply: {"id": 1, "secret": 1})
    app.get("/own", {"schema": {"response": {200: USER}},
                     "serializer_compiler": lambda **route: lambda payload: '{"mine":1}'},
            lambda request, reply: {"id": 1, "secret": 1})
    assert app.inject(url="/plain").json() == {"id": 1, "secret": 1}
    assert app.inject(url="/own").text == '{"mine":1}'
    assert app.response_drift() == {"rate": 1.0, "checked": 0, "findings": [], "untracked": 0}


@pytest.mark.parametrize("rate", [None, 0, 0.0])
def test_off_the_entry_holds_no_check_and_nothing_is_found(rate):
    app = Framework(response_check=rate) if rate is not None else Framework()
    app.get("/user", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": 1, "secret": 1})
    entry = app.explain("GET", "/user")["entry"]
    assert "random" not in entry and "check" not in entry
    assert app.inject(url="/user").text == '{"id":1}'
    assert app.response_drift() == {"rate": 0.0, "checked": 0, "findings": [], "untracked": 0}
    on = Framework(response_check=0.01)
    on.get("/user", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": 1})
    assert "if random() < _response_check" in on.explain("GET", "/user")["entry"]  # what "off" leaves out


@pytest.mark.parametrize("rate, error", [(-0.1, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                                         ("0.1", TypeError), (True, TypeError)])
def test_a_rate_that_is_not_a_fraction_fails_at_construction(rate, error):
    with pytest.raises(error, match=r"response_check must be a number from 0 to 1 \(0.01 checks 1% of requests\)"):
        Framework(response_check=rate)


def test_pointers_from_request_data_are_cut_and_logged_without_control_characters(caplog):
    app = Framework(response_check=1.0)
    app.get("/echo", {"schema": {"response": {200: USER}}},
            lambda request, reply: {"id": 1, request.query["key"]: 1})
    with caplog.at_level(logging.WARNING, logger="framework"):
        app.inject(url="/echo", query={"key": "a\nforged line"})
        app.inject(url="/echo", query={"key": "k" * 5000})
    first, second = drift_records(caplog)
    assert first.getMessage() == f"response drift: GET /echo answered 200, at /a\\nforged line: {DROPPED}"
    assert [f["pointer"] for f in app.response_drift()["findings"]] == ["/a\nforged line", "/" + "k" * 196 + "..."]


def test_listeners_hear_every_finding_and_their_failures_are_only_logged(caplog):
    app = Framework(response_check=1.0)
    heard = []
    app.on_response_drift(lambda route, status, pointer: heard.append((route, status, pointer)))

    def broken(route, status, pointer):
        raise RuntimeError("listener down")

    app.on_response_drift(broken)
    app.get("/echo", {"schema": {"response": {200: USER}}},
            lambda request, reply: {"id": 1, request.query["key"]: 1})
    with caplog.at_level(logging.ERROR, logger="framework"):
        for number in range(FINDINGS_LIMIT + 1):
            assert app.inject(url="/echo", query={"key": f"k{number % (FINDINGS_LIMIT + 1)}"}).status_code == 200
        assert app.inject(url="/echo", query={"key": "k0"}).status_code == 200
    # Each finding heard with its pointer; the one beyond the kept findings without it; a repeat again.
    assert heard == [("GET /echo", 200, f"/k{number}") for number in range(FINDINGS_LIMIT)] + [
        ("GET /echo", 200, None), ("GET /echo", 200, "/k0")]
    failures = [record for record in caplog.records if record.getMessage().startswith("response drift listener")]
    assert len(failures) == FINDINGS_LIMIT + 2 and "listener down" in failures[0].getMessage()
    assert app.response_check == 1.0 and Framework().response_check == 0.0


def test_off_listeners_are_never_called():
    app = Framework()
    heard = []
    app.on_response_drift(lambda *finding: heard.append(finding))
    app.get("/user", {"schema": {"response": {200: USER}}}, lambda request, reply: {"id": 1, "secret": 1})
    assert app.inject(url="/user").text == '{"id":1}'
    assert heard == []
