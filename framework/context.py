"""The context tree: what a plugin and its descendants see, and no one else.

Every ``register`` creates a child context, except for functions wrapped with
``plugin(...)``, which run in the registering context. A child sees everything its
ancestors registered, even what they add later; nothing flows up or sideways.

Each context has its own class, and its own ``Request`` and ``Reply`` subclasses, each
deriving from the parent's. Decorators are attributes of those classes, so visibility
follows inheritance: a child sees its ancestors' decorators (added before or after it
was created), may shadow them, and a sibling never sees them. A request decorator that
is not visible is simply absent: ``getattr(request, name, UNDEFINED)``.
"""
from __future__ import annotations

import collections.abc
import logging
import re
import time
from typing import TYPE_CHECKING, Any, Callable

from .content_types import ContentTypeParsers, Parser
from .errors import (DecoratorAfterStartError, DecoratorAlreadyPresentError, DecoratorMissingDependencyError,
                     DecoratorReferenceTypeError, PluginDependencyError, PluginNotPresentError,
                     FrameworkError, InstanceAlreadyStartedError)
from .hooks import APPLICATION_HOOKS, check_hook
from .loader import plugin_meta, plugin_name, run_plugin_body
from .reply import Reply
from .request import Request
from .route import Route, check_route_options, normalize_methods, shortcut_options, SUPPORTED_METHODS
from .routing import join_prefix, normalize_prefix
from .schemas import SchemaStore

if TYPE_CHECKING:
    from .app import Framework

Handler = Callable[[Request, Reply], Any]
_MUTABLE = (collections.abc.MutableMapping, collections.abc.MutableSequence, collections.abc.MutableSet, bytearray)
_REQUEST_ATTRIBUTES = frozenset(("environ", "params", "_route"))
_REPLY_ATTRIBUTES = frozenset(("request", "status_code", "sent", "_headers", "_route"))


