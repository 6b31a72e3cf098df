"""framework.plugins.compress through inject: negotiation with q-values, threshold, Vary,
skipped types/statuses/SSE, streams chunk by chunk, ETag interplay, scoping, request bodies
decoded under the body limit (a gzip bomb is a 413), 415 and 400."""
from __future__ import annotations

import gzip
import io
import zlib

import pytest

from framework import Framework
from framework.plugins.compress import ALREADY_COMPRESSED, CompressOptionsError, available_encodings, compress
from framework.plugins.etag import etag

brotli = pytest.importorskip("brotli")
zstandard = pytest.importorskip("zstandard")

BIG = {"items": [{"id": i, "name": f"item number {i}"} for i in range(100)]}  # about 3 KB of JSON


def decode(coding, body):
    if coding == "gzip":
        return gzip.decompress(body)
    if coding == "br":
        return brotli.decompress(body)
    if coding == "zstd":
        return zstandard.ZstdDecompressor().decompressobj().decompress(body)
    return body


def make(**options):
    app = Framework()
    app.register(compress, **options)
    app.get("/big", lambda request, reply: BIG)
    app.get("/small", lambda request, reply: {"ok": True})
    return app


@pytest.mark.parametrize(("accept", "coding"), [
    ("gzip", "gzip"),
    ("br", "br"),
    ("zstd", "zstd"),
    ("gzip, deflate, br, zstd", "br"),          # equal q: the plugin's preference
    ("gzip;q=1, br;q=0.5", "gzip"),
    ("br;q=0, *", "zstd"),                       # an explicit q=0 beats *
    ("*;q=0.1, gzip;q=0.9", "gzip"),
    ("identity", None),
    ("compress, deflate", None),
    ("gzip;q=0", None),
    ("", None),
])
def test_negotiation(accept, coding):
    answer = make().inject(url="/big", headers={"accept-encoding": accept} if accept else {})
    assert answer.status_code == 200
    assert answer.headers.get("content-encoding") == coding
    assert answer.headers["vary"] == "Accept-Encoding"
    assert int(answer.headers["content-length"]) == len(answer.body)
    assert decode(coding, answer.body) == app_json()


def app_json():
    return Framework().get("/", lambda request, reply: BIG).inject(url="/").body


