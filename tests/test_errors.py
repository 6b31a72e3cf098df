"""Every row of DESIGN 7's error table, with exact payloads and Node's status texts."""
import io
import json
import logging

import pytest

from framework import Framework, FrameworkError, create_error

JSON_TYPE = "application/json; charset=utf-8"


def payload(response):
    assert response.headers["content-type"] == JSON_TYPE
    return json.loads(response.body)


@pytest.fixture
def app():
    app = Framework()
    app.post("/echo", lambda request, reply: {"body": request.body})
    app.get("/boom", lambda request, reply: (_ for _ in ()).throw(RuntimeError("kaboom")))
    return app


def test_unknown_route_404_with_raw_url(app):
    response = app.inject(url="/nope?x=1")
    assert response.status_code == 404
    assert list(payload(response)) == ["statusCode", "error", "message"]
    assert payload(response) == {"statusCode": 404, "error": "Not Found", "message": "Route GET:/nope?x=1 not found"}


@pytest.mark.parametrize("body", [b'{"a":', b"{'a': 1}", b"NaN", b"[Infinity]", b'{"a": -Infinity}', b"[1e400]",
                                  b"01", b"[" * 100000 + b"]" * 100000])
def test_malformed_json_is_400_without_code(app, body):
    response = app.inject(method="POST", url="/echo", body=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    data = payload(response)
    assert list(data) == ["statusCode", "error", "message"]
    assert data["error"] == "Bad Request" and data["message"]


def test_json_that_is_valid_but_looks_suspicious_still_parses(app):
    body = b'{"s": "NaN Infinity 1e400 01", "n": 1e300, "z": 0.5}'
    response = app.inject(method="POST", url="/echo", body=body, headers={"Content-Type": "application/json"})
    assert response.json() == {"body": {"s": "NaN Infinity 1e400 01", "n": 1e300, "z": 0.5}}


def test_empty_json_body(app):
    response = app.inject(method="POST", url="/echo", body=b"", headers={"Content-Type": "application/json",
                                                                       "Content-Length": "0"})
    assert response.status_code == 400
    assert payload(response) == {"statusCode": 400, "code": "FST_ERR_CTP_EMPTY_JSON_BODY", "error": "Bad Request",
                                 "message": "Body cannot be empty when content-type is set to 'application/json'"}


def test_body_over_limit_is_413_without_reading_the_rest():
    app = Framework(body_limit=10)
    app.post("/echo", lambda request, reply: {"body": request.body})

    class Stream(io.BytesIO):
        def read(self, size=-1):
            if size is None or size < 0 or self.tell() + size > 11:
                raise AssertionError("read past the body limit")
            return super().read(size)

    declared = app.inject(method="POST", url="/echo", headers={"Content-Type": "application/json",
                                                             "Content-Length": "50"},
                          **{"wsgi.input": Stream(b"x" * 50)})
    assert declared.status_code == 413
    assert payload(declared) == {"statusCode": 413, "code": "FST_ERR_CTP_BODY_TOO_LARGE",
                                 "error": "Payload Too Large", "message": "Request body is too large"}
    assert "connection" not in declared.headers  # hop-by-hop: the server decides (PEP 3333)
    chunked = app.inject(method="POST", url="/echo", headers={"Content-Type": "application/json",
                                                            "Transfer-Encoding": "chunked"},
                         **{"wsgi.input": Stream(b"[" + b"1," * 40 + b"1]"), "CONTENT_LENGTH": ""})
    assert chunked.status_code == 413


def test_body_within_limit_streamed_without_length():
    app = Framework(body_limit=100)
    app.post("/echo", lambda request, reply: {"body": request.body})
    response = app.inject(method="POST", url="/echo", headers={"Content-Type": "application/json",
                                                             "Transfer-Encoding": "chunked"},
                          **{"wsgi.input": io.BytesIO(b'{"a": [1, 2]}'), "CONTENT_LENGTH": ""})
    assert response.json() == {"body": {"a": [1, 2]}}


def test_unsupported_media_type_and_missing_content_type(app):
    response = app.inject(method="POST", url="/echo", body=b"<a/>", headers={"Content-Type": "application/xml"})
    assert response.status_code == 415
    assert payload(response) == {"statusCode": 415, "code": "FST_ERR_CTP_INVALID_MEDIA_TYPE",
                                 "error": "Unsupported Media Type", "message": "Unsupported Media Type: application/xml"}
    response = app.inject(method="POST", url="/echo", body=b"abc")
    assert payload(response)["message"] == "Unsupported Media Type: the request has a body but no Content-Type"
    form = app.inject(method="POST", url="/echo", body=b"a=1",
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 200  # the built-in form parser (issue 15)


def test_exception_in_handler_is_500_without_traceback_and_logged(app, caplog):
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/boom")
    assert response.status_code == 500
    assert payload(response) == {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}
    assert "Traceback" not in response.text
    record = next(r for r in caplog.records if r.levelno == logging.ERROR)
    assert record.exc_info and record.exc_info[1].args == ("kaboom",)
    assert record.req_id.startswith("req-")


@pytest.mark.parametrize("status, text", [(400, "Bad Request"), (413, "Payload Too Large"), (414, "URI Too Long"),
                                          (416, "Range Not Satisfiable"), (418, "I'm a Teapot"),
                                          (503, "Service Unavailable")])
def test_exception_with_status_code_and_node_status_texts(status, text):
    app = Framework()

    class Custom(Exception):
        status_code = status

    def handler(request, reply):
        raise Custom("boom")

    app.get("/e", handler)
    response = app.inject(url="/e")
    assert response.status_code == status
    assert payload(response) == {"statusCode": status, "error": text, "message": "boom"}


def test_error_code_headers_and_explicit_status():
    app = Framework()
    Teapot = create_error("MY_TEAPOT", "short %s", 418)

    def with_headers(request, reply):
        raise FrameworkError("limited", status_code=429, headers={"retry-after": "5"})

    app.get("/teapot", lambda request, reply: (_ for _ in ()).throw(Teapot("and stout")))
    app.get("/headers", with_headers)
    app.get("/redirect-error", lambda request, reply: reply.code(302).send(ValueError("x")))
    app.get("/gone", lambda request, reply: reply.code(404).send(ValueError("gone")))
    assert payload(app.inject(url="/teapot")) == {"statusCode": 418, "code": "MY_TEAPOT", "error": "I'm a Teapot",
                                                  "message": "short and stout"}
    limited = app.inject(url="/headers")
    assert limited.status_code == 429 and limited.headers["retry-after"] == "5"
    assert app.inject(url="/redirect-error").status_code == 500
    gone = app.inject(url="/gone")
    assert gone.status_code == 404 and payload(gone)["message"] == "gone"


def test_child_error_handler_failure_goes_to_parent():
    app = Framework()
    app.set_error_handler(lambda error, request, reply: reply.code(500).send({"root_saw": str(error)}))

    def child(instance, opts):
        def failing_handler(error, request, reply):
            raise RuntimeError(f"handler failed: {error}")
        instance.set_error_handler(failing_handler)
        instance.get("/inner", lambda request, reply: (_ for _ in ()).throw(ValueError("inner")))

    app.register(child)
    app.get("/outer", lambda request, reply: (_ for _ in ()).throw(ValueError("outer")))
    assert app.inject(url="/inner").json() == {"root_saw": "handler failed: inner"}
    assert app.inject(url="/outer").json() == {"root_saw": "outer"}


def test_header_value_with_crlf_is_refused():
    app = Framework()
    app.get("/h", lambda request, reply: reply.header("x-injected", "a\r\nSet-Cookie: evil=1").send("no"))
    response = app.inject(url="/h")
    assert response.status_code == 500
    assert "set-cookie" not in response.headers
    assert payload(response)["code"] == "FST_ERR_REP_INVALID_HEADER"


def test_bad_status_code():
    app = Framework()
    app.get("/s", lambda request, reply: reply.code(999).send("x"))
    response = app.inject(url="/s")
    assert response.status_code == 500
    assert payload(response)["message"] == "Called reply with an invalid status code: 999"


def test_body_read_in_short_pieces_and_a_body_shorter_than_declared():
    app = Framework()
    app.post("/echo", lambda request, reply: {"body": request.body})

    class Trickle(io.BytesIO):
        def read(self, size=-1):
            return super().read(min(size, 3))

    headers = {"Content-Type": "application/json", "Content-Length": "13"}
    response = app.inject(method="POST", url="/echo", headers=headers, **{"wsgi.input": Trickle(b'{"a": [1, 2]}')})
    assert response.json() == {"body": {"a": [1, 2]}}
    short = app.inject(method="POST", url="/echo", headers=headers, **{"wsgi.input": io.BytesIO(b'{"a": 1}')})
    assert short.status_code == 400
    assert payload(short) == {"statusCode": 400, "code": "FST_ERR_CTP_INVALID_CONTENT_LENGTH", "error": "Bad Request",
                              "message": "Request body size did not match Content-Length"}
