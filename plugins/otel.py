"""OpenTelemetry traces and metrics (the @fastify/otel plugin), on ``opentelemetry-api``.

``otel`` is wrapped with ``plugin(...)``, like ``cors``: it traces the routes of the
context that registers it and of that context's descendants (register it on the root to
trace every request, 404s included)::

    from framework import Framework
    from framework.plugins.otel import otel

    app = Framework()
    app.register(otel)

The plugin speaks only to the OpenTelemetry API: what becomes of the spans and
measurements (sampling, batching, an OTLP exporter) is the SDK's set-up, made by the
application (or ``opentelemetry-instrument``) as for any other instrumentation. With the
API alone and no SDK, a request is neither extracted nor made current unless it carries
the caller's trace context (``traceparent``...): that context is then made current as
the API's non-recording span, so what the handler calls forwards it. An SDK set later,
after ``ready()`` too (gunicorn's ``post_fork``), traces the next request.

**Traces.** Each request is a server span named ``{METHOD} {route}``: the route's URL as
declared, prefix included (``GET /items/:id``), never the path asked for, so span names
stay a bounded set. A request no route answers (a 404, a 405 under
``method_not_allowed=True``) is named after its method alone (``GET``), without
``http.route``; a method outside the known ones is ``_OTHER`` (span name ``HTTP``), as the
semantic conventions ask. The span carries the stable HTTP semantic conventions:
``http.request.method`` (and ``http.request.method_original`` for ``_OTHER``),
``url.path``, ``url.scheme``, ``http.route``, ``server.address`` and ``server.port`` (from
``request.hostname``), ``client.address`` (``request.ip``: the client as ``trust_proxy``
sees it), ``user_agent.original``, ``network.protocol.version``,
``http.response.status_code``, and ``error.type`` on failures; and the request id as
``request.id``. A sampler sees the method, ``url.path``, ``url.scheme`` and
``http.route`` when the span starts; the others are read only when the span records. A
mounted WSGI application's requests have its mount prefix as ``http.route``.

The caller's trace is joined: ``traceparent``/``tracestate`` and ``baggage`` are read
through the global propagator (``opentelemetry.propagate``, W3C trace context and baggage
by default, ``OTEL_PROPAGATORS`` otherwise). The span is the current span from the first
``on_request`` hook of the registering context to the end of the answer, so the
instrumentation of a database client or of ``requests`` called from a hook or a handler
makes child spans of it; the context is detached when the answer has been sent.

An exception that reaches the error chain is recorded on the span as an event. An answer
of 500 or more sets the span's status to ERROR and ``error.type`` (the exception's class,
else the status code); a 4xx leaves the status unset, as the conventions ask of server
spans. A streamed reply's span ends when the server closes its body, after the last
chunk: a stream that fails after its status went out records the exception and is an
ERROR.

**Log correlation.** Records of the application's logger (``request.log``, the request
log lines, the error lines) emitted during a request carry ``trace_id`` and ``span_id``
(hex, as W3C writes them): the plugin puts :class:`TraceContextFilter` on that logger.
Add one to your own handlers for your own loggers' records.

**Metrics.** Through the global (or given) meter provider, under the stable HTTP
conventions: ``http.server.request.duration`` (histogram, seconds, with
``http.request.method``, ``url.scheme``, ``http.route``, ``http.response.status_code``,
``error.type``), ``http.server.active_requests`` (up-down counter),
``http.server.request.body.size`` and ``http.server.response.body.size`` (histograms,
bytes, when the length is known). For a Prometheus endpoint that adds up gunicorn's
workers, see ``framework.plugins.metrics``. The registering context gets an ``otel_meter``
decorator (the meter, unless ``metrics=False``): ``framework.plugins.under_pressure``
records its figures with it.

Options:

``tracer_provider``, ``meter_provider``
    The providers to use; default: the global ones (``opentelemetry.trace`` and
    ``opentelemetry.metrics``).
``metrics``
    ``True`` (default) records the metrics above; ``False`` records none.
``lifecycle_spans``
    ``True`` adds a child span per lifecycle step, each current while it runs:
    ``validation`` (routes with an input schema: from the registering context's last
    ``pre_validation`` hook to its last ``pre_handler`` hook), ``handler`` (from there
    until the payload is serialized, or reaches the ``on_send`` hooks) and
    ``serialization`` (``pre_serialization`` to ``on_send``); a step that raises records
    the exception and is an ERROR. Default ``False``: no hook is added for them.

A route declared with ``config={"otel": False}`` is neither traced nor measured (a
health check, say). A mistake in the options, or a second registration where one is
already visible, fails ``ready()`` with an :class:`OtelOptionsError`.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import metrics as otel_metrics
from opentelemetry import propagate, trace
from opentelemetry.context import Context as OtelContext
from opentelemetry.propagators.textmap import Getter, TextMapPropagator
from opentelemetry.trace import INVALID_SPAN, NoOpTracer, ProxyTracer, SpanKind, Status, StatusCode

from framework import Context, Reply, Request, plugin
from framework.plugins._http_routes import (DURATION_BUCKETS, OTHER_METHOD, SIZE_BUCKETS, RouteTable, byte_count,
                                            excluded, known_method, route_template)

if TYPE_CHECKING:
    class _TracedRequest(Request):
        """A request where the plugin applies: ``request.otel`` is decorated."""

        otel: "RequestTelemetry | None"

__all__ = ["otel", "OtelOptionsError", "RequestTelemetry", "TraceContextFilter"]

_OPTIONS = ("tracer_provider", "meter_provider", "metrics", "lifecycle_spans")
# A route validates some input (a validation span is worth making).
_INPUT_SCHEMAS = ("body", "querystring", "params", "headers")
_IGNORED = ("prefix",)
_SCOPE = "framework.plugins.otel"


class OtelOptionsError(ValueError):
    """Options the otel plugin cannot work with; raised when it loads (``ready()``)."""


class _EnvironGetter(Getter[Mapping[str, Any]]):
    """Reads propagation headers (``traceparent``...) from a WSGI environ."""

    def get(self, carrier: Mapping[str, Any], key: str) -> list[str] | None:
        value = carrier.get("HTTP_" + key.upper().replace("-", "_"))
        return None if value is None else [value]

    def keys(self, carrier: Mapping[str, Any]) -> list[str]:
        return [key[5:].lower().replace("_", "-") for key in carrier if key.startswith("HTTP_")]


_ENVIRON = _EnvironGetter()
# What the propagator extracts from a request without its headers: a new trace.
_NO_PARENT = OtelContext()


class _PropagationHeaders:
    """Whether a request carries what the global propagator reads (``traceparent``,
    ``tracestate``, ``baggage`` by default): the environ keys of its declared ``fields``,
    worked out again only when another propagator is set."""

    def __init__(self) -> None:
        self.propagator: TextMapPropagator | None = None
        self.keys: tuple[str, ...] = ()

    def carried_by(self, environ: Mapping[str, Any]) -> bool:
        propagator = propagate.get_global_textmap()
        if propagator is not self.propagator:
            self.keys = tuple("HTTP_" + field.upper().replace("-", "_") for field in propagator.fields)
            self.propagator = propagator
        return not environ.keys().isdisjoint(self.keys)  # (looks the few keys up in the environ)


class TraceContextFilter(logging.Filter):
    """A ``logging.Filter`` that puts the current span's ``trace_id`` and ``span_id``
    (lower-case hex) on each record emitted while a span is current; records outside any
    span are left as they are (give ``%(trace_id)s`` formats a default:
    ``logging.Formatter(fmt, defaults={"trace_id": "-", "span_id": "-"})``). It never
    drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "trace_id"):
            span_context = trace.get_current_span().get_span_context()
            if span_context.is_valid:
                record.trace_id = format(span_context.trace_id, "032x")
                record.span_id = format(span_context.span_id, "016x")
        return True


