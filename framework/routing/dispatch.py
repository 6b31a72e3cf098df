"""Which route answers a request, with which parameters: the one answer ``Framework.__call__``
and ``app.explain`` both use.

The request's path is read as a WSGI server gives it: ``PATH_INFO`` is percent-decoded
and latin-1 (each byte one character), so it is re-read as UTF-8 (URLs are UTF-8); a
path that is not UTF-8 raises :class:`~framework.errors.BadUrlError`. ``PATH_INFO`` no
longer shows an encoded slash (``/a/b%2Fc`` and ``/a/b/c`` are both ``/a/b/c``), so a
path whose raw form (``RAW_URI`` or ``REQUEST_URI``) holds ``%2F`` is routed on that raw
form as Fastify does: split at the real slashes, each segment decoded once, so only a
parameter (or the wildcard) can take a decoded ``/``.
"""
from __future__ import annotations

from typing import Any, Mapping, TypeVar
from urllib.parse import unquote

from ..errors import BadUrlError
from .router import Router

T = TypeVar("T")

_NO_ROUTES: dict[str, Any] = {}


def dispatch(router: Router[T], method: str,
             environ: Mapping[str, Any]) -> tuple[T | None, dict[str, str], str | None]:
    """``(route, parameters, decoded path)`` for a request's method and WSGI environ.

    The route is ``None`` when none matches. The decoded path is ``None`` when
    ``PATH_INFO`` is already the path (ASCII), else ``PATH_INFO`` read as UTF-8: the
    path that picks the not-found answer and that ``request.path`` shows."""
    path: str = environ.get("PATH_INFO") or "/"
    raw: str | None = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if not raw or "%2" not in raw:
        # The hot path: a static route is one dict look-up.
        value = router.static.get(method, _NO_ROUTES).get(path)
        if value is not None:
            return value, {}, None
    return dispatch_beyond_static(router, method, path, raw, environ)


def dispatch_beyond_static(router: Router[T], method: str, path: str, raw: str | None,
                           environ: Mapping[str, Any]) -> tuple[T | None, dict[str, str], str | None]:
    """:func:`dispatch` past its first step, for a caller that made that step itself
    (``Framework.__call__`` inlines it): ``path`` is ``PATH_INFO`` (or ``/``), ``raw`` the
    raw request target, and no static route matched ``path`` unless ``raw`` holds ``%2``."""
    if raw and "%2" in raw:  # perhaps an encoded slash, which PATH_INFO no longer shows
        target = raw.partition("?")[0]
        if "%2f" in target.lower():
            return _dispatch_encoded_slash(router, method, target, path, environ.get("SCRIPT_NAME") or "")
        value = router.static.get(method, _NO_ROUTES).get(path)
        if value is not None:
            return value, {}, None
    if path.isascii():
        found = router.find_parametric(method, path)
        decoded = None
    else:
        decoded = path = _utf8(path)
        found = router.find(method, path)
    if found is None:
        return None, {}, decoded
    return found[0], found[1], decoded


def allowed_methods(router: Router[T], environ: Mapping[str, Any]) -> list[str]:
    """The methods that have a route for this request's path (a ``405``'s and ``OPTIONS``'s ``Allow``)."""
    return [method for method in router.methods() if dispatch(router, method, environ)[0] is not None]


def _utf8(path: str) -> str:
    """A WSGI (latin-1) path read as the UTF-8 it is; ``BadUrlError`` when it is not UTF-8."""
    try:
        return path.encode("latin-1").decode("utf-8")
    except UnicodeError:
        raise BadUrlError(path) from None


def _dispatch_encoded_slash(router: Router[T], method: str, target: str, path: str,
                            script_name: str) -> tuple[T | None, dict[str, str], str | None]:
    if not target.startswith("/"):  # absolute form: http://host/path
        target = "/" + target.split("/", 3)[3] if target.count("/") >= 3 else "/"
    segments = target.split("/")
    if script_name:  # a mounted application: PATH_INFO starts after it
        del segments[1:script_name.rstrip("/").count("/") + 1]
    try:
        segments = [unquote(segment, errors="strict") for segment in segments]
    except UnicodeDecodeError:
        raise BadUrlError(path) from None
    decoded = None if path.isascii() else _utf8(path)
    found = router.find_segments(method, segments)
    if found is None:
        return None, {}, decoded
    return found[0], found[1], decoded