class Context:
    """A node of the context tree: the root (``Framework``) or a registered plugin's instance."""

    _ready = False

    def _init_context(self, parent: "Context | None", root: "Framework", name: str, prefix: str) -> None:
        self._parent = parent
        self._root = root
        self._name = name
        self._prefix = prefix
        self._children: list[Context] = []
        self._hooks: dict[str, list[Callable[..., Any]]] = {}
        self._queue: list[tuple[Callable[..., Any], dict[str, Any]]] = []
        self._plugin_names: set[str] = set()
        self._own_decorators: dict[str, set[str]] = {"instance": set(), "request": set(), "reply": set()}
        self._routes: list[Route] = []
        self._schemas = SchemaStore(parent._schemas if parent else None)
        self._parsers = ContentTypeParsers(parent._parsers if parent else None)
        self._error_handler: Callable[..., Any] | None = None
        self._not_found_handler: Callable[..., Any] | None = None
        self._validator_compiler: Callable[..., Any] | None = None
        self._serializer_compiler: Callable[..., Any] | None = None
        self._schema_error_formatter: Callable[..., Any] | None = None
        base_request = parent._request_cls if parent else Request
        base_reply = parent._reply_cls if parent else Reply
        self._request_cls: type[Request] = type("Request", (base_request,), {"__module__": base_request.__module__})
        self._reply_cls: type[Reply] = type("Reply", (base_reply,), {"__module__": base_reply.__module__})
        self._load_time_ms = 0.0

    # The tree.
    def _spawn(self, name: str, prefix: str) -> "Context":
        cls = type(self)
        child_cls = type(cls.__name__, (cls,), {"__module__": cls.__module__})
        child = object.__new__(child_cls)
        child._init_context(self, self._root, name, self._prefix + prefix)
        self._children.append(child)
        return child

    def _ancestry(self) -> list["Context"]:
        """This context and its ancestors, root first."""
        chain = []
        context: Context | None = self
        while context is not None:
            chain.append(context)
            context = context._parent
        return chain[::-1]

    def _inherited(self, attribute: str) -> Any:
        context: Context | None = self
        while context is not None:
            value = getattr(context, attribute)
            if value is not None:
                return value
            context = context._parent
        return None

    @property
    def prefix(self) -> str:
        """The URL prefix of this context's routes."""
        return self._prefix

    @property
    def log(self) -> logging.Logger:
        return self._root._logger

    def _check_not_started(self, what: str) -> None:
        if self._root._ready:
            raise InstanceAlreadyStartedError(f"Cannot {what}!")

    # Plugins.
    def register(self, plugin_fn: Callable[..., Any], opts: dict[str, Any] | None = None, **options: Any) -> "Context":
        """Queue a plugin; it loads at ``ready()``, in order, depth first.

        ``opts`` and ``options`` merge into the dict handed to the plugin; ``prefix``
        among them prefixes every route the plugin declares.
        """
        self._check_not_started("register a plugin")
        if not callable(plugin_fn):
            raise TypeError(f"plugin must be a function, instead got a '{type(plugin_fn).__name__}'")
        if callable(opts):
            opts = opts(self)
        merged = dict(opts or {})
        merged.update(options)
        self._queue.append((plugin_fn, merged))
        return self

    def after(self, fn: Callable[["Context"], Any] | None = None) -> Any:
        """Run ``fn(instance)`` once every plugin registered before this call has loaded
        (avvio's ``after``). Usable as ``@instance.after``.
        """
        def queue(callback: Callable[["Context"], Any]) -> Callable[["Context"], Any]:
            self._check_not_started("call after")
            self._queue.append((_After(callback), {}))
            return callback

        return queue if fn is None else queue(fn)

    def _load_queue(self) -> None:
        queue, self._queue = self._queue, []
        for plugin_fn, opts in queue:
            if isinstance(plugin_fn, _After):
                plugin_fn.callback(self)
                self._load_queue()  # what the callback registered loads before what follows
            else:
                self._load_plugin(plugin_fn, opts)

    def _load_plugin(self, plugin_fn: Callable[..., Any], opts: dict[str, Any]) -> None:
        meta = plugin_meta(plugin_fn)
        name = plugin_name(plugin_fn)
        self._check_plugin_meta(name, meta)
        encapsulated = meta is None or meta.encapsulate
        started = time.perf_counter()
        if encapsulated:
            target = self._spawn(name, normalize_prefix(opts.get("prefix")))
            for hook in self._collect_hooks("on_register"):
                hook(target, opts)
        else:
            target = self
        self._plugin_names.add(name)
        self._root._plugin_tree_push(name)
        saved_queue, target._queue = target._queue, []
        try:
            run_plugin_body(plugin_fn, target, opts)
        except BaseException as error:
            _name_plugin(error, name)
            raise
        try:
            target._load_queue()
        finally:
            target._queue = saved_queue + target._queue
            self._root._plugin_tree_pop((time.perf_counter() - started) * 1000)

    def _check_plugin_meta(self, name: str, meta: Any) -> None:
        if meta is None:
            return
        for dependency in meta.dependencies:
            if not any(dependency in context._plugin_names for context in self._ancestry()):
                raise PluginDependencyError(dependency, name)
        checks = {"instance": (self.has_decorator, "Instance"), "fastify": (self.has_decorator, "Instance"),
                  "request": (self.has_request_decorator, "Request"), "reply": (self.has_reply_decorator, "Reply")}
        for kind, names in meta.decorators.items():
            if kind not in checks:
                raise TypeError(f"plugin '{name}' declares decorators of unknown kind '{kind}'")
            has, label = checks[kind]
            for decorator in names:
                if not has(decorator):
                    raise PluginNotPresentError(decorator, name, label)

    # Decorators.
    def decorate(self, name: str, value: Any, dependencies: list[str] | None = None) -> "Context":
        """Add ``name`` to this context's instance (functions become methods)."""
        self._decorate("instance", type(self), _framework_attributes(), name, value, dependencies)
        return self

    def decorate_request(self, name: str, value: Any, dependencies: list[str] | None = None) -> "Context":
        """Add ``name`` to the requests of this context's routes and its descendants'."""
        self._decorate("request", self._request_cls, _REQUEST_ATTRIBUTES | set(dir(Request)), name, value, dependencies)
        return self

    def decorate_reply(self, name: str, value: Any, dependencies: list[str] | None = None) -> "Context":
        """Add ``name`` to the replies of this context's routes and its descendants'."""
        self._decorate("reply", self._reply_cls, _REPLY_ATTRIBUTES | set(dir(Reply)), name, value, dependencies)
        return self

    def _decorate(self, kind: str, target: type, reserved: Any, name: str, value: Any,
                  dependencies: list[str] | None) -> None:
        if self._root._ready:
            raise DecoratorAfterStartError(name)
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"A decorator name must be an identifier, got {name!r}")
        if name in self._own_decorators[kind] or name in reserved:
            raise DecoratorAlreadyPresentError(name)
        if kind != "instance" and isinstance(value, _MUTABLE):
            raise DecoratorReferenceTypeError(name, type(value).__name__)
        has = {"instance": self.has_decorator, "request": self.has_request_decorator,
               "reply": self.has_reply_decorator}[kind]
        for dependency in dependencies or ():
            if not has(dependency):
                raise DecoratorMissingDependencyError(dependency)
        setattr(target, name, value)
        self._own_decorators[kind].add(name)

    def has_decorator(self, name: str) -> bool:
        return any(name in c._own_decorators["instance"] for c in self._ancestry())

    def has_request_decorator(self, name: str) -> bool:
        return any(name in c._own_decorators["request"] for c in self._ancestry())

    def has_reply_decorator(self, name: str) -> bool:
        return any(name in c._own_decorators["reply"] for c in self._ancestry())

    # Hooks.
    def add_hook(self, name: str, fn: Callable[..., Any]) -> "Context":
        """Add a hook; it applies to this context's routes and its descendants'."""
        check_hook(name, fn)
        if name == "on_close" or name == "on_ready":
            self._check_not_started(f"add an {name} hook")
        elif name not in APPLICATION_HOOKS:
            self._check_not_started("add a hook")
        self._hooks.setdefault(name, []).append(fn)
        return self

    def _collect_hooks(self, name: str) -> list[Callable[..., Any]]:
        """Ancestors' hooks first (outermost first, each in the order added), then this context's."""
        hooks: list[Callable[..., Any]] = []
        for context in self._ancestry():
            hooks.extend(context._hooks.get(name, ()))
        return hooks

    # Shared schemas.
    def add_schema(self, schema: dict[str, Any]) -> "Context":
        """Add a shared schema (it needs an ``$id``), visible here and in descendants."""
        self._check_not_started("add a schema")
        self._schemas.add(schema)
        return self

    def get_schemas(self) -> dict[str, dict[str, Any]]:
        """The shared schemas visible here (this context and its ancestors), by ``$id``."""
        return self._schemas.all()

    def get_schema(self, schema_id: str) -> dict[str, Any] | None:
        return self._schemas.get(schema_id)

    # Compilers and handlers: encapsulated like decorators.
    def set_validator_compiler(self, fn: Callable[..., Any]) -> "Context":
        """``fn(schema=, method=, url=, http_part=)`` returns ``validate(data)`` for this context's routes."""
        self._check_not_started("set a validator compiler")
        self._validator_compiler = fn
        return self

    def set_serializer_compiler(self, fn: Callable[..., Any]) -> "Context":
        """``fn(schema=, method=, url=, http_status=, content_type=)`` returns ``serialize(data)``."""
        self._check_not_started("set a serializer compiler")
        self._serializer_compiler = fn
        return self

    def set_error_handler(self, fn: Callable[..., Any]) -> "Context":
        """``fn(error, request, reply)`` answers errors of this context's routes; if it raises,
        the parent context's handler gets the new error."""
        self._check_not_started("set an error handler")
        self._error_handler = fn
        return self

    def set_not_found_handler(self, fn: Callable[..., Any]) -> "Context":
        """``fn(request, reply)`` answers unknown URLs under this context's prefix."""
        self._check_not_started("set a not found handler")
        self._not_found_handler = fn
        self._root._not_found_contexts.append(self)
        return self

    def set_schema_error_formatter(self, fn: Callable[[list[dict[str, Any]], str], Exception]) -> "Context":
        """``fn(errors, data_var)`` returns the Exception a validation failure raises."""
        self._check_not_started("set a schema error formatter")
        self._schema_error_formatter = fn
        return self

    def add_content_type_parser(self, content_type: str | list[str] | re.Pattern[str], parser: Parser) -> "Context":
        """``parser(request, body: bytes)`` returns the parsed body for ``content_type``
        (a string, a list of strings, a compiled regex, or ``"*"`` for any)."""
        self._check_not_started("add a content type parser")
        self._parsers.add(content_type, parser)
        return self

    def has_content_type_parser(self, content_type: str) -> bool:
        return self._parsers.has(content_type)

    # Routes.
    def route(self, method: str | list[str] = "GET", url: str = "/", handler: Handler | None = None,
              **options: Any) -> "Context":
        """Declare a route of this context. Options: ``schema``, ``attach_validation``,
        ``validator_compiler``, ``serializer_compiler``, ``config``, ``body_limit``, and the
        request hooks (``on_request=fn`` or a list)."""
        self._check_not_started("add route")
        options = dict(options, method=normalize_methods(method), url=url, handler=handler)
        options["prefix"] = self._prefix
        options.setdefault("config", {})
        for hook in self._collect_hooks("on_route"):
            hook(options)
            options["method"] = normalize_methods(options["method"])
        check_route_options(options)
        for method_name in options["method"]:
            for full_url in join_prefix(self._prefix, options["url"]):
                route = Route(method_name, full_url, options, self)
                self._root._add_route(route)
                self._routes.append(route)
        return self

    def _shortcut(self, method: str | list[str], path: str, options: Any, handler: Any,
                  extra: dict[str, Any]) -> Any:
        merged = shortcut_options(method, path, options, handler, extra)
        if merged.get("handler") is None:
            return _RouteDecorator(self, merged)
        self.route(**merged)
        return self

    def get(self, path: str, options: Any = None, handler: Handler | None = None, **kw: Any) -> Any:
        """``get(path, handler)``, ``get(path, options, handler)``, or ``@get(path, **options)``."""
        return self._shortcut("GET", path, options, handler, kw)

    def head(self, path: str, options: Any = None, handler: Handler | None = None, **kw: Any) -> Any:
        return self._shortcut("HEAD", path, options, handler, kw)

    def post(self, path: str, options: Any = None, handler: Handler | None = None, **kw: Any) -> Any:
        return self._shortcut("POST", path, options, handler, kw)

    def put(self, path: str, options: Any = None, handler: Handler | None = None, **kw: Any) -> Any:
        return self._shortcut("PUT", path, options, handler, kw)

    def delete(self, path: str, options: Any = None, handler: Handler | None = None, **kw: Any) -> Any:
        return self._shortcut("DELETE", path, options, handler, kw)

    def options(self, path: str, options: Any = None, handler: Handler | None = None, **kw: Any) -> Any:
        return self._shortcut("OPTIONS", path, options, handler, kw)

    def patch(self, path: str, options: Any = None, handler: Handler | None = None, **kw: Any) -> Any:
        return self._shortcut("PATCH", path, options, handler, kw)

    def all(self, path: str, options: Any = None, handler: Handler | None = None, **kw: Any) -> Any:
        """Declare the route for every supported method."""
        return self._shortcut(list(SUPPORTED_METHODS), path, options, handler, kw)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._name!r} prefix={self._prefix!r}>"


