"""Reading a request body from ``wsgi.input``, and the step that parses it.

Reading honours the route's ``body_limit`` before reading (a declared length over the
limit is a 413 with nothing read) and while reading (a chunked body is cut at limit + 1
bytes), reads a declared length to its end even when the server's ``read(n)`` returns
less, and never blocks on a body that announces neither a length nor an end. The
parser is chosen from the one canonical media type (``framework.content_types``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .content_types import ContentTypeParsers, parse_media_type
from .errors import BodyTooLargeError, InvalidContentLengthError, InvalidMediaTypeError

if TYPE_CHECKING:
    from .reply import Reply
    from .request import Request

#: Methods whose body is parsed whenever one is announced.
BODY_METHODS = frozenset(("POST", "PUT", "PATCH", "TRACE", "SEARCH", "PROPFIND", "PROPPATCH",
                          "LOCK", "COPY", "MOVE", "MKCOL", "REPORT", "MKCALENDAR"))
#: Methods whose body is parsed only with both a content type and a length or transfer coding.
OPTIONAL_BODY_METHODS = frozenset(("OPTIONS", "DELETE"))
_CHUNK = 65536


def read_body(environ: dict[str, Any], length: str | None, chunked: bool, limit: int) -> bytes:
    """The body bytes: a declared length read to its end, or a chunked/terminated stream up to ``limit``."""
    stream = environ["wsgi.input"]
    if length and not chunked:
        try:
            expected = int(length)
        except ValueError:
            raise InvalidContentLengthError() from None
        if expected > limit:
            raise BodyTooLargeError()
        if expected < 0:
            raise InvalidContentLengthError()
        body = stream.read(expected) if expected else b""
        while len(body) < expected:  # a server's read(n) may return less than n
            more = stream.read(expected - len(body))
            if not more:
                raise InvalidContentLengthError()
            body += more
        return body
    if not chunked and not environ.get("wsgi.input_terminated"):
        return b""  # without a length or an end marker a read could block forever
    chunks = []
    size = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise BodyTooLargeError()
        chunks.append(chunk)


class BodyParsing:
    """The lifecycle step that reads and parses the body of a route's requests."""

    __slots__ = ("parsers", "limit", "optional")

    def __init__(self, parsers: ContentTypeParsers, limit: int, optional: bool) -> None:
        self.parsers = parsers
        self.limit = limit
        # DELETE and OPTIONS bodies are parsed only with a content type and a length.
        self.optional = optional

    def __call__(self, request: "Request", reply: "Reply") -> None:
        environ = request.environ
        content_type = environ.get("CONTENT_TYPE")
        length = environ.get("CONTENT_LENGTH")
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if self.optional:
            if not content_type or not (chunked or length):
                return
        elif not content_type and not chunked and (not length or length == "0"):
            return
        if not content_type:
            parser = self.parsers.catch_all
            if parser is None:
                raise InvalidMediaTypeError("undefined")
        else:
            media_type = parse_media_type(content_type)
            parser = self.parsers.find(media_type) if media_type is not None else None
            if parser is None:
                raise InvalidMediaTypeError(content_type)
            request.media_type = media_type
        request.body = parser(request, read_body(environ, length, chunked, self.limit))

    def __repr__(self) -> str:
        return f"<parse body, limit {self.limit}>"
