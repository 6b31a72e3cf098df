"""``Framework``: the root context, its factory options, the WSGI entry, and start-up.

``app`` is a WSGI callable: ``gunicorn module:app`` works, and so does mounting it in
any WSGI stack. The first call readies it (thread-safe), as do ``ready()``, ``inject()``
and ``listen()``. A request goes: :meth:`Framework.__call__` finds the route
(``framework.routing.dispatch``), and the entry of the route compiled at ``ready()``
(``framework.lifecycle.compiled_route``, ``framework.lifecycle.entry``) answers it.
"""
from __future__ import annotations

import atexit
import gc
import logging
import os
import threading
import time
import weakref
from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Iterable, Mapping, NoReturn, Sequence, Union

from typing_extensions import Self

from .lifecycle.compiled_route import CompiledRoute
from .lifecycle.drift import DriftRecorder, DriftReport
from .context import Context
from .lifecycle.error_handling import ERROR_STYLES, NotFoundRoutes
from .errors import BadUrlError, MethodNotAllowedError, RouteMissingHandlerError
from .failed_start import FailedStart, replaces_workers
from .loader import PLUGIN_TIMEOUT
from .http.proxy import proxy_trust
from .lifecycle.request_log import check_request_id_header, request_id_reader
from .route import Route
from .routing.dispatch import allowed_methods, dispatch_beyond_static
from .routing.router import Router
from .state import AppState

if TYPE_CHECKING:
    from .lifecycle.reply import Reply
    from .lifecycle.request import Request
    from .devtools.explain import Explanation
    from .http.injected import InjectResponse

StartResponse = Callable[..., Any]
#: ``Framework(trust_proxy=...)``: ``False``/``None`` (the default: forwarded headers are
#: ignored), ``True``, a hop count, addresses or networks (one string or several), or
#: ``trust(address, hop_index) -> bool`` (see ``framework.http.proxy``).
TrustProxy = Union[bool, int, str, Sequence[str], AbstractSet[str], Callable[[str, int], bool], None]


#: No route for a method: the static look-up's default.
_NO_ROUTES: dict[str, Any] = {}