_FILTER = TraceContextFilter()


class RequestTelemetry:
    """What the plugin keeps of one request: ``request.otel`` (``None`` on routes it does
    not trace). ``span`` is the server span (``trace.get_current_span()`` gives it too,
    in a hook or a handler); with the API alone and no trace context in the request, the
    API's invalid span, never made current."""

    __slots__ = ("span", "token", "started", "recorded", "route", "method", "scheme", "step", "step_token")

    def __init__(self, span: trace.Span, token: object | None, route: str | None, method: str, scheme: str) -> None:
        self.span = span
        self.token = token
        self.started = time.perf_counter()
        #: The exception the error chain recorded on the span, if any.
        self.recorded: BaseException | None = None
        self.route = route
        self.method = method
        self.scheme = scheme
        #: ``lifecycle_spans=True``: the lifecycle step's span (current while it runs), if one is open.
        self.step: trace.Span | None = None
        self.step_token: object = None


class _Route:
    """What a route's requests are named and labelled with, worked out once per route."""

    __slots__ = ("template", "traced", "names", "validates")

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.template = route_template(options)
        self.traced = not excluded(options, "otel")
        schema: object = options.get("schema")
        self.validates = isinstance(schema, dict) and any(key in schema for key in _INPUT_SCHEMAS)
        #: Span name by method (a bounded set: the known methods and ``_OTHER``).
        self.names: dict[str, str] = {}

    def name(self, method: str) -> str:
        name = self.names.get(method)
        if name is None:
            base = "HTTP" if method == OTHER_METHOD else method
            name = self.names[method] = base if self.template is None else f"{base} {self.template}"
        return name


