"""Rate limiting (the @fastify/rate-limit plugin), counted by the ``limits`` package.

``rate_limit`` is wrapped with ``plugin(...)``, like ``cors``: it limits the routes of the
context that registers it and of that context's descendants, and no other route::

    from framework import Framework
    from framework.plugins.rate_limit import rate_limit

    app = Framework()

    def api(instance, opts):
        instance.register(rate_limit, limit="100/minute")       # every route of /api
        instance.get("/items", lambda request, reply: [1, 2])
        instance.post("/login", login, config={"rate_limit": {"limit": "5/minute"}})
        instance.get("/health", health, config={"rate_limit": False})

    app.register(api, prefix="/api")

A limited request that is within its limit goes on with ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset`` (seconds until the window frees a request)
on its answer; one past its limit is answered ``429`` with the same headers,
``Retry-After`` and the framework's error body (``code`` ``FST_RATE_LIMIT_EXCEEDED``).
``framework.plugins.openapi`` documents that ``429`` on every limited route.

Options (the registration's; the first five may also be given per route):

``limit``
    ``"100/minute"``, ``"5 per hour"``, ``"10/5 seconds"``: the ``limits`` notation, parsed
    when the plugin loads. ``None`` (default): no limit for the context as a whole, only
    the routes that give their own (below).
``key``
    ``key(request) -> str``: what is counted (an API key, the principal an
    authentication hook set on the request, a header). Default: the client's address as ``Framework(trust_proxy=...)`` sees it
    (``request.ip``). A key of ``None`` counts the request by that address instead. It
    may be ``async``.
``strategy``
    ``"fixed-window"`` (default: one counter per window; cheapest), ``"moving-window"``
    (every hit's time is kept: exact over any window of that length) or
    ``"sliding-window-counter"`` (two counters weighted: close to the moving window at the
    cost of the fixed one), as ``limits`` implements them.
``exempt``
    ``exempt(request) -> bool``: ``True`` lets the request through uncounted, without
    headers (a health checker, an internal network). It may be ``async``.
``headers``
    ``True`` (default): the ``RateLimit-*`` headers on accepted answers too (a second read
    of the store per request); ``False``: only on the ``429``.
``storage``
    ``"memory://"`` (default) or a ``limits`` storage URI: ``"redis://host:6379/0"``,
    ``"rediss://..."``, ``"redis+unix:///path"``; or a ``limits.storage.Storage`` you
    built. (``pip install 'framework[rate_limit]'`` brings ``limits`` and redis-py.)
``storage_options``
    Keyword arguments for the storage (``limits.storage.storage_from_string``). For Redis
    the defaults are ``socket_connect_timeout=1`` and ``socket_timeout=1`` (seconds): a
    server that does not answer costs a request about that (a refused connection, about a
    millisecond).
``on_store_error``
    ``"open"`` (default): while the store cannot be reached, requests are served
    unlimited; ``"closed"``: they are answered ``503`` (``FST_RATE_LIMIT_STORE_UNAVAILABLE``).
    Either way the outage is logged once (a warning) and the recovery once (info), never
    answered with a ``500``; the store is tried again by every request, so limits apply
    again as soon as it answers.
``namespace``
    Prefixes every counter's name (default ``"framework-rate-limit"``): applications that
    share one Redis give each their own.
``hook``
    Where the check runs: ``"on_request"`` (default: before the body is read) or a later
    request hook, ``"pre_parsing"``, ``"pre_validation"``, ``"pre_handler"`` (a key that
    needs what a hook of that phase sets).

What is counted together. The routes a registration limits share one counter per key
(``limit="100/minute"`` is 100 requests a minute to all of them together, as in
Fastify). A route with ``config={"rate_limit": {...}}`` has counters of its own, with the
options it gives over the registration's; ``config={"rate_limit": "5/minute"}`` is short
for ``{"limit": "5/minute"}``, and ``config={"rate_limit": False}`` takes the route out.
The route's config is read by the nearest registration (the one of its context or of the
closest ancestor); without one it is not read. A context may register ``rate_limit``
again: for its routes and its descendants', that registration decides alone (its limit
and counters replace the ancestor's); registering it twice in one context is refused.

Stores. The memory store counts in the worker process: under ``gunicorn -w 4`` each of
the four workers counts alone, so a client may get up to four times the limit, depending
on which worker takes each of its connections. A Redis store is shared by every worker of
every machine that points at it, and counts atomically (``limits`` runs each hit as one
Lua script or ``INCR``): exactly ``limit`` requests get through, however many workers and
machines serve them.

The registration is visible as ``instance.rate_limiter`` (a :class:`RateLimiter`) in its
context and the descendants. Every option is checked when the plugin loads (``ready()``):
a limit ``limits`` cannot parse, an unknown strategy or one the store does not support,
an unknown storage scheme or a missing client library, an unknown route option fail with
a :class:`RateLimitOptionsError` naming it. Counting is done by ``limits``; nothing is
counted here.
"""
from __future__ import annotations

