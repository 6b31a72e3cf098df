"""Media types and query strings: one canonical parse of ``Content-Type`` (the body
parser and any per-content-type body schema are both chosen from its one essence, and a
header that does not parse cleanly is refused, so a body can never be parsed as JSON
while skipping the JSON schema: CVE-2025-32442), and the query-string reading that
``request.query`` and form bodies share.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple
from urllib.parse import unquote_plus

# A hand-written scanner of RFC 9110's grammar, linear in the header's length:
#   media-type = type "/" subtype parameters ; parameters = *( OWS ";" OWS [ parameter ] )
# as this framework accepts it: OWS around the whole value, at most one trailing ";", and
# every parameter "name=value" with a token or quoted-string value. (The regex it replaces,
# with its nested optional blanks, backtracked catastrophically on "a/b" + blanks + "x".)
# Each regex below is a single greedy loop whose iterations can match only one way, so a
# failed match costs at most one step back per character.
_OWS = re.compile(r"[ \t]*")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TCHAR = r"[!#$%&'*+.^_`|~0-9A-Za-z-]"
# One parameter: OWS ";" OWS [ name "=" ( token / quoted-string ) ]. The blanks on either
# side of ";" are separated by it, and the value alternatives start differently, so a
# failed match steps back at most once per character it read.
_PARAMETER = re.compile(
    rf'[ \t]*;[ \t]*(?:({_TCHAR}+)=(?:({_TCHAR}+)|"((?:[^"\\\x00-\x08\x0a-\x1f\x7f]|\\[\t\x20-\x7e\x80-\xff])*)"))?')
_QUOTED_PAIR = re.compile(r"\\(.)")


def _scan_media_type(header: str) -> "MediaType | None":
    end = len(header)
    at = _OWS.match(header).end()  # type: ignore[union-attr]  # [ \t]* matches "": never None
    kind = _TOKEN.match(header, at)
    if kind is None or kind.end() >= end or header[kind.end()] != "/":
        return None
    subtype = _TOKEN.match(header, kind.end() + 1)
    if subtype is None:
        return None
    parameters: dict[str, str] = {}
    at = _OWS.match(header, subtype.end()).end()  # type: ignore[union-attr]  # never None, as above
    while at < end:
        parameter = _PARAMETER.match(header, at)
        if parameter is None:
            return None
        name, token, quoted = parameter.groups()
        at = _OWS.match(header, parameter.end()).end()  # type: ignore[union-attr]  # never None, as above
        if name is None:
            if at < end:  # an empty parameter (";;", "; x") is only tolerated last
                return None
            break
        parameters[name.lower()] = token if token is not None else _QUOTED_PAIR.sub(r"\1", quoted)
    return MediaType(f"{kind.group()}/{subtype.group()}".lower(), parameters)


class MediaType(NamedTuple):
    """A parsed ``Content-Type``: ``essence`` is ``type/subtype`` lower-cased."""

    essence: str
    parameters: dict[str, str]

    @property
    def is_json(self) -> bool:
        return self.essence == "application/json" or self.essence.endswith("+json")


# Parsed values of short headers only: a client chooses the header, so neither the number
# of entries nor their size may grow with what it sends.
_cache: dict[str, MediaType | None] = {}
_CACHE_SIZE = 256
_CACHE_MAX_LENGTH = 100


def parse_media_type(header: str) -> MediaType | None:
    """Parse a ``Content-Type`` value per RFC 9110; ``None`` when it does not parse cleanly."""
    try:
        return _cache[header]
    except KeyError:
        pass
    parsed = _scan_media_type(header)
    if len(header) <= _CACHE_MAX_LENGTH and len(_cache) < _CACHE_SIZE:
        _cache[header] = parsed
    return parsed


def declared_essence(media_type: str) -> str:
    """The essence of a media type a schema's ``content`` map declares (``application/json``);
    a ``ValueError`` when it is not one (the map is application code: refused at ``ready()``)."""
    parsed = parse_media_type(media_type) if isinstance(media_type, str) else None
    if parsed is None:
        raise ValueError(f"{media_type!r} in a content map is not a media type (type/subtype)")
    return parsed.essence


def parse_query_string(query_string: str) -> dict[str, Any]:
    """``a=1&a=2&b`` -> ``{"a": ["1", "2"], "b": ""}``: repeated keys give a list, no value gives ``""``."""
    query: dict[str, Any] = {}
    if not query_string:
        return query
    encoded = "%" in query_string or "+" in query_string
    for pair in query_string.split("&"):
        if not pair:
            continue
        key, _, value = pair.partition("=")
        if encoded:
            key = unquote_plus(key)
            value = unquote_plus(value)
        if key in query:
            existing: list[str] | str = query[key]
            if type(existing) is list:
                existing.append(value)
            else:
                query[key] = [existing, value]
        else:
            query[key] = value
    return query