class _After:
    """A queued ``after()`` callback (not a plugin: it creates no context)."""

    __slots__ = ("callback",)

    def __init__(self, callback: Callable[["Context"], Any]) -> None:
        self.callback = callback


class _RouteDecorator:
    """What ``@app.get(path, ...)`` returns: declares the route with the decorated function."""

    def __init__(self, context: Context, options: dict[str, Any]) -> None:
        self.context = context
        self.options = options
        context._root._pending_route_decorators.append(self)

    def __call__(self, handler: Handler) -> Handler:
        self.context._root._pending_route_decorators.remove(self)
        self.context.route(**dict(self.options, handler=handler))
        return handler


def _framework_attributes() -> set[str]:
    from .app import Framework
    return set(dir(Framework))


def _name_plugin(error: BaseException, name: str) -> None:
    """Name the failing plugin on the error itself (a note, shown in the traceback)."""
    if getattr(error, "plugin", None) is None:
        try:
            error.plugin = name  # type: ignore[attr-defined]
        except AttributeError:
            return
        note = f"while loading plugin '{name}'"
        if hasattr(error, "add_note"):
            error.add_note(note)
        else:  # Python 3.10
            error.__notes__ = [*getattr(error, "__notes__", []), note]  # type: ignore[attr-defined]


__all__ = ["Context", "FrameworkError"]