class Framework(Context):
    """The application: the root of the context tree and a WSGI callable.

    Options: ``validator`` (``{"custom_options": {...}, "plugins": [...]}``, see
    ``framework.validation``), ``schema_error_formatter`` (``(errors, data_var) ->
    Exception``), ``body_limit`` (bytes; larger bodies are 413s), ``logger`` (a
    ``logging.Logger``, ``True`` for one that logs to stderr at info, or ``None`` for the
    ``framework`` logger as configured), ``lazy`` (compile each route at its first
    request), ``plugin_timeout`` (seconds a callback-style plugin may take to call
    ``done``; 10 by default). Router options (find-my-way's): ``ignore_trailing_slash``,
    ``ignore_duplicate_slashes``, ``case_sensitive``, ``max_param_length`` (a longer
    parameter is a 404); ``method_not_allowed=True`` answers a known path asked with
    another method 405 with ``Allow``, and ``OPTIONS`` 204 with ``Allow`` (default: 404). Inputs:
    ``coerce_body=False`` validates bodies without type coercion (the query string, path
    parameters and headers, which arrive as text, still coerce); ``max_body_depth`` (128)
    is the levels of arrays and objects a body may nest on the routes that recurse over it
    (a body schema with a ``$ref`` cycle, as recursive types make, or ``uniqueItems``):
    deeper is a 400. ``errors="problem+json"`` answers every error the framework answers
    itself as an RFC 9457 problem document (``application/problem+json``) instead of
    Fastify's ``{statusCode, code, error, message}`` (``errors="fastify"``, the default).
    ``response_check`` (a fraction, ``0.01`` for 1%; off by default): on that fraction of
    requests, a reply shaped by a response schema is also checked against the schema,
    and what the serializer dropped is counted: :meth:`response_drift` reads the findings
    (see :doc:`/guide/response-schemas`).

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
                 lazy: bool = False, plugin_timeout: float = PLUGIN_TIMEOUT, request_logging: bool = False,
                 request_id_header: str | None = None, gen_request_id: "Callable[[Request], str] | None" = None,
                 trust_proxy: TrustProxy = False, ignore_trailing_slash: bool = False, ignore_duplicate_slashes: bool = False,
                 case_sensitive: bool = True, max_param_length: int = 100,
                 method_not_allowed: bool = False, max_body_depth: int = 128, coerce_body: bool = True,
                 errors: str = "fastify", response_check: float | None = None) -> None:
        if type(body_limit) is not int or body_limit <= 0:
            raise ValueError(f"body_limit must be a positive integer, got {body_limit!r}")
        if not isinstance(plugin_timeout, (int, float)) or plugin_timeout <= 0:
            raise ValueError(f"plugin_timeout must be a positive number of seconds, got {plugin_timeout!r}")
        if type(max_body_depth) is not int or max_body_depth <= 0:
            raise ValueError(f"max_body_depth must be a positive integer, got {max_body_depth!r}")
        if not isinstance(coerce_body, bool):
            raise TypeError(f"coerce_body must be True or False, got {coerce_body!r}")
        if errors not in ERROR_STYLES:
            raise ValueError(f"errors must be one of {', '.join(map(repr, ERROR_STYLES))}, got {errors!r}")
        app_logger = _logger(logger)
        check_rate = _response_check(response_check)
        drift = DriftRecorder(check_rate, app_logger) if check_rate else None
        validator = dict(validator or {})
        unknown = set(validator) - {"custom_options", "plugins"}
        if unknown:
            raise TypeError(f"unknown validator option(s): {', '.join(sorted(unknown))}")
        if gen_request_id is not None and not callable(gen_request_id):
            raise TypeError(f"gen_request_id must be callable, got {gen_request_id!r}")
        header = check_request_id_header(request_id_header)
        state = AppState(body_limit=body_limit, lazy=lazy, logger=app_logger, error_style=ERROR_STYLES[errors],
                         plugin_timeout=float(plugin_timeout), validator_options=validator,
                         request_id=request_id_reader(header, gen_request_id), request_id_header=header,
                         request_logging=bool(request_logging), proxy=proxy_trust(trust_proxy),
                         max_body_depth=max_body_depth, coerce_body=coerce_body, response_drift=drift)
        # The router's options (find-my-way's): see framework.routing.router.
        state.router = Router(ignore_trailing_slash=ignore_trailing_slash,
                              ignore_duplicate_slashes=ignore_duplicate_slashes,
                              case_sensitive=case_sensitive, max_param_length=max_param_length)
        if not isinstance(method_not_allowed, bool):
            raise TypeError(f"method_not_allowed must be True or False, got {method_not_allowed!r}")
        #: method_not_allowed=True: the route answering 405 / OPTIONS 204 with Allow; set at ready().
        self._method_not_allowed = method_not_allowed
        self._not_allowed_route: CompiledRoute | None = None
        super().__init__(state, None, "root", "", application=self)
        self._schema_error_formatter = schema_error_formatter
        self._compile_lock = threading.Lock()
        #: Set (once, logged) when a request finds that the application could not start.
        self._failed_start: FailedStart | None = None
        #: ``lazy=True``: answers the routes that failed to compile (a fixed 500); made at the first failure.
        self._uncompilable_route: CompiledRoute | None = None
        #: Answers paths that are not UTF-8; set at ready(), before any request is routed.
        self._bad_url_route: CompiledRoute

    # Start-up.
    def ready(self) -> Self:
        """Load every plugin, compile every route, then run ``on_ready`` hooks; idempotent.

        A failed start stays failed: every later call raises the same error, and requests
        are answered 503 with ``Retry-After``, so a half-loaded application (one missing its
        auth plugin, say) never serves (see ``framework.failed_start``: under gunicorn and
        granian the worker then exits, and its replacement starts the application again).
        """
        state = self._state
        if state.started:
            return self
        with state.boot_lock:
            if state.boot_error is not None:
                raise state.boot_error
            if state.started or state.booting:
                return self  # ready() called again from a plugin or an on_ready hook
            state.booting = True
            try:
                self._boot()
                state.started = True
            except BaseException as error:
                state.boot_error = error
                raise
            finally:
                state.booting = False
        return self

    def _boot(self) -> None:
        state = self._state
        started = time.perf_counter()
        self._plugins.load(state.plugin_tree, state.plugin_timeout)
        if state.pending_route_decorators:
            options = state.pending_route_decorators[0].options
            method = options["method"]
            raise RouteMissingHandlerError(method if isinstance(method, str) else ",".join(method), options["url"])
        state.plugin_tree.root["ms"] = (time.perf_counter() - started) * 1000
        if state.validator_options:
            state.validator_engine()  # validator plugins check their options now
        for route in list(state.routes):
            if route.method == "GET" and route.options.get("expose_head_route") is not False \
                    and not state.router.has("HEAD", route.url):
                state.add_route(Route("HEAD", route.url, route.options, route.context, route.plugin))
        state.not_found = self._not_found_routes()
        if self._method_not_allowed:
            self._not_allowed_route = CompiledRoute(
                Route("*", "/*", {"handler": _answer_not_allowed, "config": {}}, self), state, parse_body=False)
        self._bad_url_route = CompiledRoute(Route("*", "/*", {"handler": _refuse_bad_url, "config": {}}, self),
                                            state, parse_body=False)
        if not state.lazy:
            # The collector pauses while routes compile (see _promote_to_oldest_generation).
            collecting = gc.isenabled()
            gc.disable()
            try:
                for route in state.routes:
                    route.compiled = CompiledRoute(route, state)
            finally:
                if collecting:
                    _promote_to_oldest_generation()
                    gc.enable()
        for context in self.walk():
            for hook in context.own_hooks("on_ready"):
                hook()
        close_at_exit(self)

    def _not_found_routes(self) -> NotFoundRoutes:
        def answer(context: Context, handler: Callable[..., Any] | None) -> CompiledRoute:
            # (The contexts of not_found_contexts have set their handler.)
            route = Route("*", context.prefix + "/*", {"handler": handler, "config": {}}, context)
            return CompiledRoute(route, self._state, parse_body=False)

        by_prefix = [(context.prefix, answer(context, context.not_found_handler))
                     for context in self._state.not_found_contexts if context is not self]
        return NotFoundRoutes(by_prefix, answer(self, self._not_found_handler or self._state.error_style.not_found_handler))

    def _compiled(self, route: Route) -> CompiledRoute:
        """``lazy=True``: the route compiles at its first request (once, thread-safe).

        A route that fails to compile (a schema Ajv refuses) is logged once and answered
        with a fixed 500 from then on, never compiled again."""
        with self._compile_lock:
            if route.compiled is None:
                try:
                    route.compiled = CompiledRoute(route, self._state)
                except Exception as error:
                    self._state.logger.error("route %s %s could not be compiled, it answers 500: %s",
                                             route.method, route.url, error, exc_info=error)
                    if self._uncompilable_route is None:
                        self._uncompilable_route = CompiledRoute(
                            Route("*", "/*", {"handler": self._answer_uncompilable, "config": {}}, self), self._state,
                            parse_body=False)
                    route.compiled = self._uncompilable_route
        return route.compiled

    def _answer_failed_start(self, error: BaseException, start_response: StartResponse,
                             environ: dict[str, Any]) -> Iterable[bytes]:
        """The answer while the application could not start (logged at the first such request)."""
        with self._state.boot_lock:
            if self._failed_start is None:
                self._failed_start = FailedStart(error, self._state.logger, replaces_workers(environ),
                                                 self._state.error_style.not_ready, self._state.error_style.content_type)
        return self._failed_start.answer(start_response, environ)

    def _answer_uncompilable(self, request: "Request", reply: "Reply") -> "Reply":
        """``lazy=True``: a route that failed to compile (logged then): the fixed 500, logged no more."""
        return reply.code(500).send(self._state.error_style.internal_error(request))

    # WSGI.
    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        state = self._state
        if not state.started:
            if state.boot_error is None:  # (raised again per request, its traceback would grow)
                try:
                    self.ready()
                except Exception:
                    pass  # kept as state.boot_error, answered below
            if state.boot_error is not None:  # (None: an on_ready hook's own request, served)
                return self._answer_failed_start(state.boot_error, start_response, environ)
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO") or "/"
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
        if not raw or "%2" not in raw:
            # dispatch()'s first step, inlined because it is the hot path (a static route is
            # one dict look-up; a call more cost S1 4%); the rest is dispatch()'s own.
            static = state.router.static.get(method, _NO_ROUTES).get(path)
            if static is not None:
                return (static.compiled or self._compiled(static)).entry(environ, start_response, {})
            if path.isascii():  # dispatch_beyond_static()'s common case, inlined too (a call less)
                find = state.router.finders.get(method)
                matched = find(path) if find is not None else state.router.find_parametric(method, path)
                if matched is None:
                    return self._answer_unrouted(environ, start_response, path, {})
                return (matched[0].compiled or self._compiled(matched[0])).entry(environ, start_response, matched[1])
        try:
            found = dispatch_beyond_static(state.router, method, path, raw, environ)
        except BadUrlError:
            return self._bad_url_route.entry(environ, start_response, {})
        route, params, decoded = found
        if decoded is not None:  # what request.path shows
            environ["framework.path"] = decoded
        if route is not None:
            return (route.compiled or self._compiled(route)).entry(environ, start_response, params)
        return self._answer_unrouted(environ, start_response, decoded or path, params)

    def _answer_unrouted(self, environ: dict[str, Any], start_response: StartResponse, path: str,
                         params: dict[str, str]) -> Iterable[bytes]:
        answer, allow = self._unrouted(environ, path)
        if allow:
            environ["framework.allow"] = ", ".join(allow)
        return answer.entry(environ, start_response, params)

    def _unrouted(self, environ: Mapping[str, Any], path: str) -> tuple[CompiledRoute, list[str]]:
        """The answer to a request no route matches, and its ``Allow`` methods: a 405 when
        ``method_not_allowed`` is on and another method has a route for the path, else the
        not-found answer of the path's prefix (``path``, decoded)."""
        state = self._state
        if self._not_allowed_route is not None:
            allowed = allowed_methods(state.router, environ)
            if allowed:
                return self._not_allowed_route, allowed + ["OPTIONS"] * ("OPTIONS" not in allowed)
        # state.not_found is built at ready(), which has run (requests are routed after it).
        return state.not_found.find(path), []  # type: ignore[union-attr]

    # Lifecycle.
    def close(self) -> None:
        """Run every ``pre_close`` hook (outermost contexts first), then every ``on_close``
        hook (innermost first), each with its context; idempotent and thread-safe.

        The process that ran ``ready()`` also calls it when it exits: at interpreter exit
        (a gunicorn worker stopped by SIGTERM, SIGINT or SIGQUIT exits that way), when a
        granian worker process ends, and when ``listen()`` returns. A hook that raises is
        logged; the others still run.
        """
        state = self._state
        with state.close_lock:
            if state.closed:
                return
            state.closed = True
        contexts = self.walk()
        for name, order in (("pre_close", contexts), ("on_close", list(reversed(contexts)))):
            for context in order:
                for hook in context.own_hooks(name):
                    try:
                        hook(context)
                    except Exception as error:
                        state.logger.error("%s hook %s failed: %r", name, getattr(hook, "__name__", hook), error,
                                           exc_info=error)

    def __enter__(self) -> Self:
        """``with Framework() as app:`` closes the application on leaving the block."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the application (see :meth:`close`)."""
        self.close()

    def _listening(self) -> None:
        """Run the ``on_listen`` hooks (``listen()`` calls this once the server accepts connections)."""
        for context in self.walk():
            for hook in context.own_hooks("on_listen"):
                hook()

    def inject(self, method: str = "GET", url: str = "/", headers: Mapping[str, str] | None = None,
               query: Mapping[str, Any] | None = None, json: Any = None, body: bytes | str | None = None,
               **environ_overrides: Any) -> "InjectResponse":
        """Run one request through the WSGI callable without a socket (see ``framework.testing``)."""
        from .testing.client import inject
        return inject(self, method=method, url=url, headers=headers, query=query, json=json, body=body,
                      **environ_overrides)

    def listen(self, port: int = 3000, host: str = "127.0.0.1", callback: Callable[[Exception | None], Any] | None = None,
               workers: int = 1, server: str = "gunicorn") -> None:
        """Serve on gunicorn (the default) or granian (``server="granian"``); blocks until stopped.
        ``callback(None)`` runs once listening, ``callback(error)`` on failure."""
        from .serving.server import serve
        serve(self, port=port, host=host, callback=callback, workers=workers, server=server,
              on_listen=self._listening)

    def explain(self, method: str, url: str, headers: dict[str, str] | None = None) -> "Explanation":
        """The compiled path of one request, without sending it: the route and params, the
        hooks in run order with the plugin and context that added each, the decorators,
        validators, serializers, error handlers and not-found handler (readies the
        application). A dict; ``str()`` renders it (see ``framework.devtools.explain``)."""
        from .devtools.explain import explain
        return explain(self, method, url, headers)

    def response_drift(self) -> DriftReport:
        """What ``Framework(response_check=rate)`` found so far in this process: the replies
        checked, and each (route, status, pointer) seen with its first message and its count
        (the first 1,000 distinct ones; later new ones are counted as ``untracked``). Off,
        ``rate`` is ``0.0`` and nothing is found.

        >>> app = Framework(response_check=1.0)
        >>> schema = {"response": {200: {"type": "object", "properties": {"id": {"type": "integer"}}}}}
        >>> _ = app.get("/user", {"schema": schema}, lambda request, reply: {"id": 1, "secret": "x"})
        >>> app.inject(url="/user").text
        '{"id":1}'
        >>> [(f["route"], f["status"], f["pointer"], f["count"]) for f in app.response_drift()["findings"]]
        [('GET /user', 200, '/secret', 1)]
        """
        drift = self._state.response_drift
        if drift is None:
            return DriftReport(rate=0.0, checked=0, findings=[], untracked=0)
        return drift.report()

    # Trees.
    def print_routes(self) -> str:
        """The route tree as text (find-my-way's style). Under a path, a ``•`` line names
        the Python types a route's schemas came from (``framework.typeschema``)."""
        from .devtools.trees import render_routes
        from .schemas.typeschema import describe_types
        notes = {(route.method, route.url): describe_types(route.options["types"])
                 for route in self._state.routes if route.options.get("types")}
        for method, url in list(notes):  # a GET route's HEAD route says the same
            if method == "HEAD" and notes.get(("GET", url)) == notes[method, url]:
                del notes[method, url]
        return render_routes(self._state.router, notes)

    def print_plugins(self) -> str:
        """The plugin tree with load times, as avvio prints it."""
        from .devtools.trees import render_plugins
        return render_plugins(self._state.plugin_tree.root)