def test_small_answers_are_not_compressed_nor_varied():
    answer = make().inject(url="/small", headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in answer.headers and "vary" not in answer.headers
    answer = make(threshold=0).inject(url="/small", headers={"accept-encoding": "gzip"})
    assert answer.headers["content-encoding"] == "gzip"


def test_existing_vary_is_extended():
    app = make()
    app.get("/varied", lambda request, reply: reply.header("vary", "Origin").send(BIG))
    assert app.inject(url="/varied", headers={"accept-encoding": "gzip"}).headers["vary"] == "Origin, Accept-Encoding"


@pytest.mark.parametrize("content_type", ["image/png", "application/zip", "video/mp4", "application/x-custom"])
def test_already_compressed_types_are_left_alone(content_type):
    app = make(skip_types=ALREADY_COMPRESSED | {"application/x-custom"})
    app.get("/blob", lambda request, reply: reply.type(content_type).send(b"\0" * 5000))
    answer = app.inject(url="/blob", headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in answer.headers and answer.body == b"\0" * 5000


def test_svg_is_compressed():
    app = make()
    app.get("/svg", lambda request, reply: reply.type("image/svg+xml").send("<svg>" + " " * 5000 + "</svg>"))
    assert app.inject(url="/svg", headers={"accept-encoding": "gzip"}).headers["content-encoding"] == "gzip"


def test_ranges_sse_and_encoded_answers_are_left_alone():
    app = make()
    app.get("/partial", lambda request, reply: reply.code(206).header("content-range", "bytes 0-4999/9999")
            .send(b"a" * 5000))
    app.get("/events", lambda request, reply: reply.sse(({"data": "x" * 2000} for _ in range(3)), heartbeat=None))
    app.get("/encoded", lambda request, reply: reply.header("content-encoding", "gzip").send(gzip.compress(b"a" * 5000)))
    headers = {"accept-encoding": "gzip"}
    assert "content-encoding" not in app.inject(url="/partial", headers=headers).headers
    events = app.inject(url="/events", headers=headers)
    assert "content-encoding" not in events.headers and events.body.count(b"data: ") == 3
    encoded = app.inject(url="/encoded", headers=headers)
    assert gzip.decompress(encoded.body) == b"a" * 5000


def test_error_answers_are_compressed_too():
    app = make(threshold=10)
    app.get("/boom", lambda request, reply: reply.code(400).send({"error": "x" * 100}))
    answer = app.inject(url="/boom", headers={"accept-encoding": "gzip"})
    assert answer.status_code == 400 and b"xxxx" in gzip.decompress(answer.body)


@pytest.mark.parametrize("coding", ["gzip", "br", "zstd"])
def test_a_stream_is_compressed_chunk_by_chunk(coding):
    app = make()
    seen = []

    def lines():
        for i in range(5):
            seen.append(i)
            yield f"line {i}\n"

    app.get("/lines", lambda request, reply: reply.type("text/plain").send(lines()))
    answer = app.inject(url="/lines", headers={"accept-encoding": coding})
    assert answer.headers["content-encoding"] == coding and "content-length" not in answer.headers
    assert decode(coding, answer.body) == b"".join(f"line {i}\n".encode() for i in range(5))


def test_each_stream_chunk_is_flushed_as_it_comes():
    """Every chunk decodes fully on its own: a client sees it before the next is produced."""
    app = make()
    app.get("/lines", lambda request, reply: reply.type("text/plain").send(f"chunk {i};" for i in range(3)))
    app.ready()
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/lines", "SERVER_NAME": "x", "SERVER_PORT": "80",
               "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(), "HTTP_ACCEPT_ENCODING": "gzip",
               "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.errors": io.StringIO()}
    body = app(environ, lambda status, headers, exc_info=None: None)
    decoder = zlib.decompressobj(31)
    decoded = [decoder.decompress(piece) for piece in body]
    body.close()
    assert [piece for piece in decoded if piece] == [b"chunk 0;", b"chunk 1;", b"chunk 2;"]


def test_a_binary_file_is_compressed():
    app = make()
    app.get("/file", lambda request, reply: reply.type("text/csv").send(io.BytesIO(b"a,b\n" * 2000)))
    answer = app.inject(url="/file", headers={"accept-encoding": "gzip"})
    assert gzip.decompress(answer.body) == b"a,b\n" * 2000


def test_etag_is_the_plain_bodys_made_weak_and_304_still_matches():
    app = Framework()

    def child(instance, opts):  # compress on the root, etag in a child: the tag is still the plain body's
        instance.register(etag)
        instance.get("/doc", lambda request, reply: BIG)

    app.register(compress)
    app.register(child)
    plain = app.inject(url="/doc")
    encoded = app.inject(url="/doc", headers={"accept-encoding": "gzip"})
    assert encoded.headers["etag"] == "W/" + plain.headers["etag"]
    again = app.inject(url="/doc", headers={"accept-encoding": "gzip", "if-none-match": encoded.headers["etag"]})
    assert again.status_code == 304 and again.body == b""
    assert again.headers["etag"] == encoded.headers["etag"] and again.headers["vary"] == "Accept-Encoding"


def test_scoped_to_the_registering_context():
    app = Framework()

    def zipped(instance, opts):
        instance.register(compress)
        instance.get("/in", lambda request, reply: BIG)

    app.register(zipped, prefix="/z")
    app.get("/out", lambda request, reply: BIG)
    assert app.inject(url="/z/in", headers={"accept-encoding": "gzip"}).headers["content-encoding"] == "gzip"
    assert "content-encoding" not in app.inject(url="/out", headers={"accept-encoding": "gzip"}).headers


@pytest.mark.parametrize("options", [{"encodings": ("lzma",)}, {"encodings": "gzip"}, {"threshold": -1},
                                     {"gzip_level": 10}, {"skip_types": "image/png"}, {"inflate": 1}, {"level": 3}])
def test_bad_options_fail_ready(options):
    app = Framework()
    app.register(compress, **options)
    with pytest.raises(CompressOptionsError):
        app.ready()


def test_available_encodings():
    assert available_encodings() == ("br", "zstd", "gzip")


# Request bodies.
def echo_app(body_limit=1_048_576):
    app = Framework(body_limit=body_limit)
    app.register(compress)
    app.post("/echo", lambda request, reply: {"size": len(request.body["data"])})
    app.post("/raw", lambda request, reply: {"size": len(request.body)})
    app.add_content_type_parser("application/octet-stream", lambda request, body: body)
    return app


DOC = b'{"data": "' + b"a" * 10000 + b'"}'
ENCODERS = {
    "gzip": gzip.compress,
    "deflate": zlib.compress,
    "br": lambda data: brotli.compress(data),
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
}


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_encoded_request_bodies_are_decoded(coding):
    answer = echo_app().inject(method="POST", url="/echo", body=ENCODERS[coding](DOC),
                               headers={"content-type": "application/json", "content-encoding": coding})
    assert answer.status_code == 200 and answer.json() == {"size": 10000}


def test_two_codings_are_undone_in_reverse_order():
    body = brotli.compress(gzip.compress(DOC))
    answer = echo_app().inject(method="POST", url="/echo", body=body,
                               headers={"content-type": "application/json", "content-encoding": "gzip, br"})
    assert answer.json() == {"size": 10000}


def test_five_codings_are_undone_and_a_longer_chain_is_a_415():
    body = DOC
    for _ in range(5):
        body = gzip.compress(body)
    headers = {"content-type": "application/json", "content-encoding": "gzip, " * 4 + "gzip"}
    assert echo_app().inject(method="POST", url="/echo", body=body, headers=headers).json() == {"size": 10000}
    for _ in range(395):  # each coding a decoder reading the next: it was a RecursionError, a 500
        body = gzip.compress(body)
    answer = echo_app().inject(method="POST", url="/echo", body=body, headers={
        "content-type": "application/json", "content-encoding": ", ".join(["gzip"] * 400)})
    assert answer.status_code == 415 and answer.json()["code"] == "FST_COMPRESS_UNSUPPORTED_CONTENT_ENCODING"
    assert "400 codings" in answer.json()["message"]


def test_concatenated_gzip_members_are_one_body():
    body = gzip.compress(DOC[:5000]) + gzip.compress(DOC[5000:])
    answer = echo_app().inject(method="POST", url="/echo", body=body,
                               headers={"content-type": "application/json", "content-encoding": "gzip"})
    assert answer.json() == {"size": 10000}


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_a_body_inflating_past_the_limit_is_a_413(coding):
    bomb = ENCODERS[coding](b"\0" * (8 << 20))  # 8 MB of zeros: a few KB encoded
    assert len(bomb) < 65536
    answer = echo_app(body_limit=65536).inject(method="POST", url="/raw", body=bomb, headers={
        "content-type": "application/octet-stream", "content-encoding": coding})
    assert answer.status_code == 413 and answer.json()["code"] == "FST_ERR_CTP_BODY_TOO_LARGE"


def test_the_route_body_limit_applies_to_the_decoded_body():
    app = Framework()
    app.register(compress)
    app.add_content_type_parser("application/octet-stream", lambda request, body: body)
    app.post("/tight", {"body_limit": 100}, lambda request, reply: {"size": len(request.body)})
    headers = {"content-type": "application/octet-stream", "content-encoding": "gzip"}
    assert app.inject(method="POST", url="/tight", body=gzip.compress(b"a" * 100), headers=headers).status_code == 200
    assert app.inject(method="POST", url="/tight", body=gzip.compress(b"a" * 101), headers=headers).status_code == 413


def test_an_encoded_body_whose_length_is_over_the_limit_is_a_413_unread():
    answer = echo_app(body_limit=1000).inject(method="POST", url="/raw", body=b"x" * 2000, headers={
        "content-type": "application/octet-stream", "content-encoding": "gzip"})
    assert answer.status_code == 413


@pytest.mark.parametrize("coding", ["compress", "lzma", "gzip, exotic"])
def test_an_unknown_coding_is_a_415(coding):
    answer = echo_app().inject(method="POST", url="/echo", body=b"{}", headers={
        "content-type": "application/json", "content-encoding": coding})
    assert answer.status_code == 415 and answer.json()["code"] == "FST_COMPRESS_UNSUPPORTED_CONTENT_ENCODING"


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_a_body_invalid_in_its_coding_is_a_400(coding):
    answer = echo_app().inject(method="POST", url="/echo", body=b"this is not encoded at all", headers={
        "content-type": "application/json", "content-encoding": coding})
    assert answer.status_code == 400, answer.body
    assert answer.json()["code"] == "FST_COMPRESS_INVALID_CONTENT_ENCODING"


def test_a_truncated_body_is_a_400():
    answer = echo_app().inject(method="POST", url="/echo", body=gzip.compress(DOC)[:-20], headers={
        "content-type": "application/json", "content-encoding": "gzip"})
    assert answer.status_code == 400


def test_identity_and_inflate_false():
    app = echo_app()
    answer = app.inject(method="POST", url="/echo", body=DOC,
                        headers={"content-type": "application/json", "content-encoding": "identity"})
    assert answer.json() == {"size": 10000}
    off = Framework()
    off.register(compress, inflate=False)
    off.add_content_type_parser("application/octet-stream", lambda request, body: body)
    off.post("/raw", lambda request, reply: {"size": len(request.body)})
    encoded = gzip.compress(DOC)
    answer = off.inject(method="POST", url="/raw", body=encoded,
                        headers={"content-type": "application/octet-stream", "content-encoding": "gzip"})
    assert answer.json() == {"size": len(encoded)}


def test_routes_declared_before_the_plugin_loaded_get_it_and_only_body_routes_decode():
    app = Framework()
    app.post("/early", lambda request, reply: {"size": len(request.body["data"])})
    app.get("/read", lambda request, reply: BIG)
    app.register(compress)
    answer = app.inject(method="POST", url="/early", body=gzip.compress(DOC),
                        headers={"content-type": "application/json", "content-encoding": "gzip"})
    assert answer.json() == {"size": 10000}
    assert app.inject(url="/read", headers={"accept-encoding": "gzip"}).headers["content-encoding"] == "gzip"
    assert "Inflation" not in str(app.explain("GET", "/read"))  # a route without a body pays nothing for it
    assert "Inflation" in str(app.explain("POST", "/early"))
