"""Plugin loading: the ``plugin()`` wrapper, the avvio-style queue, ``after()``, the
dependency and decorator checks, and the plugin tree ``print_plugins()`` shows.

``register`` only queues (:class:`PluginQueue`, one per context). At ``ready()`` the
root's queue loads in order, depth-first: a plugin's own registrations load right after
its body returns, before its next sibling, and an ``after()`` callback runs once
everything queued before it has loaded. Three plugin forms are accepted:
``def p(instance, opts)``, callback style ``def p(instance, opts, done)`` (a third
parameter without a default, as JavaScript's ``fn.length`` counts) and
``async def p(instance, opts)``.
"""
from __future__ import annotations

import inspect
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Protocol, Sequence, TypeVar, overload

from .errors import PluginDependencyError, PluginNotPresentError, PluginTimeoutError
from .lifecycle.hooks import run_coroutine

F = TypeVar("F", bound=Callable[..., Any])

#: How long a callback-style plugin may take to call ``done`` by default, in seconds
#: (avvio's ``pluginTimeout``; ``Framework(plugin_timeout=...)``).
PLUGIN_TIMEOUT = 10.0


@dataclass
class PluginMeta:
    """What ``plugin(...)`` attaches to a function (``fn.__plugin_meta__``)."""

    name: str | None = None
    dependencies: Sequence[str] = ()
    decorators: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
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
    (encapsulation broken, as ``fastify-plugin`` does). ``prefix`` is ignored for it.
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
        setattr(function, "__plugin_meta__", PluginMeta(  # read back by the plugin queue
            name=name or getattr(function, "__name__", None), dependencies=tuple(dependencies),
            decorators={k: list(v) for k, v in (decorators or {}).items()}, encapsulate=encapsulate))
        return function

    if fn is None:
        return wrap
    return wrap(fn)


def plugin_meta(fn: object) -> PluginMeta | None:
    """What ``plugin(...)`` attached to ``fn``, if anything."""
    meta: PluginMeta | None = getattr(fn, "__plugin_meta__", None)
    return meta


def plugin_name(fn: object) -> str:
    """The plugin's name: the one given to ``plugin(...)``, else the function's name."""
    meta = plugin_meta(fn)
    if meta is not None and meta.name:
        return meta.name
    return getattr(fn, "__name__", None) or type(fn).__name__


class PluginTree:
    """The plugins as they loaded, with their load times (``print_plugins()``)."""

    def __init__(self) -> None:
        self.root: dict[str, Any] = {"name": "root", "ms": 0.0, "children": []}
        self._stack = [self.root]

    def enter(self, name: str) -> None:
        """A plugin named ``name`` starts loading (under the one loading now)."""
        node: dict[str, Any] = {"name": name, "ms": 0.0, "children": []}
        self._stack[-1]["children"].append(node)
        self._stack.append(node)

    def leave(self, elapsed_ms: float) -> None:
        """The plugin loading now has loaded, in ``elapsed_ms``."""
        self._stack.pop()["ms"] = elapsed_ms

    @property
    def current(self) -> str:
        """The name of the plugin loading now (``"root"`` outside any plugin)."""
        return str(self._stack[-1]["name"])


class PluginInstance(Protocol):
    """What the loader reads of the instance a plugin gets (a ``Context``): the decorators
    it sees, which ``plugin(..., decorators=...)`` requires. Typed structurally so that
    the loader sits below the context tree and never imports it."""

    def has_decorator(self, name: str) -> bool: ...

    def has_request_decorator(self, name: str) -> bool: ...

    def has_reply_decorator(self, name: str) -> bool: ...


InstanceT = TypeVar("InstanceT", bound=PluginInstance)


class _After(Generic[InstanceT]):
    """A queued ``after()`` callback (not a plugin: it creates no context)."""

    __slots__ = ("callback",)

    def __init__(self, callback: Callable[[InstanceT], Any]) -> None:
        self.callback = callback