def _promote_to_oldest_generation() -> None:
    """Move every object the cyclic collector tracks into its oldest generation, unwalked.

    Compiling makes long-lived objects by the hundred thousand (1,000 routes: about
    150,000). Left on, the collector walked the growing heap three times as they were made;
    paused, it walked them all when it resumed (80 ms of a 0.34 s ``ready()``), then again
    in its next full collection. Moved to the oldest generation, they wait for that full
    collection (which also frees any garbage cycle among them, as it would have). Only when
    nothing is frozen: ``gc.unfreeze()`` would thaw what the application froze (and on
    Python 3.12, which starts with objects of its own frozen, what the interpreter froze:
    there the collector resumes as it did before)."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def _response_check(rate: object) -> float:
    """``Framework(response_check=rate)``'s fraction (``0.0``: off); a rate that is not a number from 0 to 1 is refused."""
    if rate is None:
        return 0.0
    if isinstance(rate, bool) or not isinstance(rate, (int, float)):
        raise TypeError(f"response_check must be a number from 0 to 1 (0.01 checks 1% of requests), got {rate!r}")
    if not 0 <= rate <= 1:  # (NaN compares false: refused too)
        raise ValueError(f"response_check must be a number from 0 to 1 (0.01 checks 1% of requests), got {rate!r}")
    return float(rate)


