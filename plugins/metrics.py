"""Prometheus metrics (the fastify-metrics plugin), on ``prometheus-client``.

``metrics`` is wrapped with ``plugin(...)``, like ``cors``: it measures the routes of the
context that registers it and of that context's descendants (register it on the root to
measure every request, 404s included), and serves the scrape endpoint there::

    from framework import Framework
    from framework.plugins.metrics import metrics

    app = Framework()
    app.register(metrics, path="/metrics")

``GET /metrics`` answers Prometheus' text format with, for every route:

``http_server_request_duration_seconds`` (histogram; labels ``method``, ``route``, ``status``)
    The time from the first ``on_request`` hook of the registering context to the end
    of the answer (a stream: its last chunk). Its ``_count`` is the number of requests.
``http_server_request_body_size_bytes``, ``http_server_response_body_size_bytes`` (histograms, same labels)
    The bodies' ``Content-Length``, when there is one (a streamed answer has none).
``http_server_active_requests`` (gauge; label ``method``)
    The requests being answered.
``framework_response_drift_total`` (counter; labels ``route``, ``status``, ``pointer``)
    Only in an application made with ``Framework(response_check=rate)``: the drifts its
    sampled response checks found (see the response schemas guide), by route (``GET
    /items/:id``), status and JSON pointer (``/secret``). The pointers are those of the
    findings the application keeps (at most 1,000); one beyond them has ``pointer=""``.

``route`` is the route as declared, with its context's prefix (``/items/:id``; a mounted
application: its mount prefix), never the path asked for; every request that no route
answers (a 404, a 405) has ``route=""``, and a method outside the known ones is
``_OTHER``: however many paths clients try, the label sets stay bounded by the routes.
A route declared with ``config={"metrics": False}`` is not measured; the endpoint itself
is not (nor refused by ``framework.plugins.under_pressure``: a worker under pressure is
still scraped). The registering context gets a ``metrics_registry`` decorator: the
registry given (where ``under_pressure`` puts its figures, and where your own metrics go).

**Several worker processes.** Each gunicorn (or granian) worker is a process with its own
counters; a scrape reaches one of them. Set ``PROMETHEUS_MULTIPROC_DIR`` to an empty
directory in the environment the server starts with (before anything imports
``prometheus_client``): each worker then writes its values to files there, and the
endpoint, whichever worker answers it, reads them all and answers the sum over the
workers (``prometheus_client``'s multiprocess mode). Under gunicorn, have ``child_exit``
call ``prometheus_client.multiprocess.mark_process_dead(worker.pid)`` so a dead worker's
active requests leave the gauge (see the deployment guide). The plugin also does so
itself when a worker closes the application normally (``on_close``), which is what covers
granian, which has no such hook. Empty the directory when the server (re)starts.

Options:

``path``
    The endpoint's path, under the registering context's prefix (default ``"/metrics"``);
    ``None`` declares no endpoint (serve ``registry`` some other way).
``registry``
    A ``prometheus_client.CollectorRegistry`` to register the metrics in and to serve
    (default ``prometheus_client.REGISTRY``, which also holds the process metrics and the
    application's own). In multiprocess mode the endpoint serves every worker's values of
    every metric instead.
``buckets``
    The duration histogram's bucket bounds in seconds (default: those the OpenTelemetry
    conventions advise, 5 ms to 10 s).

Registering the plugin for several applications in one process with the same registry
shares the metrics (their series add up); give each its own ``registry`` to keep them
apart. A mistake in the options (or ``PROMETHEUS_MULTIPROC_DIR`` naming no directory, or
set after ``prometheus_client`` was imported) fails ``ready()`` with a
:class:`MetricsOptionsError`.
"""
from __future__ import annotations

import glob
import os
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess, values
from prometheus_client.exposition import choose_encoder

from framework import Context, Reply, Request, plugin
from framework.plugins._http_routes import DURATION_BUCKETS as _OTEL_DURATION_BUCKETS
from framework.plugins._http_routes import SIZE_BUCKETS, RouteTable, byte_count, excluded, known_method, route_template

if TYPE_CHECKING:
    class _MeasuredRequest(Request):
        """A request where the plugin applies: ``request.metrics_started`` is decorated."""

        metrics_started: float | None

__all__ = ["metrics", "MetricsOptionsError", "DURATION_BUCKETS"]

