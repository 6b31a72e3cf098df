"""RFC 9457 problem details: the document, its media type, and the ``instance`` of a request.

A :class:`Problem` is a dict (so it is JSON as it stands, and a response schema
serializes it like any payload) whose members come in the RFC's order: ``type``,
``title``, ``status``, ``detail``, ``instance``, then the extension members.
"""
from __future__ import annotations

from typing import Any, Mapping

from .paths import quote_path
from .status import STATUS_CODES

#: The media type of a problem document. ``charset=utf-8`` as on every JSON answer of the
#: framework: RFC 8259 gives it no effect, and ``on_send`` hooks get the text as ``str``.
PROBLEM_CONTENT_TYPE = "application/problem+json; charset=utf-8"
#: RFC 9457 4.2.1: no semantics beyond the status code's (``code`` says which error).
ABOUT_BLANK = "about:blank"


class Problem(dict[str, Any]):
    """An RFC 9457 problem details document: return or send it from a handler, a hook or an
    error handler, and the reply answers ``application/problem+json`` with its ``status``.

    ``title`` defaults to the status's reason phrase (as RFC 9457 asks of ``about:blank``)
    and ``instance``, when not given, becomes the request's path as the reply is sent.
    Keyword arguments beyond the standard members are extension members
    (``Problem(403, "no credit", type="https://example.com/probs/credit", balance=30)``);
    ``extensions`` takes those whose names are not Python identifiers.

    >>> Problem(409, "item 7 exists", code="ITEM_EXISTS")
    {'type': 'about:blank', 'title': 'Conflict', 'status': 409, 'detail': 'item 7 exists', 'code': 'ITEM_EXISTS'}
    """

    def __init__(self, status: int, detail: str | None = None, *, title: str | None = None,
                 type: str = ABOUT_BLANK, instance: str | None = None,  # noqa: A002 (the RFC's member name)
                 extensions: Mapping[str, Any] | None = None, **members: Any) -> None:
        if not isinstance(status, int) or isinstance(status, bool) or not 400 <= status <= 599:
            raise ValueError(f"a problem's status is an error status (400-599), got {status!r}")
        for name, value in (("type", type), ("title", title), ("detail", detail), ("instance", instance)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"a problem's {name} is a string, got {value!r}")
        super().__init__()
        self["type"] = type
        self["title"] = title if title is not None else STATUS_CODES.get(status, "Unknown Error")
        self["status"] = status
        if detail is not None:
            self["detail"] = detail
        if instance is not None:
            self["instance"] = instance
        for name, value in {**(extensions or {}), **members}.items():
            if name in ("type", "title", "status", "detail", "instance"):
                raise ValueError(f"{name!r} is a standard member of a problem, not an extension")
            self[name] = value

    @property
    def status(self) -> int:
        """The HTTP status the problem is answered with."""
        status: int = self["status"]
        return status


def problem_instance(environ: Mapping[str, Any]) -> str:
    """The ``instance`` of a request: its path as the client asked it (``SCRIPT_NAME`` and
    ``PATH_INFO``, percent-encoded again), without the query string, which may carry secrets."""
    path = f"{environ.get('SCRIPT_NAME') or ''}{environ.get('PATH_INFO') or '/'}"
    return quote_path(path, encoding="latin-1")  # PEP 3333: the request's bytes read as latin-1
