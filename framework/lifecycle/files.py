"""Files: ``reply.send_file`` on werkzeug's ``send_file``, and the safe path look-up
``framework.plugins.static`` serves from.

werkzeug does the HTTP part: ``ETag`` (from the file's mtime, size and path),
``Last-Modified``, ``If-None-Match``/``If-Modified-Since`` (304), ``Range``/``If-Range``
(206 with ``Content-Range``; a range beyond the file is a 416), ``Accept-Ranges``, the
content type from the file name, and the server's ``wsgi.file_wrapper`` for the body.
Headers the reply already holds (CORS's, a hook's) are carried over onto its answer.

A ``Range`` werkzeug would refuse but RFC 9110 says to serve is left out first, and the
whole file is sent (200): a unit other than ``bytes`` (section 14.2: ignored), a suffix
longer than the file (``bytes=-5000`` of 1,000 bytes: the entire representation, section
14.1.3), and several ranges (a server may ignore ``Range``; werkzeug serves one only).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from typing_extensions import Self

if TYPE_CHECKING:
    from .request import Request


class FileReply(Protocol):
    """What ``send_file`` reads of, and does with, a reply (``framework.lifecycle.reply.Reply``
    is one: it sits above this module, which it calls)."""

    @property
    def request(self) -> "Request[Any, Any, Any, Any]": ...
    def code(self, status_code: int) -> Self: ...
    def header(self, name: str, value: Any) -> Self: ...
    def get_headers(self) -> dict[str, str | list[str]]: ...
    def send(self, payload: Any = None) -> Self: ...
    def call_not_found(self) -> Self: ...


#: The reply's own class (a context's subclass) is what ``reply.send_file`` gives back.
ReplyT = TypeVar("ReplyT", bound=FileReply)


def send_file(reply: ReplyT, path: "str | os.PathLike[str]", *, download_name: str | None, max_age: int | None,
              mimetype: str | None, as_attachment: bool | None) -> ReplyT:
    """``reply.send_file(path, ...)``: see :meth:`framework.lifecycle.reply.Reply.send_file`."""
    from werkzeug.exceptions import RequestedRangeNotSatisfiable
    from werkzeug.utils import send_file as werkzeug_send_file

    environ = reply.request.environ
    path = os.fspath(path)
    if not os.path.isfile(path):
        return reply.call_not_found()
    if "HTTP_RANGE" in environ and _whole_file_instead(environ["HTTP_RANGE"], os.path.getsize(path)):
        environ = {name: value for name, value in environ.items() if name != "HTTP_RANGE"}
    try:
        response = werkzeug_send_file(path, environ, mimetype=mimetype, download_name=download_name,
                                      as_attachment=bool(download_name) if as_attachment is None else as_attachment,
                                      conditional=True, etag=True, max_age=max_age)
    except RequestedRangeNotSatisfiable:
        size = os.path.getsize(path)
        reply.code(416).header("content-range", f"bytes */{size}")
        return reply.send(b"")
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return reply.call_not_found()
    for name, value in reply.get_headers().items():  # the reply's own headers (CORS, hooks) go along
        if name in ("content-type", "content-length"):
            continue
        if isinstance(value, list):
            # A multi-valued header (reply.header with a list): its values, Any as the reply holds them.
            response.headers.setlist(name, value)
        else:
            response.headers[name] = value
    return reply.send(response)


def _whole_file_instead(header: str, size: int) -> bool:
    """Whether a ``Range`` header is to be ignored (the whole file sent) rather than
    answered 206 or 416 as werkzeug would."""
    from werkzeug.http import parse_range_header

    parsed = parse_range_header(header)
    if parsed is None:  # werkzeug reads only byte ranges: another unit is ignored, bad bytes ones are a 416
        return header.partition("=")[0].strip().lower() != "bytes"
    if parsed.units != "bytes" or len(parsed.ranges) != 1:
        return True
    start, end = parsed.ranges[0]
    return end is None and -start > size  # a suffix longer than the file: all of it


def resolve_under(root: str, relative: str, *, dotfiles: bool = False) -> str | None:
    """The real path of ``relative`` inside ``root``, or ``None`` when it is not a path
    there: ``..`` components or absolute paths (``werkzeug.security.safe_join``), a
    symlink that leads out of ``root``, a NUL byte, and (unless ``dotfiles``) any
    component starting with a dot."""
    from werkzeug.security import safe_join

    if "\x00" in relative:
        return None
    parts = [part for part in relative.split("/") if part]
    if not dotfiles and any(part.startswith(".") for part in parts):
        return None
    joined = safe_join(root, *parts) if parts else root
    if joined is None:
        return None
    real_root = os.path.realpath(root)
    real = os.path.realpath(joined)
    if real != real_root and os.path.commonpath([real_root, real]) != real_root:
        return None  # a symlink out of the root
    return real