def _refuse_bad_url(request: "Request", reply: "Reply") -> NoReturn:
    """The handler of a path that is not UTF-8."""
    raise BadUrlError(request.environ.get("PATH_INFO", ""))


def _answer_not_allowed(request: "Request", reply: "Reply") -> "Reply":
    """``method_not_allowed=True``: a known path asked with another method; ``Allow`` lists its methods."""
    reply.header("allow", request.environ["framework.allow"])
    if request.method == "OPTIONS":
        return reply.code(204).send()
    raise MethodNotAllowedError(request.method, request.path)




#: Applications that ran ``ready()``, closed when the process that readied them exits.
_readied: "weakref.WeakSet[Framework]" = weakref.WeakSet()
_exit_hooks_installed: set[int] = set()


def close_at_exit(app: Framework) -> None:
    """Have the process that ran ``ready()`` close ``app`` when it exits.

    ``atexit`` covers an interpreter that exits normally (a gunicorn worker after SIGTERM,
    SIGINT or SIGQUIT raises ``SystemExit``); a ``multiprocessing`` finalizer covers a
    granian worker, a ``multiprocessing`` child that leaves through ``os._exit``. A child
    forked after ``ready()`` (gunicorn ``--preload``) does not close its parent's
    application: only the process that readied it does (see ``_close_readied``).
    """
    app._state.ready_pid = os.getpid()  # pyright: ignore[reportPrivateUsage]  # Framework's own module
    _readied.add(app)
    pid = os.getpid()
    if pid in _exit_hooks_installed:
        return
    _exit_hooks_installed.add(pid)
    atexit.register(_close_readied)
    import multiprocessing.util
    multiprocessing.util.Finalize(None, _close_readied, exitpriority=100)


def _close_readied() -> None:
    pid = os.getpid()
    for app in list(_readied):
        if app._state.ready_pid == pid:  # pyright: ignore[reportPrivateUsage]  # Framework's own module
            try:
                app.close()
            except Exception:  # an exit path must not raise
                logging.getLogger("framework").exception("closing the application at exit failed")


class _ExtrasFormatter(logging.Formatter):
    """``logger=True``'s format: the message, then the request fields a record carries."""

    FIELDS = ("req_id", "method", "url", "remote_address", "status_code", "response_time")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        extras = " ".join(f"{name}={getattr(record, name)}" for name in self.FIELDS if hasattr(record, name))
        if not extras:
            return text
        head, newline, rest = text.partition("\n")
        return f"{head} {extras}{newline}{rest}"


def _logger(logger: logging.Logger | bool | None) -> logging.Logger:
    if isinstance(logger, logging.Logger):
        return logger
    framework_logger = logging.getLogger("framework")
    if logger is True and not framework_logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(_ExtrasFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        framework_logger.addHandler(handler)
        framework_logger.setLevel(logging.INFO)
    return framework_logger
