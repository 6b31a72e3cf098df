"""The name someone meant: the "did you mean" of every misspelt-name error.

Route options, hook names and schema keywords all suggest a known name for an unknown
one through these, so a suggestion reads the same wherever it is made.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


def closest_name(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name`` (difflib, 0.6 or better), or ``None``."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def suggest_snake_name(name: str, known: Iterable[str]) -> str | None:
    """The known snake_case name meant by ``name``: its snake_case form (``preHandler`` ->
    ``pre_handler``, Fastify's spelling), or the closest known name."""
    known = list(known)
    snake = _CAMEL_HUMP.sub(r"_\1", name).lower()
    return snake if snake in known else closest_name(snake, known)
