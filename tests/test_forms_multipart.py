"""Form bodies (the built-in urlencoded parser), framework.plugins.multipart, stream=True parsers."""
import io
import json

import pytest

from framework import Framework
from framework.plugins.multipart import MultipartOptionsError, multipart

FORM = "application/x-www-form-urlencoded"
FORM_SCHEMA = {"content": {FORM: {"schema": {
    "type": "object", "required": ["name"],
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
                   "tags": {"type": "array", "items": {"type": "string"}}}}}}}


def test_urlencoded_body_is_parsed_like_the_query_string():
    app = Framework()
    app.post("/f", lambda request, reply: request.body)
    response = app.inject(method="POST", url="/f", headers={"Content-Type": FORM},
                          body="a=1&a=2&b=x+y&c=%C3%A9&d")
    assert response.json() == {"a": ["1", "2"], "b": "x y", "c": "é", "d": ""}
    bad = app.inject(method="POST", url="/f", headers={"Content-Type": FORM}, body="a=\xe9".encode("latin-1"))
    assert bad.status_code == 400


def test_form_validated_by_its_content_schema():
    app = Framework()
    app.post("/f", lambda request, reply: request.body, schema={"body": FORM_SCHEMA})
    ok = app.inject(method="POST", url="/f", headers={"Content-Type": FORM}, body="name=ann&age=42&tags=a")
    assert ok.json() == {"name": "ann", "age": 42, "tags": ["a"]}  # coerced as the query string is
    missing = app.inject(method="POST", url="/f", headers={"Content-Type": FORM}, body="age=1")
    assert missing.status_code == 400 and "name" in missing.json()["message"]
    # the content map has no JSON entry: a JSON body is not validated by the form schema
    assert app.inject(method="POST", url="/f", json={"age": "x"}).status_code == 200


def test_plain_body_schema_keeps_the_json_only_rule():
    app = Framework()
    app.post("/j", lambda request, reply: request.body,
             schema={"body": {"type": "object", "required": ["name"]}})
    assert app.inject(method="POST", url="/j", headers={"Content-Type": FORM}, body="x=1").status_code == 415
    assert app.inject(method="POST", url="/j", headers={"Content-Type": "text/plain"}, body="x").status_code == 415
    assert app.inject(method="POST", url="/j", json={"name": "a"}).status_code == 200


def test_stream_parser_gets_a_bounded_stream():
    app = Framework()
    seen = {}

    def parse(request, stream):
        seen["type"] = type(stream).__name__
        total = 0
        while True:
            chunk = stream.read(1000)
            if not chunk:
                return {"bytes": total}
            total += len(chunk)

    app.add_content_type_parser("application/octet-stream", parse, stream=True, body_limit=5000)
    app.post("/s", lambda request, reply: request.body)
    app.post("/small", lambda request, reply: request.body, body_limit=100)
    headers = {"Content-Type": "application/octet-stream"}
    assert app.inject(method="POST", url="/s", headers=headers, body=b"x" * 3000).json() == {"bytes": 3000}
    assert seen["type"] == "BoundedStream"
    assert app.inject(method="POST", url="/s", headers=headers, body=b"x" * 6000).status_code == 413
    assert app.inject(method="POST", url="/small", headers=headers, body=b"x" * 200).status_code == 413
    # chunked: cut at the limit while reading
    chunked = app.inject(method="POST", url="/s", headers={**headers, "Transfer-Encoding": "chunked"},
                         body=b"x" * 6000, **{"wsgi.input_terminated": True})
    assert chunked.status_code == 413


def multipart_body(fields=(), files=(), boundary="XyZ"):
    lines = []
    for name, value in fields:
        lines += [f"--{boundary}", f'Content-Disposition: form-data; name="{name}"', "", value]
    out = "\r\n".join(lines).encode()
    for name, filename, content, content_type in files:
        out += (f'{"" if not out else chr(13) + chr(10)}--{boundary}\r\nContent-Disposition: form-data; '
                f'name="{name}"; filename="{filename}"\r\nContent-Type: {content_type}\r\n\r\n').encode() + content
    out += f"\r\n--{boundary}--\r\n".encode()
    return out, f"multipart/form-data; boundary={boundary}"


