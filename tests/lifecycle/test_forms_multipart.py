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


# -- Issue 20: text fields have a memory limit of their own ------------------------------

_RSS_SCRIPT = r"""
import json, resource, sys
from framework import Framework
from framework.plugins.multipart import multipart

FIELD, COUNT = 100_000, int(sys.argv[1])
PART = b'--B\r\nContent-Disposition: form-data; name="f"\r\n\r\n' + b"x" * FIELD + b"\r\n"
END = b"--B--\r\n"


class Body:
    # COUNT fields of 100 kB, produced as they are read: the body itself is never in memory.
    def __init__(self):
        self.at, self.size = 0, len(PART) * COUNT + len(END)

    def read(self, n=-1):
        n = self.size - self.at if n is None or n < 0 else min(n, self.size - self.at)
        out = bytearray()
        while len(out) < n:
            part, offset = divmod(self.at + len(out), len(PART))
            source = PART if part < COUNT else END
            out += source[offset:offset + n - len(out)]
        self.at += len(out)
        return bytes(out)


app = Framework()
app.register(multipart)
app.post("/any", lambda request, reply: {"fields": len(request.body)})
small = b'--B\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n--B--\r\n'
headers = {"Content-Type": "multipart/form-data; boundary=B"}
assert app.inject(method="POST", url="/any", headers=headers, body=small).status_code == 200  # warm
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
body = Body()
# chunked (no Content-Length to refuse up front): the body is read until a limit stops it
response = app.inject(method="POST", url="/any", headers={**headers, "Transfer-Encoding": "chunked"},
                      **{"wsgi.input": body, "wsgi.input_terminated": True,
                         "CONTENT_TYPE": headers["Content-Type"]})
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"status": response.status_code, "body": response.json(), "body_size": body.size,
                  "read": body.at, "peak_growth_kib": after - before}))
"""


def test_text_fields_total_is_limited_and_peak_rss_stays_low():
    """Repro: 999 text fields of 100 kB (each under field_size, 1 MiB then), a 100 MB
    chunked body: status 200, all held in memory, peak RSS +96 MiB. Now the fields'
    total has a limit of its own (form_memory_size, 500 KiB): a 413 as soon as it is
    passed, and the peak does not move (+0 MiB measured)."""
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-c", _RSS_SCRIPT, "999"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    measured = json.loads(result.stdout)
    assert measured["status"] == 413, measured
    assert measured["body"]["code"] == "FST_MULTIPART_LIMIT"
    assert "form_memory_size" in measured["body"]["message"]
    assert measured["body_size"] > 99_000_000
    assert measured["read"] < 2_000_000  # refused mid-stream, just past the 500 KiB
    assert measured["peak_growth_kib"] < 16 * 1024, measured  # a 100 MB body: under 16 MiB


def test_form_memory_size_option():
    app = upload_app(form_memory_size=100, field_size=60)
    ok, content_type = multipart_body([("title", "x" * 50), ("n", "1" * 40)])
    assert app.inject(method="POST", url="/any", headers={"Content-Type": content_type},
                      body=ok).status_code == 200
    over, _ = multipart_body([("title", "x" * 50), ("n", "1" * 51)])
    response = app.inject(method="POST", url="/any", headers={"Content-Type": content_type}, body=over)
    assert response.status_code == 413
    assert response.json()["message"] == ("multipart body over its limit: the text fields are larger than "
                                           "form_memory_size (100 bytes)")
    # files do not count toward the text fields' memory
    with_file, _ = multipart_body([("title", "x" * 50)], [("doc", "a.txt", b"y" * 5000, "text/plain")])
    assert app.inject(method="POST", url="/any", headers={"Content-Type": content_type},
                      body=with_file).json() == {"body": {"title": "x" * 50}, "files": 1}
    with pytest.raises(MultipartOptionsError, match="field_size"):
        upload_app(form_memory_size=100, field_size=200).ready()


# -- Issue 20: a missing body is validated as an empty one -------------------------------

MULTIPART = "multipart/form-data"
NAME_REQUIRED = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}


def empty_bodies(media_type):
    """A present but empty body of ``media_type``: (headers, body)."""
    return {FORM: ({"Content-Type": FORM}, b""),
            MULTIPART: ({"Content-Type": "multipart/form-data; boundary=B"}, b"--B--\r\n")}[media_type]


@pytest.mark.parametrize("media_types", [[FORM], [MULTIPART], [FORM, MULTIPART], [MULTIPART, FORM]])
def test_missing_body_gets_the_error_of_an_empty_form(media_types):
    """Repro: POST with no body and no Content-Type to a form-only or multipart-only
    schema with required fields: status 200, the handler ran with request.body None.
    Now: the 400 an empty form gets ("body should have required property 'name'")."""
    app = Framework()
    app.register(multipart)
    ran = []

    def handler(request, reply):
        ran.append(request.body)
        return {"body": request.body}

    app.post("/r", handler, schema={"body": {"content": {t: {"schema": NAME_REQUIRED} for t in media_types}}})
    empty = app.inject(method="POST", url="/r", headers=empty_bodies(media_types[0])[0],
                       body=empty_bodies(media_types[0])[1])
    assert empty.status_code == 400
    assert empty.json()["message"] == "body should have required property 'name'"
    for headers in ({}, {"Content-Length": "0"}):
        missing = app.inject(method="POST", url="/r", headers=headers)
        assert (missing.status_code, missing.json()) == (400, empty.json())
    assert ran == []