class PluginQueue(Generic[InstanceT]):
    """What one context (``InstanceT``) registered and has not loaded yet, and the names of
    what it loaded.

    ``spawn(name, prefix, opts)`` is the context's way of making a child context for an
    encapsulated plugin.
    """

    def __init__(self, context: InstanceT, parent: "PluginQueue[InstanceT] | None",
                 spawn: "Callable[[str, str, dict[str, Any]], PluginQueue[InstanceT]]") -> None:
        self.context = context
        self.parent = parent
        self.spawn = spawn
        self.pending: list[tuple[Callable[..., Any], dict[str, Any]] | _After[InstanceT]] = []
        self.names: set[str] = set()

    def add(self, plugin_fn: Callable[..., Any], opts: dict[str, Any]) -> None:
        """Queue a plugin with its options."""
        self.pending.append((plugin_fn, opts))

    def add_after(self, callback: Callable[[InstanceT], Any]) -> None:
        """Queue an ``after()`` callback."""
        self.pending.append(_After(callback))

    def has_plugin(self, name: str) -> bool:
        """Whether a plugin of that name loaded in this context or an ancestor."""
        queue: PluginQueue[InstanceT] | None = self
        while queue is not None:
            if name in queue.names:
                return True
            queue = queue.parent
        return False

    def load(self, tree: PluginTree, timeout: float) -> None:
        """Load everything pending, in order, depth-first."""
        while self.pending:
            pending = self.pending.pop(0)
            if isinstance(pending, _After):
                after = pending.callback
                self._nested(lambda: after(self.context), tree, timeout)
            else:
                self._load_plugin(pending[0], pending[1], tree, timeout)

    def _nested(self, body: Callable[[], None], tree: PluginTree, timeout: float) -> None:
        """Run ``body``; what it queues here loads before what was already pending."""
        waiting, self.pending = self.pending, []
        try:
            body()
            self.load(tree, timeout)
        finally:
            self.pending.extend(waiting)

    def _load_plugin(self, plugin_fn: Callable[..., Any], opts: dict[str, Any], tree: PluginTree,
                     timeout: float) -> None:
        meta = plugin_meta(plugin_fn)
        name = plugin_name(plugin_fn)
        self._check_meta(name, meta)
        started = time.perf_counter()
        tree.enter(name)
        try:
            if meta is None or meta.encapsulate:
                target = self.spawn(name, opts.get("prefix") or "", opts)
            else:
                target = self
            self.names.add(name)
            target._nested(lambda: _run_named(plugin_fn, target.context, opts, name, timeout), tree, timeout)
        finally:
            tree.leave((time.perf_counter() - started) * 1000)

    def _check_meta(self, name: str, meta: PluginMeta | None) -> None:
        if meta is None:
            return
        for dependency in meta.dependencies:
            if not self.has_plugin(dependency):
                raise PluginDependencyError(dependency, name)
        context = self.context
        checks = {"instance": (context.has_decorator, "Instance"), "fastify": (context.has_decorator, "Instance"),
                  "request": (context.has_request_decorator, "Request"),
                  "reply": (context.has_reply_decorator, "Reply")}
        for kind, names in meta.decorators.items():
            if kind not in checks:
                raise TypeError(f"plugin '{name}' declares decorators of unknown kind '{kind}'")
            has, label = checks[kind]
            for decorator in names:
                if not has(decorator):
                    raise PluginNotPresentError(decorator, name, label)


def _run_named(fn: Callable[..., Any], instance: PluginInstance, opts: dict[str, Any], name: str, timeout: float) -> None:
    try:
        run_plugin_body(fn, instance, opts, timeout)
    except BaseException as error:
        _name_plugin(error, name)
        raise


def run_plugin_body(fn: Callable[..., Any], instance: PluginInstance, opts: dict[str, Any],
                    timeout: float = PLUGIN_TIMEOUT) -> None:
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
        if not finished.wait(timeout):
            raise PluginTimeoutError(plugin_name(fn), timeout)
        if outcome[0] is not None:
            raise outcome[0]
        return
    result = fn(instance, opts)
    if inspect.isawaitable(result):
        run_coroutine(result)


def _takes_done(fn: Callable[..., Any]) -> bool:
    """A third positional parameter without a default (JavaScript's ``fn.length >= 3``)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    required = [p for p in parameters
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    return len(required) >= 3


def _name_plugin(error: BaseException, name: str) -> None:
    """Name the failing plugin on the error itself (a note, shown in the traceback)."""
    if getattr(error, "plugin", None) is not None:
        return
    try:
        error.plugin = name  # type: ignore[attr-defined]  # an attribute of our own on any error
    except AttributeError:
        return
    note = f"while loading plugin '{name}'"
    if sys.version_info >= (3, 11):
        error.add_note(note)
    else:
        # (Python 3.10 declares no __notes__; 3.11's add_note() sets the same list.)
        error.__notes__ = [*getattr(error, "__notes__", []), note]  # type: ignore[attr-defined]


__all__ = ["plugin", "PluginInstance", "PluginMeta", "PluginQueue", "PluginTree", "plugin_meta", "plugin_name", "run_plugin_body",
           "PLUGIN_TIMEOUT"]
