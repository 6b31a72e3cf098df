"""The request a handler sees: a thin, lazy view of the WSGI environ.

Nothing is parsed that a route does not read: ``query``, ``headers``, ``cookies`` and the
werkzeug request (``raw``) are built on first use. Each context has its own subclass,
which is where request decorators live (see ``Context.decorate_request``).
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable, Generic, Protocol, overload

from typing_extensions import TypeVar

from ..http.media_types import parse_query_string
from ..http.paths import quote_path
from ..http.proxy import direct_forwarded
from .request_log import RequestLogger

if TYPE_CHECKING:
    from werkzeug.wrappers import Request as WerkzeugRequest

    from ..http.media_types import MediaType
    from ..http.proxy import Forwarded, ProxyTrust

T = TypeVar("T")

#: ``Request[Body, Query, Params, Headers]``: what the handler reads. A type given here is
#: also the route's schema for that part (``framework.typeschema``); unset ones are untyped.
BodyT = TypeVar("BodyT", default=Any)
QueryT = TypeVar("QueryT", default=dict[str, Any])
ParamsT = TypeVar("ParamsT", default=dict[str, Any])
HeadersT = TypeVar("HeadersT", default=dict[str, Any])


class Server(Protocol):
    """``request.server`` and ``reply.server``: the context that declared the route (a
    ``framework.context.Context``), as a handler sees it.

    A Protocol rather than the class itself: the request and the reply sit below the
    contexts in the package's layers (a context builds their classes), so they name what
    a handler reads of it. Its decorators (``server.decorate("db", ...)``, then
    ``request.server.db``) read as ``Any`` through ``__getattr__``, as they do on a
    ``Context``; a generic parameter would make every ``Request[...]`` annotation longer
    for the same result.
    """

    @property
    def name(self) -> str: ...
    @property
    def prefix(self) -> str: ...
    @property
    def log(self) -> logging.Logger: ...
    def has_decorator(self, name: str) -> bool: ...
    def has_request_decorator(self, name: str) -> bool: ...
    def has_reply_decorator(self, name: str) -> bool: ...
    def has_plugin(self, name: str) -> bool: ...
    def __getattr__(self, name: str) -> Any: ...


class RequestRoute(Protocol):
    """What a request reads of its compiled route (``framework.lifecycle.compiled_route.CompiledRoute``
    is one; this module sits below it)."""

    @property
    def request_id(self) -> "Callable[[Request[Any, Any, Any, Any]], str]": ...
    @property
    def proxy(self) -> "ProxyTrust | None": ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def context(self) -> Server: ...
    @property
    def log(self) -> logging.Logger: ...
    @property
    def log_level(self) -> int: ...


class lazy(Generic[T]):
    """A non-data descriptor computing an attribute once; later reads hit the instance dict."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> "lazy[T]": ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object, owner: type | None = None) -> "T | lazy[T]":
        """The value, computed on the first read and stored on the instance (the descriptor
        itself when read from the class)."""
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


class _LazyQuery:
    """``request.query``, parsed on first read (one frame less than ``lazy``: a hot path)."""

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        query = instance.__dict__["query"] = parse_query_string(instance.environ.get("QUERY_STRING", ""))
        return query


def headers_from_environ(environ: dict[str, Any]) -> dict[str, str]:
    """The request headers from WSGI's ``HTTP_*`` keys (and the content type and length), lower-cased."""
    headers: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            headers[key[5:].replace("_", "-").lower()] = value
    if environ.get("CONTENT_TYPE"):
        headers["content-type"] = environ["CONTENT_TYPE"]
    if environ.get("CONTENT_LENGTH"):
        headers["content-length"] = environ["CONTENT_LENGTH"]
    return headers


