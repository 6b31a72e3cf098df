"""Streamed replies (generators, iterators, file objects), send_file, SSE and framework.plugins.static."""
import io
import logging
import os

import pytest

from framework import Framework
from framework.plugins.static import StaticOptionsError, static


def test_generator_is_streamed_without_content_length():
    app = Framework()
    seen = []

    def handler(request, reply):
        def chunks():
            try:
                yield b"a"
                yield "é"
                yield bytearray(b"c")
            finally:
                seen.append("closed")
        return chunks()

    app.get("/g", handler, on_response=lambda request, reply: seen.append("on_response"))
    response = app.inject(url="/g")
    assert response.status_code == 200 and response.body == "aéc".encode()
    assert "content-length" not in response.headers
    assert response.headers["content-type"] == "application/octet-stream"
    assert seen == ["closed", "on_response"]  # after the last chunk


def test_on_response_runs_after_the_last_chunk():
    app = Framework()
    events = []

    def chunks():
        for n in range(3):
            events.append(f"chunk {n}")
            yield str(n)

    app.get("/g", lambda request, reply: reply.type("text/plain").send(chunks()))
    app.add_hook("on_response", lambda request, reply: events.append("on_response"))
    app.ready()
    environ_response = {}
    from werkzeug.test import EnvironBuilder
    environ = EnvironBuilder(path="/g").get_environ()
    body = app(environ, lambda status, headers, exc_info=None: environ_response.update(status=status))
    assert events == ["chunk 0"]  # the first chunk is made before the status goes out
    assert b"".join(body) == b"012" and events == ["chunk 0", "chunk 1", "chunk 2"]
    body.close()
    assert events[-1] == "on_response"


def test_error_before_first_chunk_is_a_500():
    app = Framework()

    def handler(request, reply):
        def chunks():
            raise RuntimeError("early")
            yield b"never"  # noqa
        return chunks()

    app.get("/g", handler)
    response = app.inject(url="/g")
    assert response.status_code == 500 and response.json()["statusCode"] == 500


def test_error_after_status_is_logged_and_raised_to_the_server(caplog):
    app = Framework()

    def chunks():
        yield b"first"
        raise RuntimeError("mid-stream")

    app.get("/g", lambda request, reply: chunks())
    with caplog.at_level(logging.ERROR, logger="framework"), pytest.raises(RuntimeError, match="mid-stream"):
        app.inject(url="/g")
    assert any("after its status was sent" in record.getMessage() for record in caplog.records)


def test_head_and_iterators():
    app = Framework()
    app.get("/it", lambda request, reply: iter([b"x", b"y"]))
    assert app.inject(url="/it").body == b"xy"
    head = app.inject(method="HEAD", url="/it")
    assert head.status_code == 200 and head.body == b"" and "content-length" not in head.headers


def test_generator_inside_json_is_a_500_saying_what_to_do(caplog):
    app = Framework()
    app.get("/", lambda request, reply: {"items": (n for n in range(3))})
    with caplog.at_level(logging.ERROR, logger="framework"):
        assert app.inject(url="/").status_code == 500
    assert "send the iterator itself to stream it" in caplog.records[-1].getMessage()


def test_file_objects_use_the_file_wrapper(tmp_path):
    data = os.urandom(200_000)
    (tmp_path / "blob.bin").write_bytes(data)
    app = Framework()
    app.get("/f", lambda request, reply: open(tmp_path / "blob.bin", "rb"))
    app.get("/mem", lambda request, reply: io.BytesIO(b"in memory"))
    wrapped = []

    class Wrapper:
        def __init__(self, file, block):
            wrapped.append(block)
            self.file = file

        def __iter__(self):
            return iter(lambda: self.file.read(8192), b"")

        def close(self):
            self.file.close()

    response = app.inject(url="/f", **{"wsgi.file_wrapper": Wrapper})
    assert response.body == data and response.headers["content-length"] == str(len(data)) and wrapped
    assert app.inject(url="/f").body == data  # no wrapper offered: read in blocks
    memory = app.inject(url="/mem")
    assert memory.body == b"in memory" and "content-length" not in memory.headers


@pytest.fixture
def files(tmp_path):
    (tmp_path / "hello.txt").write_bytes(b"0123456789")
    return tmp_path


def test_send_file_etag_last_modified_304(files):
    app = Framework()
    app.get("/file", lambda request, reply: reply.send_file(files / "hello.txt", max_age=60))
    app.get("/dl", lambda request, reply: reply.send_file(files / "hello.txt", download_name="report.txt"))
    app.get("/missing", lambda request, reply: reply.send_file(files / "nope.txt"))
    response = app.inject(url="/file")
    assert response.status_code == 200 and response.body == b"0123456789"
    assert response.headers["content-type"].startswith("text/plain")
    etag, modified = response.headers["etag"], response.headers["last-modified"]
    assert "max-age=60" in response.headers["cache-control"]
    assert app.inject(url="/file", headers={"If-None-Match": etag}).status_code == 304
    assert app.inject(url="/file", headers={"If-Modified-Since": modified}).status_code == 304
    assert 'attachment; filename=report.txt' in app.inject(url="/dl").headers["content-disposition"]
    assert app.inject(url="/missing").status_code == 404


