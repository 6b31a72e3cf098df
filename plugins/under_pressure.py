"""Overload protection (the @fastify/under-pressure plugin): refuse new requests with 503
and ``Retry-After`` while a worker is overloaded, instead of letting them queue.

``under_pressure`` is wrapped with ``plugin(...)``: it guards the routes of the context
that registers it and of that context's descendants::

    from framework import Framework
    from framework.plugins.under_pressure import under_pressure

    app = Framework()
    app.register(under_pressure, max_in_flight=32, max_rss_bytes=512 * 2**20, max_p99_latency=2.0)

    # while over a limit:
    # GET /anything  -> 503 {"statusCode": 503, "code": "FST_UNDER_PRESSURE", "error": "Service Unavailable",
    #                        "message": "Service Unavailable: too many requests in flight (max_in_flight=32)"}
    #                   Retry-After: 10

Every limit is per worker process (each worker of a gunicorn or granian server counts its
own), and each is off unless given:

``max_in_flight``
    Requests of the guarded routes being answered at once (from their ``on_request`` to
    their ``on_response``, the body sent). For threaded workers (gunicorn ``gthread``,
    granian): a request over the limit is refused at once rather than queued behind the
    others. (A gunicorn ``sync`` worker answers one request at a time: the limit is moot.)
``max_rss_bytes``
    The worker's resident memory (read with psutil: ``pip install 'framework[pressure]'``).
``max_p99_latency``
    Seconds: the 99th percentile of the durations (``on_request`` to ``on_response``) of
    the guarded requests that completed in the last ``latency_window`` seconds (10), at
    most the last ``window`` of them (1,000). Old samples age out, so a worker refusing
    everything for latency recovers once the window has passed.
``sample_interval``
    Seconds between two readings of the memory and the percentile (default 1.0): a
    request never computes them, except the first after the interval has passed (one
    thread, the others do not wait for it).
``retry_after``
    The ``Retry-After`` seconds of a refusal (default 10).

Refusals are sent by the plugin's ``on_request`` hook, which goes before the hooks its
context added earlier (no authentication or body parsing is spent on a refused request).
A route declared with ``config={"under_pressure": False}`` is never refused nor counted:
the routes of ``framework.plugins.health`` are declared so. The registering context gets
a ``pressure()`` decorator: the worker's current figures and limits (``app.pressure()``,
see :meth:`Pressure.status`). A mistake in the options fails ``ready()`` with an
``UnderPressureOptionsError``.

When ``prometheus_client`` is installed, the figures are Prometheus metrics in the registry
``framework.plugins.metrics`` serves (the one it was given as ``registry=`` when the context
sees it, else ``prometheus_client.REGISTRY``; in multiprocess mode, the worker's files):

``framework_pressure_in_flight`` (gauge; multiprocess: ``livesum``, the sum over the workers)
    The guarded requests being answered.
``framework_pressure_rss_bytes``, ``framework_pressure_p99_latency_seconds`` (gauges; multiprocess: ``liveall``)
    The memory and the latency percentile, when watched (``NaN`` while too few samples).
    Multiprocess mode keeps one series per live worker (a ``pid`` label), as the limits
    are per worker; a dead worker's series leave with it.
``framework_pressure_refused_total`` (counter; label ``limit``: ``in_flight``, ``rss`` or ``p99``)
    The requests refused, by the limit that refused them.

When the context sees ``framework.plugins.otel`` (with its metrics on), the same figures
are OpenTelemetry instruments of its meter: observable gauges ``framework.pressure.in_flight``,
``framework.pressure.memory.rss`` and ``framework.pressure.p99_latency`` (observed when the
reader collects; none while a figure is unknown), and the counter
``framework.pressure.refused`` (attribute ``limit``).
"""
from __future__ import annotations

import functools
import importlib.util
import math
import os
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Callable

from framework import Context, Reply, Request, plugin
from framework.errors import create_error

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry, Counter, Gauge
    from prometheus_client.metrics_core import Metric

__all__ = ["under_pressure", "Pressure", "UnderPressureError", "UnderPressureOptionsError"]

#: The refusal: 503, ``Retry-After``; the message says which limit.
UnderPressureError = create_error("FST_UNDER_PRESSURE", "Service Unavailable: %s", 503)

_OPTIONS = ("max_in_flight", "max_rss_bytes", "max_p99_latency", "sample_interval", "latency_window", "window",
            "retry_after")
