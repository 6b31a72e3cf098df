"""Hook names, their checks, and the runner that makes ``async def`` hooks and handlers synchronous.

Request hooks in lifecycle order: ``on_request``, ``pre_parsing``, ``pre_validation``,
``pre_handler``, ``pre_serialization``, ``on_send``, ``on_response``, ``on_error``.
Application hooks: ``on_route``, ``on_register``, ``on_ready``, ``on_close``.
"""
from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any, Callable

from .errors import HookInvalidHandlerError, HookInvalidTypeError, HookNotSupportedError

REQUEST_HOOKS = ("on_request", "pre_parsing", "pre_validation", "pre_handler",
                 "pre_serialization", "on_send", "on_response", "on_error")
APPLICATION_HOOKS = ("on_route", "on_register", "on_ready", "on_close")
ALL_HOOKS = REQUEST_HOOKS + APPLICATION_HOOKS


def check_hook(name: Any, fn: Any) -> None:
    if not isinstance(name, str):
        raise HookInvalidTypeError()
    if name not in ALL_HOOKS:
        raise HookNotSupportedError(name)
    if not callable(fn):
        raise HookInvalidHandlerError(name, type(fn).__name__)


_loops = threading.local()


def run_coroutine(coroutine: Any) -> Any:
    """Run a coroutine to completion on this thread's own event loop (WSGI is synchronous)."""
    loop = getattr(_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _loops.loop = asyncio.new_event_loop()
    return loop.run_until_complete(coroutine)


def synchronous(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` itself, or for an ``async def`` a function that runs it to completion."""
    if not inspect.iscoroutinefunction(fn):
        return fn

    def run(*args: Any) -> Any:
        return run_coroutine(fn(*args))

    run.__name__ = getattr(fn, "__name__", "hook")
    run.__wrapped__ = fn  # type: ignore[attr-defined]
    return run
