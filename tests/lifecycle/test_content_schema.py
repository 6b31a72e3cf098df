"""The canonical media type picks both the parser and the body schema (no CVE-2025-32442)."""
import threading

import pytest

from framework import Framework

BODY = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 5}}}


@pytest.mark.parametrize("content_type", ["application/json", "Application/JSON", "application/json ; charset=utf-8",
                                          "application/json\t;charset=UTF-8", 'APPLICATION/json; charset="utf-8"',
                                          "application/json;"])
def test_every_spelling_of_json_is_validated(content_type):
    app = Framework()
    app.post("/items", {"schema": {"body": BODY}}, lambda request, reply: request.body)
    response = app.inject(method="POST", url="/items", body=b'{"name": "far too long"}',
                          headers={"Content-Type": content_type})
    assert response.status_code == 400
    assert response.json()["message"] == "body/name should NOT have more than 5 characters"


def test_per_content_type_body_schemas():
    app = Framework()
    schema = {"body": {"content": {"application/json": {"schema": BODY},
                                   "text/plain": {"schema": {"type": "string", "maxLength": 3}}}}}
    app.post("/c", {"schema": schema}, lambda request, reply: {"body": request.body})
    assert app.inject(method="POST", url="/c", json={"name": "ok"}).json() == {"body": {"name": "ok"}}
    assert app.inject(method="POST", url="/c", json={}).status_code == 400
    text = {"Content-Type": "TEXT/plain; charset=utf-8"}
    assert app.inject(method="POST", url="/c", body="abc", headers=text).json() == {"body": "abc"}
    too_long = app.inject(method="POST", url="/c", body="abcd", headers=text)
    assert too_long.status_code == 400
    assert too_long.json()["message"] == "body should NOT have more than 3 characters"


def test_non_json_parser_skips_the_json_body_schema():
    app = Framework()
    app.add_content_type_parser("application/x-csv", lambda request, body: body.decode().split(","))
    app.post("/csv", {"schema": {"body": BODY}}, lambda request, reply: {"body": request.body})
    response = app.inject(method="POST", url="/csv", body="a,b", headers={"Content-Type": "application/x-csv"})
    assert response.json() == {"body": ["a", "b"]}


def test_first_wsgi_calls_ready_once_across_threads():
    app = Framework()
    loads = []

    def slow_plugin(instance, opts):
        loads.append(1)
        instance.get("/x", lambda request, reply: {"ok": True})

    app.register(slow_plugin)
    results = []

    def call():
        results.append(app.inject(url="/x").status_code)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [1]
    assert results == [200] * 8