import hashlib
import inspect
import logging
import math
import threading
import time
from collections.abc import Mapping
from typing import Any, Callable, Union, cast
from urllib.parse import urlsplit, urlunsplit

from limits import RateLimitItem, parse_many
from limits.errors import ConfigurationError, StorageError
from limits.storage import Storage, storage_from_string
from limits.strategies import STRATEGIES, RateLimiter as LimitsStrategy

from framework import Context, Reply, Request, plugin, run_coroutine
from framework.errors import create_error

__all__ = ["rate_limit", "RateLimiter", "RouteLimit", "RateLimitOptionsError", "RateLimitExceededError",
           "RateLimitStoreUnavailableError", "STRATEGY_NAMES"]

#: A limited request past its limit: 429, with ``Retry-After``.
RateLimitExceededError = create_error(
    "FST_RATE_LIMIT_EXCEEDED", "rate limit exceeded (%s), retry in %s second(s)", 429)
#: The store could not be reached and ``on_store_error="closed"``: 503.
RateLimitStoreUnavailableError = create_error(
    "FST_RATE_LIMIT_STORE_UNAVAILABLE", "rate limit store unavailable, try again later", 503)

#: The strategies the installed ``limits`` implements, by the names ``strategy=`` takes.
STRATEGY_NAMES: tuple[str, ...] = tuple(sorted(STRATEGIES))

_OPTIONS = ("limit", "key", "strategy", "exempt", "headers", "storage", "storage_options", "on_store_error",
            "namespace", "hook")
_ROUTE_OPTIONS = ("limit", "key", "strategy", "exempt", "headers")
_IGNORED = ("prefix",)
_HOOKS = ("on_request", "pre_parsing", "pre_validation", "pre_handler")
_REDIS_SCHEMES = ("redis", "rediss", "redis+unix")
_REDIS_DEFAULTS = {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}
#: A key longer than this is counted by its SHA-256: a client's header never makes a long store key.
_LONGEST_KEY = 64

KeyFunction = Callable[[Request], Any]
ExemptFunction = Callable[[Request], Any]
_RouteConfig = Union[Mapping[str, Any], str, bool, None]


class RateLimitOptionsError(ValueError):
    """Options the rate-limit plugin cannot work with; raised when it loads (``ready()``)."""


def _refuse(message: str) -> RateLimitOptionsError:
    return RateLimitOptionsError(f"rate_limit: {message}")


def _check_names(given: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(given) - set(known) - set(_IGNORED))
    if unknown:
        raise _refuse(f"unknown option(s) {', '.join(unknown)}{where}; known: {', '.join(known)}")


def _parse_limit(limit: object, where: str = "") -> RateLimitItem:
    """One rate limit in the ``limits`` notation (``"100/minute"``), or a clear error."""
    if not isinstance(limit, str):
        raise _refuse(f"limit{where} has to be a string such as '100/minute', not {limit!r}")
    try:
        items = parse_many(limit)
    except ValueError as error:
        raise _refuse(f"limit{where} {limit!r} is not a rate limit ('100/minute', '5 per hour', "
                      f"'10/5 seconds'): {error}") from None
    if len(items) != 1:
        raise _refuse(f"limit{where} {limit!r} gives {len(items)} limits; give one")
    if items[0].amount < 1:
        raise _refuse(f"limit{where} {limit!r} lets no request through")
    return items[0]


def _check_callable(value: object, name: str, where: str) -> Callable[[Request], Any] | None:
    if value is not None and not callable(value):
        raise _refuse(f"{name}{where} has to be a function of the request, not {value!r}")
    return cast("Callable[[Request], Any] | None", value)