_IGNORED = ("prefix",)
#: Where a counted request keeps its start time (the environ: a plain dict every request has).
_STARTED = "framework.under_pressure.started"
#: A percentile needs some samples: below this many, latency never counts as pressure.
MIN_SAMPLES = 20
#: The refused counter's ``limit`` label, per limit (three values: a bounded label set).
_IN_FLIGHT, _RSS, _P99 = "in_flight", "rss", "p99"


class UnderPressureOptionsError(ValueError):
    """Options the plugin cannot work with; raised when it loads (``ready()``)."""


def _refuse(message: str) -> UnderPressureOptionsError:
    return UnderPressureOptionsError(f"under_pressure: {message}")


def _number(options: Mapping[str, Any], name: str, default: float | None, integer: bool = False) -> Any:
    value = options.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)) \
            or not math.isfinite(value) or value <= 0:
        kind = "a positive integer" if integer else "a positive number"
        raise _refuse(f"{name} must be {kind}, got {value!r}")
    return value


def _rss_reader() -> Callable[[], int]:
    try:
        import psutil
    except ImportError:
        raise _refuse("max_rss_bytes reads the memory with psutil: pip install 'framework[pressure]'") from None
    process = psutil.Process()
    return lambda: int(process.memory_info().rss)


class Pressure:
    """One registration's limits and the worker's figures; its hooks count the requests."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        unknown = [key for key in options if key not in _OPTIONS and key not in _IGNORED]
        if unknown:
            raise _refuse(f"unknown option(s) {', '.join(map(repr, unknown))}; known: {', '.join(_OPTIONS)}")
        self.max_in_flight: int | None = _number(options, "max_in_flight", None, integer=True)
        self.max_rss_bytes: int | None = _number(options, "max_rss_bytes", None, integer=True)
        self.max_p99_latency: float | None = _number(options, "max_p99_latency", None)
        self.sample_interval = float(_number(options, "sample_interval", 1.0))
        self.latency_window = float(_number(options, "latency_window", 10.0))
        window: int = _number(options, "window", 1000, integer=True)
        retry_after = _number(options, "retry_after", 10, integer=True)
        self.retry_after = str(retry_after)
        self.read_rss = _rss_reader() if self.max_rss_bytes is not None else None
        self.in_flight = 0
        self.lock = threading.Lock()
        # The ring of recent latencies: (end time, duration) of the last ``window`` requests.
        self.ends = [-math.inf] * window
        self.durations = [0.0] * window
        self.recorded = 0
        self.rss_bytes: int | None = None
        self.p99_latency: float | None = None
        # Nothing to sample without those limits: never (an infinite "last time").
        self.sampled_at = -math.inf if self.read_rss is not None or self.max_p99_latency is not None else math.inf
        self.sampling = threading.Lock()
        #: Why the worker is over a limit when sampled: (the refusal's message, the first limit
        #: exceeded: the refused counter's label), or ``None``. One attribute, so that a request
        #: reads both from the same sample.
        self.sampled_refusal: tuple[str, str] | None = None
        # Prometheus, when installed (see _export): the in-flight gauge a request updates (in
        # multiprocess mode only; a single process reads ``in_flight`` when scraped), the
        # refused counter's series by limit, and what to tell once sampled.
        self.in_flight_gauge: Gauge | None = None
        self.refused: dict[str, list[Callable[[], Any]]] = {limit: [] for limit in self.limits_watched()}
        self.on_sampled: Callable[[], None] | None = None

    def limits_watched(self) -> list[str]:
        """The ``limit`` labels of the limits set."""
        return [limit for limit, value in ((_IN_FLIGHT, self.max_in_flight), (_RSS, self.max_rss_bytes),
                                           (_P99, self.max_p99_latency)) if value is not None]

    # The hooks.
    def on_request(self, request: Request, reply: Reply) -> Reply | None:
        """Count the request in, or refuse it (503, ``Retry-After``) when over a limit."""
        config = request.route_options.get("config")
        if config and config.get("under_pressure") is False:
            return None
        now = time.perf_counter()
        if now - self.sampled_at >= self.sample_interval:
            self.sample(now)
        sampled = self.sampled_refusal
        if sampled is None:
            with self.lock:
                admitted = self.max_in_flight is None or self.in_flight < self.max_in_flight
                if admitted:
                    self.in_flight += 1
            if admitted:
                request.environ[_STARTED] = now
                if self.in_flight_gauge is not None:
                    self.in_flight_gauge.inc()
                return None
            reason, limit = f"too many requests in flight (max_in_flight={self.max_in_flight})", _IN_FLIGHT
        else:
            reason, limit = sampled
        for count in self.refused[limit]:
            count()
        error = UnderPressureError(reason)
        return reply.code(503).header("retry-after", self.retry_after).send(
            {"statusCode": 503, "code": error.code, "error": "Service Unavailable", "message": error.message})

    def on_response(self, request: Request, reply: Reply) -> None:
        """Count a request out, and note how long it took."""
        started = request.environ.pop(_STARTED, None)
        if started is None:
            return  # refused, exempt, or sent by a hook before ours
        now = time.perf_counter()
        if self.in_flight_gauge is not None:
            self.in_flight_gauge.dec()
        with self.lock:
            self.in_flight -= 1
            if self.max_p99_latency is None:
                return
            slot = self.recorded % len(self.ends)
            self.recorded += 1
            self.ends[slot] = now
            self.durations[slot] = now - started

    # The figures.
    def sample(self, now: float) -> None:
        """Read the memory and the latency percentile again (one thread at a time; a request
        that finds another sampling goes on with the last figures)."""
        if not self.sampling.acquire(blocking=False):
            return
        try:
            reasons: list[str] = []
            limits: list[str] = []
            if self.read_rss is not None and self.max_rss_bytes is not None:
                self.rss_bytes = self.read_rss()
                if self.rss_bytes > self.max_rss_bytes:
                    reasons.append(f"memory over {self.max_rss_bytes} bytes (max_rss_bytes)")
                    limits.append(_RSS)
            if self.max_p99_latency is not None:
                since = now - self.latency_window
                with self.lock:
                    recent = sorted(duration for end, duration in zip(self.ends, self.durations) if end >= since)
                self.p99_latency = recent[math.ceil(0.99 * len(recent)) - 1] if len(recent) >= MIN_SAMPLES else None
                if self.p99_latency is not None and self.p99_latency > self.max_p99_latency:
                    reasons.append(f"p99 latency over {self.max_p99_latency:g} s (max_p99_latency)")
                    limits.append(_P99)
            self.sampled_refusal = ("; ".join(reasons), limits[0]) if reasons else None
            self.sampled_at = now
            if self.on_sampled is not None:
                self.on_sampled()
        finally:
            self.sampling.release()

    def refresh(self) -> None:
        """Sample again if ``sample_interval`` has passed (a scrape's figures are current)."""
        now = time.perf_counter()
        if now - self.sampled_at >= self.sample_interval:
            self.sample(now)

    def status(self) -> dict[str, Any]:
        """``app.pressure()``: ``{"under_pressure": bool, "reason": str | None, "in_flight": int,
        "rss_bytes": int | None, "p99_latency": float | None, "limits": {...}}`` for this worker
        (memory and latency as last sampled; ``None`` when not watched or too few samples)."""
        with self.lock:
            in_flight = self.in_flight
        reason = self.sampled_refusal[0] if self.sampled_refusal is not None else None
        if reason is None and self.max_in_flight is not None and in_flight >= self.max_in_flight:
            reason = f"too many requests in flight (max_in_flight={self.max_in_flight})"
        return {"under_pressure": reason is not None, "reason": reason, "in_flight": in_flight,
                "rss_bytes": self.rss_bytes, "p99_latency": self.p99_latency,
                "limits": {"max_in_flight": self.max_in_flight, "max_rss_bytes": self.max_rss_bytes,
                           "max_p99_latency": self.max_p99_latency}}


# Prometheus (when prometheus_client is installed).
_IN_FLIGHT_METRIC = ("framework_pressure_in_flight", "Requests being answered by the routes under_pressure guards.")
_RSS_METRIC = ("framework_pressure_rss_bytes", "Resident memory of the worker, as under_pressure last sampled it.")
_P99_METRIC = ("framework_pressure_p99_latency_seconds",
               "99th percentile of recent guarded request durations, as under_pressure last sampled it "
               "(NaN: too few samples).")
_REFUSED_METRIC = ("framework_pressure_refused", "Requests under_pressure refused, by the limit that refused them.")


def _figures(pressures: list[Pressure]) -> tuple[int, float | None, float | None]:
    """The in-flight requests, the memory and the p99 latency over some registrations:
    the sum, the largest known figure (``NaN``: watched, none known yet), ``None``: not
    watched by any."""
    def largest(figures: list[float | None]) -> float:
        known = [figure for figure in figures if figure is not None]
        return max(known) if known else math.nan

    rss = [float(p.rss_bytes) if p.rss_bytes is not None else None for p in pressures if p.read_rss is not None]
    p99 = [p.p99_latency for p in pressures if p.max_p99_latency is not None]
    return (sum(p.in_flight for p in pressures), largest(rss) if rss else None, largest(p99) if p99 else None)


class _Export:
    """The pressure metrics of the registrations that share one scrape (the registrations
    of one process on one registry, or in multiprocess mode all of this process's): one
    set per registry, so that no metric is registered twice, whatever the number of
    applications and registrations."""

    def __init__(self, refused: "Counter") -> None:
        self.pressures: "weakref.WeakSet[Pressure]" = weakref.WeakSet()
        self.refused = refused

    def add(self, pressure: Pressure) -> None:
        self.pressures.add(pressure)
        # The series of the limits set exist from the start, at 0 (rate() needs a first value).
        for limit, counts in pressure.refused.items():
            counts.append(self.refused.labels(limit).inc)

    def figures(self) -> tuple[int, float | None, float | None]:
        """The in-flight requests, the memory and the p99 latency over the registrations."""
        return _figures(list(self.pressures))


class _RegistryExport(_Export):
    """One process: a collector that reads the figures when scraped (nothing per request)."""

    def __init__(self, registry: "CollectorRegistry") -> None:
        from prometheus_client import Counter

        # Served by this collector (one registration: all of them or none).
        super().__init__(Counter(*_REFUSED_METRIC, ("limit",), registry=None))
        try:
            registry.register(self)
        except ValueError as error:  # a metric of one of these names registered by someone else
            raise _refuse(f"cannot export the figures to Prometheus: {error}") from None

    def describe(self) -> Iterator["Metric"]:
        from prometheus_client.core import GaugeMetricFamily

        for name, documentation in (_IN_FLIGHT_METRIC, _RSS_METRIC, _P99_METRIC):
            yield GaugeMetricFamily(name, documentation)
        yield from self.refused.describe()

    def collect(self) -> Iterator["Metric"]:
        from prometheus_client.core import GaugeMetricFamily

        for pressure in list(self.pressures):
            pressure.refresh()
        in_flight, rss, p99 = self.figures()
        yield GaugeMetricFamily(*_IN_FLIGHT_METRIC, value=in_flight)
        if rss is not None:
            yield GaugeMetricFamily(*_RSS_METRIC, value=rss)
        if p99 is not None:
            yield GaugeMetricFamily(*_P99_METRIC, value=p99)
        yield from self.refused.collect()


class _FileExport(_Export):
    """Multiprocess mode: this worker's figures written to its files when they change (the
    in-flight count on each request, the others when sampled), for whichever worker answers
    the scrape."""

    def __init__(self) -> None:
        from prometheus_client import Counter, Gauge

        # Registered in no registry: the scrape reads the files.
        super().__init__(Counter(*_REFUSED_METRIC, ("limit",), registry=None))
        # livesum: the requests in flight over the workers alive. liveall (rss, p99): a series
        # per live worker, as each limit is per worker; "max" would keep a dead worker's figure
        # (a worker recycled for its memory would report its peak forever).
        self.in_flight = Gauge(*_IN_FLIGHT_METRIC, registry=None, multiprocess_mode="livesum")
        self.rss: Gauge | None = None
        self.p99: Gauge | None = None

    def add(self, pressure: Pressure) -> None:
        from prometheus_client import Gauge

        super().add(pressure)
        pressure.in_flight_gauge = self.in_flight
        if pressure.read_rss is not None and self.rss is None:
            self.rss = Gauge(*_RSS_METRIC, registry=None, multiprocess_mode="liveall")
        if pressure.max_p99_latency is not None and self.p99 is None:
            self.p99 = Gauge(*_P99_METRIC, registry=None, multiprocess_mode="liveall")
        pressure.on_sampled = self.sampled
        self.sampled()

    def sampled(self) -> None:
        _, rss, p99 = self.figures()
        if self.rss is not None:
            self.rss.set(math.nan if rss is None else rss)
        if self.p99 is not None:
            self.p99.set(math.nan if p99 is None else p99)


class _OtelExport:
    """The figures as OpenTelemetry instruments of one meter (``framework.plugins.otel``'s):
    observable gauges read when the reader collects (nothing per request), and a counter of
    the refusals."""

    def __init__(self, meter: Any) -> None:
        self.pressures: "weakref.WeakSet[Pressure]" = weakref.WeakSet()
        meter.create_observable_gauge("framework.pressure.in_flight", [self.in_flight], unit="{request}",
                                      description=_IN_FLIGHT_METRIC[1])
        meter.create_observable_gauge("framework.pressure.memory.rss", [self.rss], unit="By",
                                      description=_RSS_METRIC[1])
        meter.create_observable_gauge("framework.pressure.p99_latency", [self.p99], unit="s",
                                      description=_P99_METRIC[1])
        self.refused = meter.create_counter("framework.pressure.refused", unit="{request}",
                                            description=_REFUSED_METRIC[1])

    def add(self, pressure: Pressure) -> None:
        self.pressures.add(pressure)
        for limit, counts in pressure.refused.items():
            counts.append(functools.partial(self.refused.add, 1, {"limit": limit}))

    def figures(self) -> tuple[int, float | None, float | None]:
        pressures = list(self.pressures)
        for pressure in pressures:
            pressure.refresh()
        return _figures(pressures)

    # The callbacks: an observation, or none when not watched or too few samples (NaN).
    def in_flight(self, options: Any) -> list[Any]:
        return _observed(self.figures()[0])

    def rss(self, options: Any) -> list[Any]:
        return _observed(self.figures()[1])

    def p99(self, options: Any) -> list[Any]:
        return _observed(self.figures()[2])


def _observed(value: float | None) -> list[Any]:
    from opentelemetry.metrics import Observation

    return [] if value is None or math.isnan(value) else [Observation(value)]


_otel_exports: "weakref.WeakKeyDictionary[Any, _OtelExport]" = weakref.WeakKeyDictionary()
_exports: "weakref.WeakKeyDictionary[CollectorRegistry, _Export]" = weakref.WeakKeyDictionary()
_file_export: list[_FileExport] = []  # at most one: this process's
_exports_lock = threading.Lock()


def _multiprocess() -> bool:
    """Whether prometheus_client writes to files (``PROMETHEUS_MULTIPROC_DIR`` was set when it was imported)."""
    from prometheus_client import values

    if values.ValueClass is values.MutexValue:
        return False
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory or not os.path.isdir(directory):
        raise _refuse(f"PROMETHEUS_MULTIPROC_DIR={directory!r} is not a directory: create it (empty) before "
                      "the server starts")
    return True


def _export(pressure: Pressure, instance: Context, multiprocess: bool) -> None:
    """``on_ready``: export the figures to the registry ``framework.plugins.metrics`` serves
    (the context's ``metrics_registry``, whichever of the two plugins was registered first),
    else prometheus_client's default one; or, in multiprocess mode, to this worker's files."""
    with _exports_lock:
        if multiprocess:
            if not _file_export:
                _file_export.append(_FileExport())
            export: _Export = _file_export[0]
        else:
            from prometheus_client import REGISTRY

            registry = getattr(instance, "metrics_registry") if instance.has_decorator("metrics_registry") else REGISTRY
            found = _exports.get(registry)
            if found is None:
                found = _exports[registry] = _RegistryExport(registry)
            export = found
        export.add(pressure)


def _export_otel(pressure: Pressure, instance: Context) -> None:
    """``on_ready``: the figures as instruments of the meter of ``framework.plugins.otel``, when
    the context sees it (one set of instruments per meter)."""
    if not instance.has_decorator("otel_meter"):
        return
    meter = getattr(instance, "otel_meter")
    with _exports_lock:
        export = _otel_exports.get(meter)
        if export is None:
            export = _otel_exports[meter] = _OtelExport(meter)
        export.add(pressure)


def _mark_dead(instance: Context) -> None:
    """``on_close`` in multiprocess mode: this worker's live gauges leave the sums."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]  # pyright: ignore[reportUnknownMemberType]


def _under_pressure(instance: Context, opts: Mapping[str, Any]) -> None:
    pressure = Pressure(dict(opts or {}))
    instance.decorate("pressure", pressure.status)
    instance.add_hook("on_request", pressure.on_request, first=True)
    instance.add_hook("on_response", pressure.on_response)
    instance.add_hook("on_ready", lambda: _export_otel(pressure, instance))
    if importlib.util.find_spec("prometheus_client") is not None:
        multiprocess = _multiprocess()
        instance.add_hook("on_ready", lambda: _export(pressure, instance, multiprocess))
        if multiprocess:
            instance.add_hook("on_close", _mark_dead)


_under_pressure.__doc__ = __doc__
#: The plugin: ``register(under_pressure, max_in_flight=32)``. Runs in the registering context.
under_pressure = plugin(_under_pressure, name="under_pressure")
