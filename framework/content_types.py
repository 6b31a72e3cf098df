"""Media types: one canonical parse of ``Content-Type``, and the body parsers chosen by it.

The header is parsed once into a :class:`MediaType` (lower-cased essence, parameters
split off). The body parser and any per-content-type body schema are both chosen from
that one essence, and a header that does not parse cleanly is refused (415), so a body
can never be parsed as JSON while skipping the JSON schema (CVE-2025-32442).
"""
from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple

from . import encoding
from .errors import (ContentTypeParserAlreadyPresentError, ContentTypeParserInvalidError,
                     EmptyJsonBodyError, JsonBodyError)

Parser = Callable[[Any, bytes], Any]

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = r'"(?:[^"\\\x00-\x08\x0a-\x1f\x7f]|\\[\t\x20-\x7e\x80-\xff])*"'
_MEDIA_TYPE = re.compile(
    rf"[ \t]*({_TOKEN})/({_TOKEN})((?:[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|{_QUOTED}))*)[ \t]*;?[ \t]*\Z")
_PARAMETER = re.compile(rf"[ \t]*;[ \t]*({_TOKEN})=({_TOKEN}|{_QUOTED})")


class MediaType(NamedTuple):
    """A parsed ``Content-Type``: ``essence`` is ``type/subtype`` lower-cased."""

    essence: str
    parameters: dict[str, str]

    @property
    def is_json(self) -> bool:
        return self.essence == "application/json" or self.essence.endswith("+json")


_cache: dict[str, MediaType | None] = {}
_CACHE_SIZE = 256


def parse_media_type(header: str) -> MediaType | None:
    """Parse a ``Content-Type`` value per RFC 9110; ``None`` when it does not parse cleanly."""
    try:
        return _cache[header]
    except KeyError:
        pass
    match = _MEDIA_TYPE.match(header)
    if match is None:
        parsed = None
    else:
        parameters = {}
        for name, value in _PARAMETER.findall(match.group(3)):
            if value.startswith('"'):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            parameters[name.lower()] = value
        parsed = MediaType(f"{match.group(1)}/{match.group(2)}".lower(), parameters)
    if len(_cache) < _CACHE_SIZE:
        _cache[header] = parsed
    return parsed


def parse_json(request: Any, body: bytes) -> Any:
    if not body:
        raise EmptyJsonBodyError()
    try:
        return encoding.loads(body)
    except encoding.JsonDecodeError as exc:
        raise JsonBodyError(str(exc)) from None


def parse_text(request: Any, body: bytes) -> str:
    charset = "utf-8"
    media_type = request.media_type
    if media_type is not None:
        charset = media_type.parameters.get("charset", "utf-8")
    try:
        return body.decode(charset)
    except (LookupError, UnicodeDecodeError) as exc:
        raise JsonBodyError(f"Body is not valid {charset} text: {exc}") from None


class ContentTypeParsers:
    """The body parsers of one context (a child gets a copy of its parent's at creation)."""

    def __init__(self, parent: "ContentTypeParsers | None" = None) -> None:
        if parent is None:
            self.by_essence: dict[str, Parser] = {"application/json": parse_json, "text/plain": parse_text}
            self.patterns: list[tuple[re.Pattern[str], Parser]] = []
            self.catch_all: Parser | None = None
            self.overridable = {"application/json", "text/plain"}
        else:
            self.by_essence = dict(parent.by_essence)
            self.patterns = list(parent.patterns)
            self.catch_all = parent.catch_all
            self.overridable = set(parent.overridable)

    def add(self, content_type: Any, parser: Parser) -> None:
        if isinstance(content_type, (list, tuple)):
            for each in content_type:
                self.add(each, parser)
            return
        if not callable(parser):
            raise ContentTypeParserInvalidError()
        if isinstance(content_type, re.Pattern):
            self.patterns.append((content_type, parser))
            return
        if not isinstance(content_type, str) or not content_type:
            raise ContentTypeParserInvalidError()
        if content_type == "*":
            if self.catch_all is not None:
                raise ContentTypeParserAlreadyPresentError(content_type)
            self.catch_all = parser
            return
        media_type = parse_media_type(content_type)
        if media_type is None:
            raise ContentTypeParserInvalidError()
        essence = media_type.essence
        if essence in self.by_essence and essence not in self.overridable:
            raise ContentTypeParserAlreadyPresentError(content_type)
        self.overridable.discard(essence)
        self.by_essence[essence] = parser

    def has(self, content_type: str) -> bool:
        media_type = parse_media_type(content_type)
        return media_type is not None and media_type.essence in self.by_essence

    def find(self, media_type: MediaType) -> Parser | None:
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
