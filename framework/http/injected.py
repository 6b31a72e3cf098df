"""The response of a request made without a socket (what ``inject`` returns): the status,
headers and body a WSGI application answered, as received.

It lives with the wire types, below the core, so that every context can name it as the
return type of ``inject`` (``framework.testing.client`` builds it and re-exports it).
"""
from __future__ import annotations

import json as jsonlib
from typing import Any

from werkzeug.datastructures import Headers


class InjectResponse:
    """What ``app.inject()`` returns: ``status_code``, ``headers``, ``body`` (bytes), ``text``, ``json()``."""

    #: The status line, ``"200 OK"``.
    status: str
    #: The status as a number, ``200``.
    status_code: int
    #: The status line's text, ``"OK"`` (``""`` when the line has none).
    status_text: str
    #: The response headers (case-insensitive look-up; ``getlist`` for repeated ones).
    headers: Headers
    #: The response body, as sent.
    body: bytes

    def __init__(self, status: str, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status
        self.status_code = int(status.split(" ", 1)[0])
        self.status_text = status.split(" ", 1)[1] if " " in status else ""
        self.headers = Headers(headers)
        self.body = body

    @property
    def text(self) -> str:
        """The body decoded as UTF-8."""
        return self.body.decode("utf-8")

    def json(self) -> Any:
        """The body parsed as JSON."""
        return jsonlib.loads(self.body)

    def __repr__(self) -> str:
        return f"<InjectResponse {self.status}>"
