"""A route compiled at ``ready()``: everything a request of it needs, decided once.

From the route's context (its :class:`~framework.context.Scope`) and the route's own
options, :class:`CompiledRoute` gathers the request and reply classes (with the
decorators visible there), the steps that run before the handler (hook phases, body
parsing, input validation: only those the route has), the handler, the response
serializers by status, the hooks that shape and follow the reply, and the error-handler
chain. ``framework.lifecycle.run.run`` then answers a request with it and looks nothing up.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from ..http.body import BODY_METHODS, OPTIONAL_BODY_METHODS
from .body_parsing import BodyParsing
from .error_handling import default_error_handler
from .hooks import HookPhase, synchronous
from .inputs import compile_input_building, compile_input_validation
from .request_log import EchoRequestId, LogIncoming, log_completed, parse_level
from .responses import compile_response_serializers, strict_keywords
from ..serialization import compile_serializer

if TYPE_CHECKING:
    from ..context import Context
    from .reply import Reply
    from .request import Request
    from ..route import Route
    from ..state import AppState

#: One step before the handler: ``step(request, reply)``; it may send the reply.
Step = Callable[["Request", "Reply"], None]
#: Request hooks run by a ``HookPhase``, which runs a coroutine they return at run time.
_PHASE_HOOKS = frozenset(("on_request", "pre_parsing", "pre_validation", "pre_handler"))


class CompiledRoute:
    """One route, ready to answer. Attributes are read by the lifecycle, the reply and the error chain."""

    def __init__(self, route: "Route", state: "AppState", handler: Callable[..., Any] | None = None,
                 parse_body: bool = True) -> None:
        scope = route.context.scope()
        self.route = route
        self.method = route.method
        self.url = route.url
        self.options = route.options
        self.context: Context = route.context
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
        own_error_handler = route.options.get("error_handler")
        self.error_handlers = tuple(synchronous(fn) for fn in (
            *((own_error_handler,) if own_error_handler is not None else ()), *scope.error_handlers,
            default_error_handler))

        body: BodyParsing | None = None
        if parse_body and not route.options.get("mount") and (route.method in BODY_METHODS or route.method in OPTIONAL_BODY_METHODS):
            body = BodyParsing(scope.parsers, route.options.get("body_limit") or state.body_limit,
                               optional=route.method in OPTIONAL_BODY_METHODS,
                               route_limit=route.options.get("body_limit") is not None)
        validation = compile_input_validation(
            route, state.validator_engine().compile, route.options.get("validator_compiler") or scope.validator_compiler,
            route.options.get("schema_error_formatter") or scope.schema_error_formatter, scope.schemas,
            scope.parsers, state.max_body_depth)
        steps: list[Any] = [  # objects whose __call__ is a Step
            EchoRequestId(state.request_id_header) if state.request_id_header else None,
            LogIncoming() if state.request_logging else None,
            HookPhase("on_request", hooks["on_request"]) if hooks["on_request"] else None,
            HookPhase("pre_parsing", hooks["pre_parsing"]) if hooks["pre_parsing"] else None,
            body,
            HookPhase("pre_validation", hooks["pre_validation"]) if hooks["pre_validation"] else None,
            validation,
            compile_input_building(route, validation),
            HookPhase("pre_handler", hooks["pre_handler"]) if hooks["pre_handler"] else None,
        ]
        #: What runs before the handler, in order; each may send the reply, which ends the chain.
        #: (Bound ``__call__`` methods: a call costs less than calling the object.)
        self.steps: tuple[Step, ...] = tuple(step.__call__ for step in steps if step is not None)

        self.serializers = compile_response_serializers(
            route, compile_serializer, route.options.get("serializer_compiler") or scope.serializer_compiler,
            scope.schemas, strict_keywords(state))
        #: Nothing shapes or follows a reply: a dict or list goes straight to JSON.
        self.plain_json = not (self.serializers or self.pre_serialization or self.on_send or self.on_response)

    def __repr__(self) -> str:
        return f"<CompiledRoute {self.method} {self.url}: {', '.join(map(repr, self.steps)) or 'no steps'}>"