def _redacted(uri: str) -> str:
    """The storage URI without its password, for the log."""
    parts = urlsplit(uri)
    if parts.password is None:
        return uri
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _storage(value: object, options: object) -> tuple[Storage, str]:
    if isinstance(value, Storage):
        if options is not None:
            raise _refuse("storage_options applies to a storage URI, not to a storage instance")
        return value, type(value).__name__
    if not isinstance(value, str):
        raise _refuse(f"storage has to be a limits storage URI ('memory://', 'redis://host:6379/0') or a "
                      f"limits.storage.Storage, not {value!r}")
    if options is not None and not isinstance(options, Mapping):
        raise _refuse(f"storage_options has to be a dict, not {options!r}")
    given = dict(cast("Mapping[str, Any]", options or {}))
    scheme = value.split("://", 1)[0].lower()
    defaults = _REDIS_DEFAULTS if scheme in _REDIS_SCHEMES else {}
    try:
        # wrap_exceptions: every failure of the store's client arrives as one StorageError.
        storage = storage_from_string(value, **{**defaults, **given, "wrap_exceptions": True})
    except ConfigurationError as error:
        raise _refuse(f"storage {_redacted(value)!r}: {error}") from None
    if not isinstance(storage, Storage):  # an "async+..." URI: limits' asyncio storages
        raise _refuse(f"storage {_redacted(value)!r} is an asyncio storage; give the scheme without 'async+'")
    return storage, _redacted(value)


class _Store:
    """One storage and its health: an outage and a recovery are each logged once."""

    __slots__ = ("storage", "name", "fail_closed", "down", "_lock", "_log", "_strategies")

    def __init__(self, storage: Storage, name: str, fail_closed: bool, log: logging.Logger) -> None:
        self.storage = storage
        self.name = name
        self.fail_closed = fail_closed
        #: Whether the last request found the store unreachable.
        self.down = False
        self._lock = threading.Lock()
        self._log = log
        self._strategies: dict[str, LimitsStrategy] = {}

    def strategy(self, name: object, where: str) -> LimitsStrategy:
        if not isinstance(name, str) or name not in STRATEGIES:  # not a str: unhashable ones would raise TypeError
            raise _refuse(f"strategy{where} {name!r} is not one of {', '.join(STRATEGY_NAMES)} "
                          "(the strategies of the installed limits)")
        if name not in self._strategies:
            try:
                self._strategies[name] = STRATEGIES[name](self.storage)
            except NotImplementedError as error:
                raise _refuse(f"strategy {name!r} is not supported by the storage {self.name}: {error}") from None
        return self._strategies[name]

    def failed(self, error: StorageError, reply: Reply) -> Reply | None:
        """A request found the store unreachable: the answer ``on_store_error`` asks for."""
        if not self.down:
            with self._lock:
                if not self.down:
                    self.down = True
                    what = "answering 503" if self.fail_closed else "serving requests unlimited"
                    self._log.warning("rate_limit: the store %s cannot be reached (%s: %s); %s until it answers",
                                      self.name, type(error.storage_error).__name__, error.storage_error, what)
        if self.fail_closed:
            return reply.code(503).send(RateLimitStoreUnavailableError())
        return None

    def recovered(self) -> None:
        with self._lock:
            if self.down:
                self.down = False
                self._log.info("rate_limit: the store %s answers again; limits apply", self.name)


class _NoLimit(RateLimitOptionsError):
    """A route's config gives no limit and its registration has none."""


def _listed(hooks: Any) -> list[Any]:
    """A route's hook option as a new list (it may be one function, a list or a tuple)."""
    if hooks is None:
        return []
    return list(hooks) if isinstance(hooks, (list, tuple)) else [hooks]


def _route_label(options: Mapping[str, Any]) -> str:
    """``GET,HEAD /prefix/path``: the same for a route in every worker and machine."""
    methods = options.get("method")
    names = sorted(str(m).upper() for m in (methods if isinstance(methods, (list, tuple)) else [methods]))
    return f"{','.join(names)} {options.get('prefix') or ''}{options.get('url')}"


