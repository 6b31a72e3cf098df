"""What every context of one application shares: its options, its routes, its plugin
tree, its validator engine and whether it has started.

The root (``Framework``) creates one :class:`AppState`; each context holds it and asks
it, rather than reaching into the root.
"""
from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Callable, Generic, Protocol

from typing_extensions import TypeVar

from .errors import InstanceAlreadyStartedError
from .loader import PluginTree
from .routing.router import Router
from .validation import ValidatorEngine

if TYPE_CHECKING:
    from .lifecycle.drift import DriftRecorder
    from .lifecycle.error_handling import ErrorStyle, NotFoundRoutes
    from .http.proxy import ProxyTrust
    from .route import Route


#: The class of the contexts (``framework.context.Context``): generic rather than imported,
#: so that the state sits below the context tree; a bare ``AppState`` leaves it open (``Any``).
ContextT = TypeVar("ContextT", default=Any)


#: How ``response_check`` validates a reply: as it is (no coercion, no defaults, nothing
#: removed), reporting every error.
RESPONSE_CHECK_OPTIONS = {"coerce_types": False, "use_defaults": False, "remove_additional": False,
                          "all_errors": True}


class PendingRoute(Protocol):
    """A route decorator (``@app.get(path)``, a ``framework.context.RouteDecorator``) still
    waiting for its function: ``ready()`` names its route in the error it raises."""

    options: dict[str, Any]


class AppState(Generic[ContextT]):
    """The application-wide state behind every context of one app."""

    def __init__(self, *, body_limit: int, lazy: bool, logger: logging.Logger, error_style: "ErrorStyle",
                 plugin_timeout: float, validator_options: dict[str, Any],
                 request_id: Callable[[Any], str], request_id_header: str | None = None,
                 request_logging: bool = False, proxy: "ProxyTrust | None" = None,
                 max_body_depth: int = 128, coerce_body: bool = True,
                 response_drift: "DriftRecorder | None" = None) -> None:
        self.body_limit = body_limit
        self.lazy = lazy
        self.logger = logger
        self.plugin_timeout = plugin_timeout
        self.validator_options = validator_options
        #: The levels a body may nest where something recurses over it (``framework.lifecycle.inputs``).
        self.max_body_depth = max_body_depth
        #: ``coerce_body=False``: the engine validates bodies without type coercion.
        self.coerce_body = coerce_body
        #: ``Framework(response_check=rate)``: the sampled replies' findings (``None``: off).
        self.response_drift = response_drift
        #: How the framework words its own error answers (``Framework(errors=...)``).
        self.error_style = error_style
        #: ``request.id`` calls this (``framework.lifecycle.request_log.request_id_reader``).
        self.request_id = request_id
        #: The header an incoming id is read from and echoed in, or ``None``.
        self.request_id_header = request_id_header
        #: ``request_logging=True``: two log lines per request (steps added at ready()).
        self.request_logging = request_logging
        #: ``trust_proxy``, resolved (``None``: forwarded headers are ignored).
        self.proxy = proxy
        #: The process that ran ``ready()``: only it runs ``on_close`` at exit (see ``framework.app``).
        self.ready_pid: int | None = None
        self.close_lock = threading.Lock()
        self.router: Router[Route] = Router()
        self.routes: list[Route] = []
        #: Contexts that set a not-found handler, and the answers built from them at ready().
        self.not_found_contexts: list[ContextT] = []
        self.not_found: NotFoundRoutes | None = None
        #: Route decorators (``@app.get(path)``) still waiting for their function.
        self.pending_route_decorators: list[PendingRoute] = []
        self.plugin_tree = PluginTree()
        #: Set once ``ready()`` has finished, ``on_ready`` hooks included.
        self.started = False
        self.booting = False
        #: The error a failed ``ready()`` raised: every later call raises it again.
        self.boot_error: BaseException | None = None
        self.closed = False
        self.boot_lock = threading.RLock()
        self._engine: ValidatorEngine | None = None
        self._engine_lock = threading.Lock()

    def check_not_started(self, what: str) -> None:
        """Refuse ``what`` once the application has started (``InstanceAlreadyStartedError``)."""
        if self.started:
            raise InstanceAlreadyStartedError(f"Cannot {what}!")

    def add_route(self, route: "Route") -> None:
        """Add a declared route to the router and to the application's routes."""
        self.router.add(route.method, route.url, route)
        self.routes.append(route)

    def validator_engine(self) -> "ValidatorEngine":
        """The app's default validator engine, created once (thread-safe) on first use."""
        if self._engine is None:
            with self._engine_lock:
                if self._engine is None:
                    part_options: dict[str, dict[str, Any]] = {}
                    if not self.coerce_body:
                        part_options["body"] = {"coerce_types": False}
                    if self.response_drift is not None:
                        part_options["response"] = RESPONSE_CHECK_OPTIONS
                    self._engine = ValidatorEngine(
                        self.validator_options.get("custom_options"), self.validator_options.get("plugins") or (),
                        part_options=part_options or None)
        return self._engine

    def not_found_handler(self, path: str) -> Callable[..., Any]:
        """The not-found handler answering ``path`` (``reply.call_not_found()``)."""
        assert self.not_found is not None, "not-found routes are built at ready()"
        handler: Callable[..., Any] = self.not_found.find(path).handler
        return handler
