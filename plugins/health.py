"""Liveness and readiness routes, and a graceful drain on SIGTERM.

``health`` is wrapped with ``plugin(...)``: its two routes are routes of the registering
context (under its prefix)::

    from framework import Framework
    from framework.plugins.health import health

    app = Framework()
    app.register(health, checks={"database": ping_database}, drain_delay=10)

    # GET /health/live   -> 200 {"status": "ok"}          (while the process serves)
    # GET /health/ready  -> 200 {"status": "ok", "checks": {"database": {"status": "ok"}}}
    #                    -> 503 {"status": "unavailable", "reason": "starting" | "draining" | "closing"
    #                            | "checks failed", "checks": {...}}

**Readiness** answers 503 until the application has started (``ready()`` has completed,
every ``on_ready`` hook with it), from the moment it starts closing (its ``pre_close``
hook: ``app.close()``, which the worker runs when it exits) and from the moment the
process gets SIGTERM (the drain, below). Otherwise it runs the ``checks``, all at once, each
bounded by ``check_timeout``: a check passes unless it raises, returns ``False``, or is
still running when the timeout expires (reported as ``"timeout"``; the request does not
wait longer, and a check still running from an earlier request is waited on, not started
again, so a hanging check holds one thread at most). A failed check's cause goes to the
application's log, not to the client: the answer names only the exception's class.

**Liveness** answers 200 whenever the process can answer at all, draining included (a
liveness failure makes an orchestrator restart the process). While the application could
not start, both answer the framework's 503 with ``Retry-After`` (see
``framework.failed_start``).

**The drain.** With ``drain_delay`` (seconds, default 0: off), the SIGTERM a server sends
a worker to stop it is held back for that long: the worker keeps accepting and answering
requests, readiness answers 503 ``"draining"`` so that the load balancer stops sending,
and only then does the server's own graceful stop begin (it stops accepting and
finishes the requests in flight). The handler is installed when the application starts
in a process's main thread: under gunicorn, an application readied in the worker
(``python -m framework run``, ``-c python:framework.gunicorn_conf``, ``app.ready()`` at
import without ``--preload``, or the sync worker's first request); under granian, a
worker that loads the application (``python -m framework run --server granian``, or
``granian --interface wsgi framework.wsgi:app``). gunicorn's ``graceful_timeout`` (30 s)
has to cover the delay and the longest request.

Options:

``live_path``, ``ready_path``
    The routes' paths (``"/health/live"``, ``"/health/ready"``); ``None`` leaves one out.
``checks``
    ``{"name": check}``: ``check()`` takes no argument (it may be ``async``).
``check_timeout``
    Seconds each readiness request waits for the checks (default 2).
``drain_delay``
    Seconds a SIGTERM is held back (default 0).
``log_level``
    The routes' ``log_level`` (default ``"silent"``: probes do not fill the request log).
``hide``
    ``True`` (default): the routes are left out of the OpenAPI document.
``telemetry``
    ``False`` (default): the routes carry ``config={"otel": False, "metrics": False}``, so
    that ``framework.plugins.otel`` and ``framework.plugins.metrics`` neither trace nor
    measure the probes; ``True`` leaves that out.

The routes carry ``config={"under_pressure": False}``: ``framework.plugins.under_pressure``
never refuses them. A mistake in the options fails ``ready()`` with a ``HealthOptionsError``.
"""
from __future__ import annotations

import asyncio
import inspect
import logging
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, wait
from types import FrameType
from typing import Any, cast

from framework import Context, Reply, Request, plugin

__all__ = ["health", "HealthOptionsError", "Readiness", "draining"]

_OPTIONS = ("live_path", "ready_path", "checks", "check_timeout", "drain_delay", "log_level", "hide", "telemetry")
_IGNORED = ("prefix",)


class HealthOptionsError(ValueError):
    """Options the health plugin cannot work with; raised when it loads (``ready()``)."""


def _refuse(message: str) -> HealthOptionsError:
    return HealthOptionsError(f"health: {message}")


def _seconds(name: str, value: object, default: float, positive: bool) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or (positive and value == 0):
        kind = "a positive" if positive else "a non-negative"
        raise _refuse(f"{name} must be {kind} number of seconds, got {value!r}")
    return float(value)


