"""The lifecycle step that parses a request body: the parser is chosen from the one
canonical media type (:mod:`framework.http.media_types`) among the context's parsers
(:mod:`framework.lifecycle.content_types`), and the body read by :mod:`framework.http.body`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InvalidMediaTypeError
from ..http.body import body_stream, read_body
from ..http.media_types import parse_media_type
from .content_types import ContentTypeParsers, StreamParser

if TYPE_CHECKING:
    from .reply import Reply
    from .request import Request


class BodyParsing:
    """The lifecycle step that reads and parses the body of a route's requests."""

    __slots__ = ("parsers", "limit", "optional", "route_limit")

    def __init__(self, parsers: ContentTypeParsers, limit: int, optional: bool, route_limit: bool = False) -> None:
        self.parsers = parsers
        self.limit = limit
        #: The route set its own body_limit: it wins over a stream parser's.
        self.route_limit = route_limit
        # DELETE and OPTIONS bodies are parsed only with a content type and a length.
        self.optional = optional

    def __call__(self, request: "Request", reply: "Reply") -> None:
        environ = request.environ
        content_type = environ.get("CONTENT_TYPE")
        length = environ.get("CONTENT_LENGTH")
        transfer_coding = environ.get("HTTP_TRANSFER_ENCODING")
        chunked = transfer_coding is not None and "chunked" in transfer_coding.lower()
        if self.optional:
            if not content_type or not (chunked or length):
                return
        elif not content_type and not chunked and (not length or length == "0"):
            return
        if not content_type:
            parser = self.parsers.catch_all
            if parser is None:
                raise InvalidMediaTypeError(None)
        else:
            media_type = parse_media_type(content_type)
            parser = self.parsers.find(media_type) if media_type is not None else None
            if parser is None:
                raise InvalidMediaTypeError(content_type)
            request.media_type = media_type
        if type(parser) is StreamParser:
            # pyright does not narrow the Callable half of ``Parser | StreamParser`` on ``type(x) is`` (mypy does).
            body_limit = parser.body_limit  # pyright: ignore[reportFunctionMemberAccess]
            limit = body_limit if body_limit is not None and not self.route_limit else self.limit
            request.body = parser.fn(request, body_stream(environ, length, chunked, limit))  # pyright: ignore[reportFunctionMemberAccess]
            return
        request.body = parser(request, read_body(environ, length, chunked, self.limit))

    def __repr__(self) -> str:
        return f"<parse body, limit {self.limit}>"
