"""Hooks: their names and checks, each context's own hooks, the lifecycle step that runs
one phase of them, and the runner that makes ``async def`` hooks and handlers synchronous.

Request hooks in lifecycle order: ``on_request``, ``pre_parsing``, ``pre_validation``,
``pre_handler``, ``pre_serialization``, ``on_send``, ``on_response``, ``on_error``.
Application hooks: ``on_route``, ``on_register``, ``on_ready``, ``on_listen`` (``listen()``
is serving), ``pre_close`` (first in ``close()``), ``on_close``.
A hook applies to the routes of its context and its descendants: within one name,
ancestors' hooks run first (outermost first, each in the order added), then the
context's own, then the route's.
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Literal, Protocol, TypeVar

from ..errors import HookInvalidHandlerError, HookInvalidTypeError, HookNotSupportedError, HookSignatureError
from ..names import suggest_snake_name
from ..signatures import call_mismatch

if TYPE_CHECKING:
    from .request import Request

T = TypeVar("T")

#: The name of a request hook (see :data:`REQUEST_HOOKS`).
RequestHookName = Literal["on_request", "pre_parsing", "pre_validation", "pre_handler", "pre_serialization",
                          "on_send", "on_response", "on_error"]
#: The name of an application hook (see :data:`APPLICATION_HOOKS`).
ApplicationHookName = Literal["on_route", "on_register", "on_ready", "on_listen", "pre_close", "on_close"]
#: A hook name, as ``Context.add_hook`` takes it.
HookName = Literal[RequestHookName, ApplicationHookName]

REQUEST_HOOKS: tuple[RequestHookName, ...] = ("on_request", "pre_parsing", "pre_validation", "pre_handler",
                 "pre_serialization", "on_send", "on_response", "on_error")
APPLICATION_HOOKS: tuple[ApplicationHookName, ...] = ("on_route", "on_register", "on_ready", "on_listen", "pre_close", "on_close")
ALL_HOOKS: tuple[HookName, ...] = REQUEST_HOOKS + APPLICATION_HOOKS

#: The arguments each hook is called with.
HOOK_PARAMETERS: dict[str, tuple[str, ...]] = {
    "on_request": ("request", "reply"), "pre_parsing": ("request", "reply"),
    "pre_validation": ("request", "reply"), "pre_handler": ("request", "reply"),
    "pre_serialization": ("request", "reply", "payload"), "on_send": ("request", "reply", "payload"),
    "on_response": ("request", "reply"), "on_error": ("request", "reply", "error"),
    "on_route": ("route_options",), "on_register": ("instance", "opts"), "on_ready": (), "on_listen": (),
    "pre_close": ("instance",), "on_close": ("instance",),
}


def check_hook(name: Any, fn: Any) -> None:
    """Refuse a hook name that is not one (with a suggestion), a hook that is not callable,
    and one that cannot be called with the arguments of its name (see :data:`HOOK_PARAMETERS`)."""
    if not isinstance(name, str):
        raise HookInvalidTypeError()
    if name not in ALL_HOOKS:
        raise HookNotSupportedError(name, suggest_snake_name(name, ALL_HOOKS))
    if not callable(fn):
        raise HookInvalidHandlerError(name, type(fn).__name__)
    parameters = HOOK_PARAMETERS[name]
    mismatch = call_mismatch(fn, parameters)
    if mismatch is not None:
        described, reason = mismatch
        expected = ", ".join(parameters)
        raise HookSignatureError(name, described, f"hook({expected})", reason, f"hook({expected})")


_loops = threading.local()


def run_coroutine(coroutine: Awaitable[T]) -> T:
    """Run a coroutine (or any awaitable) to completion on this thread's own event loop
    (WSGI is synchronous) and return its result."""
    loop = getattr(_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _loops.loop = asyncio.new_event_loop()
    return loop.run_until_complete(coroutine)


def is_async(fn: Any) -> bool:
    """Whether calling ``fn`` returns a coroutine, as far as can be told before calling it:
    an ``async def``, one behind ``functools.wraps`` decorators or ``functools.partial``,
    or an object whose ``__call__`` is an ``async def``."""
    for candidate in (fn, getattr(fn, "__call__", None)):
        seen = 0
        while candidate is not None and seen < 100:
            if inspect.iscoroutinefunction(candidate):
                return True
            if isinstance(candidate, functools.partial):
                candidate = candidate.func
            else:
                candidate = getattr(candidate, "__wrapped__", None)
            seen += 1
    return False


#: Results that are never awaitable: the run-time check stops at one type test for them.
PLAIN_RESULTS = frozenset((dict, list, str, bytes, type(None), int, float, bool, tuple))


def synchronous(fn: Callable[..., Any], check_results: bool = True) -> Callable[..., Any]:
    """``fn`` made synchronous. An ``async def`` (detected here, even behind decorators,
    in a ``functools.partial`` or as an object's ``__call__``) is wrapped to run to
    completion. Any other function might still return a coroutine (an ``async def``
    behind a decorator without ``functools.wraps``): with ``check_results`` it is wrapped
    to run an awaitable result, after one type test for the usual results; without, the
    caller checks (:func:`settle`), and ``fn`` itself is returned (the handler: the reply
    checks what it renders, so the request path pays nothing)."""
    if is_async(fn):
        def run(*args: Any) -> Any:
            result = fn(*args)  # a sync wrapper may carry __wrapped__ = an async def (async_to_sync)
            return run_coroutine(result) if inspect.isawaitable(result) else result
    elif check_results:
        def run(*args: Any) -> Any:
            result = fn(*args)
            if result.__class__ in PLAIN_RESULTS or not inspect.isawaitable(result):
                return result
            return run_coroutine(result)
    else:
        return fn

    run.__name__ = getattr(fn, "__name__", "hook")
    run.__wrapped__ = fn  # type: ignore[attr-defined]  # a function attribute, as functools.wraps sets it
    return run


def settle(result: Any) -> Any:
    """What an awaitable result comes to (its value, or the exception it raised)."""
    try:
        return run_coroutine(result)
    except Exception as error:
        return error


class Hooks:
    """The hooks one context added; :meth:`collect` adds its ancestors'."""

    __slots__ = ("parent", "own", "owners")

    def __init__(self, parent: "Hooks | None" = None) -> None:
        self.parent = parent
        self.own: dict[str, list[Callable[..., Any]]] = {}
        #: The plugin that added each hook of ``own`` (same order), for ``app.explain``.
        self.owners: dict[str, list[str]] = {}

    def child(self) -> "Hooks":
        """The hooks of a child context (which sees these)."""
        return Hooks(self)

    def add(self, name: str, fn: Callable[..., Any], first: bool = False, owner: str = "") -> None:
        """Add ``fn`` as a ``name`` hook (before this context's others with ``first``), added by plugin ``owner``."""
        check_hook(name, fn)
        own = self.own.setdefault(name, [])
        owners = self.owners.setdefault(name, [])
        if first:
            own.insert(0, fn)
            owners.insert(0, owner)
        else:
            own.append(fn)
            owners.append(owner)

    def own_hooks(self, name: str) -> list[Callable[..., Any]]:
        """The ``name`` hooks this context added itself."""
        return list(self.own.get(name, ()))

    def collect(self, name: str) -> list[Callable[..., Any]]:
        """Ancestors' hooks first (outermost first, each in the order added), then this context's."""
        chain: list[list[Callable[..., Any]] | tuple[()]] = []
        hooks: Hooks | None = self
        while hooks is not None:
            chain.append(hooks.own.get(name, ()))
            hooks = hooks.parent
        return [fn for own in reversed(chain) for fn in own]



class SentFlag(Protocol):
    """What a hook phase reads of the reply: whether a hook sent it (``framework.lifecycle.reply.Reply``
    is one; the reply sits above this module, as it settles what its handler returned with it)."""

    @property
    def sent(self) -> bool: ...


class HookPhase:
    """The lifecycle step of one request hook name: run each hook until one sends a reply."""

    __slots__ = ("name", "hooks")

    def __init__(self, name: str, hooks: tuple[Callable[..., Any], ...]) -> None:
        self.name = name
        self.hooks = hooks

    def __call__(self, request: "Request", reply: SentFlag) -> None:
        for hook in self.hooks:
            result = hook(request, reply)
            if result.__class__ not in PLAIN_RESULTS and inspect.isawaitable(result):
                run_coroutine(result)  # a coroutine returned at run time (see synchronous)
            if reply.sent:
                return

    def __repr__(self) -> str:
        return f"<{self.name} hooks: {', '.join(getattr(h, '__name__', repr(h)) for h in self.hooks)}>"