_OPTIONS = ("path", "registry", "buckets")
#: The duration histogram's default bounds (seconds): the OpenTelemetry HTTP conventions' advice
#: (the bounds ``framework.plugins.otel`` records with).
DURATION_BUCKETS: tuple[float, ...] = _OTEL_DURATION_BUCKETS
_IGNORED = ("prefix",)
_LABELS = ("method", "route", "status")


class MetricsOptionsError(ValueError):
    """Options the metrics plugin cannot work with; raised when it loads (``ready()``)."""


def _refuse(message: str) -> MetricsOptionsError:
    return MetricsOptionsError(f"metrics: {message}")


class _Families:
    """The plugin's metrics in one registry."""

    def __init__(self, registry: CollectorRegistry, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.duration = Histogram("http_server_request_duration_seconds", "Duration of HTTP server requests.",
                                  _LABELS, buckets=buckets, registry=registry)
        self.request_size = Histogram("http_server_request_body_size_bytes", "Size of HTTP server request bodies.",
                                      _LABELS, buckets=SIZE_BUCKETS, registry=registry)
        self.response_size = Histogram("http_server_response_body_size_bytes",
                                       "Size of HTTP server response bodies.", _LABELS, buckets=SIZE_BUCKETS,
                                       registry=registry)
        # livesum: the sum over the workers alive (multiprocess mode).
        self.active = Gauge("http_server_active_requests", "Number of active HTTP server requests.", ("method",),
                            registry=registry, multiprocess_mode="livesum")
        self.registry = registry
        self._drift: Counter | None = None

    def drift(self) -> Counter:
        """The response drift counter, made on first use: an application without
        ``response_check`` shows no such metric."""
        with _families_lock:
            if self._drift is None:
                self._drift = Counter("framework_response_drift", "Response drift found by the sampled response checks.",
                                      ("route", "status", "pointer"), registry=self.registry)
            return self._drift


_families: "weakref.WeakKeyDictionary[CollectorRegistry, _Families]" = weakref.WeakKeyDictionary()
_families_lock = threading.Lock()


def _families_in(registry: CollectorRegistry, buckets: tuple[float, ...]) -> _Families:
    with _families_lock:
        families = _families.get(registry)
        if families is None:
            families = _families[registry] = _Families(registry, buckets)
        elif families.buckets != buckets:
            raise _refuse(f"this registry already holds the metrics with buckets {families.buckets}, "
                          f"not {buckets}: give each its own registry")
        return families


def _multiprocess_dir() -> str | None:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        return None
    if not os.path.isdir(directory):
        raise _refuse(f"PROMETHEUS_MULTIPROC_DIR={directory!r} is not a directory: create it (empty) "
                      "before the server starts")
    if values.ValueClass is values.MutexValue:
        raise _refuse("PROMETHEUS_MULTIPROC_DIR was set after prometheus_client was imported, so this "
                      "process counts alone: set it in the server's environment")
    return directory


def _buckets(value: object) -> tuple[float, ...]:
    if value is None:
        return DURATION_BUCKETS
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
        raise _refuse(f"buckets has to be a non-empty list of increasing numbers of seconds, not {value!r}")
    bounds: list[float] = []
    for bound in value:  # pyright: ignore[reportUnknownVariableType]  # checked item by item
        if isinstance(bound, bool) or not isinstance(bound, (int, float)) or bound <= 0:
            raise _refuse(f"buckets: {bound!r} is not a positive number of seconds")
        if bounds and bound <= bounds[-1]:
            raise _refuse("buckets have to be increasing")
        bounds.append(float(bound))
    return tuple(bounds)


class _Route:
    """A route's label and whether it is measured, worked out once per route."""

    __slots__ = ("label", "measured")

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.label = route_template(options) or ""
        self.measured = not excluded(options, "metrics")


class _Measure:
    """One registration: its metrics and hooks."""

    def __init__(self, families: _Families) -> None:
        self.families = families
        self.routes = RouteTable(_Route)

    def on_request(self, request: "_MeasuredRequest", reply: Reply) -> None:
        """Count the request as active; note when it started."""
        if self.routes[request.route_options].measured:
            request.metrics_started = time.perf_counter()
            self.families.active.labels(known_method(request.environ["REQUEST_METHOD"])).inc()

    def on_response(self, request: "_MeasuredRequest", reply: Reply) -> None:
        """The answer has gone out: observe its duration and sizes."""
        started = request.metrics_started
        if started is None:
            return
        request.metrics_started = None
        elapsed = time.perf_counter() - started
        families = self.families
        method = known_method(request.environ["REQUEST_METHOD"])
        families.active.labels(method).dec()
        labels = (method, self.routes[request.route_options].label, str(reply.status_code))
        families.duration.labels(*labels).observe(elapsed)
        received = byte_count(request.environ.get("CONTENT_LENGTH"))
        if received is not None:
            families.request_size.labels(*labels).observe(received)
        sent = byte_count(reply.get_header("content-length"))
        if sent is not None:
            families.response_size.labels(*labels).observe(sent)


class _Endpoint:
    """``GET path``: the registry's metrics (every worker's, in multiprocess mode)."""

    __slots__ = ("registry", "multiprocess", "directory")

    def __init__(self, registry: CollectorRegistry, multiprocess_dir: str | None) -> None:
        self.registry = registry
        self.multiprocess = multiprocess_dir is not None
        self.directory = multiprocess_dir or ""

    def __call__(self, request: Request, reply: Reply) -> Reply:
        registry = self.registry
        if self.multiprocess:
            # A registry per scrape holding only the files' values (prometheus_client's advice:
            # one that live metrics never register in).
            registry = CollectorRegistry()
            registry.register(_WorkerFilesCollector(self.directory))
        # The text format, or OpenMetrics when the scraper's Accept asks for it.
        encode, content_type = choose_encoder(request.environ.get("HTTP_ACCEPT", ""))
        return reply.type(content_type).send(encode(registry))


class _WorkerFilesCollector(multiprocess.MultiProcessCollector):
    """prometheus_client's multiprocess collector, less the files a booting worker has
    created but not yet sized. Such a file is empty for an instant, and reading it raised, so
    a scrape that raced a worker's start answered 500."""

    def __init__(self, directory: str) -> None:
        super().__init__(None, path=directory)  # type: ignore[no-untyped-call]
        self.directory = directory

    def collect(self) -> Any:
        files: list[str] = []
        for path in glob.glob(os.path.join(self.directory, "*.db")):
            try:
                if os.path.getsize(path) >= 8:  # the used-bytes header, written with the file's size
                    files.append(path)
            except OSError:
                continue  # removed meanwhile (mark_process_dead)
        return self.merge(files, accumulate=True)  # type: ignore[no-untyped-call]


def _mark_dead(instance: Context) -> None:
    """``on_close``: this worker's live gauges leave the sum (multiprocess mode)."""
    multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]  # pyright: ignore[reportUnknownMemberType]


