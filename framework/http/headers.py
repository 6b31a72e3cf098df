"""Reply header rules (RFC 9110 field syntax), checked when a header is set.

A name is a token (letters, digits and ``!#$%&'*+-.^_`|~``); a value is visible
latin-1 text, spaces and tabs: no CR, LF, NUL or other control character, which would
let a value forge headers of its own, and nothing outside latin-1, which WSGI cannot
send. A redirect target is percent-encoded instead (``/日本`` -> ``/%E6%97%A5%E6%9C%AC``).
"""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from ..errors import InvalidHeaderError, InvalidHeaderNameError

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*\Z")
# What RFC 3986 allows in a URI reference as it is, percent signs of escapes included.
_URI_SAFE = "!#$%&'()*+,/:;=?@[]~-._"


def check_header(name: Any) -> str:
    """The header name, lower-cased; ``InvalidHeaderNameError`` unless it is a token."""
    if type(name) is not str or not _TOKEN.match(name):
        raise InvalidHeaderNameError(repr(name))
    return name.lower()


def header_value(name: str, value: Any) -> str:
    """``value`` as header text; ``InvalidHeaderError`` (naming the header) for control
    characters or text outside latin-1."""
    text = value if type(value) is str else str(value)
    if not _FIELD_VALUE.match(text):
        raise InvalidHeaderError(name)
    return text


def location(url: str) -> str:
    """A redirect target as a header can carry it: non-ASCII and unsafe characters
    percent-encoded (UTF-8), existing escapes kept."""
    return quote(url, safe=_URI_SAFE)
