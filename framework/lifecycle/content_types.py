"""The body parsers of a context, chosen by the request's media type
(:func:`framework.http.media_types.parse_media_type`): JSON, text and form bodies built in,
and those an application adds with ``add_content_type_parser``.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from ..http import encoding
from ..http.media_types import MediaType, parse_media_type, parse_query_string
from ..errors import (ContentTypeParserAlreadyPresentError, ContentTypeParserInvalidError,
                     EmptyJsonBodyError, FormBodyError, JsonBodyError)

if TYPE_CHECKING:
    from .request import Request

#: A body parser: ``parser(request, body_bytes)`` returns the parsed body (``request.body``).
Parser = Callable[[Any, bytes], Any]
#: A stream parser's ``content_validator(schema, build)``: see :class:`StreamParser`.
ContentValidator = Callable[[Any, Callable[[Any], Callable[[Any], Any]]], Callable[[Any], Any]]

def parse_json(request: "Request", body: bytes) -> Any:
    if not body:
        raise EmptyJsonBodyError()
    try:
        return encoding.loads(body)
    except encoding.JsonDecodeError as exc:
        raise JsonBodyError(str(exc)) from None


def parse_text(request: "Request", body: bytes) -> str:
    charset = "utf-8"
    media_type = request.media_type
    if media_type is not None:
        charset = media_type.parameters.get("charset", "utf-8")
    try:
        return body.decode(charset)
    except (LookupError, UnicodeDecodeError) as exc:
        raise JsonBodyError(f"Body is not valid {charset} text: {exc}") from None


def parse_form(request: "Request", body: bytes) -> dict[str, Any]:
    """``application/x-www-form-urlencoded``: ``a=1&a=2&b=x`` -> ``{"a": ["1", "2"], "b": "x"}``,
    as the query string is read (repeated keys give a list)."""
    try:
        text = body.decode("ascii")  # a form body is percent-encoded ASCII; escapes decode as UTF-8
    except UnicodeDecodeError:
        raise FormBodyError("the body holds bytes outside ASCII: percent-encode them") from None
    return parse_query_string(text)


class StreamParser:
    """A parser added with ``stream=True``: ``fn(request, stream)`` reads the body from a
    length-bounded stream (``framework.lifecycle.body.BoundedStream``) instead of getting bytes;
    ``body_limit`` replaces the route's limit for the bodies it reads."""

    __slots__ = ("fn", "body_limit", "needs_content_schema", "content_validator")

    def __init__(self, fn: Callable[[Any, Any], Any], body_limit: int | None) -> None:
        self.fn = fn
        self.body_limit = body_limit
        #: A body schema must name this media type in a ``content`` map (else 415), as for built-in parsers.
        self.needs_content_schema = bool(getattr(fn, "needs_content_schema", False))
        #: ``content_validator(schema, build)``: the validator of a content map's entry for
        #: this media type, made at ``ready()`` (``build(schema)`` compiles one the usual way).
        self.content_validator: ContentValidator | None = getattr(fn, "content_validator", None)

    def __call__(self, request: Any, stream: Any) -> Any:
        return self.fn(request, stream)


class ContentTypeParsers:
    """The body parsers of one context (a child gets a copy of its parent's at creation)."""

    def __init__(self, parent: "ContentTypeParsers | None" = None) -> None:
        if parent is None:
            self.by_essence: dict[str, Parser | StreamParser] = {
                "application/json": parse_json, "text/plain": parse_text,
                "application/x-www-form-urlencoded": parse_form}
            self.patterns: list[tuple[re.Pattern[str], Parser | StreamParser]] = []
            self.catch_all: Parser | StreamParser | None = None
            self.overridable: set[str] = {"application/json", "text/plain", "application/x-www-form-urlencoded"}
        else:
            self.by_essence = dict(parent.by_essence)
            self.patterns = list(parent.patterns)
            self.catch_all = parent.catch_all
            self.overridable = set(parent.overridable)

    def add(self, content_type: str | re.Pattern[str] | list[str] | tuple[str, ...], parser: Parser,
            stream: bool = False, body_limit: int | None = None) -> None:
        """Add ``parser`` for ``content_type``: a media type, ``"*"`` (any other), a compiled
        regex searched in the essence, or a list or tuple of media types. ``stream=True`` wraps it in
        a :class:`StreamParser`. ``content_type`` is checked here (it comes from application code)."""
        if isinstance(content_type, (list, tuple)):
            for each in content_type:
                self.add(each, parser, stream, body_limit)
            return
        if not callable(parser):
            raise ContentTypeParserInvalidError()
        if body_limit is not None and (type(body_limit) is not int or body_limit <= 0):
            raise ValueError(f"body_limit must be a positive integer, got {body_limit!r}")
        stored: Parser | StreamParser = StreamParser(parser, body_limit) if stream else parser
        if isinstance(content_type, re.Pattern):
            self.patterns.append((content_type, stored))
            return
        if not isinstance(content_type, str) or not content_type:  # pyright: ignore[reportUnnecessaryIsInstance]  # untyped callers
            raise ContentTypeParserInvalidError()
        if content_type == "*":
            if self.catch_all is not None:
                raise ContentTypeParserAlreadyPresentError(content_type)
            self.catch_all = stored
            return
        media_type = parse_media_type(content_type)
        if media_type is None:
            raise ContentTypeParserInvalidError()
        essence = media_type.essence
        if essence in self.by_essence and essence not in self.overridable:
            raise ContentTypeParserAlreadyPresentError(content_type)
        self.overridable.discard(essence)
        self.by_essence[essence] = stored

    def has(self, content_type: str) -> bool:
        media_type = parse_media_type(content_type)
        return media_type is not None and media_type.essence in self.by_essence

    def find(self, media_type: MediaType) -> Parser | StreamParser | None:
        """The parser for ``media_type``: by its essence, else the first regex that matches, else the ``"*"`` one."""
        parser = self.by_essence.get(media_type.essence)
        if parser is not None:
            return parser
        for pattern, candidate in self.patterns:
            if pattern.search(media_type.essence):
                return candidate
        return self.catch_all

    def is_builtin(self, essence: str) -> bool:
        """Whether ``essence`` is parsed by a built-in parser (the application added none for it)."""
        return essence in self.overridable

    def needs_content_schema(self, essence: str) -> bool:
        """Whether a body schema must name ``essence`` in its ``content`` map to accept it
        (a built-in parser's, or a parser that asks for it, like ``framework.plugins.multipart``'s)."""
        return self.is_builtin(essence) or bool(getattr(self.by_essence.get(essence), "needs_content_schema", False))

    def content_validator(self, essence: str) -> ContentValidator | None:
        """How the parser of ``essence`` builds its content schema's validator, if it says."""
        parser = self.by_essence.get(essence)
        return parser.content_validator if isinstance(parser, StreamParser) else None
