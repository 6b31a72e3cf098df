"""``instance.mount(prefix, wsgi_app)``: any WSGI application answering under a prefix,
inside a context.

The mount is a wildcard route of the context (every method, ``prefix`` and
``prefix/*``) declared with the ``mount`` route option, which leaves the body unread
(the mounted application reads ``wsgi.input`` itself). So the context's ``on_request``
hooks (``bearer_auth``, CORS), request ids, request logging, ``on_send`` and
``on_response`` hooks apply to it as to any route of the context.

The handler calls the mounted application with a copy of the environ in which
``SCRIPT_NAME`` gains the prefix and ``PATH_INFO`` keeps the rest (``/legacy/a/b`` under
``/legacy``: ``SCRIPT_NAME=/legacy``, ``PATH_INFO=/a/b``; ``/legacy`` itself:
``PATH_INFO=""``), runs it until it has started its response (its first body chunk), and
returns its answer as a pass-through. An exception the mounted application raises
before it answers goes to the route's error chain (``on_error`` hooks, the context's
error handler); its own answers, a 404 included, go out unchanged, with the headers the
context's hooks set on the reply (CORS, the request id) added where the application
did not set them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Protocol

from .route import SUPPORTED_METHODS
from .routing.router import normalize_prefix

if TYPE_CHECKING:
    from .lifecycle.reply import Reply
    from .lifecycle.request import Request

#: A WSGI application: ``app(environ, start_response)`` returns the body's chunks.
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class MountingContext(Protocol):
    """What ``mount`` uses of the context it mounts in (a ``Context``): its prefix and
    ``route()``. Typed structurally so that this module sits below the context tree."""

    @property
    def prefix(self) -> str: ...

    def route(self, method: str | list[str] = "GET", url: str = "/", handler: Callable[..., Any] | None = None,
              **options: Any) -> object: ...


def mount(context: MountingContext, prefix: str, application: WSGIApp, **options: Any) -> None:
    """Declare the mount routes of ``application`` under ``prefix`` in ``context``."""
    if not callable(application):
        raise TypeError(f"mount expects a WSGI application, got {type(application).__name__}")
    local = normalize_prefix(prefix)
    if not local:
        raise ValueError("mount needs a prefix other than '/' (the mounted application would shadow every route)")
    if any(char in local for char in ":*("):
        raise ValueError(f"a mount prefix is a static path, got {prefix!r}")
    if options.get("strict_accept"):
        raise ValueError("strict_accept does not apply to a mounted application: it answers its own media types")
    full_prefix = context.prefix + local
    handler = _MountHandler(application, full_prefix)
    for url in (local, local + "/*"):
        context.route(list(SUPPORTED_METHODS), url, handler, mount=True, **options)


class _MountHandler:
    """The mount routes' handler: calls the mounted application (see the module)."""

    def __init__(self, application: WSGIApp, prefix: str) -> None:
        self.application = application
        self.prefix = prefix
        self.__name__ = f"mount({getattr(application, '__name__', None) or type(application).__name__})"
        self.__qualname__ = self.__name__

    def __call__(self, request: "Request", reply: "Reply") -> "_Started":
        environ = dict(request.environ)
        path = environ.get("PATH_INFO") or ""
        # PATH_INFO matched the prefix (the router may ignore case: cut by length).
        environ["SCRIPT_NAME"] = (environ.get("SCRIPT_NAME") or "").rstrip("/") + path[:len(self.prefix)]
        environ["PATH_INFO"] = path[len(self.prefix):]
        started: list[Any] = []
        written: list[bytes] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[..., Any]:
            if exc_info is not None and started:
                raise exc_info[1].with_traceback(exc_info[2])
            started[:] = [status, list(headers)]
            return written.append

        body = self.application(environ, start_response)
        chunks: Iterator[bytes] = iter(body)
        first: list[bytes] = []
        if not started:  # start_response may wait for the first chunk
            try:
                first = [next(chunks)]
            except StopIteration:
                pass
            except BaseException:
                _close(body)
                raise
        if not started:
            _close(body)
            raise RuntimeError(f"the application mounted at {self.prefix} did not call start_response")
        return _Started(started[0], started[1], written + first, chunks, body, reply)


class _Started:
    """A mounted application's answer, started: a WSGI application the reply passes through."""

    def __init__(self, status: str, headers: list[tuple[str, str]], head: list[bytes], rest: Iterator[bytes],
                 body: Iterable[bytes], reply: "Reply") -> None:
        self.status = status
        self.status_code = int(status[:3])
        self.headers = headers
        self.head = head
        self.rest = rest
        self.body = body
        self.reply = reply

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        own = {name.lower() for name, _value in self.headers}
        # The reply's own header lines (CORS, request id), as Reply renders them.
        added = [(name, value) for name, value in self.reply._lines()  # pyright: ignore[reportPrivateUsage]
                 if name.lower() not in own]
        start_response(self.status, self.headers + added)
        return _Body(self)


class _Body:
    """The mounted application's body: what it produced already, then the rest; ``close()`` reaches it."""

    def __init__(self, started: _Started) -> None:
        self.started = started

    def __iter__(self) -> Iterator[bytes]:
        yield from self.started.head
        yield from self.started.rest

    def close(self) -> None:
        _close(self.started.body)


def _close(body: Any) -> None:
    close = getattr(body, "close", None)
    if close is not None:
        close()


__all__ = ["mount"]
