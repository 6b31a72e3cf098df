"""``UNDEFINED``: JavaScript's ``undefined`` for Python payloads.

A dict entry whose value is ``UNDEFINED`` is absent from the JSON a reply sends, and
``getattr(request, name, UNDEFINED)`` reads a request decorator that is not visible in
the route's context.
"""
from __future__ import annotations

from typing import Final


class _Undefined:
    __slots__ = ()
    _instance: "_Undefined | None" = None

    def __new__(cls) -> "_Undefined":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Final = _Undefined()