# The drain: one per process, shared by every application that registers the plugin.
class _Drain:
    """SIGTERM held back for the longest ``drain_delay`` asked, then handed to the server's
    own handler (the one it replaced)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.delay = 0.0
        self.pid: int | None = None  # the process whose SIGTERM goes through the drain
        self.previous: Any = signal.SIG_DFL
        self.since: float | None = None
        self.releasing = False
        self.waiting_thread = False  # granian: a thread waits for SIGTERM (see hold_in_thread)
        self.log: logging.Logger = logging.getLogger("framework")

    def install(self, delay: float, log: logging.Logger) -> bool:
        """Hold SIGTERM back in this process; ``False`` outside the main thread (Python sets
        signal handlers there only)."""
        with self.lock:
            if self.pid != os.getpid():  # this process's first (a forked child starts afresh)
                self.delay, self.since, self.releasing, self.waiting_thread = delay, None, False, False
            self.delay = max(self.delay, delay)
            self.log = log
            if threading.current_thread() is not threading.main_thread():
                return False
            current = signal.getsignal(signal.SIGTERM)
            if current != self.on_sigterm and not self.waiting_thread:
                self.previous = current
                signal.signal(signal.SIGTERM, self.on_sigterm)
                self.pid = os.getpid()
            _hold_granian_signals(self)
            return True

    @property
    def draining(self) -> bool:
        return self.since is not None and self.pid == os.getpid()

    def on_sigterm(self, signum: int, frame: FrameType | None) -> None:
        """The SIGTERM handler: the first starts the drain; once it is over, the server's handler."""
        if not self.releasing:
            self.begin()
            return
        previous = self.previous
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    def begin(self) -> None:
        if self.since is not None:
            return  # already draining (a server's master and a process group may both signal)
        self.since = time.monotonic()
        self.log.info("SIGTERM: draining for %g s (readiness answers 503, requests are still served), "
                      "then stopping", self.delay)
        timer = threading.Timer(self.delay, self.release)
        timer.daemon = True
        timer.start()

    def release(self) -> None:
        """The delay is over: the server's own stop."""
        self.releasing = True
        if self.waiting_thread:
            self.previous(signal.SIGTERM, None)  # granian's handler only sets its shutdown event
        else:  # signal again, so that the server's handler runs in the main thread as it expects
            os.kill(os.getpid(), signal.SIGTERM)

    def hold_in_thread(self, handler: Callable[[int, FrameType | None], Any]) -> None:
        """granian: a thread of ours waits for SIGTERM (blocked in every other thread) and runs
        the drain, then ``handler``. A granian worker's main thread waits on a lock, which a
        signal the kernel hands to another of its threads does not wake: its Python handler
        would never run."""
        with self.lock:
            if self.waiting_thread and self.pid == os.getpid():
                return
            self.previous, self.pid, self.waiting_thread = handler, os.getpid(), True
        # Blocked here before granian starts its threads, which inherit the mask.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        threading.Thread(target=self._wait_for_sigterm, name="health-drain", daemon=True).start()

    def _wait_for_sigterm(self) -> None:
        signal.sigwait({signal.SIGTERM})
        self.begin()


_drain = _Drain()


def draining() -> bool:
    """Whether this process got SIGTERM and is draining (its readiness answers 503)."""
    return _drain.draining


def _hold_granian_signals(drain: _Drain) -> None:
    """A granian worker loads the application, then sets its SIGTERM handler: have the
    function that sets it (``granian._signals.set_main_signals``) hand SIGTERM to the drain."""
    global _granian_held
    signals: Any = sys.modules.get("granian._signals")  # a granian worker has it; no other process needs it
    if signals is None:
        return
    import multiprocessing
    if multiprocessing.parent_process() is None or _granian_held:
        return  # granian's main process stops its workers at once: they drain
    original: Callable[..., None] | None = getattr(signals, "set_main_signals", None)
    if original is None:  # a private function of granian's: another release may not have it
        logging.getLogger("framework").warning(
            "health: this granian has no granian._signals.set_main_signals; SIGTERM is not held for the drain")
        return
    set_signals: Callable[..., None] = original  # (narrowed: a closure does not keep the narrowing)

    def set_main_signals(interrupt_handler: Any, reload_handler: Any = None) -> None:
        set_signals(interrupt_handler, reload_handler)
        drain.hold_in_thread(interrupt_handler)

    signals.set_main_signals = set_main_signals
    _granian_held = True


#: Whether ``granian._signals.set_main_signals`` goes through the drain (in this process).
_granian_held = False