def upload_app(**limits):
    app = Framework()
    app.register(multipart, **limits)
    schema = {"body": {"content": {"multipart/form-data": {"schema": {
        "type": "object", "required": ["title"], "properties": {"title": {"type": "string"},
                                                                "n": {"type": "integer"}}}}}}}

    def handler(request, reply):
        upload = request.files.get("doc")
        return {"body": request.body, "files": {name: [f.filename, f.content_type, f.stream.read().decode()]
                                               for name, f in request.files.items()},
                "has": upload is not None}

    app.post("/up", handler, schema=schema)
    app.post("/any", lambda request, reply: {"body": request.body, "files": len(request.files)})
    app.post("/json", lambda request, reply: request.body, schema={"body": {"type": "object"}})
    app.get("/nofiles", lambda request, reply: {"files": len(request.files)})
    return app


def test_multipart_fields_and_files():
    app = upload_app()
    body, content_type = multipart_body([("title", "report"), ("n", "3")],
                                        [("doc", "a.txt", b"hello file", "text/plain")])
    response = app.inject(method="POST", url="/up", headers={"Content-Type": content_type}, body=body)
    assert response.status_code == 200, response.text
    assert response.json() == {"body": {"title": "report", "n": 3},
                               "files": {"doc": ["a.txt", "text/plain", "hello file"]}, "has": True}
    invalid = app.inject(method="POST", url="/up", headers={"Content-Type": content_type},
                         body=multipart_body([("n", "3")])[0])
    assert invalid.status_code == 400
    assert app.inject(method="POST", url="/json", headers={"Content-Type": content_type},
                      body=body).status_code == 415
    assert app.inject(url="/nofiles").json() == {"files": 0}


def test_multipart_save(tmp_path):
    app = Framework()
    app.register(multipart)

    def handler(request, reply):
        request.files["doc"].save(str(tmp_path / "saved.bin"))
        return "ok"

    app.post("/save", handler)
    body, content_type = multipart_body(files=[("doc", "x.bin", b"\x00\x01binary", "application/octet-stream")])
    assert app.inject(method="POST", url="/save", headers={"Content-Type": content_type}, body=body).text == "ok"
    assert (tmp_path / "saved.bin").read_bytes() == b"\x00\x01binary"


@pytest.mark.parametrize("limits, fields, files", [
    ({"file_size": 10}, [], [("doc", "a", b"x" * 11, "text/plain")]),
    ({"files": 1}, [], [("a", "a", b"1", "text/plain"), ("b", "b", b"2", "text/plain")]),
    ({"fields": 2}, [("a", "1"), ("b", "2"), ("c", "3")], []),
    ({"parts": 2}, [("a", "1"), ("b", "2"), ("c", "3")], []),
    ({"field_size": 5}, [("a", "123456")], []),
])
def test_multipart_limits_are_413(limits, fields, files):
    app = upload_app(**limits)
    body, content_type = multipart_body(fields, files)
    response = app.inject(method="POST", url="/any", headers={"Content-Type": content_type}, body=body)
    assert response.status_code == 413, response.text


def test_multipart_limit_stops_reading_mid_stream():
    app = upload_app(file_size=1000)
    body, content_type = multipart_body(files=[("doc", "big", b"x" * 2_000_000, "text/plain")])

    class Counting(io.BytesIO):
        read_total = 0

        def read(self, n=-1):
            data = super().read(n)
            Counting.read_total += len(data)
            return data

    stream = Counting(body)
    response = app.inject(method="POST", url="/any", headers={"Content-Type": content_type,
                                                              "Content-Length": str(len(body))},
                          **{"wsgi.input": stream, "CONTENT_TYPE": content_type})
    assert response.status_code == 413
    assert Counting.read_total < 500_000  # refused long before the end


def test_multipart_bad_requests_and_options():
    app = upload_app()
    assert app.inject(method="POST", url="/any", headers={"Content-Type": "multipart/form-data"},
                      body=b"x").status_code == 400
    for options in ({"files": 0}, {"file_size": "big"}, {"nope": 1}):
        with pytest.raises(MultipartOptionsError):
            upload_app(**options).ready()
