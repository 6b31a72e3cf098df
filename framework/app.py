"""``Framework``: the root context, its factory options, the WSGI entry, and start-up.

``app`` is a WSGI callable: ``gunicorn module:app`` works, and so does mounting it in
any WSGI stack. The first call readies it (thread-safe), as do ``ready()``, ``inject()``
and ``listen()``.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .context import Context
from .errors import BadUrlError, RouteMissingHandlerError
from .pipeline import Pipeline
from .route import Route
from .routing import Router

if TYPE_CHECKING:
    from .testing import InjectResponse
    from .validation import ValidatorEngine

StartResponse = Callable[..., Any]


def _default_not_found(request: Any, reply: Any) -> Any:
    return reply.code(404).send({"statusCode": 404, "error": "Not Found",
                                 "message": f"Route {request.method}:{request.url} not found"})


class Framework(Context):
    """The application: the root of the context tree and a WSGI callable.

    Options: ``validator`` (``{"custom_options": {...}, "plugins": [...]}``, see
    ``framework.validation``), ``schema_error_formatter`` (``(errors, data_var) ->
    Exception``), ``body_limit`` (bytes; larger bodies are 413s), ``logger`` (a
    ``logging.Logger``, ``True`` for one that logs to stderr at info, or ``None`` for the
    ``framework`` logger as configured), ``lazy`` (compile each route at its first request).

    >>> app = Framework()
    >>> @app.get("/hello")
    ... def hello(request, reply):
    ...     return {"hello": "world"}
    >>> app.inject(url="/hello").json()
    {'hello': 'world'}
    """

    def __init__(self, *, validator: dict[str, Any] | None = None,
                 schema_error_formatter: Callable[[list[dict[str, Any]], str], Exception] | None = None,
                 body_limit: int = 1_048_576, logger: logging.Logger | bool | None = None,
                 lazy: bool = False) -> None:
        # Each app gets its own class, so that decorators on one app never reach another.
        self.__class__ = type("Framework", (type(self),), {"__module__": type(self).__module__})
        if type(body_limit) is not int or body_limit <= 0:
            raise ValueError(f"body_limit must be a positive integer, got {body_limit!r}")
        validator = dict(validator or {})
        unknown = set(validator) - {"custom_options", "plugins"}
        if unknown:
            raise TypeError(f"unknown validator option(s): {', '.join(sorted(unknown))}")
        self._validator_options = validator
        self._validator: ValidatorEngine | None = None
        self._body_limit = body_limit
        self._lazy = lazy
        if isinstance(logger, logging.Logger):
            self._logger = logger
        else:
            self._logger = logging.getLogger("framework")
            if logger is True and not self._logger.handlers:
                handler = logging.StreamHandler()
                handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
                self._logger.addHandler(handler)
                self._logger.setLevel(logging.INFO)
        self._router: Router[Route] = Router()
        self._all_routes: list[Route] = []
        self._not_found_contexts: list[Context] = []
        self._not_found_pipelines: list[tuple[str, Pipeline]] = []
        self._pending_route_decorators: list[Any] = []
        self._ready_lock = threading.RLock()
        self._loading = False
        self._closed = False
        self._plugin_stack: list[dict[str, Any]] = [{"name": "root", "ms": 0.0, "children": []}]
        self._init_context(None, self, "root", "")
        self._schema_error_formatter = schema_error_formatter

    # Routes (the router is the root's).
    def _add_route(self, route: Route) -> None:
        self._router.add(route.method, route.url, route)
        self._all_routes.append(route)

    # Start-up.
    def ready(self) -> "Framework":
        """Load every plugin, compile every route, run ``on_ready`` hooks. Idempotent."""
        if self._ready:
            return self
        with self._ready_lock:
            if self._ready or self._loading:
                return self
            self._loading = True
            try:
                started = time.perf_counter()
                self._load_queue()
                if self._pending_route_decorators:
                    pending = self._pending_route_decorators[0].options
                    raise RouteMissingHandlerError(",".join(pending["method"]) if not isinstance(
                        pending["method"], str) else pending["method"], pending["url"])
                self._plugin_stack[0]["ms"] = (time.perf_counter() - started) * 1000
                if self._validator_options:
                    self._validator_engine()  # validator plugins check their options now
                self._expose_head_routes()
                for route in self._all_routes:
                    route.handle = _LazyPipeline(route, self) if self._lazy else Pipeline(route, self)
                self._not_found_pipelines = self._build_not_found()
                self._ready = True
                for context in self._walk():
                    for hook in context._hooks.get("on_ready", ()):
                        hook()
            finally:
                self._loading = False
        return self

    def _walk(self) -> list[Context]:
        contexts: list[Context] = []
        pending: list[Context] = [self]
        while pending:
            context = pending.pop(0)
            contexts.append(context)
            pending.extend(context._children)
        return contexts

    def _expose_head_routes(self) -> None:
        for route in list(self._all_routes):
            if route.method == "GET" and not self._router.has("HEAD", route.url):
                self._add_route(Route("HEAD", route.url, route.options, route.context))

    def _build_not_found(self) -> list[tuple[str, Pipeline]]:
        pipelines = []
        contexts = [c for c in self._not_found_contexts if c is not self]
        for context in sorted(contexts, key=lambda c: len(c._prefix), reverse=True):
            route = Route("*", context._prefix + "/*", {"handler": context._not_found_handler, "config": {}}, context)
            pipelines.append((context._prefix, Pipeline(route, self, not_found=True)))
        root_route = Route("*", "/*", {"handler": self._not_found_handler or _default_not_found, "config": {}}, self)
        pipelines.append(("", Pipeline(root_route, self, not_found=True)))
        return pipelines

    def _not_found_pipeline(self, path: str) -> Pipeline:
        for prefix, pipeline in self._not_found_pipelines:
            if not prefix or path == prefix or path.startswith(prefix + "/"):
                return pipeline
        return self._not_found_pipelines[-1][1]

    def _answer_not_found(self, request: Any, reply: Any) -> None:
        """``reply.call_not_found()``: run the not-found handler for this URL on this reply."""
        reply._not_found = False
        reply.sent = False
        handler = self._not_found_pipeline(request.path).handler
        try:
            result = handler(request, reply)
            if not reply.sent and result is not reply:
                reply.send(result)
        except Exception as error:
            reply.sent = True
            reply._payload = error

    def _validator_engine(self) -> "ValidatorEngine":
        if self._validator is None:
            from .validation import ValidatorEngine
            self._validator = ValidatorEngine(self._validator_options.get("custom_options"),
                                              self._validator_options.get("plugins") or ())
        return self._validator

    # WSGI.
    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        root = self._root
        if not root._ready:
            root.ready()
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO") or "/"
        routes = root._router.static.get(method)
        if routes is not None:
            route = routes.get(path)
            if route is not None:
                return route.handle(environ, start_response, {})  # type: ignore[misc]
        if path.isascii():
            found = root._router.find_parametric(method, path)
        else:  # WSGI gives the path as latin-1; URLs are UTF-8
            try:
                path = path.encode("latin-1").decode("utf-8")
            except UnicodeError:
                return root._bad_url(environ, start_response, path)
            environ["framework.path"] = path
            found = root._router.find(method, path)
        if found is not None:
            return found[0].handle(environ, start_response, found[1])  # type: ignore[misc]
        return root._not_found_pipeline(path)(environ, start_response, {})

    def _bad_url(self, environ: dict[str, Any], start_response: StartResponse, path: str) -> Iterable[bytes]:
        pipeline = self._not_found_pipelines[-1][1]
        error = BadUrlError(path)

        def handler(request: Any, reply: Any) -> None:
            raise error
        return _with_handler(pipeline, handler)(environ, start_response, {})

    # Lifecycle.
    def close(self) -> None:
        """Run every ``on_close`` hook (each with its context); idempotent."""
        if self._closed:
            return
        self._closed = True
        for context in reversed(self._walk()):
            for hook in context._hooks.get("on_close", ()):
                hook(context)

    def inject(self, method: str = "GET", url: str = "/", headers: dict[str, str] | None = None,
               query: dict[str, Any] | None = None, json: Any = None, body: bytes | str | None = None,
               **environ_overrides: Any) -> "InjectResponse":
        """Run one request through the WSGI callable without a socket (see ``framework.testing``)."""
        from .testing import inject
        return inject(self, method=method, url=url, headers=headers, query=query, json=json, body=body,
                      **environ_overrides)

    def listen(self, port: int = 3000, host: str = "127.0.0.1", callback: Callable[[Exception | None], Any] | None = None,
               workers: int = 1, server: str = "gunicorn") -> None:
        """Serve on gunicorn (the default) or granian (``server="granian"``); blocks until stopped.
        ``callback(None)`` runs once listening, ``callback(error)`` on failure."""
        from .server import serve
        serve(self, port=port, host=host, callback=callback, workers=workers, server=server)

    # Trees.
    def print_routes(self) -> str:
        """The route tree as text (find-my-way's style)."""
        from .trees import render_routes
        return render_routes(self._router)

    def print_plugins(self) -> str:
        """The plugin tree with load times, as avvio prints it."""
        from .trees import render_plugins
        return render_plugins(self._plugin_stack[0])

    def _plugin_tree_push(self, name: str) -> None:
        node = {"name": name, "ms": 0.0, "children": []}
        self._plugin_stack[-1]["children"].append(node)
        self._plugin_stack.append(node)

    def _plugin_tree_pop(self, elapsed_ms: float) -> None:
        self._plugin_stack.pop()["ms"] = elapsed_ms


class _LazyPipeline:
    """``lazy=True``: the route compiles at its first request (once, thread-safe)."""

    def __init__(self, route: Route, app: Framework) -> None:
        self.route = route
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: StartResponse, params: dict[str, str]) -> Any:
        with self.lock:
            if self.route.handle is self:
                self.route.handle = Pipeline(self.route, self.app)
        return self.route.handle(environ, start_response, params)  # type: ignore[misc]


def _with_handler(pipeline: Pipeline, handler: Callable[..., Any]) -> Pipeline:
    clone = object.__new__(Pipeline)
    clone.__dict__.update(pipeline.__dict__)
    clone.handler = handler
    return clone
