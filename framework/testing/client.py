"""``inject()``: a request through the WSGI callable without a socket, for tests."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..http.injected import InjectResponse
from .injection import build_environ

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

    from .fuzzer import FuzzedApp, FuzzReport, RouteFilter


def inject(app: "WSGIApplication", method: str = "GET", url: str = "/", headers: Mapping[str, str] | None = None,
           query: Mapping[str, Any] | None = None, json: Any = None, body: bytes | str | None = None,
           **environ_overrides: Any) -> InjectResponse:
    """Build a WSGI environ, call ``app`` with it, and collect the response.

    ``app`` is any WSGI application (a framework application is readied first).
    ``json`` sends a JSON body (``Content-Type: application/json`` unless ``headers`` set
    one); ``body`` sends raw bytes or text as given; ``query`` is appended to ``url``
    (lists give repeated keys). Any extra keyword overrides an environ key
    (``{"wsgi.input": stream}``, ``REMOTE_ADDR``...).
    """
    ready = getattr(app, "ready", None)
    if ready is not None:
        ready()
    environ = build_environ(method, url, headers, query, json, body, **environ_overrides)
    captured: dict[str, Any] = {}

    def start_response(status: str, response_headers: list[tuple[str, str]],
                       exc_info: Any = None) -> Callable[[bytes], None]:
        captured["status"] = status
        captured["headers"] = response_headers
        return lambda chunk: None

    result = app(environ, start_response)
    try:
        payload = b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    return InjectResponse(captured["status"], captured["headers"], payload)


def fuzz(app: "FuzzedApp", examples: int = 100, *, headers: dict[str, str] | None = None,
         routes: "RouteFilter | None" = None, raise_on_failure: bool = True,
         seed: int | None = None) -> "FuzzReport":
    """Contract-test every route of ``app`` from its schemas with Hypothesis (see
    ``framework.testing.fuzzer``): for requests valid by the route's own validators, no 5xx and no
    validation error (``FST_ERR_VALIDATION``), every 2xx body valid for its response
    schema, and at least one of them reaching the handler; for each invalid input, a 400
    naming the part. Raises :class:`framework.testing.fuzzer.FuzzFailure` with each failing route
    and its minimal example.

    ``headers`` go with every request; ``routes`` keeps the routes it accepts (a
    ``routes(route) -> bool`` function, or a collection of ``"METHOD /url"`` strings);
    ``raise_on_failure=False`` returns the failures in the report instead; ``seed`` makes
    the draw reproducible. Returns a ``FuzzReport``: ``routes`` (``"METHOD /url"``
    labels), ``failures``, and ``counts``: per label, a ``RouteCounts`` with the
    ``valid`` draws sent, how many ``reached`` the handler, and the ``invalid`` draws.
    """
    from .fuzzer import fuzz as run
    return run(app, examples, headers=headers, routes=routes, raise_on_failure=raise_on_failure, seed=seed)


__all__ = ["InjectResponse", "inject", "fuzz"]