def _split_host(host: str) -> tuple[str, int | None]:
    """``server.address`` and ``server.port`` from a ``Host`` value (``[::1]:80`` included)."""
    address, colon, port = host.rpartition(":")
    if colon and port.isascii() and port.isdigit() and not address.endswith(":"):  # ("²".isdigit(): int refuses it)
        return address.strip("[]"), int(port)
    return host.strip("[]"), None


class _Telemetry:
    """One registration: its tracer, its instruments and its hooks."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
        if unknown:
            raise OtelOptionsError(f"otel: unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
        record_metrics = options.get("metrics", True)
        if not isinstance(record_metrics, bool):
            raise OtelOptionsError(f"otel: metrics has to be True or False, not {record_metrics!r}")
        lifecycle_spans = options.get("lifecycle_spans", False)
        if not isinstance(lifecycle_spans, bool):
            raise OtelOptionsError(f"otel: lifecycle_spans has to be True or False, not {lifecycle_spans!r}")
        self.lifecycle_spans = lifecycle_spans
        tracer_provider = options.get("tracer_provider")
        if tracer_provider is not None and not callable(getattr(tracer_provider, "get_tracer", None)):
            raise OtelOptionsError("otel: tracer_provider has to be an opentelemetry TracerProvider")
        meter_provider = options.get("meter_provider")
        if meter_provider is not None and not callable(getattr(meter_provider, "get_meter", None)):
            raise OtelOptionsError("otel: meter_provider has to be an opentelemetry MeterProvider")
        self.tracer = trace.get_tracer(_SCOPE, tracer_provider=tracer_provider)
        # No SDK yet: the API's proxy tracer (it delegates to the SDK's once
        # trace.set_tracer_provider is called, which can happen once only, after ready()
        # too: gunicorn's post_fork) or its no-op one. Until a span comes back valid, a
        # request that carries no trace context is not extracted nor made current: the
        # API's no-op would answer with the invalid span, to no effect.
        self.no_sdk_yet = isinstance(self.tracer, (ProxyTracer, NoOpTracer))
        self.propagation = _PropagationHeaders()
        self.metrics = record_metrics
        meter = otel_metrics.get_meter(_SCOPE, meter_provider=meter_provider)
        self.meter = meter
        self.duration = meter.create_histogram(
            "http.server.request.duration", unit="s", description="Duration of HTTP server requests.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS)
        self.active = meter.create_up_down_counter(
            "http.server.active_requests", unit="{request}",
            description="Number of active HTTP server requests.")
        self.request_size = meter.create_histogram(
            "http.server.request.body.size", unit="By", description="Size of HTTP server request bodies.",
            explicit_bucket_boundaries_advisory=SIZE_BUCKETS)
        self.response_size = meter.create_histogram(
            "http.server.response.body.size", unit="By", description="Size of HTTP server response bodies.",
            explicit_bucket_boundaries_advisory=SIZE_BUCKETS)
        self.routes = RouteTable(_Route)

    def on_request(self, request: "_TracedRequest", reply: Reply) -> None:
        """Start the server span and make it current; count the request as active."""
        route = self.routes[request.route_options]
        if not route.traced:
            return
        environ = request.environ
        method = environ["REQUEST_METHOD"]
        known = known_method(method)
        scheme = request.protocol
        # What a sampler sees when the span starts; the rest only if the span records
        # (with the API alone and no SDK, it does not: nothing more is read).
        attributes: dict[str, Any] = {"http.request.method": known, "url.path": request.path, "url.scheme": scheme}
        if route.template is not None:
            attributes["http.route"] = route.template
        name = route.name(known)
        if self.no_sdk_yet and not self.propagation.carried_by(environ):
            # What extract() would give: no parent. Without an SDK the API answers with
            # the invalid span: nothing to record, nothing to make current (a span of the
            # caller's, when the request carries one, is made current below: passed through).
            span = self.tracer.start_span(name, context=_NO_PARENT, kind=SpanKind.SERVER, attributes=attributes)
            if span is INVALID_SPAN:
                request.otel = RequestTelemetry(span, None, route.template, known, scheme)
                if self.metrics:
                    self.active.add(1, {"http.request.method": known, "url.scheme": scheme})
                return
            self.no_sdk_yet = False  # set once for the process: the SDK's from now on
            parent = _NO_PARENT
        else:
            parent = propagate.extract(environ, getter=_ENVIRON)
            span = self.tracer.start_span(name, context=parent, kind=SpanKind.SERVER, attributes=attributes)
        if span.is_recording():
            span.set_attributes(_details(request, environ, method, known))
        token = otel_context.attach(trace.set_span_in_context(span, parent))
        request.otel = RequestTelemetry(span, token, route.template, known, scheme)
        if self.metrics:
            self.active.add(1, {"http.request.method": known, "url.scheme": scheme})
        span_context = span.get_span_context()
        log = vars(request).get("log")
        if log is not None and span_context.is_valid:
            # request.log is made lazily; it exists already when request logging wrote
            # "incoming request" with it, and its "request completed" line comes after this
            # span has ended: its own fields carry the ids then.
            log.extra = {**log.extra, "trace_id": format(span_context.trace_id, "032x"),
                         "span_id": format(span_context.span_id, "016x")}

    def on_error(self, request: "_TracedRequest", reply: Reply, error: Exception) -> None:
        """Record an exception the error chain answers."""
        telemetry: RequestTelemetry | None = request.otel
        if telemetry is not None and telemetry.recorded is not error:
            telemetry.recorded = error
            if telemetry.step is not None:  # the step that raised it
                telemetry.step.record_exception(error)
                telemetry.step.set_status(Status(StatusCode.ERROR))
                _end_step(telemetry)
            telemetry.span.record_exception(error)

    def on_response(self, request: "_TracedRequest", reply: Reply) -> None:
        """The answer has gone out (a stream: its last chunk): end the span, detach its
        context, record the measurements."""
        telemetry: RequestTelemetry | None = request.otel
        if telemetry is None:
            return
        request.otel = None  # once only, whatever happens below
        if telemetry.step is not None:
            _end_step(telemetry)
        span = telemetry.span
        status = reply.status_code
        error_type: str | None = None
        recorded = telemetry.recorded
        failure = reply.error  # the error answered, or a stream's after its status went out
        if failure is not None and failure is not recorded:  # (raised by an error handler, or by a stream)
            span.record_exception(failure)
            recorded = recorded or failure
        if status >= 500:
            error_type = _qualified_name(recorded) if recorded is not None else str(status)
        elif failure is not None and status < 400:
            error_type = _qualified_name(failure)  # a stream cut short: the client got part of it
        if telemetry.token is not None:  # (None: the API's invalid span, never made current)
            span.set_attribute("http.response.status_code", status)
            if error_type is not None:
                span.set_attribute("error.type", error_type)
                span.set_status(Status(StatusCode.ERROR))
            span.end()
            otel_context.detach(telemetry.token)  # type: ignore[arg-type]  # the token attach() gave
        if self.metrics:
            elapsed = time.perf_counter() - telemetry.started
            method, scheme = telemetry.method, telemetry.scheme
            self.active.add(-1, {"http.request.method": method, "url.scheme": scheme})
            attributes: dict[str, Any] = {"http.request.method": method, "url.scheme": scheme,
                                          "http.response.status_code": status}
            if telemetry.route is not None:
                attributes["http.route"] = telemetry.route
            if error_type is not None:
                attributes["error.type"] = error_type
            self.duration.record(elapsed, attributes)
            received = byte_count(request.environ.get("CONTENT_LENGTH"))
            if received is not None:
                self.request_size.record(received, attributes)
            sent = byte_count(reply.get_header("content-length"))
            if sent is not None:
                self.response_size.record(sent, attributes)


class _LifecycleSpans:
    """``lifecycle_spans=True``: a child span of the server span for each step, current
    while it runs. ``validation`` goes from the registering context's last
    ``pre_validation`` hook to its last ``pre_handler`` hook (routes with an input schema
    only), ``handler`` from there to the payload's serialization or ``on_send`` hooks, and
    ``serialization`` from the ``pre_serialization`` hooks to the ``on_send`` hooks."""

    def __init__(self, telemetry: _Telemetry) -> None:
        self.tracer = telemetry.tracer
        self.routes = telemetry.routes

    def _begin(self, request: "_TracedRequest", name: str) -> None:
        telemetry = request.otel
        if telemetry is None:
            return
        if telemetry.step is not None:
            _end_step(telemetry)
        step = self.tracer.start_span(name)  # the server span is current: its child
        telemetry.step = step
        telemetry.step_token = otel_context.attach(trace.set_span_in_context(step))

    def validation(self, request: "_TracedRequest", reply: Reply) -> None:
        """``pre_validation``: the validation span starts."""
        if self.routes[request.route_options].validates:
            self._begin(request, "validation")

    def handler(self, request: "_TracedRequest", reply: Reply) -> None:
        """``pre_handler``: the handler span starts."""
        self._begin(request, "handler")

    def serialization(self, request: "_TracedRequest", reply: Reply, payload: Any) -> Any:
        """``pre_serialization``: the serialization span starts."""
        self._begin(request, "serialization")
        return payload

    def sent(self, request: "_TracedRequest", reply: Reply, payload: Any) -> Any:
        """``on_send``: the handler's or the serialization's span ends."""
        telemetry = request.otel
        if telemetry is not None and telemetry.step is not None:
            _end_step(telemetry)
        return payload


def _end_step(telemetry: RequestTelemetry) -> None:
    step = telemetry.step
    if step is not None:
        telemetry.step = None
        step.end()
        otel_context.detach(telemetry.step_token)  # type: ignore[arg-type]  # the token attach() gave


def _details(request: Request, environ: Mapping[str, Any], method: str, known: str) -> dict[str, Any]:
    """The span's other request attributes."""
    details: dict[str, Any] = {"request.id": request.id}
    if known == OTHER_METHOD:
        details["http.request.method_original"] = method
    host = request.hostname
    if host:
        details["server.address"], port = _split_host(host)
        if port is not None:
            details["server.port"] = port
    client = request.ip
    if client:
        details["client.address"] = client
    agent = environ.get("HTTP_USER_AGENT")
    if agent:
        details["user_agent.original"] = agent
    protocol: str = environ.get("SERVER_PROTOCOL", "")
    if protocol.startswith("HTTP/"):
        details["network.protocol.version"] = protocol[5:]
    return details