class Readiness:
    """One registration's readiness: the application's phase, then its checks."""

    def __init__(self, instance: Context, checks: Mapping[str, Callable[[], Any]], timeout: float) -> None:
        self.instance = instance
        self.checks = dict(checks)
        self.timeout = timeout
        self.closing = False
        self.running: dict[str, Future[Any]] = {}
        self.lock = threading.Lock()

    def state(self) -> tuple[str | None, dict[str, dict[str, str]]]:
        """``(reason, checks)``: ``reason`` is ``None`` when ready."""
        if not self.instance.started:
            return "starting", {}
        if self.closing:
            return "closing", {}
        if _drain.draining:
            return "draining", {}
        if not self.checks:
            return None, {}
        futures: dict[str, Future[Any]] = {}
        with self.lock:
            for name, check in self.checks.items():
                future = self.running.get(name)
                if future is None or future.done():
                    future = self.running[name] = _start_check(name, check)
                futures[name] = future
        wait(futures.values(), timeout=self.timeout)
        results: dict[str, dict[str, str]] = {}
        for name, future in futures.items():
            results[name] = self._result(name, future)
        failed = any(result["status"] != "ok" for result in results.values())
        return ("checks failed" if failed else None), results

    def _result(self, name: str, future: Future[Any]) -> dict[str, str]:
        if not future.done():
            self.instance.log.warning("health: check %r did not answer within %g s", name, self.timeout)
            return {"status": "failed", "error": "timeout"}
        error = future.exception()
        if error is not None:
            self.instance.log.warning("health: check %r failed: %r", name, error, exc_info=error)
            return {"status": "failed", "error": type(error).__name__}
        if future.result() is False:
            return {"status": "failed", "error": "returned False"}
        return {"status": "ok"}

    def answer(self, request: Request, reply: Reply) -> Reply:
        """The readiness route's handler."""
        reason, checks = self.state()
        reply.header("cache-control", "no-store")  # a cache between the probe and the worker would lie
        if reason is None:
            return reply.send({"status": "ok", "checks": checks})
        return reply.code(503).send({"status": "unavailable", "reason": reason, "checks": checks})

    def pre_close(self, instance: Context) -> None:
        """The ``pre_close`` hook: from now on, not ready."""
        self.closing = True


def _start_check(name: str, check: Callable[[], Any]) -> Future[Any]:
    """Run ``check`` in a thread of its own, a daemon: a check that hangs never holds up the
    process's exit (a pool's threads are joined at exit)."""
    future: Future[Any] = Future()

    def run() -> None:
        try:
            result = check()
            if inspect.isawaitable(result):
                awaitable = result

                async def awaited() -> Any:
                    return await awaitable
                result = asyncio.run(awaited())
        except BaseException as error:  # reported in the answer, logged by the request
            future.set_exception(error)
        else:
            future.set_result(result)

    threading.Thread(target=run, name=f"health-check {name}", daemon=True).start()
    return future


def _alive(request: Request, reply: Reply) -> dict[str, str]:
    return {"status": "ok"}


def _health(instance: Context, opts: Mapping[str, Any]) -> None:
    options = dict(opts or {})
    unknown = [key for key in options if key not in _OPTIONS and key not in _IGNORED]
    if unknown:
        raise _refuse(f"unknown option(s) {', '.join(map(repr, unknown))}; known: {', '.join(_OPTIONS)}")
    paths: dict[str, str | None] = {}
    for name, default in (("live_path", "/health/live"), ("ready_path", "/health/ready")):
        value: object = options.get(name, default)
        if value is not None and (not isinstance(value, str) or not value.startswith("/")):
            raise _refuse(f"{name} must be a path starting with '/', or None, got {value!r}")
        paths[name] = value
    given: object = options.get("checks") or {}
    if not isinstance(given, Mapping) or not all(
            isinstance(name, str) and callable(check) for name, check in cast("Mapping[object, object]", given).items()):
        raise _refuse(f"checks must be a dict of names to functions taking no argument, got {given!r}")
    checks = cast("Mapping[str, Callable[[], Any]]", given)
    timeout = _seconds("check_timeout", options.get("check_timeout"), 2.0, positive=True)
    delay = _seconds("drain_delay", options.get("drain_delay"), 0.0, positive=False)
    hide, telemetry = options.get("hide", True), options.get("telemetry", False)
    for name, flag in (("hide", hide), ("telemetry", telemetry)):
        if not isinstance(flag, bool):
            raise _refuse(f"{name} must be True or False, got {flag!r}")
    config: dict[str, bool] = {"under_pressure": False}
    if not telemetry:  # probes are neither traced (plugins.otel) nor measured (plugins.metrics)
        config.update(otel=False, metrics=False)
    route_options: dict[str, Any] = {"log_level": options.get("log_level", "silent"), "config": config}
    if hide:
        route_options["schema"] = {"hide": True}
    readiness = Readiness(instance, checks, timeout)
    live_path, ready_path = paths["live_path"], paths["ready_path"]
    if live_path is not None:
        instance.get(live_path, dict(route_options), _alive)
    if ready_path is not None:
        instance.get(ready_path, dict(route_options), readiness.answer)
    instance.add_hook("pre_close", readiness.pre_close)
    if delay:
        def hold_sigterm() -> None:
            if not _drain.install(delay, instance.log):
                instance.log.warning("health: drain_delay needs the application started in the main thread of "
                                     "the worker (gunicorn: -c python:framework.gunicorn_conf); SIGTERM is not held")
        instance.add_hook("on_ready", hold_sigterm)


_health.__doc__ = __doc__
#: The plugin: ``register(health, checks={...}, drain_delay=10)``. Runs in the registering context.
health = plugin(_health, name="health")