class RouteLimit:
    """The check one route runs (a request hook of the route): count, then answer 429 past
    the limit. ``openapi_responses`` tells ``framework.plugins.openapi`` what it may answer."""

    __slots__ = ("registration", "item", "scope", "key", "exempt", "headers", "openapi_responses",
                 "_hit", "_stats", "_store", "_limit_header", "_described", "_by_address", "_by_key")

    def __init__(self, registration: "RateLimiter", store: _Store, strategy: LimitsStrategy, item: RateLimitItem,
                 scope: str, key: KeyFunction | None, exempt: ExemptFunction | None,
                 headers: bool) -> None:
        self.registration = registration
        self.item = item
        #: The counter's name before the key: ``namespace/registration`` or ``namespace/route:...``.
        self.scope = scope
        self._by_address = f"{scope}/ip"
        self._by_key = f"{scope}/key"
        self.key = key
        self.exempt = exempt
        self.headers = headers
        self._hit = strategy.hit
        self._stats = strategy.get_window_stats
        self._store = store
        self._limit_header = str(item.amount)
        self._described = str(item)
        responses: dict[str, Any] = {"429": _documented_429(item)}
        if store.fail_closed:
            responses["503"] = {"description": "Service Unavailable (the rate limit store cannot be reached)",
                                "content": _ERROR_CONTENT}
        self.openapi_responses: Mapping[str, Any] = responses

    def _identity(self, request: Request) -> tuple[str, str]:
        """(the counter's scope, the client's key) for ``limits``' identifiers."""
        if self.key is None:
            return self._by_address, request.ip or "-"
        value = self.key(request)
        if value.__class__ is not str:
            if inspect.isawaitable(value):
                value = run_coroutine(value)
            if value is None:
                return self._by_address, request.ip or "-"
            if not isinstance(value, str):
                raise TypeError(f"rate_limit: the key function returned {type(value).__name__}, not a string")
        if len(value) > _LONGEST_KEY:
            value = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        return self._by_key, value

    def __call__(self, request: Request, reply: Reply) -> Reply | None:
        exempt = self.exempt
        if exempt is not None:
            result = exempt(request)
            if result is not False and result is not None:
                if inspect.isawaitable(result):
                    result = run_coroutine(result)
                if result:
                    return None
        scope, value = self._identity(request)
        store = self._store
        try:
            accepted = self._hit(self.item, scope, value)
            stats = self._stats(self.item, scope, value) if self.headers or not accepted else None
        except StorageError as error:
            return store.failed(error, reply)
        if store.down:
            store.recovered()
        if stats is None:
            return None
        reset = max(0, math.ceil(stats.reset_time - time.time()))
        reply.header("ratelimit-limit", self._limit_header)
        reply.header("ratelimit-remaining", str(stats.remaining))
        reply.header("ratelimit-reset", str(reset))
        if accepted:
            return None
        retry = max(1, reset)
        reply.header("retry-after", str(retry))
        return reply.code(429).send(RateLimitExceededError(self._described, retry))

    def __repr__(self) -> str:
        return f"<rate_limit {self._described} on {self.scope}>"


_ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/FrameworkError"}}}


def _documented_429(item: RateLimitItem) -> dict[str, Any]:
    integer = {"schema": {"type": "integer"}}
    return {
        "description": f"Too Many Requests (limit: {item})",
        "headers": {
            "Retry-After": {"description": "Seconds before a request may succeed", **integer},
            "RateLimit-Limit": {"description": "Requests allowed per window", **integer},
            "RateLimit-Remaining": {"description": "Requests left in the window", **integer},
            "RateLimit-Reset": {"description": "Seconds until the window frees a request", **integer},
        },
        "content": _ERROR_CONTENT,
    }


