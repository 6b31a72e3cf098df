"""Response compression and request decompression (the @fastify/compress plugin).

``compress`` is wrapped with ``plugin(...)``: it applies to the routes of the context that
registers it and of that context's descendants, and to no other route::

    from framework import Framework
    from framework.plugins.compress import compress

    app = Framework()
    app.register(compress)                   # every route of the app
    app.register(compress, threshold=256, encodings=("gzip",))   # or: only gzip, from 256 bytes

**Answers.** The coding is negotiated from the request's ``Accept-Encoding`` (parsed by
werkzeug, q-values honoured: ``gzip;q=0`` refuses gzip even with ``*``; on equal q-values
the order of ``encodings`` decides): ``br`` (with the ``brotli`` package), ``zstd`` (with
the ``zstandard`` package) and ``gzip`` (``zlib``). ``pip install framework[compress]``
installs both packages; without them, ``gzip`` alone is offered. Compressed are the
answers of the routes in scope whose body is at least ``threshold`` bytes (default
1024), whose status is neither ``206`` (a range of bytes is a range of the unencoded
body) nor ``1xx``/``204``/``304``, that carry no ``Content-Encoding`` yet, and whose
``Content-Type`` is not in ``skip_types`` (already compressed: images but SVG, audio,
video, archives, fonts...) nor ``text/event-stream`` (server-sent events are never
buffered or encoded). Each of these answers gets ``Vary: Accept-Encoding`` (a cache keeps
one copy per coding), compressed or not. A strong ``ETag`` becomes weak once the body is
encoded (the bytes differ; ``If-None-Match`` compares weakly).

A stream (a generator, an iterator, a binary file object) is compressed chunk by chunk,
each chunk flushed as it comes (a consumer gets every chunk as soon as it is produced), with
no ``Content-Length``; werkzeug responses (``reply.send_file``, ``framework.plugins.static``:
ranges and files of their own) are left as they are. The plugin's hook runs after every
other ``on_send`` hook of the route, whatever the order of registration.

**Request bodies.** With ``inflate=True`` (default), a body sent with ``Content-Encoding:
gzip``, ``deflate``, ``br`` or ``zstd`` (one, or a list of at most five, applied in the order
given) is decoded as the body parser reads it: the route's ``body_limit`` applies to the
decoded bytes, and a body that would inflate past it is a ``413`` as soon as the limit is
reached (nothing more is decoded: a "zip bomb" costs at most the limit in memory). The
decoding hook goes on the routes whose methods take a body, and no other. A coding
the plugin does not know (or whose package is missing) is a ``415``; a body that is not
valid in its coding, a ``400``. ``identity`` is no coding.

Options:

``encodings``
    The codings offered, by preference (default ``("br", "zstd", "gzip")``; those whose
    package is missing are left out, and naming only such codings is an error).
``threshold``
    The smallest body compressed, in bytes (default 1024): shorter ones gain nothing.
``skip_types``
    Media types never compressed (default :data:`ALREADY_COMPRESSED`): a type, or a
    ``major/*`` pattern (``"image/*"``); a ``frozenset``/``list``/``tuple``.
``gzip_level``, ``brotli_quality``, ``zstd_level``
    6, 4 and 3 by default (fast enough for dynamic answers).
``inflate``
    ``True`` (default): decode request bodies as above; ``False``: leave them to the route.

Misconfiguration is refused when the plugin loads with a ``CompressOptionsError``.
"""
from __future__ import annotations

import importlib
import zlib
from collections.abc import Iterator, Mapping
from typing import Any, Callable, Protocol, cast

from werkzeug.http import parse_accept_header

from framework import Context, Reply, Request, plugin
from framework.errors import create_error
from framework.http.body import BODY_METHODS, OPTIONAL_BODY_METHODS, body_stream



