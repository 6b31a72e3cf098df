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
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping
from typing import Any, Callable

from framework import Context, Reply, Request, plugin
from framework.errors import create_error

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
        #: Why the worker is over a limit (the refusal's message), or ``None``; set by sampling.
        self.sampled_reason: str | None = None

    # The hooks.
    def on_request(self, request: Request, reply: Reply) -> Reply | None:
        """Count the request in, or refuse it (503, ``Retry-After``) when over a limit."""
        config = request.route_options.get("config")
        if config and config.get("under_pressure") is False:
            return None
        now = time.perf_counter()
        if now - self.sampled_at >= self.sample_interval:
            self.sample(now)
        reason = self.sampled_reason
        if reason is None:
            with self.lock:
                if self.max_in_flight is None or self.in_flight < self.max_in_flight:
                    self.in_flight += 1
                    request.environ[_STARTED] = now
                    return None
            reason = f"too many requests in flight (max_in_flight={self.max_in_flight})"
        error = UnderPressureError(reason)
        return reply.code(503).header("retry-after", self.retry_after).send(
            {"statusCode": 503, "code": error.code, "error": "Service Unavailable", "message": error.message})

    def on_response(self, request: Request, reply: Reply) -> None:
        """Count a request out, and note how long it took."""
        started = request.environ.pop(_STARTED, None)
        if started is None:
            return  # refused, exempt, or sent by a hook before ours
        now = time.perf_counter()
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
            if self.read_rss is not None and self.max_rss_bytes is not None:
                self.rss_bytes = self.read_rss()
                if self.rss_bytes > self.max_rss_bytes:
                    reasons.append(f"memory over {self.max_rss_bytes} bytes (max_rss_bytes)")
            if self.max_p99_latency is not None:
                since = now - self.latency_window
                with self.lock:
                    recent = sorted(duration for end, duration in zip(self.ends, self.durations) if end >= since)
                self.p99_latency = recent[math.ceil(0.99 * len(recent)) - 1] if len(recent) >= MIN_SAMPLES else None
                if self.p99_latency is not None and self.p99_latency > self.max_p99_latency:
                    reasons.append(f"p99 latency over {self.max_p99_latency:g} s (max_p99_latency)")
            self.sampled_reason = "; ".join(reasons) or None
            self.sampled_at = now
        finally:
            self.sampling.release()

    def status(self) -> dict[str, Any]:
        """``app.pressure()``: ``{"under_pressure": bool, "reason": str | None, "in_flight": int,
        "rss_bytes": int | None, "p99_latency": float | None, "limits": {...}}`` for this worker
        (memory and latency as last sampled; ``None`` when not watched or too few samples)."""
        with self.lock:
            in_flight = self.in_flight
        reason = self.sampled_reason
        if reason is None and self.max_in_flight is not None and in_flight >= self.max_in_flight:
            reason = f"too many requests in flight (max_in_flight={self.max_in_flight})"
        return {"under_pressure": reason is not None, "reason": reason, "in_flight": in_flight,
                "rss_bytes": self.rss_bytes, "p99_latency": self.p99_latency,
                "limits": {"max_in_flight": self.max_in_flight, "max_rss_bytes": self.max_rss_bytes,
                           "max_p99_latency": self.max_p99_latency}}


def _under_pressure(instance: Context, opts: Mapping[str, Any]) -> None:
    pressure = Pressure(dict(opts or {}))
    instance.decorate("pressure", pressure.status)
    instance.add_hook("on_request", pressure.on_request, first=True)
    instance.add_hook("on_response", pressure.on_response)


_under_pressure.__doc__ = __doc__
#: The plugin: ``register(under_pressure, max_in_flight=32)``. Runs in the registering context.
under_pressure = plugin(_under_pressure, name="under_pressure")
