"""The ``plugin()`` wrapper and the avvio-style load queue.

``register`` only queues. At ``ready()`` the queue of the root loads in order,
depth-first: a plugin's own registrations load right after its body returns, before
its next sibling. Three plugin forms are accepted: ``def p(instance, opts)``,
callback style ``def p(instance, opts, done)`` and ``async def p(instance, opts)``.
"""
from __future__ import annotations

import inspect
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TypeVar, overload

from .hooks import run_coroutine

F = TypeVar("F", bound=Callable[..., Any])

#: How long a callback-style plugin may take to call ``done`` (avvio's pluginTimeout).
PLUGIN_TIMEOUT = 10.0


@dataclass
class PluginMeta:
    """What ``plugin(...)`` attaches to a function (``fn.__plugin_meta__``)."""

    name: str | None = None
    dependencies: Sequence[str] = ()
    decorators: dict[str, list[str]] = field(default_factory=dict)
    encapsulate: bool = False


@overload
def plugin(fn: F, *, name: str | None = None, dependencies: Sequence[str] = (),
           decorators: dict[str, list[str]] | None = None, encapsulate: bool = False) -> F: ...
@overload
def plugin(fn: None = None, *, name: str | None = None, dependencies: Sequence[str] = (),
           decorators: dict[str, list[str]] | None = None, encapsulate: bool = False) -> Callable[[F], F]: ...


def plugin(fn: Any = None, *, name: str | None = None, dependencies: Sequence[str] = (),
           decorators: dict[str, list[str]] | None = None, encapsulate: bool = False) -> Any:
    """Mark a plugin function so that it runs in the context that registers it.

    Everything such a plugin adds (decorators, hooks, routes, schemas) lands in the
    registering context, and so is seen by that context and its descendants
    (encapsulation broken, seed rule 6). ``prefix`` is ignored for it.
    ``encapsulate=True`` keeps a child context but keeps the checks: ``dependencies``
    (plugin names registered in this context or an ancestor) and ``decorators``
    (``{"instance": [...], "request": [...], "reply": [...]}``) must be present, or
    ``ready()`` fails naming the plugin and what is missing.

    Usable as ``plugin(fn, name=...)``, ``@plugin`` or ``@plugin(name=...)``.
    """
    def wrap(function: Any) -> Any:
        if not callable(function):
            raise TypeError(f"plugin expects a function, instead got a '{type(function).__name__}'")
        if isinstance(dependencies, str) or not isinstance(dependencies, (list, tuple, set, frozenset)):
            raise TypeError("plugin dependencies must be a list of plugin names")
        if decorators is not None and not isinstance(decorators, dict):
            raise TypeError("plugin decorators must be a dict of lists: {'instance': [...], 'request': [...], 'reply': [...]}")
        function.__plugin_meta__ = PluginMeta(
            name=name or getattr(function, "__name__", None), dependencies=tuple(dependencies),
            decorators={k: list(v) for k, v in (decorators or {}).items()}, encapsulate=encapsulate)
        return function

    if fn is None:
        return wrap
    return wrap(fn)


def plugin_meta(fn: Any) -> PluginMeta | None:
    return getattr(fn, "__plugin_meta__", None)


def plugin_name(fn: Any) -> str:
    meta = plugin_meta(fn)
    if meta is not None and meta.name:
        return meta.name
    return getattr(fn, "__name__", None) or type(fn).__name__


def run_plugin_body(fn: Callable[..., Any], instance: Any, opts: dict[str, Any]) -> None:
    """Call a plugin in any of its three forms; raise what it raised or passed to ``done``."""
    if inspect.iscoroutinefunction(fn):
        run_coroutine(fn(instance, opts))
        return
    if _takes_done(fn):
        finished = threading.Event()
        outcome: list[BaseException | None] = []

        def done(error: BaseException | None = None) -> None:
            outcome.append(error)
            finished.set()

        fn(instance, opts, done)
        if not finished.wait(PLUGIN_TIMEOUT):
            raise TimeoutError(f"Plugin did not start in time: '{plugin_name(fn)}'. "
                               "You may have forgotten to call 'done' function")
        if outcome[0] is not None:
            raise outcome[0]
        return
    result = fn(instance, opts)
    if inspect.isawaitable(result):
        run_coroutine(result)


def _takes_done(fn: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3


__all__ = ["plugin", "PluginMeta", "plugin_meta", "plugin_name", "run_plugin_body"]