def _optional(name: str) -> Any:
    """The module ``name``, or ``None`` when it is not installed (``pip install framework[compress]``)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


brotli: Any = _optional("brotli")
if brotli is not None and not hasattr(brotli.Decompressor, "can_accept_more_data"):
    brotli = None  # before 1.2 a decoded chunk cannot be bounded: a br body could inflate unchecked
zstandard: Any = _optional("zstandard")

__all__ = ["compress", "CompressOptionsError", "UnsupportedContentEncodingError", "InvalidContentEncodingError",
           "ALREADY_COMPRESSED", "available_encodings"]

#: A request body in a coding the plugin cannot decode: 415.
UnsupportedContentEncodingError = create_error(
    "FST_COMPRESS_UNSUPPORTED_CONTENT_ENCODING", "unsupported Content-Encoding: %s", 415)
#: A request body that is not valid in its ``Content-Encoding``: 400.
InvalidContentEncodingError = create_error(
    "FST_COMPRESS_INVALID_CONTENT_ENCODING", "the body is not valid %s", 400)

#: The media types never compressed by default: they are compressed already.
ALREADY_COMPRESSED: frozenset[str] = frozenset((
    "image/*", "audio/*", "video/*", "font/woff", "font/woff2", "application/zip", "application/gzip",
    "application/x-gzip", "application/zstd", "application/x-bzip2", "application/x-xz", "application/x-7z-compressed",
    "application/vnd.rar", "application/x-rar-compressed", "application/pdf", "application/wasm",
))
_COMPRESSIBLE_IMAGES = frozenset(("image/svg+xml", "image/bmp", "image/x-icon", "image/vnd.microsoft.icon"))
_OPTIONS = ("encodings", "threshold", "skip_types", "gzip_level", "brotli_quality", "zstd_level", "inflate")
_NO_BODY = frozenset((204, 206, 304))
_COMMON_ACCEPT_ENCODINGS = (
    "gzip", "br", "zstd", "identity", "*", "gzip, deflate", "gzip, deflate, br", "gzip, deflate, br, zstd",
    "deflate, gzip", "deflate, gzip, br", "deflate, gzip, br, zstd", "br, gzip", "gzip, br", "gzip,deflate",
    "gzip,deflate,br", "gzip, deflate, zstd", "br, gzip, deflate", "zstd, br, gzip")
_CHUNK = 65536
#: The longest chain of request codings decoded (urllib3's limit too): each is a decoder
#: reading the next, so a header of hundreds of codings was a RecursionError, a 500.
_MAX_CODINGS = 5


class CompressOptionsError(ValueError):
    """Options the compress plugin cannot work with; raised when it loads (``ready()``)."""


def available_encodings() -> tuple[str, ...]:
    """The codings this installation can produce and decode, by the plugin's default preference."""
    return tuple(name for name, module in (("br", brotli), ("zstd", zstandard), ("gzip", zlib)) if module is not None)


class _Encoder(Protocol):
    """A streaming encoder: ``chunk(data)`` encodes and flushes, ``finish()`` ends the stream."""

    def chunk(self, data: bytes) -> bytes: ...
    def finish(self) -> bytes: ...


class _GzipStream:
    def __init__(self, level: int) -> None:
        self._encoder = zlib.compressobj(level, zlib.DEFLATED, 31)
        self._finished = False

    def chunk(self, data: bytes) -> bytes:
        return self._encoder.compress(data) + self._encoder.flush(zlib.Z_SYNC_FLUSH)

    def finish(self) -> bytes:
        return self._encoder.flush(zlib.Z_FINISH)


class _BrotliStream:
    def __init__(self, quality: int) -> None:
        self._encoder = brotli.Compressor(quality=quality)

    def chunk(self, data: bytes) -> bytes:
        return bytes(self._encoder.process(data)) + bytes(self._encoder.flush())

    def finish(self) -> bytes:
        return bytes(self._encoder.finish())


class _ZstdStream:
    def __init__(self, level: int) -> None:
        self._encoder = zstandard.ZstdCompressor(level=level).compressobj()

    def chunk(self, data: bytes) -> bytes:
        return bytes(self._encoder.compress(data) + self._encoder.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK))

    def finish(self) -> bytes:
        return bytes(self._encoder.flush())


def _to_bytes(value: Any) -> bytes:
    if type(value) is bytes:
        return value
    if type(value) is str:
        return value.encode()
    return bytes(value)


def _stream_chunks(payload: Any) -> Iterator[Any]:
    if hasattr(payload, "read") and not isinstance(payload, Iterator):
        try:
            while True:
                block = payload.read(_CHUNK)
                if not block:
                    return
                yield block
        finally:
            close = getattr(payload, "close", None)
            if close is not None:
                close()
    else:
        yield from payload


class _EncodedStream:
    """A stream's chunks, encoded and flushed one by one; closing it closes the source."""

    def __init__(self, source: Any, encoder: _Encoder) -> None:
        self._source = source
        self._chunks = _stream_chunks(source)
        self._encoder = encoder
        self._done = False

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        while not self._done:
            try:
                data = next(self._chunks)
            except StopIteration:
                self._done = True
                return self._encoder.finish()
            encoded = self._encoder.chunk(_to_bytes(data))
            if encoded:
                return encoded
        raise StopIteration

    def close(self) -> None:
        close = getattr(self._chunks, "close", None)
        if close is not None:
            close()
        close = getattr(self._source, "close", None)
        if close is not None:
            close()