class RateLimiter:
    """One registration of ``rate_limit``: its options, store and counters, and the check it
    installs on each route it limits. ``instance.rate_limiter`` in the registering context
    and its descendants (the nearest registration)."""

    def __init__(self, context: Context, options: Mapping[str, Any]) -> None:
        _check_names(options, _OPTIONS, "")
        self.context = context
        limit = options.get("limit")
        #: The limit of the context as a whole, or ``None`` (only routes with their own).
        self.item: RateLimitItem | None = _parse_limit(limit) if limit is not None else None
        self.key = _check_callable(options.get("key"), "key", "")
        self.exempt = _check_callable(options.get("exempt"), "exempt", "")
        self.headers = options.get("headers", True)
        if not isinstance(self.headers, bool):
            raise _refuse(f"headers has to be True or False, not {self.headers!r}")
        on_store_error = options.get("on_store_error", "open")
        if on_store_error not in ("open", "closed"):
            raise _refuse(f"on_store_error has to be 'open' (serve unlimited) or 'closed' (answer 503), "
                          f"not {on_store_error!r}")
        namespace = options.get("namespace", "framework-rate-limit")
        if not isinstance(namespace, str) or not namespace:
            raise _refuse(f"namespace has to be a non-empty string, not {namespace!r}")
        self.hook = options.get("hook", "on_request")
        if self.hook not in _HOOKS:
            raise _refuse(f"hook has to be one of {', '.join(_HOOKS)}, not {self.hook!r}")
        storage, name = _storage(options.get("storage", "memory://"), options.get("storage_options"))
        self.store = _Store(storage, name, on_store_error == "closed", context.log)
        self.strategy_name = options.get("strategy", "fixed-window")
        self.strategy = self.store.strategy(self.strategy_name, "")
        #: The counters of the routes without their own config: (namespace, this registration).
        self.scope = f"{namespace}/{context.prefix or '/'}#{context.name}"
        self.namespace = namespace
        self._shared: RouteLimit | None = None
        self._unsettled: list[Mapping[str, Any]] = []
        if self.item is not None:
            self._shared = RouteLimit(self, self.store, self.strategy, self.item, self.scope, self.key, self.exempt,
                                      self.headers)

    def limit_for(self, options: Mapping[str, Any]) -> RouteLimit | None:
        """The check of a route declared with ``options`` (``None``: not limited)."""
        config = options.get("config") or {}
        own: _RouteConfig = config.get("rate_limit") if isinstance(config, Mapping) else None
        if own is None or own is True:
            return self._shared
        label = _route_label(options)
        where = f" (route {label})"
        if own is False:
            return None
        if isinstance(own, str):
            own = {"limit": own}
        if not isinstance(own, Mapping):
            raise _refuse(f"config['rate_limit']{where} has to be a dict of options, a limit string or False, "
                          f"not {own!r}")
        _check_names(own, _ROUTE_OPTIONS, where)
        limit = own.get("limit")
        item = _parse_limit(limit, where) if limit is not None else self.item
        strategy = self.store.strategy(own["strategy"], where) if "strategy" in own else self.strategy
        headers = own.get("headers", self.headers)
        if not isinstance(headers, bool):
            raise _refuse(f"headers{where} has to be True or False, not {headers!r}")
        key = _check_callable(own["key"], "key", where) if "key" in own else self.key
        exempt = _check_callable(own["exempt"], "exempt", where) if "exempt" in own else self.exempt
        if item is None:
            raise _NoLimit(f"rate_limit: config['rate_limit']{where} gives no limit, and the nearest "
                           "registration of rate_limit has none")
        scope = f"{self.namespace}/route:{label}"
        return RouteLimit(self, self.store, strategy, item, scope, key, exempt, headers)

    def install(self, options: dict[str, Any], nearest: bool = False) -> None:
        """Put this registration's check of the route into its hooks, in place of an
        ancestor's registration's. ``nearest``: this registration is known to be the
        route's nearest (otherwise a nearer one may still replace it)."""
        for name in _HOOKS:
            listed = _listed(options.get(name))
            kept = [hook for hook in listed if not isinstance(hook, RouteLimit)]
            if len(kept) != len(listed):
                options[name] = kept or None
        try:
            check = self.limit_for(options)
        except _NoLimit:
            if nearest:
                raise
            # A nearer registration with a limit may follow: decided once every plugin loaded.
            self._unsettled.append(options)
            return
        if check is None:
            return
        options[self.hook] = [*_listed(options.get(self.hook)), check]

    def check_settled(self) -> None:
        """``on_ready``: a route whose config needed a limit from its registration got one."""
        for options in self._unsettled:
            if not any(isinstance(hook, RouteLimit) for name in _HOOKS for hook in _listed(options.get(name))):
                self.limit_for(options)  # raises the error

    def __repr__(self) -> str:
        return f"<RateLimiter {self.item or 'per route'} in {self.context!r}, {self.store.name}>"


def _rate_limit(instance: Context, opts: Mapping[str, Any]) -> None:
    registration = RateLimiter(instance, dict(opts or {}))
    if instance.has_decorator("rate_limiter"):
        if cast(RateLimiter, instance.rate_limiter).context is instance:
            raise _refuse(f"registered twice in one context ({instance!r}): register it once per context")
    instance.decorate("rate_limiter", registration)
    # Routes declared before the plugin loaded (the routes of this context's own body, of
    # plugins loaded earlier), each set to the registration nearest to it...
    seen: set[int] = set()
    for route in instance.routes():
        if id(route.options) in seen:
            continue
        seen.add(id(route.options))
        cast(RateLimiter, route.context.rate_limiter).install(route.options, nearest=True)
    # ... and those declared from now on: the hooks of ancestors run first, so the nearest
    # registration's runs last and stays.
    instance.add_hook("on_route", registration.install)
    instance.add_hook("on_ready", registration.check_settled)


_rate_limit.__doc__ = __doc__
#: The plugin: ``register(rate_limit, limit="100/minute")``. Runs in the registering context.
rate_limit = plugin(_rate_limit, name="rate_limit")
