"""The context tree: what a plugin and its descendants see, and no one else.

Every ``register`` creates a child context, except for functions wrapped with
``plugin(...)``, which run in the registering context. A child sees everything its
ancestors registered, even what they add later; nothing flows up or sideways.

A child is built from its parent one concern at a time (:meth:`Context.__init__`):
decorators (``framework.decorators``), hooks (``framework.lifecycle.hooks``), shared schemas
(``framework.schemas.store``), body parsers (``framework.lifecycle.content_types``), the plugin queue
(``framework.loader``), and the handlers and compilers, which a child inherits until it
sets its own. :meth:`Context.scope` is what a route of the context sees, read once
when the route compiles. Application-wide state (the router, options, whether the app
has started) lives in one :class:`~framework.state.AppState` that every context shares.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, TypedDict, TypeVar, cast, overload

from typing_extensions import Self

from .errors import ResponseSerializerAlreadyPresentError, ResponseSerializerInvalidError
from .http.media_types import parse_media_type
from .lifecycle.content_types import ContentTypeParsers, Parser
from .lifecycle.drift import DriftListener
from .lifecycle.negotiation import MediaTypeSerializer
from .decorators import Decorators
from .lifecycle.hooks import APPLICATION_HOOKS, HookName, Hooks
from .loader import PluginQueue
from .lifecycle.reply import Reply
from .lifecycle.request import Request
from .route import Route, check_route_options, normalize_methods, shortcut_options, SUPPORTED_METHODS
from .typed_route import apply_types
from .routing.router import expand_optional, join_prefix, normalize_prefix
from .schemas.store import SchemaStore

if TYPE_CHECKING:
    from .http.injected import InjectResponse
    from .mount import WSGIApp
    from .state import AppState, PendingRoute

#: A route handler: ``handler(request, reply)``. Its own annotations are kept (and may
#: declare the route's schemas: ``Request[Body, Query, Params, Headers]`` and the return type).
Handler = Callable[..., Any]
HandlerT = TypeVar("HandlerT", bound=Handler)
ContextT = TypeVar("ContextT", bound="Context")
ContextT_co = TypeVar("ContextT_co", bound="Context", covariant=True)
#: An ``after()`` callback: ``callback(instance)``.
AfterT = TypeVar("AfterT", bound=Callable[["Context"], Any])


class Shortcut(Protocol[ContextT_co]):
    """The type of a route shortcut bound to a context (``app.get``, ``app.post``...): the
    forms given the handler return that context (``ContextT_co``), the decorator form
    returns the handler unchanged."""

    @overload
    def __call__(self, path: str, options: dict[str, Any] | None = None, *, handler: None = None,
                 **route_options: Any) -> Callable[[HandlerT], HandlerT]: ...

    @overload
    def __call__(self, path: str, options: Handler, /) -> ContextT_co: ...

    @overload
    def __call__(self, path: str, options: dict[str, Any] | None, handler: Handler, /,
                 **route_options: Any) -> ContextT_co: ...

    @overload
    def __call__(self, path: str, *, handler: Handler, **route_options: Any) -> ContextT_co: ...


class RouteShortcut:
    """``app.get`` and its siblings: :meth:`Context.route` for one method (or several)."""

    def __init__(self, method: str | list[str]) -> None:
        self.method = method

    @overload
    def __get__(self, context: None, owner: type) -> "RouteShortcut": ...

    @overload
    def __get__(self, context: ContextT, owner: type) -> Shortcut[ContextT]: ...

    def __get__(self, context: "Context | None", owner: type) -> "RouteShortcut | Shortcut[Context]":
        """The shortcut bound to ``context`` (the descriptor itself when read from the class)."""
        if context is None:
            return self
        return cast("Shortcut[Context]", partial(context.shortcut, self.method))


class FoundRoute(TypedDict):
    """What :meth:`Context.find_route` returns (a plain dict)."""

    method: str
    url: str
    #: The declared path's parameter names, in order (``*`` for the wildcard).
    params: list[str]
    handler: Handler
    #: The route's options as declared (``schema``, ``config``, hooks...).
    options: dict[str, Any]


@dataclass(frozen=True)
class Scope:
    """What the routes of one context see: read once, when a route compiles."""

    request_class: type[Request]
    reply_class: type[Reply]
    parsers: ContentTypeParsers
    schemas: dict[str, Any]
    validator_compiler: Callable[..., Any] | None
    serializer_compiler: Callable[..., Any] | None
    schema_error_formatter: Callable[..., Any] | None
    #: Error handlers from this context outwards (the default handler is not among them).
    error_handlers: tuple[Callable[..., Any], ...]
    hooks: Callable[[str], list[Callable[..., Any]]]
    #: Response serializers by media type essence (``add_response_serializer``), from the root
    #: down to this context (a descendant's replaces an ancestor's), in registration order.
    response_serializers: "dict[str, MediaTypeSerializer]"


class Application(Protocol):
    """The whole-application verbs, as the root (``Framework``) implements them.

    Every context offers them (Fastify's plugin instances have them) and hands them to
    the root it was built under. The root is typed by this Protocol rather than by
    ``Framework``, so that the core never imports the application, nor the tools
    (testing, serving, devtools) that the application uses to implement them; what they
    return is typed at or below the core (``explain`` returns
    :class:`framework.devtools.explain.Explanation`, a ``dict``).
    """

    def ready(self) -> "Context": ...

    def close(self) -> None: ...

    def inject(self, method: str = "GET", url: str = "/", headers: Mapping[str, str] | None = None,
               query: Mapping[str, Any] | None = None, json: Any = None, body: bytes | str | None = None,
               **environ_overrides: Any) -> "InjectResponse": ...

    def listen(self, port: int = 3000, host: str = "127.0.0.1",
               callback: Callable[[Exception | None], Any] | None = None, workers: int = 1,
               server: str = "gunicorn") -> None: ...

    def print_routes(self) -> str: ...

    def print_plugins(self) -> str: ...

    def explain(self, method: str, url: str, headers: dict[str, str] | None = None) -> dict[str, Any]: ...


class Context:
    """A node of the context tree: the root (``Framework``) or a registered plugin's instance.

    Inside a plugin, ``ready()``, ``close()``, ``inject()``, ``listen()``,
    ``print_routes()`` and ``print_plugins()`` act on the whole application, as in Fastify.
    """

    def __init__(self, state: "AppState[Context]", parent: "Context | None", name: str, prefix: str,
                 application: Application | None = None) -> None:
        self._state = state
        # The root passes itself as the application; every descendant shares its parent's.
        found = parent._app if parent is not None else application
        assert found is not None, "the root context is given its application"
        self._app: Application = found
        self._parent = parent
        self._name = name
        self._prefix = prefix
        self._children: list[Context] = []
        self._routes: list[Route[Context]] = []
        # Each concern inherits from the parent's.
        self._decorators: Decorators = (parent._decorators.child() if parent
                                        else Decorators(None, _RESERVED_INSTANCE_NAMES))
        self._hooks: Hooks = parent._hooks.child() if parent else Hooks()
        self._schemas: SchemaStore = SchemaStore(parent._schemas if parent else None)
        self._parsers: ContentTypeParsers = ContentTypeParsers(parent._parsers if parent else None)
        self._plugins: PluginQueue[Context] = PluginQueue(self, parent._plugins if parent else None, self._spawn)
        # Handlers and compilers: None until set here; the nearest ancestor's applies.
        self._error_handler: Callable[..., Any] | None = None
        self._not_found_handler: Callable[..., Any] | None = None
        self._validator_compiler: Callable[..., Any] | None = None
        self._serializer_compiler: Callable[..., Any] | None = None
        self._schema_error_formatter: Callable[..., Any] | None = None
        # Response serializers this context registered, by media type essence.
        self._response_serializers: dict[str, MediaTypeSerializer] = {}

    def _spawn(self, name: str, prefix: str, opts: dict[str, Any]) -> "PluginQueue[Context]":
        """The child context of an encapsulated plugin (``on_register`` hooks see it), as its queue."""
        child = Context(self._state, self, name, self._prefix + normalize_prefix(prefix))
        self._children.append(child)
        for hook in self._hooks.collect("on_register"):
            hook(child, opts)
        return child._plugins

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: instance decorators, found up the tree.
        if name.startswith("_"):
            raise AttributeError(name)
        return self._decorators.instance_value(self, name)

    def _inherited(self, attribute: str) -> Any:
        context: Context | None = self
        while context is not None:
            value = getattr(context, attribute)
            if value is not None:
                return value
            context = context._parent
        return None

    def scope(self) -> Scope:
        """What this context's routes see: classes with the visible decorators, parsers,
        shared schemas, compilers, error handlers and hooks."""
        lineage = self._lineage()
        handlers = tuple(context._error_handler for context in lineage if context._error_handler is not None)
        response_serializers: dict[str, MediaTypeSerializer] = {}
        for ancestor in reversed(lineage):
            response_serializers.update(ancestor._response_serializers)
        return Scope(self._decorators.request_class, self._decorators.reply_class, self._parsers,
                     self._schemas.all(), self._inherited("_validator_compiler"),
                     self._inherited("_serializer_compiler"), self._inherited("_schema_error_formatter"),
                     handlers, self._hooks.collect, response_serializers)

    def _lineage(self) -> list["Context"]:
        """This context and its ancestors, this one first."""
        contexts: list[Context] = []
        context: Context | None = self
        while context is not None:
            contexts.append(context)
            context = context._parent
        return contexts

    def walk(self) -> list["Context"]:
        """This context and its descendants, breadth first."""
        contexts: list[Context] = []
        pending: list[Context] = [self]
        while pending:
            context = pending.pop(0)
            contexts.append(context)
            pending.extend(context._children)
        return contexts

    @property
    def name(self) -> str:
        """The plugin's name (``"root"`` for the application)."""
        return self._name

    @property
    def prefix(self) -> str:
        """The URL prefix of this context's routes."""
        return self._prefix

    @property
    def log(self) -> logging.Logger:
        """The application's logger (``Framework(logger=...)``), shared by every context."""
        return self._state.logger

    @property
    def error_format(self) -> str:
        """How the framework words its errors, the application's ``errors`` option:
        ``"fastify"`` or ``"problem+json"`` (for plugins that answer errors themselves)."""
        return self._state.error_style.name

    @property
    def response_check(self) -> float:
        """The fraction of replies the application checks for drift from their response
        schemas (``Framework(response_check=...)``; ``0.0``: off)."""
        drift = self._state.response_drift
        return 0.0 if drift is None else drift.rate

    def on_response_drift(self, listener: DriftListener) -> Self:
        """Call ``listener(route, status, pointer)`` for each drift the application's
        response check counts (``pointer`` is ``None`` for one counted as untracked, beyond
        the findings kept), in the request that found it; an exception it raises is logged.
        Never called when ``response_check`` is off. For plugins that export the findings,
        as ``framework.plugins.metrics`` does."""
        drift = self._state.response_drift
        if drift is not None:
            drift.listeners.append(listener)
        return self

    @property
    def started(self) -> bool:
        """Whether the application has started: ``ready()`` has completed, every ``on_ready`` hook with it."""
        return self._state.started

    @property
    def body_limit(self) -> int:
        """The application's ``body_limit`` (bytes), which a route's own ``body_limit`` option
        replaces (for plugins that read bodies themselves)."""
        return self._state.body_limit

    @property
    def not_found_handler(self) -> Callable[..., Any] | None:
        """The not-found handler this context set itself, if any."""
        return self._not_found_handler

    # The whole application (as in Fastify, these act on the root whichever context they are called on).
    def ready(self) -> "Context":
        """Load every plugin, compile every route, run ``on_ready`` hooks (see ``Framework.ready``);
        returns the application."""
        return self._app.ready()

    def close(self) -> None:
        """Run every ``on_close`` hook (see ``Framework.close``)."""
        self._app.close()

    def inject(self, method: str = "GET", url: str = "/", headers: Mapping[str, str] | None = None,
               query: Mapping[str, Any] | None = None, json: Any = None, body: bytes | str | None = None,
               **environ_overrides: Any) -> "InjectResponse":
        """Run one request through the application without a socket (see ``framework.testing``)."""
        return self._app.inject(method, url, headers, query, json, body, **environ_overrides)

    def listen(self, port: int = 3000, host: str = "127.0.0.1",
               callback: Callable[[Exception | None], Any] | None = None, workers: int = 1,
               server: str = "gunicorn") -> None:
        """Serve the application (see ``Framework.listen``)."""
        self._app.listen(port, host, callback, workers, server)

    def print_routes(self) -> str:
        """The application's route tree as text."""
        return self._app.print_routes()

    def print_plugins(self) -> str:
        """The application's plugin tree with load times."""
        return self._app.print_plugins()

    def explain(self, method: str, url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        """The compiled path of one request, without sending it: the route and params, the
        hooks in run order with the plugin and context that added each, the decorators,
        validators, serializers, error handlers and not-found handler (readies the
        application). A dict; ``str()`` renders it (see ``framework.devtools.explain``)."""
        return self._app.explain(method, url, headers)

    # Plugins.
    def register(self, plugin_fn: Callable[..., Any],
                 opts: dict[str, Any] | Callable[["Context"], dict[str, Any]] | None = None,
                 **options: Any) -> Self:
        """Queue a plugin; it loads at ``ready()``, in order, depth first.

        ``opts`` and ``options`` merge into the dict handed to the plugin; ``prefix``
        among them prefixes every route the plugin declares.
        """
        self._state.check_not_started("register a plugin")
        if not callable(plugin_fn):
            raise TypeError(f"plugin must be a function, instead got a '{type(plugin_fn).__name__}'")
        if callable(opts):
            opts = opts(self)
        merged: dict[str, Any] = dict(opts or {})
        merged.update(options)
        self._plugins.add(plugin_fn, merged)
        return self

    @overload
    def after(self, fn: AfterT) -> AfterT: ...

    @overload
    def after(self, fn: None = None) -> Callable[[AfterT], AfterT]: ...

    def after(self, fn: AfterT | None = None) -> AfterT | Callable[[AfterT], AfterT]:
        """Run ``fn(instance)`` once every plugin registered before this call has loaded
        (avvio's ``after``); returns ``fn``. Usable as ``@instance.after``.
        """
        def queue(callback: AfterT) -> AfterT:
            self._state.check_not_started("call after")
            self._plugins.add_after(callback)
            return callback

        return queue if fn is None else queue(fn)

    def has_plugin(self, name: str) -> bool:
        """Whether a plugin of that name has loaded in this context or an ancestor."""
        return self._plugins.has_plugin(name)

    # Routes, looked up by their declared path (find-my-way's hasRoute/findRoute).
    def has_route(self, method: str | dict[str, str], url: str | None = None) -> bool:
        """Whether a route of ``method`` is declared with ``url`` (the full path, prefix
        included; ``/users/:id`` matches ``/users/:name``). ``has_route({"method": ..., "url": ...})`` works too."""
        return self.find_route(method, url) is not None

    def find_route(self, method: str | dict[str, str], url: str | None = None) -> FoundRoute | None:
        """The route of ``method`` declared with ``url``: ``{"method", "url", "params"
        (parameter names), "handler", "options"}``, or ``None``. The URL is a declared
        path, not a request to match (``/users/42`` does not find ``/users/:id``)."""
        if not isinstance(method, str):
            declared = method
            method, url = declared["method"], declared["url"]
        found = self._state.router.get(method.upper(), url or "/")
        if found is None:
            return None
        route = found[1]
        from .routing.router import parameter_names
        return {"method": route.method, "url": route.url, "params": parameter_names(route.url),
                "handler": route.options["handler"], "options": route.options}

    # Decorators.
    def decorate(self, name: str, value: Any, dependencies: list[str] | None = None) -> Self:
        """Add ``name`` to this context's instance (functions become methods)."""
        self._decorators.add("instance", name, value, dependencies, self._state.started,
                             self._state.plugin_tree.current)
        return self

    def decorate_request(self, name: str, value: Any, dependencies: list[str] | None = None) -> Self:
        """Add ``name`` to the requests of this context's routes and its descendants'."""
        self._decorators.add("request", name, value, dependencies, self._state.started,
                             self._state.plugin_tree.current)
        return self

    def decorate_reply(self, name: str, value: Any, dependencies: list[str] | None = None) -> Self:
        """Add ``name`` to the replies of this context's routes and its descendants'."""
        self._decorators.add("reply", name, value, dependencies, self._state.started,
                             self._state.plugin_tree.current)
        return self

    def has_decorator(self, name: str) -> bool:
        """Whether this context sees an instance decorator ``name`` (its own or an ancestor's)."""
        return self._decorators.has("instance", name)

    def has_request_decorator(self, name: str) -> bool:
        """Whether this context sees a request decorator ``name`` (its own or an ancestor's)."""
        return self._decorators.has("request", name)

    def has_reply_decorator(self, name: str) -> bool:
        """Whether this context sees a reply decorator ``name`` (its own or an ancestor's)."""
        return self._decorators.has("reply", name)

    # Hooks.
    def add_hook(self, name: HookName, fn: Callable[..., Any], *, first: bool = False) -> Self:
        """Add a hook; it applies to this context's routes and its descendants'. ``first=True``
        puts it before the hooks this context added so far (CORS answers a preflight before
        an authentication hook refuses it)."""
        if name in ("on_close", "on_ready", "on_listen", "pre_close"):
            self._state.check_not_started(f"add an {name} hook")
        elif name not in APPLICATION_HOOKS:
            self._state.check_not_started("add a hook")
        self._hooks.add(name, fn, first, self._state.plugin_tree.current)
        return self

    def own_hooks(self, name: str) -> list[Callable[..., Any]]:
        """The hooks of that name added in this context itself (not its ancestors')."""
        return self._hooks.own_hooks(name)

    # Shared schemas.
    def add_schema(self, schema: dict[str, Any]) -> Self:
        """Add a shared schema (it needs an ``$id``), visible here and in descendants."""
        self._state.check_not_started("add a schema")
        self._schemas.add(schema)
        return self

    def get_schemas(self) -> dict[str, dict[str, Any]]:
        """The shared schemas visible here (this context and its ancestors), by ``$id``."""
        return self._schemas.all()

    def get_schema(self, schema_id: str) -> dict[str, Any] | None:
        """The shared schema ``schema_id`` as this context sees it (its own or an ancestor's), or ``None``."""
        return self._schemas.get(schema_id)

    # Compilers and handlers: encapsulated like decorators.
    def set_validator_compiler(self, fn: Callable[..., Any]) -> Self:
        """``fn(schema=, method=, url=, http_part=)`` returns ``validate(data)`` for this context's routes."""
        self._state.check_not_started("set a validator compiler")
        self._validator_compiler = fn
        return self

    def set_serializer_compiler(self, fn: Callable[..., Any]) -> Self:
        """``fn(schema=, method=, url=, http_status=, content_type=)`` returns ``serialize(data)``."""
        self._state.check_not_started("set a serializer compiler")
        self._serializer_compiler = fn
        return self

    def set_error_handler(self, fn: Callable[..., Any]) -> Self:
        """``fn(error, request, reply)`` answers errors of this context's routes; if it raises,
        the parent context's handler gets the new error."""
        self._state.check_not_started("set an error handler")
        self._error_handler = fn
        return self

    def set_not_found_handler(self, fn: Callable[..., Any]) -> Self:
        """``fn(request, reply)`` answers unknown URLs under this context's prefix."""
        self._state.check_not_started("set a not found handler")
        self._not_found_handler = fn
        self._state.not_found_contexts.append(self)
        return self

    def set_schema_error_formatter(self, fn: Callable[[list[dict[str, Any]], str], Exception]) -> Self:
        """``fn(errors, data_var)`` returns the Exception a validation failure raises."""
        self._state.check_not_started("set a schema error formatter")
        self._schema_error_formatter = fn
        return self

    def add_response_serializer(self, media_type: str, serializer: MediaTypeSerializer) -> Self:
        """Answer ``media_type`` (``"text/csv"``: a type/subtype, no wildcard) with
        ``serializer(payload)`` (a str, sent UTF-8 encoded, or bytes) when a request's
        ``Accept`` prefers it, on the routes of this context and its descendants (a
        descendant may register its own for the same type). JSON stays the default; a
        route's response ``content`` map entry for the type, when it has one, is used
        instead. See :doc:`/guide/content-negotiation`."""
        self._state.check_not_started("add a response serializer")
        parsed = parse_media_type(media_type) if isinstance(media_type, str) else None
        if parsed is None or "*" in parsed.essence:
            raise ResponseSerializerInvalidError(repr(media_type), "a media type is type/subtype, without wildcards")
        if parsed.essence == "application/json":
            raise ResponseSerializerInvalidError(repr(media_type), "JSON is the built-in serialization (response "
                                                 "schemas, set_serializer_compiler, reply.serializer change it)")
        if not callable(serializer):
            raise ResponseSerializerInvalidError(repr(media_type), "the serializer must be a function fn(payload)")
        if parsed.essence in self._response_serializers:
            raise ResponseSerializerAlreadyPresentError(parsed.essence)
        self._response_serializers[parsed.essence] = serializer
        return self

    def add_content_type_parser(self, content_type: str | list[str] | re.Pattern[str],
                                parser: Parser | Callable[[Any, Any], Any], *,
                                stream: bool = False, body_limit: int | None = None) -> Self:
        """``parser(request, body: bytes)`` returns the parsed body for ``content_type``
        (a string, a list of strings, a compiled regex, or ``"*"`` for any). With
        ``stream=True`` it is ``parser(request, stream)``: a file-like object that reads the
        body and no further (413 past the limit, mid-stream); ``body_limit`` replaces the
        route's limit for the bodies it reads."""
        self._state.check_not_started("add a content type parser")
        self._parsers.add(content_type, parser, stream, body_limit)
        return self

    def has_content_type_parser(self, content_type: str) -> bool:
        """Whether this context has a parser for the media type of ``content_type`` (the built-in
        ones included; regex and ``*`` parsers are not looked at)."""
        return self._parsers.has(content_type)

    # Routes.
    def route(self, method: str | list[str] = "GET", url: str = "/", handler: Handler | None = None,
              **options: Any) -> Self:
        """Declare a route of this context. Options: ``schema``, ``attach_validation``,
        ``validator_compiler``, ``serializer_compiler``, ``config``, ``body_limit``, and the
        request hooks (``on_request=fn`` or a list)."""
        self._state.check_not_started("add route")
        methods = normalize_methods(method)
        # Hooks see the method as given (Fastify): "POST" for a string, a list for a list.
        options = dict(options, method=methods[0] if isinstance(method, str) else methods, url=url,
                       handler=handler)
        options["prefix"] = self._prefix
        options.setdefault("config", {})
        apply_types(options)  # Python types (in schema= or the handler's annotations) to JSON Schema
        for hook in self._hooks.collect("on_route"):
            hook(options)
        options["method"] = normalize_methods(options["method"])
        check_route_options(options)
        # "/items/:id?" is two paths; the router's options may make "/v1" and "/v1/" one: declared once.
        full_urls = dict.fromkeys(self._state.router.normalize(expanded)
                                  for joined in join_prefix(self._prefix, options["url"])
                                  for expanded in expand_optional(joined))
        for method_name in options["method"]:
            for full_url in full_urls:
                route: Route[Context] = Route(method_name, full_url, options, self, self._state.plugin_tree.current)
                self._state.add_route(route)
                self._routes.append(route)
        return self

    @overload
    def shortcut(self, method: str | list[str], path: str, options: dict[str, Any] | None = None,
                 handler: None = None, **extra: Any) -> Callable[[HandlerT], HandlerT]: ...

    @overload
    def shortcut(self, method: str | list[str], path: str, options: Handler, handler: None = None,
                 **extra: Any) -> Self: ...

    @overload
    def shortcut(self, method: str | list[str], path: str, options: dict[str, Any] | None, handler: Handler,
                 **extra: Any) -> Self: ...

    @overload
    def shortcut(self, method: str | list[str], path: str, *, handler: Handler, **extra: Any) -> Self: ...

    def shortcut(self, method: str | list[str], path: str, options: dict[str, Any] | Handler | None = None,
                 handler: Handler | None = None, **extra: Any) -> "Self | Callable[[Any], Any]":
        """What :attr:`get`, :attr:`post`... call: ``shortcut("GET", path, handler)``,
        ``shortcut("GET", path, options, handler)``, or ``@shortcut("GET", path, **options)``
        (which returns the decorator)."""
        merged = shortcut_options(method, path, options, handler, extra)
        if merged.get("handler") is None:
            return RouteDecorator(self, merged, self._state.pending_route_decorators)
        self.route(**merged)
        return self

    #: ``get(path, handler)``, ``get(path, options, handler)``, ``get(path, handler=fn,
    #: **options)``, or ``@get(path, **options)`` above the handler, which it returns unchanged.
    get = RouteShortcut("GET")
    #: As :attr:`get`, for ``HEAD``.
    head = RouteShortcut("HEAD")
    #: As :attr:`get`, for ``POST``.
    post = RouteShortcut("POST")
    #: As :attr:`get`, for ``PUT``.
    put = RouteShortcut("PUT")
    #: As :attr:`get`, for ``DELETE``.
    delete = RouteShortcut("DELETE")
    #: As :attr:`get`, for ``OPTIONS``.
    options = RouteShortcut("OPTIONS")
    #: As :attr:`get`, for ``PATCH``.
    patch = RouteShortcut("PATCH")
    #: As :attr:`get`, for every supported method.
    all = RouteShortcut(list(SUPPORTED_METHODS))

    def mount(self, prefix: str, wsgi_app: "WSGIApp", **options: Any) -> Self:
        """Answer ``prefix`` and everything under it with a WSGI application (Flask, Django,
        werkzeug...), inside this context: its hooks, authentication and error handler
        apply; ``SCRIPT_NAME`` gains the prefix, ``PATH_INFO`` keeps the rest; the body is
        left for the application to read. ``options`` are route options (``on_request=``,
        ``config=``...). See ``framework.mount``."""
        from .mount import mount
        mount(self, prefix, wsgi_app, **options)
        return self

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._name!r} prefix={self._prefix!r}>"

    # Introspection.
    def routes(self, include_descendants: bool = True) -> "list[Route[Context]]":
        """The routes declared in this context (and, by default, its descendants), in
        declaration order per context, breadth first. Each has ``method``, ``url`` (prefix
        included), ``options``, ``schema`` and ``context``. The ``HEAD`` routes ``ready()``
        adds for ``GET`` routes and the not-found routes are not among them."""
        contexts = self.walk() if include_descendants else [self]
        return [route for context in contexts for route in context._routes]


class RouteDecorator:
    """What ``@app.get(path, ...)`` returns: declares the route with the decorated function,
    which it returns unchanged. Until then it waits in ``pending`` (``ready()`` refuses a
    route decorator that never got its function)."""

    def __init__(self, context: Context, options: dict[str, Any], pending: "list[PendingRoute]") -> None:
        self.context = context
        self.options = options
        self.pending = pending
        pending.append(self)

    def __call__(self, handler: HandlerT) -> HandlerT:
        """Declare the route with ``handler``; return ``handler``."""
        self.pending.remove(self)
        self.context.route(**dict(self.options, handler=handler))
        return handler


_RESERVED_INSTANCE_NAMES = frozenset(dir(Context))

__all__ = ["Application", "Context", "Scope"]
