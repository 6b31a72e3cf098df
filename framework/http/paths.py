"""A request path percent-encoded again, as a client would send it: the WSGI environ and
``request.path`` hold it decoded."""
from __future__ import annotations

from urllib.parse import quote

#: What may stay unescaped in a path (RFC 3986 ``pchar`` and ``/``).
PATH_SAFE = "/:@!$&'()*+,;=-._~"


def quote_path(path: str, encoding: str = "utf-8") -> str:
    """``path`` percent-encoded where RFC 3986 asks; ``encoding`` says which bytes its
    characters stand for (``"latin-1"`` for a path read from the environ, PEP 3333)."""
    return quote(path, safe=PATH_SAFE, encoding=encoding, errors="replace")