def _metrics(instance: Context, opts: Mapping[str, Any]) -> None:
    options = dict(opts or {})
    unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
    if unknown:
        raise _refuse(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
    path = options.get("path", "/metrics")
    if path is not None and (not isinstance(path, str) or not path.startswith("/")):
        raise _refuse(f"path has to be a path starting with '/' (or None for no endpoint), not {path!r}")
    registry = options.get("registry", REGISTRY)
    if not isinstance(registry, CollectorRegistry):
        raise _refuse(f"registry has to be a prometheus_client.CollectorRegistry, not {type(registry).__name__}")
    if instance.has_request_decorator("metrics_started"):
        raise _refuse("already registered in this context or an ancestor (each request is measured once)")
    directory = _multiprocess_dir()
    families = _families_in(registry, _buckets(options.get("buckets")))
    measure = _Measure(families)
    if instance.response_check:
        drift = families.drift()
        instance.on_response_drift(
            lambda route, status, pointer: drift.labels(route, str(status), pointer or "").inc())
    instance.decorate_request("metrics_started", None)
    instance.decorate("metrics_registry", registry)
    instance.add_hook("on_request", measure.on_request, first=True)
    instance.add_hook("on_response", measure.on_response)
    if path is not None:
        instance.get(path, handler=_Endpoint(registry, directory), config={"metrics": False, "under_pressure": False})
    if directory is not None:
        instance.add_hook("on_close", _mark_dead)


_metrics.__doc__ = __doc__
#: The plugin: ``register(metrics, path="/metrics")``. Runs in the registering context.
metrics = plugin(_metrics, name="metrics")