def _qualified_name(error: BaseException) -> str:
    kind = type(error)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _otel(instance: Context, opts: Mapping[str, Any]) -> None:
    if instance.has_request_decorator("otel"):
        raise OtelOptionsError("otel: already registered in this context or an ancestor (one server span "
                               "per request)")
    telemetry = _Telemetry(dict(opts or {}))
    instance.decorate_request("otel", None)
    if telemetry.metrics:
        # The meter the context's other plugins record with (framework.plugins.under_pressure).
        instance.decorate("otel_meter", telemetry.meter)
    # First among this context's hooks: the span is current around the others.
    instance.add_hook("on_request", telemetry.on_request, first=True)
    instance.add_hook("on_error", telemetry.on_error, first=True)
    instance.add_hook("on_response", telemetry.on_response)
    if telemetry.lifecycle_spans:
        steps = _LifecycleSpans(telemetry)
        # Last of this context's hooks before the step, first of those after it.
        instance.add_hook("pre_validation", steps.validation)
        instance.add_hook("pre_handler", steps.handler)
        instance.add_hook("pre_serialization", steps.serialization, first=True)
        instance.add_hook("on_send", steps.sent, first=True)
    logger = instance.log
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)


_otel.__doc__ = __doc__
#: The plugin: ``register(otel)``. Runs in the registering context.
otel = plugin(_otel, name="otel")