@pytest.mark.parametrize("body_schema", [
    NAME_REQUIRED,                                                       # a plain (JSON) schema
    {"content": {"application/json": {"schema": NAME_REQUIRED}}},
    {"content": {"application/vnd.api+json": {"schema": NAME_REQUIRED}}},
    {"content": {FORM: {"schema": NAME_REQUIRED}, "application/json": {"schema": NAME_REQUIRED}}},
])
def test_missing_body_of_a_json_content_map_is_refused_as_on_a_json_route(body_schema):
    """A content map with a JSON entry validates a missing body by it, as a plain JSON
    body schema does (Fastify's "body should be object"); repro: with only a +json
    entry, the handler ran with request.body None (status 200)."""
    app = Framework()
    app.post("/r", lambda request, reply: {"ran": True}, schema={"body": body_schema})
    missing = app.inject(method="POST", url="/r")
    assert (missing.status_code, missing.json()["message"]) == (400, "body should be object")


def test_missing_body_of_an_optional_form_is_an_empty_form():
    """No required field: a missing body passes, as the empty form it is (defaults filled)."""
    app = Framework()
    schema = {"type": "object", "properties": {"page": {"type": "integer", "default": 1}}}
    app.post("/r", lambda request, reply: {"body": request.body}, schema={"body": {"content": {FORM: {"schema": schema}}}})
    assert app.inject(method="POST", url="/r").json() == {"body": {"page": 1}}


# -- Issue 20: file parts declared the OpenAPI way ({"type": "string", "format": "binary"}) --

UPLOAD_SCHEMA = {"type": "object", "required": ["title", "doc"], "additionalProperties": False, "properties": {
    "title": {"type": "string"},
    "doc": {"type": "string", "format": "binary", "description": "the document"},
    "extras": {"type": "array", "items": {"type": "string", "format": "binary"}, "maxItems": 2}}}


def declared_upload_app():
    app = Framework()
    app.register(multipart)

    def handler(request, reply):
        body = request.body
        return {"title": body["title"], "doc": [body["doc"].filename, body["doc"].stream.read().decode()],
                "same": body["doc"] is request.files["doc"],
                "extras": [upload.filename for upload in body.get("extras", [])]}

    app.post("/up", handler, schema={"body": {"content": {MULTIPART: {"schema": UPLOAD_SCHEMA}}}})
    return app


def post_upload(app, fields=(), files=()):
    body, content_type = multipart_body(fields, files)
    return app.inject(method="POST", url="/up", headers={"Content-Type": content_type}, body=body)


def test_declared_file_part_accepts_a_real_upload():
    """Repro: a required {"type": "string", "format": "binary"} part made every real
    upload a 400 ("body should have required property 'doc'"). Now it is the file part:
    request.body["doc"] is its FileStorage."""
    app = declared_upload_app()
    response = post_upload(app, [("title", "report")], [("doc", "r.txt", b"hello", "text/plain")])
    assert response.status_code == 200, response.text
    assert response.json() == {"title": "report", "doc": ["r.txt", "hello"], "same": True, "extras": []}
    several = post_upload(app, [("title", "t")], [("doc", "r.txt", b"x", "text/plain"),
                                                  ("extras", "a.txt", b"a", "text/plain")])
    assert several.json()["extras"] == ["a.txt"]  # one file under an array name is a list of one


@pytest.mark.parametrize("fields, files, message", [
    ([("title", "t")], [], "body should have required property 'doc'"),
    ([("title", "t"), ("doc", "not a file")], [], "body/doc should be a file"),
    ([("title", "t")], [("doc", "a", b"1", "text/plain"), ("doc", "b", b"2", "text/plain")],
     "body/doc should be a single file"),
    ([("title", "t")], [("doc", "a", b"1", "text/plain")] + [("extras", f"{n}", b"x", "text/plain") for n in range(3)],
     "body/extras should NOT have more than 2 items"),
    ([], [], "body should have required property 'title'"),
])
def test_declared_file_parts_are_validated(fields, files, message):
    response = post_upload(declared_upload_app(), fields, files)
    assert (response.status_code, response.json()["code"], response.json()["message"]) == (
        400, "FST_ERR_VALIDATION", message)


def test_missing_body_names_the_missing_file_part():
    app = Framework()
    app.register(multipart)
    app.post("/up", lambda request, reply: "ran", schema={"body": {"content": {MULTIPART: {"schema": {
        "type": "object", "required": ["doc"], "properties": {"doc": {"type": "string", "format": "binary"}}}}}}})
    missing = app.inject(method="POST", url="/up")
    assert (missing.status_code, missing.json()["message"]) == (400, "body should have required property 'doc'")


def test_openapi_documents_file_parts_as_binary():
    from openapi_spec_validator import validate

    from framework.plugins.openapi import openapi
    app = declared_upload_app()
    app.register(openapi, info={"title": "t", "version": "1"})
    app.ready()
    document = app.openapi()
    validate(document)
    request_body = document["paths"]["/up"]["post"]["requestBody"]
    assert request_body["content"][MULTIPART]["schema"]["properties"] == UPLOAD_SCHEMA["properties"]
    assert request_body["content"][MULTIPART]["schema"]["required"] == ["title", "doc"]
