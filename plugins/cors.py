"""CORS (the @fastify/cors plugin): ``Access-Control-*`` headers and preflight answers.

``cors`` is wrapped with ``plugin(...)``, like ``bearer_auth``: it applies to the routes of
the context that registers it and of that context's descendants, and to no other route::

    from framework import Framework
    from framework.plugins.cors import cors

    app = Framework()

    def api(instance, opts):
        instance.register(cors, origin=["https://app.example"], credentials=True, max_age=600)
        instance.get("/items", lambda request, reply: [1, 2])

    app.register(api, prefix="/api")

Every request to those routes gets ``Access-Control-Allow-Origin`` (when its ``Origin``
is allowed) and ``Vary: Origin``. An ``OPTIONS`` request to one of their paths is a
preflight: it is answered ``204`` with ``Access-Control-Allow-Methods``,
``Access-Control-Allow-Headers`` and ``Access-Control-Max-Age``. The plugin declares an
``OPTIONS`` route for each path of its context that has none (once every plugin has
loaded), and its ``on_request`` hook goes *before* the hooks its context added earlier,
so a preflight to a context guarded by ``bearer_auth`` is answered without a key (a
browser never sends credentials with a preflight). Register ``cors`` in the same
context as ``bearer_auth`` or in an ancestor's, never in a descendant: hooks of an
ancestor run first.

Options (@fastify/cors's, in snake_case):

``origin``
    ``"*"`` (default: any origin), a string (that origin, sent as is), a list of strings
    and compiled regexes, a compiled regex, ``True`` (reflect the request's origin),
    ``False`` (no CORS headers at all), or ``callable(origin, request)`` returning one
    of those (it may be ``async``). A regex has to match the whole origin
    (``re.fullmatch``: ``https://.*\\.example\\.com`` does not let in
    ``https://a.example.com.attacker.net``). The ``null`` origin (sandboxed frames,
    ``file:`` pages, some redirects) is allowed only when ``"null"`` is listed: ``True``
    and regexes never reflect it.
``methods``
    The methods a preflight allows; default ``GET,HEAD,PUT,PATCH,POST,DELETE``.
``allowed_headers``
    The request headers a preflight allows; by default the preflight's
    ``Access-Control-Request-Headers`` is reflected (with ``Vary`` on it).
``exposed_headers``
    Response headers a page may read (``Access-Control-Expose-Headers``).
``credentials``
    ``True`` sends ``Access-Control-Allow-Credentials: true``; with ``origin="*"`` or
    ``origin=True`` it is refused when the plugin loads (``ready()`` fails): browsers
    reject the first pair, and the second would let every site read a signed-in user's
    data. With credentials, give the allowed origins as a list, a regex or a function.
``max_age``
    Seconds a browser may cache a preflight's answer.
``strict_preflight``
    ``True`` (default): an ``OPTIONS`` request without ``Origin`` or
    ``Access-Control-Request-Method`` is answered ``400 Invalid Preflight Request``.
``preflight``
    ``False``: ``OPTIONS`` requests are left to the application's routes.
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Collection, Mapping
from typing import Any, Callable, Union, cast

from framework import Context, Reply, Request, plugin, run_coroutine

__all__ = ["cors", "CorsOptionsError"]

_OPTIONS = ("origin", "methods", "allowed_headers", "exposed_headers", "credentials", "max_age",
            "strict_preflight", "preflight")
_IGNORED = ("prefix",)
_DEFAULT_METHODS = "GET,HEAD,PUT,PATCH,POST,DELETE"

#: An ``origin`` as the headers are written from it: a list given becomes a tuple.
_Origin = Union[str, bool, "re.Pattern[str]", "tuple[str | re.Pattern[str], ...]", None]
#: The ``origin`` option once checked: an origin, or ``origin(request_origin, request)``
#: returning one (or an awaitable of one; its result is not checked).
_OriginOption = Union[_Origin, Callable[[Union[str, None], Request], Any]]


_EXPLICIT_ORIGINS = ("list of allowed origins, a compiled regex or a function deciding per origin "
                     "(origin=['https://app.example'])")


class CorsOptionsError(ValueError):
    """Options the CORS plugin cannot work with; raised when it loads (``ready()``)."""


def _joined(value: object, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, set, frozenset)) and all(
            isinstance(item, str) for item in cast("Collection[object]", value)):
        return ", ".join(cast("Collection[str]", value))
    raise CorsOptionsError(f"cors: {name} has to be a string or a list of strings, not {value!r}")


def _check_origin(origin: Any) -> _OriginOption:
    if origin is None or isinstance(origin, (str, bool, re.Pattern)) or callable(origin):
        return cast(_OriginOption, origin)
    if isinstance(origin, (list, tuple, set, frozenset)):
        items = tuple(cast("Collection[object]", origin))
        for item in items:
            if not isinstance(item, (str, re.Pattern)):
                raise CorsOptionsError(f"cors: origin list entries have to be strings or compiled regexes, "
                                       f"not {item!r}")
        return cast("tuple[str | re.Pattern[str], ...]", items)
    raise CorsOptionsError(f"cors: origin has to be a string, list, compiled regex, bool or function, not {origin!r}")


def _allowed(request_origin: str, allowed: _Origin | list[str | re.Pattern[str]]) -> bool:
    if isinstance(allowed, (list, tuple)):
        return any(_allowed(request_origin, each) for each in allowed)
    if isinstance(allowed, str):
        return request_origin == allowed
    if request_origin == "null":
        # Opaque origins (sandboxed frames, file: pages) all send "null": only an
        # explicit "null" entry lets them in, never a pattern or reflection.
        return False
    if isinstance(allowed, re.Pattern):
        return allowed.fullmatch(request_origin) is not None
    return bool(allowed)


def _add_vary(reply: Reply, name: str) -> None:
    existing = reply.get_header("vary")
    if not existing:
        reply.header("vary", name)
        return
    values = [value.strip().lower() for value in str(existing).split(",")]
    if "*" not in values and name.lower() not in values:
        reply.header("vary", f"{existing}, {name}")


class Cors:
    """The plugin's behaviour for one registration: ``on_request`` hook and preflight answers."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
        if unknown:
            raise CorsOptionsError(f"cors: unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
        self.origin = _check_origin(options.get("origin", "*"))
        self.methods = _joined(options.get("methods", _DEFAULT_METHODS), "methods")
        self.allowed_headers = _joined(options.get("allowed_headers"), "allowed_headers")
        self.exposed_headers = _joined(options.get("exposed_headers"), "exposed_headers")
        self.credentials: bool = options.get("credentials", False)
        max_age = options.get("max_age")
        if max_age is not None and (type(max_age) is not int or max_age < 0):
            raise CorsOptionsError(f"cors: max_age has to be a number of seconds, not {max_age!r}")
        self.max_age: int | None = max_age
        self.strict_preflight: bool = options.get("strict_preflight", True)
        self.preflight: bool = options.get("preflight", True)
        for name in ("credentials", "strict_preflight", "preflight"):
            if not isinstance(getattr(self, name), bool):
                raise CorsOptionsError(f"cors: {name} has to be True or False")
        if self.credentials and self.origin == "*":
            raise CorsOptionsError(
                "cors: credentials=True with origin='*' is refused by browsers (the Fetch standard): "
                f"give origin a {_EXPLICIT_ORIGINS}")
        if self.credentials and self.origin is True:
            raise CorsOptionsError(
                "cors: credentials=True with origin=True would let any site read a signed-in user's "
                f"responses: give origin a {_EXPLICIT_ORIGINS}")

    def _resolve(self, request: Request) -> _Origin | list[str | re.Pattern[str]]:
        origin = self.origin
        if callable(origin):  # (never a compiled regex or a bool: neither is callable)
            origin = origin(request.headers.get("origin"), request)
            if inspect.isawaitable(origin):
                origin = run_coroutine(origin)
            if isinstance(origin, str) and origin == "*" and self.credentials:
                raise CorsOptionsError("cors: the origin function returned '*' while credentials=True")
        return origin

    def on_request(self, request: Request, reply: Reply) -> Reply | None:
        """The hook: the ``Access-Control-*`` headers for the request's origin; a preflight
        is answered here (the reply is returned), any other request goes on (``None``)."""
        _add_vary(reply, "Origin")
        origin = self._resolve(request)
        if origin is False or origin is None:
            return None
        request_origin = request.headers.get("origin")
        if isinstance(origin, str):
            reply.header("access-control-allow-origin", origin)
        elif request_origin and _allowed(request_origin, origin):
            reply.header("access-control-allow-origin", request_origin)
        if self.credentials:
            reply.header("access-control-allow-credentials", "true")
        if self.exposed_headers is not None:
            reply.header("access-control-expose-headers", self.exposed_headers)
        if request.method == "OPTIONS" and self.preflight:
            return self._answer_preflight(request, reply)
        return None

    def _answer_preflight(self, request: Request, reply: Reply) -> Reply:
        headers = request.headers
        if self.strict_preflight and (not headers.get("origin") or not headers.get("access-control-request-method")):
            return reply.code(400).type("text/plain; charset=utf-8").send("Invalid Preflight Request")
        reply.header("access-control-allow-methods", self.methods)
        if self.allowed_headers is None:
            _add_vary(reply, "Access-Control-Request-Headers")
            requested = headers.get("access-control-request-headers")
            if requested:
                reply.header("access-control-allow-headers", requested)
        else:
            reply.header("access-control-allow-headers", self.allowed_headers)
        if self.max_age is not None:
            reply.header("access-control-max-age", str(self.max_age))
        return reply.code(204).send()


def _preflight_route(request: Request, reply: Reply) -> Reply:
    """The ``OPTIONS`` route the plugin declares: its ``on_request`` hook answers first;
    this runs only with ``preflight=False``."""
    return reply.code(204).send()


def _cors(instance: Context, opts: Mapping[str, Any]) -> None:
    handler = Cors(dict(opts or {}))
    instance.add_hook("on_request", handler.on_request, first=True)
    if not handler.preflight:
        return

    def declare_preflight_routes() -> None:
        # Once every plugin has loaded: the routes of this context and its descendants.
        prefix = instance.prefix
        for context in instance.walk():
            for route in context.routes(include_descendants=False):
                url = route.url
                if route.method == "OPTIONS" or instance.has_route("OPTIONS", url):
                    continue
                relative = url[len(prefix):] if prefix and url.startswith(prefix) else url
                instance.route("OPTIONS", relative or "/", _preflight_route,
                               config={"cors_preflight": True})

    instance.add_hook("on_ready", declare_preflight_routes)


_cors.__doc__ = __doc__
#: The plugin: ``register(cors, origin=[...])``. Runs in the registering context.
cors = plugin(_cors, name="cors")