def test_send_file_ranges(files):
    app = Framework()
    app.get("/file", lambda request, reply: reply.send_file(files / "hello.txt"))
    partial = app.inject(url="/file", headers={"Range": "bytes=2-4"})
    assert partial.status_code == 206 and partial.body == b"234"
    assert partial.headers["content-range"] == "bytes 2-4/10"
    suffix = app.inject(url="/file", headers={"Range": "bytes=-3"})
    assert suffix.status_code == 206 and suffix.body == b"789"
    refused = app.inject(url="/file", headers={"Range": "bytes=50-60"})
    assert refused.status_code == 416 and refused.headers["content-range"] == "bytes */10"


def test_send_file_sends_the_whole_file_for_ranges_it_ignores(tmp_path):
    # RFC 9110 14.2: an unknown range unit is ignored; a suffix longer than the file
    # means the whole file (sent as a plain 200, as the issue asks); several ranges
    # are ignored too (werkzeug serves one range only).
    data = bytes(range(256)) * 4 + b"x" * 976  # 2,000 bytes
    (tmp_path / "big.bin").write_bytes(data[:1000])
    app = Framework()
    app.get("/file", lambda request, reply: reply.send_file(tmp_path / "big.bin"))
    for header in ("bytes=-5000", "bytes=-1001", "items=0-5", "Items=0-5", "pages=2", "bytes=0-1,5-6"):
        response = app.inject(url="/file", headers={"Range": header})
        assert response.status_code == 200, header
        assert response.body == data[:1000]
        assert response.headers["content-length"] == "1000"
        assert "content-range" not in response.headers
        assert response.headers["accept-ranges"] == "bytes"
    exact = app.inject(url="/file", headers={"Range": "bytes=-1000"})
    assert exact.status_code == 206 and exact.headers["content-range"] == "bytes 0-999/1000"
    assert exact.body == data[:1000]
    tail = app.inject(url="/file", headers={"Range": "bytes=-5"})
    assert tail.status_code == 206 and tail.body == data[995:1000]
    assert tail.headers["content-range"] == "bytes 995-999/1000"
    for header in ("bytes=5000-", "bytes=1000-1005", "bytes=-0"):
        refused = app.inject(url="/file", headers={"Range": header})
        assert refused.status_code == 416, header
        assert refused.headers["content-range"] == "bytes */1000" and refused.body == b""


def test_send_file_keeps_the_reply_headers(files):
    app = Framework()
    app.add_hook("on_request", lambda request, reply: reply.header("x-hook", "1"))
    app.get("/file", lambda request, reply: reply.send_file(files / "hello.txt"))
    assert app.inject(url="/file").headers["x-hook"] == "1"


def test_sse_events_and_heartbeat():
    import time
    app = Framework()

    def events():
        yield {"event": "greeting", "id": 1, "data": {"hello": "world"}}
        yield "two\nlines"
        time.sleep(0.25)
        yield {"data": "after a pause"}

    app.get("/events", lambda request, reply: reply.sse(events(), heartbeat=0.1))
    response = app.inject(url="/events")
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache" and response.headers["x-accel-buffering"] == "no"
    text = response.text
    assert text.startswith(": stream open\n\n")
    assert 'event: greeting\nid: 1\ndata: {"hello":"world"}\n\n' in text
    assert "data: two\ndata: lines\n\n" in text
    assert ": heartbeat\n\n" in text and text.endswith("data: after a pause\n\n")
    plain = Framework()
    plain.get("/e", lambda request, reply: reply.sse(["a"], heartbeat=None, retry=1000))
    assert plain.inject(url="/e").text == "retry: 1000\n\ndata: a\n\n"


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "public"
    (root / "css").mkdir(parents=True)
    (root / "index.html").write_text("<h1>home</h1>")
    (root / "css" / "site.css").write_text("body{}")
    (root / ".env").write_text("SECRET=1")
    (tmp_path / "secret.txt").write_text("outside")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    os.symlink(tmp_path, root / "linkdir")
    return root


def test_static_serves_and_cannot_escape(site):
    app = Framework()
    app.register(static, root=str(site), prefix="/assets")
    assert app.inject(url="/assets/css/site.css").text == "body{}"
    assert app.inject(url="/assets/").text == "<h1>home</h1>"
    assert app.inject(url="/assets").text == "<h1>home</h1>"
    assert app.inject(url="/assets/css/site.css", headers={"Range": "bytes=0-3"}).body == b"body"
    for url in ("/assets/../secret.txt", "/assets/css/../../secret.txt", "/assets/%2e%2e/secret.txt",
                "/assets/%2e%2e%2fsecret.txt", "/assets/..%2fsecret.txt", "/assets/css/%2e%2e/%2e%2e/secret.txt",
                "/assets/.env", "/assets/link.txt", "/assets/linkdir/secret.txt", "/assets/nope",
                "/assets/css", "/assets//etc/passwd", "/assets/%00"):
        response = app.inject(url=url)
        assert response.status_code == 404, url
        assert b"outside" not in response.body and b"SECRET" not in response.body


def test_static_dotfiles_and_options(site):
    app = Framework()
    app.register(static, root=str(site), dotfiles=True, index=None)
    assert app.inject(url="/.env").text == "SECRET=1"
    assert app.inject(url="/").status_code == 404
    with pytest.raises(StaticOptionsError):
        Framework().register(static, root=str(site / "missing")).ready()