class Compression:
    """A registration's ``on_send`` hook: encode the answer in the coding the client prefers."""

    #: Run after every other ``on_send`` hook of a route (``framework.plugins.etag`` reads this).
    encodes_body = True

    def __init__(self, options: Mapping[str, Any]) -> None:
        for key in options:
            if key not in _OPTIONS and key != "prefix":
                raise CompressOptionsError(f"compress: unknown option {key!r}; known: {', '.join(_OPTIONS)}")
        available = available_encodings()
        encodings: object = options.get("encodings", ("br", "zstd", "gzip"))
        if isinstance(encodings, str) or not isinstance(encodings, (list, tuple)) or not encodings:
            raise CompressOptionsError(f"compress: encodings has to be a non-empty list of 'br', 'zstd', 'gzip', "
                                       f"not {encodings!r}")
        names = cast("list[object]", list(encodings))  # pyright: ignore[reportUnknownArgumentType]
        for name in names:
            if name not in ("br", "zstd", "gzip"):
                raise CompressOptionsError(f"compress: unknown encoding {name!r}; known: 'br', 'zstd', 'gzip'")
        #: The codings offered, by preference.
        self.encodings: tuple[str, ...] = tuple(str(name) for name in names if name in available)
        if not self.encodings:
            raise CompressOptionsError(f"compress: none of {names} can be used here (pip install "
                                       "framework[compress] for br and zstd)")
        self.threshold = _integer(options, "threshold", 1024, 0, None)
        self.gzip_level = _integer(options, "gzip_level", 6, 0, 9)
        self.brotli_quality = _integer(options, "brotli_quality", 4, 0, 11)
        self.zstd_level = _integer(options, "zstd_level", 3, -7, 22)
        skip: object = options.get("skip_types", ALREADY_COMPRESSED)
        items = cast("list[object]", list(skip)) if isinstance(skip, (frozenset, set, list, tuple)) else None  # pyright: ignore[reportUnknownArgumentType]
        if items is None or not all(isinstance(item, str) and "/" in item for item in items):
            raise CompressOptionsError(f"compress: skip_types has to be a set of media types ('image/png', "
                                       f"'image/*'), not {skip!r}")
        self.skip_types = frozenset(str(item).lower() for item in items)
        self.skip_majors = frozenset(item[:-1] for item in self.skip_types if item.endswith("/*"))
        self.inflate = options.get("inflate", True)
        if not isinstance(self.inflate, bool):
            raise CompressOptionsError(f"compress: inflate has to be True or False, not {self.inflate!r}")
        # What browsers, curl and HTTP libraries send, negotiated once here (parsing a header
        # costs microseconds); any other value is parsed per request. A fixed table: request
        # values never enter it.
        self._common: Mapping[str, str | None] = {}
        self._common = {value: self.negotiate(value) for value in _COMMON_ACCEPT_ENCODINGS}
        self._one_shot: Mapping[str, Callable[[bytes], bytes]] = {
            "gzip": lambda body: _gzip(body, self.gzip_level),
            "br": lambda body: brotli.compress(body, quality=self.brotli_quality),
            "zstd": lambda body: zstandard.ZstdCompressor(level=self.zstd_level).compress(body),
        }
        self._streams: Mapping[str, Callable[[], _Encoder]] = {
            "gzip": lambda: _GzipStream(self.gzip_level),
            "br": lambda: _BrotliStream(self.brotli_quality),
            "zstd": lambda: _ZstdStream(self.zstd_level),
        }

    def _skipped(self, content_type: str) -> bool:
        media_type = content_type.partition(";")[0].strip().lower()
        if media_type == "text/event-stream":
            return True
        if media_type in self.skip_types:
            return True
        major = media_type.partition("/")[0] + "/"
        return major in self.skip_majors and media_type not in _COMPRESSIBLE_IMAGES

    def negotiate(self, accept_encoding: str | None) -> str | None:
        """The coding to answer in for this ``Accept-Encoding`` (``None``: identity)."""
        if not accept_encoding:
            return None
        if accept_encoding in self._common:
            return self._common[accept_encoding]
        found: str | None = parse_accept_header(accept_encoding).best_match(self.encodings)
        return found

    def __call__(self, request: Request, reply: Reply, payload: Any) -> Any:
        status = reply.status_code
        if status == 304:  # the 200's Vary and ETag (weak where the 200 would be encoded)
            self._not_modified(request, reply)
            return payload
        if status < 200 or status in _NO_BODY or payload is None or reply.has_header("content-encoding"):
            return payload
        kind = type(cast(object, payload))
        streamed = kind is not str and kind is not bytes and kind is not bytearray and kind is not memoryview
        if streamed and not _is_stream(payload):
            return payload  # a werkzeug response answers by itself
        content_type = reply.get_header("content-type")
        if type(content_type) is str and self._skipped(content_type):
            return payload
        if not streamed and len(cast(bytes, payload)) < self.threshold:
            return payload
        _vary(reply)
        coding = self.negotiate(request.environ.get("HTTP_ACCEPT_ENCODING"))
        if coding is None:
            return payload
        reply.header("content-encoding", coding)
        tag = reply.get_header("etag")
        if type(tag) is str and tag.startswith('"'):
            reply.header("etag", "W/" + tag)
        if streamed:
            return _EncodedStream(payload, self._streams[coding]())
        return self._one_shot[coding](_to_bytes(payload))


    def _not_modified(self, request: Request, reply: Reply) -> None:
        content_type = reply.get_header("content-type")
        if type(content_type) is str and self._skipped(content_type):
            return
        _vary(reply)
        tag = reply.get_header("etag")
        if type(tag) is str and tag.startswith('"') and self.negotiate(request.environ.get("HTTP_ACCEPT_ENCODING")):
            reply.header("etag", "W/" + tag)


