"""Logging and request ids: records and their fields, request_logging's two lines,
request.log, log_level, the request-id header (hostile ids replaced), gen_request_id,
and the default id's uniqueness across processes."""
import json
import logging
import multiprocessing
import re

import pytest

from framework import Framework
from framework.lifecycle.request_log import SAFE_REQUEST_ID, default_request_id

ID = re.compile(r"req-[0-9a-f]{12}-[0-9a-f]+")


def records(caplog, message):
    return [record for record in caplog.records if record.getMessage() == message]


def test_request_logging_logs_two_lines_with_fields(caplog):
    app = Framework(request_logging=True)
    app.get("/items/:id", lambda request, reply: {"id": request.params["id"]})
    with caplog.at_level(logging.INFO, logger="framework"):
        response = app.inject(url="/items/7?x=1", headers={"authorization": "Bearer s3cret", "cookie": "sid=abc"},
                              REMOTE_ADDR="10.1.2.3")
    assert response.status_code == 200
    [incoming] = records(caplog, "incoming request")
    [completed] = records(caplog, "request completed")
    assert incoming.name == completed.name == "framework"
    assert ID.fullmatch(incoming.req_id) and incoming.req_id == completed.req_id
    assert (incoming.method, incoming.url, incoming.remote_address) == ("GET", "/items/7?x=1", "10.1.2.3")
    assert (completed.method, completed.url, completed.status_code) == ("GET", "/items/7?x=1", 200)
    assert isinstance(completed.response_time, float) and completed.response_time >= 0
    # Headers such as authorization and cookie are never logged, in any field.
    for record in caplog.records:
        assert "s3cret" not in json.dumps(vars(record), default=str)
        assert "sid=abc" not in json.dumps(vars(record), default=str)


def test_request_logging_covers_errors_and_not_found(caplog):
    app = Framework(request_logging=True)
    app.get("/boom", lambda request, reply: 1 / 0)
    with caplog.at_level(logging.INFO, logger="framework"):
        assert app.inject(url="/boom").status_code == 500
        assert app.inject(url="/missing").status_code == 404
    completed = records(caplog, "request completed")
    assert [(r.url, r.status_code) for r in completed] == [("/boom", 500), ("/missing", 404)]


def test_without_request_logging_nothing_is_logged_and_no_step_is_added(caplog):
    app = Framework()
    app.get("/x", lambda request, reply: {"ok": True})
    with caplog.at_level(logging.DEBUG, logger="framework"):
        assert app.inject(url="/x").status_code == 200
    assert caplog.records == []
    route = app._state.router.static["GET"]["/x"].compiled
    assert route.steps == () and route.on_response == () and route.plain_json


def test_an_unexpected_exception_is_logged_once_with_traceback_method_url_and_id(caplog):
    app = Framework(request_id_header="x-request-id")
    app.post("/boom", lambda request, reply: 1 / 0)
    with caplog.at_level(logging.DEBUG, logger="framework"):
        response = app.inject("POST", "/boom?a=1", headers={"x-request-id": "abc-123"}, json={})
    assert response.status_code == 500 and response.headers["x-request-id"] == "abc-123"
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.exc_info[0] is ZeroDivisionError
    assert (record.req_id, record.method, record.url) == ("abc-123", "POST", "/boom?a=1")
    assert len(caplog.records) == 1


def test_request_log_adapter_carries_the_id_and_route_log_level_filters(caplog):
    app = Framework(request_logging=True)
    app.get("/loud", lambda request, reply: request.log.info("hello") or {"id": request.id})
    app.get("/quiet", lambda request, reply: request.log.info("hello") or request.log.warning("careful") or {},
            log_level="warn")
    app.get("/silent", lambda request, reply: 1 / 0, log_level="silent")
    with caplog.at_level(logging.DEBUG, logger="framework"):
        loud_id = app.inject(url="/loud").json()["id"]
        app.inject(url="/quiet")
        assert app.inject(url="/silent").status_code == 500
    assert [r.req_id for r in records(caplog, "hello")] == [loud_id]
    assert len(records(caplog, "careful")) == 1
    assert [r.url for r in records(caplog, "request completed")] == ["/loud"]  # info lines: below warn
    assert not any(r.levelno >= logging.ERROR for r in caplog.records)  # silent


