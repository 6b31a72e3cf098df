"""Reading a request body from ``wsgi.input``.

Reading honours the route's ``body_limit`` before reading (a declared length over the
limit is a 413 with nothing read) and while reading (a chunked body is cut at limit + 1
bytes), reads a declared length to its end even when the server's ``read(n)`` returns
less, and never blocks on a body that announces neither a length nor an end.
"""
from __future__ import annotations

import io
from typing import Any

from ..errors import BodyTooLargeError, InvalidContentLengthError

#: Methods whose body is parsed whenever one is announced.
BODY_METHODS = frozenset(("POST", "PUT", "PATCH", "TRACE", "SEARCH", "PROPFIND", "PROPPATCH",
                          "LOCK", "COPY", "MOVE", "MKCOL", "REPORT", "MKCALENDAR"))
#: Methods whose body is parsed only with both a content type and a length or transfer coding.
OPTIONAL_BODY_METHODS = frozenset(("OPTIONS", "DELETE"))
_CHUNK = 65536


def _declared_length(length: str, limit: int) -> int:
    """``Content-Length`` as a number: over ``limit`` is a 413 before anything is read."""
    try:
        expected = int(length)
    except ValueError:
        raise InvalidContentLengthError() from None
    if expected > limit:
        raise BodyTooLargeError()
    if expected < 0:
        raise InvalidContentLengthError()
    return expected


def read_body(environ: dict[str, Any], length: str | None, chunked: bool, limit: int) -> bytes:
    """The body bytes: a declared length read to its end, or a chunked/terminated stream up to ``limit``."""
    stream = environ["wsgi.input"]
    if length and not chunked:
        expected = _declared_length(length, limit)
        body = stream.read(expected) if expected else b""
        while len(body) < expected:  # a server's read(n) may return less than n
            more = stream.read(expected - len(body))
            if not more:
                raise InvalidContentLengthError()
            body += more
        return body
    if not chunked and not environ.get("wsgi.input_terminated"):
        return b""  # without a length or an end marker a read could block forever
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise BodyTooLargeError()
        chunks.append(chunk)


class BoundedStream(io.RawIOBase):
    """The body as a stream, for parsers added with ``stream=True``: reads a declared
    length to its end and no further (a body that ends early is a 400), or a chunked body
    up to ``limit`` (a ``BodyTooLargeError``, 413, as soon as it goes past it)."""

    def __init__(self, raw: Any, length: int | None, limit: int) -> None:
        super().__init__()
        self._raw = raw
        self._left = length  # None: read to the end, up to the limit
        self._limit = limit
        self._read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            chunks: list[bytes] = []
            while True:
                chunk = self.read(_CHUNK)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        if self._left is not None:
            if self._left <= 0 or size == 0:
                return b""
            data: bytes = self._raw.read(min(size, self._left))
            if not data:
                raise InvalidContentLengthError()
            self._left -= len(data)
        else:
            data = self._raw.read(min(size, self._limit + 1 - self._read))
        self._read += len(data)
        if self._read > self._limit:
            raise BodyTooLargeError()
        return data


def body_stream(environ: dict[str, Any], length: str | None, chunked: bool, limit: int) -> BoundedStream:
    """The body of a request as a :class:`BoundedStream` (the checks of :func:`read_body`)."""
    raw = environ["wsgi.input"]
    if length and not chunked:
        return BoundedStream(raw, _declared_length(length, limit), limit)
    if not chunked and not environ.get("wsgi.input_terminated"):
        return BoundedStream(raw, 0, limit)
    return BoundedStream(raw, None, limit)