def _is_stream(payload: Any) -> bool:
    """An iterator or a file object (what the framework streams), not a werkzeug response."""
    return isinstance(payload, Iterator) or hasattr(payload, "read")


def _gzip(body: bytes, level: int) -> bytes:
    encoder = zlib.compressobj(level, zlib.DEFLATED, 31)  # a gzip member without a time stamp: reproducible
    return encoder.compress(body) + encoder.flush()


def _vary(reply: Reply) -> None:
    vary = reply.get_header("vary")
    if vary is None:
        reply.header("vary", "Accept-Encoding")
    elif type(vary) is str and "accept-encoding" not in vary.lower() and vary.strip() != "*":
        reply.header("vary", f"{vary}, Accept-Encoding")


def _integer(options: Mapping[str, Any], name: str, default: int, low: int, high: int | None) -> int:
    value = options.get(name, default)
    if type(value) is not int or value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f">= {low}"
        raise CompressOptionsError(f"compress: {name} has to be an int {bounds}, not {value!r}")
    return value


# Request bodies.
class _Decoder:
    """A decoded body as a file object: ``read(n)`` returns at most ``n`` decoded bytes and
    decodes no more than that (the body reader asks for no more than its limit allows)."""

    def __init__(self, raw: Any, coding: str) -> None:
        self._raw = raw
        self._coding = coding
        self._pending = b""  # input read but not yet given to the decoder
        self._eof = False
        if coding in ("gzip", "x-gzip", "deflate"):
            # deflate: a zlib stream, as RFC 9110 defines it (raw deflate is a 400).
            self._zlib = zlib.decompressobj(31 if coding != "deflate" else 15)
            self._step = self._zlib_step
        elif coding == "br":
            self._brotli = brotli.Decompressor()
            self._step = self._brotli_step
        else:  # zstd: its stream reader returns at most what is asked
            self._zstd = zstandard.ZstdDecompressor(max_window_size=1 << 23).stream_reader(raw, read_size=_CHUNK)
            self._step = self._zstd_step

    def readable(self) -> bool:
        return True

    def _input(self) -> bytes:
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        read: bytes = self._raw.read(_CHUNK)
        return read

    def _zlib_step(self, size: int) -> bytes:
        decoder = self._zlib
        while True:
            if decoder.eof:
                if decoder.unused_data and self._coding != "deflate":  # another gzip member follows
                    self._pending = decoder.unused_data + self._pending
                    self._zlib = decoder = zlib.decompressobj(31)
                else:
                    return b""
            data = decoder.unconsumed_tail or self._input()
            if not data:
                raise InvalidContentEncodingError(self._coding)  # the stream ended early
            try:
                out = decoder.decompress(data, size)
            except zlib.error:
                raise InvalidContentEncodingError(self._coding) from None
            if out:
                return out

    def _brotli_step(self, size: int) -> bytes:
        decoder = self._brotli
        while True:
            if decoder.is_finished():
                return b""
            data = b"" if not decoder.can_accept_more_data() else self._input()
            if not data and decoder.can_accept_more_data():
                raise InvalidContentEncodingError("br")
            try:
                out = decoder.process(data, output_buffer_limit=size)
            except brotli.error:
                raise InvalidContentEncodingError("br") from None
            if out:
                return bytes(out)

    def _zstd_step(self, size: int) -> bytes:
        try:
            return bytes(self._zstd.read(size))
        except zstandard.ZstdError:
            raise InvalidContentEncodingError("zstd") from None

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = _CHUNK
        if size == 0 or self._eof:
            return b""
        out = self._step(size)
        if not out:
            self._eof = True
        return out


