"""A route compiled at ``ready()``: everything a request of it needs, decided once.

From the route's context (its :class:`~framework.context.Scope`) and the route's own
options, :class:`CompiledRoute` gathers the request and reply classes (with the
decorators visible there), the steps that run before the handler (hook phases, body
parsing, input validation: only those the route has), the handler, the response
serializers by status, the hooks that shape and follow the reply, and the error-handler
chain. Its ``entry``, one function emitted from all that (``framework.lifecycle.entry``),
then answers a request and looks nothing up.

The declared route, its context and the app's state sit above the lifecycle in the
package's layers: they are read here through the Protocols below, which they satisfy.
The modules below this one read the compiled route through Protocols of their own
(``request.RequestRoute``, ``reply.ReplyRoute``...), and the reply calls the error chain
through the two functions the compiled route carries.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterable, Protocol

from typing_extensions import TypeVar

from ..http.body import BODY_METHODS, OPTIONAL_BODY_METHODS
from .body_parsing import BodyParsing
from .entry import Entry, compile_entry
from .hooks import HookPhase, synchronous
from .inputs import DeclaredRoute, compile_input_building, compile_input_validation
from .request import Server
from .request_log import EchoRequestId, LogIncoming, log_completed, parse_level
from .negotiation import compile_negotiation
from .responses import compile_response_serializers, strict_keywords
from ..serialization import compile_serializer

if TYPE_CHECKING:
    from ..http.proxy import ProxyTrust
    from ..validation.engine import ValidatorEngine
    from .content_types import ContentTypeParsers
    from .drift import DriftRecorder
    from .error_handling import ErrorStyle
    from .negotiation import MediaTypeSerializer
    from .reply import Reply
    from .request import Request

#: One step before the handler: ``step(request, reply)``; it may send the reply.
Step = Callable[["Request", "Reply"], None]
#: Request hooks run by a ``HookPhase``, which runs a coroutine they return at run time.
_PHASE_HOOKS = frozenset(("on_request", "pre_parsing", "pre_validation", "pre_handler"))


class RouteScope(Protocol):
    """What a route takes from its context (``framework.context.Scope`` is one)."""

    @property
    def request_class(self) -> "type[Request]": ...
    @property
    def reply_class(self) -> "type[Reply]": ...
    @property
    def parsers(self) -> "ContentTypeParsers": ...
    @property
    def schemas(self) -> dict[str, Any]: ...
    @property
    def validator_compiler(self) -> Callable[..., Any] | None: ...
    @property
    def serializer_compiler(self) -> Callable[..., Any] | None: ...
    @property
    def schema_error_formatter(self) -> Callable[..., Any] | None: ...
    @property
    def error_handlers(self) -> tuple[Callable[..., Any], ...]: ...
    @property
    def hooks(self) -> Callable[[str], list[Callable[..., Any]]]: ...
    @property
    def response_serializers(self) -> "dict[str, MediaTypeSerializer]": ...


class DeclaringContext(Server, Protocol):
    """The context that declared a route (a ``framework.context.Context``): what its
    requests see of it, and its scope."""

    def scope(self) -> RouteScope: ...


_ContextT_co = TypeVar("_ContextT_co", bound=DeclaringContext, covariant=True)
#: The class of the context that declared the route: ``framework.context.Context`` for a
#: compiled ``framework.route.Route`` (inferred where it is built). A bare ``CompiledRoute``
#: annotation leaves it open (``Any``): the modules above this one name it when they read
#: more of the context than :class:`DeclaringContext` says.
ContextT = TypeVar("ContextT", bound=DeclaringContext, default=Any)


class Declared(DeclaredRoute, Protocol[_ContextT_co]):
    """A declared route (``framework.route.Route`` is one), as compiling it reads it."""

    @property
    def context(self) -> _ContextT_co: ...
    def own_hooks(self, name: str) -> list[Callable[..., Any]]: ...


class AppSettings(Protocol):
    """The app-wide settings a route is compiled with (``framework.state.AppState`` is one)."""

    @property
    def logger(self) -> logging.Logger: ...
    @property
    def request_id(self) -> Callable[[Any], str]: ...
    @property
    def request_id_header(self) -> str | None: ...
    @property
    def request_logging(self) -> bool: ...
    @property
    def proxy(self) -> "ProxyTrust | None": ...
    @property
    def body_limit(self) -> int: ...
    @property
    def max_body_depth(self) -> int: ...
    @property
    def error_style(self) -> "ErrorStyle": ...
    @property
    def response_drift(self) -> "DriftRecorder | None": ...
    def not_found_handler(self, path: str) -> Callable[..., Any]: ...
    def validator_engine(self) -> "ValidatorEngine": ...


class CompiledRoute(Generic[ContextT]):
    """One route, ready to answer. Attributes are read by the lifecycle, the reply and the error chain."""

    def __init__(self, route: Declared[ContextT], state: AppSettings, handler: Callable[..., Any] | None = None,
                 parse_body: bool = True) -> None:
        scope = route.context.scope()
        self.route = route
        self.method = route.method
        self.url = route.url
        self.options = route.options
        self.context = route.context
        self.log: logging.Logger = state.logger
        #: Below this level ``request.log`` logs nothing (the route's ``log_level`` option).
        self.log_level = parse_level(route.options["log_level"]) if route.options.get("log_level") is not None else 0
        #: What ``request.id`` calls (``framework.lifecycle.request_log.request_id_reader``).
        self.request_id = state.request_id
        #: ``trust_proxy`` (``framework.http.proxy.ProxyTrust``), or ``None``: the environ as is.
        self.proxy = state.proxy
        self.request_class = scope.request_class
        self.reply_class = scope.reply_class
        #: A coroutine the handler returns at run time is run by ``Reply.render``.
        self.handler = synchronous(handler or route.options["handler"], check_results=False)
        self.not_found_handler = state.not_found_handler

        hooks = {name: tuple(synchronous(fn, check_results=name not in _PHASE_HOOKS)
                             for fn in scope.hooks(name) + route.own_hooks(name))
                 for name in ("on_request", "pre_parsing", "pre_validation", "pre_handler",
                              "pre_serialization", "on_send", "on_response", "on_error")}
        self.pre_serialization = hooks["pre_serialization"]
        self.on_send = hooks["on_send"]
        # Request logging's closing line, only when enabled: otherwise nothing changes here.
        self.on_response = hooks["on_response"] + ((log_completed,) if state.request_logging else ())
        self.on_error = hooks["on_error"]
        #: The error chain's entry points, which the reply calls (it sits below this module).
        self.answer_error = state.error_style.answer_error
        self.serialization_failure = state.error_style.serialization_failure
        own_error_handler = route.options.get("error_handler")
        self.error_handlers = tuple(synchronous(fn) for fn in (
            *((own_error_handler,) if own_error_handler is not None else ()), *scope.error_handlers,
            state.error_style.error_handler))

        before_validation: list[Any] = [  # objects whose __call__ is a Step
            EchoRequestId(state.request_id_header) if state.request_id_header else None,
            LogIncoming() if state.request_logging else None,
            HookPhase("on_request", hooks["on_request"]) if hooks["on_request"] else None,
            HookPhase("pre_parsing", hooks["pre_parsing"]) if hooks["pre_parsing"] else None,
        ]
        body: BodyParsing | None = None
        if parse_body and not route.options.get("mount") and (route.method in BODY_METHODS or route.method in OPTIONAL_BODY_METHODS):
            body = BodyParsing(scope.parsers, route.options.get("body_limit") or state.body_limit,
                               optional=route.method in OPTIONAL_BODY_METHODS,
                               route_limit=route.options.get("body_limit") is not None)
        validation = compile_input_validation(
            route, state.validator_engine().compile, route.options.get("validator_compiler") or scope.validator_compiler,
            route.options.get("schema_error_formatter") or scope.schema_error_formatter, scope.schemas,
            scope.parsers, state.max_body_depth,
            # (Nothing runs before validation: it reads the inputs as parsed.)
            as_parsed=body is None and not any(before_validation) and not hooks["pre_validation"])
        serializer_compiler = route.options.get("serializer_compiler") or scope.serializer_compiler
        drift = (state.response_drift, state.validator_engine().compile) if state.response_drift else None
        self.serializers = compile_response_serializers(
            route, compile_serializer, serializer_compiler, scope.schemas, strict_keywords(state), drift)
        #: How the reply's media type is chosen from ``Accept`` (``framework.lifecycle.negotiation``),
        #: or ``None``: the route answers only JSON and never reads ``Accept``.
        self.negotiation = None if route.options.get("mount") else compile_negotiation(
            scope.response_serializers, self.serializers, bool(route.options.get("strict_accept")))
        steps: list[Any] = [
            *before_validation,
            body,
            HookPhase("pre_validation", hooks["pre_validation"]) if hooks["pre_validation"] else None,
            validation,
            compile_input_building(route, validation),
            # 406 before the handler runs, as Fastify's accepts-serializer answers in preHandler.
            self.negotiation if self.negotiation is not None and self.negotiation.strict else None,
            HookPhase("pre_handler", hooks["pre_handler"]) if hooks["pre_handler"] else None,
        ]
        #: What runs before the handler, in order; each may send the reply, which ends the chain.
        #: (Bound ``__call__`` methods: a call costs less than calling the object.)
        self.steps: tuple[Step, ...] = tuple(step.__call__ for step in steps if step is not None)

        #: The response serializers are the built-in ones (pure: the entry may call one again).
        self.builtin_serializers = serializer_compiler is None
        #: Nothing shapes or follows a reply: a dict or list goes straight to JSON.
        self.plain_json = not (self.serializers or self.negotiation or self.pre_serialization or self.on_send
                               or self.on_response)
        #: ``entry(environ, start_response, params)``: the route's request path, emitted as
        #: one function (``framework.lifecycle.entry``; :meth:`compile_source` shows it) by
        #: the route's first request, which it then answers: emitting every entry at
        #: ``ready()`` took 1,000 schema'd routes (2,000 with their HEAD twins) 0.3-0.4 s
        #: more to start, on a route that may never be asked.
        self.entry: Entry = self._first_entry

    def _first_entry(self, environ: dict[str, Any], start_response: Callable[..., Any],
                     params: dict[str, Any]) -> Iterable[bytes]:
        # Two threads may both get here: each emits the same function, either one stays.
        self.entry = entry = compile_entry(self)[0]
        return entry(environ, start_response, params)

    def compile_source(self) -> str:
        """The Python source of :attr:`entry`, commented: the steps this route has, in order."""
        return compile_entry(self)[1]

    def __repr__(self) -> str:
        return f"<CompiledRoute {self.method} {self.url}: {', '.join(map(repr, self.steps)) or 'no steps'}>"
