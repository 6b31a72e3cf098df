"""The WSGI environ of a request made without a socket: what ``inject`` sends, and what
``fuzz`` reads to know the headers and query string a route will see."""
from __future__ import annotations

import json as jsonlib
from typing import Any, Mapping
from urllib.parse import urlencode

from werkzeug.test import EnvironBuilder


def build_environ(method: str = "GET", url: str = "/", headers: Mapping[str, str] | None = None,
                  query: Mapping[str, Any] | None = None, json: Any = None, body: bytes | str | None = None,
                  **environ_overrides: Any) -> dict[str, Any]:
    """The environ of one request (see :func:`framework.testing.inject` for the arguments)."""
    headers = dict(headers or {})
    if query:
        url += ("&" if "?" in url else "?") + urlencode(query, doseq=True)
    path, _, query_string = url.partition("?")
    data: bytes | str | None = body
    if json is not None:
        data = jsonlib.dumps(json)
        if not any(name.lower() == "content-type" for name in headers):
            headers["Content-Type"] = "application/json"
    builder = EnvironBuilder(path=path, query_string=query_string, method=method.upper(), headers=headers.items(),
                             data=data)
    environ: dict[str, Any] = builder.get_environ()
    if not any(name.lower() == "content-type" for name in headers):
        environ.pop("CONTENT_TYPE", None)
    declared_length = next((value for name, value in headers.items() if name.lower() == "content-length"), None)
    if declared_length is not None:
        environ["CONTENT_LENGTH"] = str(declared_length)
    elif data is None:
        environ.pop("CONTENT_LENGTH", None)
    environ["RAW_URI"] = url
    environ.setdefault("REMOTE_ADDR", "127.0.0.1")
    environ.update(environ_overrides)
    return environ