def test_log_level_is_checked_at_declaration():
    app = Framework()
    with pytest.raises(ValueError, match="unknown log_level"):
        app.get("/x", lambda request, reply: {}, log_level="loud")
    app.get("/y", lambda request, reply: {}, log_level=logging.DEBUG)


@pytest.mark.parametrize("incoming", [
    "x" * 65, "abc def", "abc\ninjected log line", "<script>", "a/b", "", "ünïcode", "id;rm -rf",
])
def test_a_hostile_incoming_id_is_replaced(incoming):
    app = Framework(request_id_header="X-Request-Id")
    app.get("/id", lambda request, reply: {"id": request.id})
    response = app.inject(url="/id", HTTP_X_REQUEST_ID=incoming)  # in the environ: werkzeug refuses a newline
    assert ID.fullmatch(response.json()["id"])
    assert response.headers["x-request-id"] == response.json()["id"]


def test_a_safe_incoming_id_is_kept_and_echoed():
    app = Framework(request_id_header="x-request-id")
    app.get("/id", lambda request, reply: {"id": request.id})
    for incoming in ("abc", "A.b_c-9", "x" * 64, "0f8fad5b-d9cb-469f-a165-70867728950e"):
        response = app.inject(url="/id", headers={"x-request-id": incoming})
        assert response.json()["id"] == response.headers["x-request-id"] == incoming
    not_found = app.inject(url="/missing", headers={"x-request-id": "lost-1"})
    assert not_found.status_code == 404 and not_found.headers["x-request-id"] == "lost-1"


def test_without_the_header_option_incoming_ids_are_ignored_and_not_echoed():
    app = Framework()
    app.get("/id", lambda request, reply: {"id": request.id})
    response = app.inject(url="/id", headers={"x-request-id": "abc"})
    assert ID.fullmatch(response.json()["id"]) and "x-request-id" not in response.headers


def test_gen_request_id():
    app = Framework(request_id_header="x-request-id", gen_request_id=lambda request: f"gen-{request.method}")
    app.get("/id", lambda request, reply: {"id": request.id})
    assert app.inject(url="/id").json() == {"id": "gen-GET"}
    assert app.inject(url="/id", headers={"x-request-id": "mine"}).json() == {"id": "mine"}
    with pytest.raises(TypeError):
        Framework(gen_request_id="nope")
    with pytest.raises(ValueError):
        Framework(request_id_header="x request id")


def test_the_id_is_taken_lazily():
    calls = []
    app = Framework(gen_request_id=lambda request: calls.append(1) or "made")
    app.get("/no-id", lambda request, reply: {})
    app.get("/id", lambda request, reply: {"id": request.id, "again": request.id})
    app.inject(url="/no-id")
    assert calls == []
    assert app.inject(url="/id").json() == {"id": "made", "again": "made"} and calls == [1]


def _ids(queue):
    queue.put([default_request_id() for _ in range(1000)])


def test_default_ids_are_unique_across_processes():
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    default_request_id()  # the parent has drawn its prefix: the forked children draw their own
    children = [context.Process(target=_ids, args=(queue,)) for _ in range(2)]
    for child in children:
        child.start()
    first, second = queue.get(timeout=20), queue.get(timeout=20)
    for child in children:
        child.join(timeout=20)
    ours = [default_request_id() for _ in range(1000)]
    assert len(set(first) | set(second) | set(ours)) == 3000
    assert all(SAFE_REQUEST_ID.fullmatch(id_) for id_ in first + second)


def test_logger_true_formats_the_request_fields(capsys):
    logger = logging.getLogger("framework")
    saved = logger.handlers[:], logger.level
    logger.handlers.clear()
    try:
        app = Framework(logger=True, request_logging=True)
        app.get("/x", lambda request, reply: {})
        app.inject(url="/x")
        err = capsys.readouterr().err
        assert "incoming request req_id=req-" in err and "request completed req_id=" in err
        assert "status_code=200" in err and "response_time=" in err
    finally:
        logger.handlers[:], logger.level = saved[0], saved[1]