class Inflation:
    """A registration's ``pre_parsing`` hook: the body stream replaced by its decoding."""

    def __init__(self, codings: tuple[str, ...], body_limit: int) -> None:
        self.codings = frozenset(("gzip", "x-gzip", "deflate", *codings))
        #: The application's body_limit: a route's own replaces it.
        self.body_limit = body_limit

    def __call__(self, request: Request, reply: Reply) -> None:
        environ = request.environ
        header = environ.get("HTTP_CONTENT_ENCODING")
        if header is None or environ["REQUEST_METHOD"] not in _BODY_METHODS:
            return
        codings = [coding.strip().lower() for coding in header.split(",")]
        codings = [coding for coding in codings if coding and coding != "identity"]
        if not codings:
            return
        if len(codings) > _MAX_CODINGS:
            raise UnsupportedContentEncodingError(f"{len(codings)} codings (at most {_MAX_CODINGS})")
        for coding in codings:
            if coding not in self.codings:
                raise UnsupportedContentEncodingError(coding[:40])
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        length = environ.get("CONTENT_LENGTH")
        if not length and not chunked and not environ.get("wsgi.input_terminated"):
            return  # no body the server can read to its end: nothing to decode
        limit = request.route_options.get("body_limit") or self.body_limit
        # The encoded body under the same limit (a declared length over it: 413, nothing read).
        stream: Any = body_stream(environ, length, chunked, limit)
        for coding in reversed(codings):  # the last coding applied is undone first
            stream = _Decoder(stream, coding)
        environ["wsgi.input"] = stream
        environ["wsgi.input_terminated"] = True  # the decoded body ends where its decoding ends
        environ.pop("CONTENT_LENGTH", None)
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["framework.content_encoding"] = header
        del environ["HTTP_CONTENT_ENCODING"]


_BODY_METHODS = BODY_METHODS | OPTIONAL_BODY_METHODS


def _own(options: dict[str, Any], name: str) -> list[object]:
    listed: object = options.get(name)
    if listed is None:
        return []
    if isinstance(listed, (list, tuple)):
        items: list[object] = list(listed)  # pyright: ignore[reportUnknownArgumentType]
        return items
    return [listed]


def _install(hook: Compression, inflation: "Inflation | None", options: dict[str, Any]) -> None:
    """Put this registration's hooks into a route's own (in place of an ancestor's): the
    encoding hook last among its ``on_send`` hooks, the decoding hook on a route whose
    methods have bodies (other routes pay nothing for it)."""
    options["on_send"] = [*(other for other in _own(options, "on_send") if not isinstance(other, Compression)), hook]
    parsing = [other for other in _own(options, "pre_parsing") if not isinstance(other, Inflation)]
    methods = {str(method).upper() for method in _own(options, "method")}
    if inflation is not None and methods & _BODY_METHODS:
        parsing.append(inflation)
    options["pre_parsing"] = parsing or None


def _compress(instance: Context, opts: Mapping[str, Any]) -> None:
    hook = Compression(dict(opts or {}))
    inflation: Inflation | None = None
    if hook.inflate:
        codings = tuple(coding for coding in ("br", "zstd") if coding in available_encodings())
        inflation = Inflation(codings, instance.body_limit)

    def install(options: dict[str, Any]) -> None:
        _install(hook, inflation, options)

    for route in instance.routes():  # routes declared before the plugin loaded
        install(route.options)
    instance.add_hook("on_route", install)


_compress.__doc__ = __doc__
#: The plugin: ``register(compress)`` or ``register(compress, threshold=256)``. Runs in the registering context.
compress = plugin(_compress, name="compress")