class Request(Generic[BodyT, QueryT, ParamsT, HeadersT]):
    """One HTTP request. Attributes a handler reads:

    ``body`` (``None`` when the request has none), ``query``, ``params``, ``headers``
    (lower-cased names), ``method``, ``url`` (path and query string as received),
    ``path``, ``id``, ``ip``, ``ips``, ``hostname``, ``protocol`` (these four follow
    ``X-Forwarded-*`` only as ``trust_proxy`` allows), ``cookies`` (and
    ``signed_cookie(name)``), ``environ``,
    ``raw`` (a werkzeug ``Request``), ``validation_error``, ``route_options``,
    ``server`` (the context that declared the route) and ``log``.

    Its type arguments say what ``body``, ``query``, ``params`` and ``headers`` hold after
    validation, for type checkers and for the route: ``def create(request:
    Request[ItemIn], reply: Reply) -> ItemOut`` validates the body as ``ItemIn`` and
    serializes the reply as ``ItemOut`` (see docs/guide/typed-handlers.rst).
    """

    #: Names set on every request: a decorator may not take them.
    RESERVED = frozenset(("environ", "params"))

    body: BodyT
    if not TYPE_CHECKING:
        body = None  # until a body is parsed (a route without a body schema may see None)
    params: ParamsT
    validation_error: Exception | None = None
    #: The body's parsed ``Content-Type`` (set when a body is parsed).
    media_type: "MediaType | None" = None

    def __init__(self, environ: dict[str, Any], params: dict[str, Any], route: RequestRoute) -> None:
        # (A route's entry inlines this: framework.lifecycle.entry.)
        self.environ = environ
        self.params = params  # type: ignore[assignment]  # a params schema may coerce them
        self._route = route

    @lazy
    def method(self) -> str:
        """The HTTP method (``REQUEST_METHOD``)."""
        method: str = self.environ["REQUEST_METHOD"]
        return method

    if TYPE_CHECKING:
        query: QueryT
        headers: HeadersT
    else:
        query = _LazyQuery()

        @lazy
        def headers(self) -> dict[str, str]:
            return headers_from_environ(self.environ)

    @lazy
    def id(self) -> str:
        """The request id, taken on first read: the incoming ``request_id_header`` value when
        it is safe, else ``gen_request_id(request)`` or the default (see ``framework.lifecycle.request_log``)."""
        return self._route.request_id(self)

    @lazy
    def path(self) -> str:
        """The path, percent-decoded and read as UTF-8, without the query string (``/`` when empty)."""
        path: str = self.environ.get("framework.path") or self.environ.get("PATH_INFO") or "/"
        return path

    @lazy
    def url(self) -> str:
        """The path and query string as the client sent them (rebuilt from the environ when the
        server does not give the raw URI)."""
        raw: str | None = self.environ.get("RAW_URI") or self.environ.get("REQUEST_URI")
        if raw:
            return raw
        query_string = self.environ.get("QUERY_STRING")
        path = quote_path(self.path)
        return f"{path}?{query_string}" if query_string else path

    @lazy
    def forwarded(self) -> "Forwarded":
        """The client's address chain, host and scheme as ``trust_proxy`` allows (``framework.http.proxy``)."""
        proxy = self._route.proxy
        if proxy is None:
            return direct_forwarded(self.environ)
        return proxy.resolve(self.environ)

    @lazy
    def ip(self) -> str | None:
        """The client's address: the socket's peer, or the one ``trust_proxy`` lets X-Forwarded-For name."""
        if self._route.proxy is None:
            address: str | None = self.environ.get("REMOTE_ADDR")
            return address
        return self.forwarded.ip

    @lazy
    def ips(self) -> list[str]:
        """The addresses walked: the socket's peer, then X-Forwarded-For's trusted hops (right to left)."""
        return self.forwarded.ips

    @lazy
    def hostname(self) -> str:
        """The ``Host`` header (else ``SERVER_NAME``), or the forwarded host ``trust_proxy`` allows."""
        if self._route.proxy is None:
            host: str = self.environ.get("HTTP_HOST") or self.environ.get("SERVER_NAME", "")
            return host
        return self.forwarded.hostname

    @lazy
    def protocol(self) -> str:
        """``http`` or ``https``: the WSGI URL scheme, or the forwarded one ``trust_proxy`` allows."""
        if self._route.proxy is None:
            scheme: str = self.environ.get("wsgi.url_scheme", "http")
            return scheme
        return self.forwarded.protocol

    @lazy
    def cookies(self) -> dict[str, str]:
        """The ``Cookie`` header's cookies, by name."""
        from werkzeug.http import parse_cookie
        header: str = self.environ.get("HTTP_COOKIE", "")
        try:
            return dict(parse_cookie(header))
        except UnicodeDecodeError:
            # Bytes that are not UTF-8 (WSGI gives header bytes as latin-1): each such byte
            # reads as U+FFFD, as a browser would show it; the other cookies stay readable.
            readable = header.encode("latin-1").decode("utf-8", "replace").encode("utf-8").decode("latin-1")
            return dict(parse_cookie(readable))

    def signed_cookie(self, name: str) -> str | None:
        """The value of cookie ``name`` as ``reply.set_cookie(name, value, signed=True)``
        set it, its signature checked by the ``cookie_signer`` of the route's context
        (``framework.plugins.cookie_signing``; without one, ``InvalidCookieError``).
        ``None`` when the cookie is absent, unsigned, tampered with or signed with a
        secret no longer listed."""
        from ..http.cookies import cookie_signer
        signer = cookie_signer(self.server, name)
        value = self.cookies.get(name)
        return None if value is None else signer.unsign(value)

    @lazy
    def raw(self) -> "WerkzeugRequest":
        """A werkzeug ``Request`` over the same environ (forms, files, everything werkzeug parses)."""
        from werkzeug.wrappers import Request as WerkzeugRequest
        return WerkzeugRequest(self.environ)

    @property
    def route_options(self) -> dict[str, Any]:
        """The options the route was declared with (``url``, ``method``, ``schema``, ``config``...)."""
        return self._route.options

    @property
    def server(self) -> Server:
        """The context that declared the route."""
        return self._route.context

    @lazy
    def log(self) -> "logging.LoggerAdapter[logging.Logger]":
        """The route's logger with ``req_id`` on every record (and the route's ``log_level``)."""
        return RequestLogger(self._route.log, self.id, self._route.log_level)

    def __repr__(self) -> str:
        return f"<Request {self.method} {self.url}>"
