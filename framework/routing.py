"""The router: a dict per method for static paths, then a segment tree for the rest.

Static routes are found with one dict look-up and never pay for parametric matching.
Parametric paths (``/users/:id``, several parameters per path) and a trailing ``*``
wildcard live in a tree per method, walked segment by segment; at each level a static
child wins over a parameter, which wins over the wildcard.
"""
from __future__ import annotations

from typing import Any, Generic, Iterator, TypeVar

from .errors import DuplicatedRouteError, RouteParameterConflictError

T = TypeVar("T")


def is_static(path: str) -> bool:
    return ":" not in path and "*" not in path


class _Node(Generic[T]):
    __slots__ = ("static", "param", "wildcard", "value", "param_names", "wildcard_names")

    def __init__(self) -> None:
        self.static: dict[str, _Node[T]] = {}
        self.param: _Node[T] | None = None
        self.wildcard: T | None = None
        self.value: T | None = None
        self.param_names: tuple[str, ...] = ()
        self.wildcard_names: tuple[str, ...] = ()


class Router(Generic[T]):
    """Maps ``(method, path)`` to a value (a route) and its parameters."""

    def __init__(self) -> None:
        self.static: dict[str, dict[str, T]] = {}
        self._trees: dict[str, _Node[T]] = {}
        self._paths: dict[str, list[str]] = {}
        #: Per method, each path by its shape (parameter names left out).
        self._shapes: dict[str, dict[str, str]] = {}

    def add(self, method: str, path: str, value: T) -> None:
        """Add a route; a second route for the same method and path is an error, and so
        is one that differs only in parameter names (``/x/:id``, ``/x/:name``): only one
        of them could ever match (find-my-way refuses it too)."""
        if path in self._paths.get(method, ()):
            raise DuplicatedRouteError(method, path)
        shapes = self._shapes.setdefault(method, {})
        shape = path_shape(path)
        if shape in shapes:
            raise RouteParameterConflictError(method, path, method, shapes[shape])
        shapes[shape] = path
        self._paths.setdefault(method, []).append(path)
        if is_static(path):
            self.static.setdefault(method, {})[path] = value
            return
        node = self._trees.setdefault(method, _Node())
        names: list[str] = []
        segments = path.split("/")[1:]
        for index, segment in enumerate(segments):
            if segment == "*" and index == len(segments) - 1:
                node.wildcard = value
                node.wildcard_names = (*names, "*")
                return
            if segment.startswith(":") and len(segment) > 1:
                names.append(segment[1:])
                if node.param is None:
                    node.param = _Node()
                node = node.param
            else:
                node = node.static.setdefault(segment, _Node())
        node.value = value
        node.param_names = tuple(names)

    def has(self, method: str, path: str) -> bool:
        """Whether a route of ``method`` has this path, or one differing only in parameter names."""
        return path_shape(path) in self._shapes.get(method, ())

    def find(self, method: str, path: str) -> tuple[T, dict[str, str]] | None:
        """The route for ``method`` and ``path`` with its parameters, or ``None``."""
        routes = self.static.get(method)
        if routes is not None:
            value = routes.get(path)
            if value is not None:
                return value, {}
        return self.find_parametric(method, path)

    def find_parametric(self, method: str, path: str) -> tuple[T, dict[str, str]] | None:
        """:meth:`find` for a path already known not to be a static route."""
        node = self._trees.get(method)
        if node is None:
            return None
        # Greedy descent (static child first, then the parameter) finds almost every
        # route; only a dead end pays for the backtracking search.
        values = []
        for segment in path[1:].split("/"):
            child = node.static.get(segment)
            if child is not None:
                node = child
            elif node.param is not None and segment:
                values.append(segment)
                node = node.param
            else:
                return _match(self._trees[method], path.split("/"), 1, [])
        if node.value is not None:
            return node.value, dict(zip(node.param_names, values))
        return _match(self._trees[method], path.split("/"), 1, [])

    def find_segments(self, method: str, segments: list[str]) -> tuple[T, dict[str, str]] | None:
        """Match a path already split at its slashes (``["", "users", "a/b"]``: a segment may
        hold a decoded ``/``, which only a parameter can take)."""
        node = self._trees.get(method)
        return None if node is None else _match(node, segments, 1, [])

    def routes(self) -> Iterator[tuple[str, str]]:
        for method, paths in self._paths.items():
            for path in paths:
                yield method, path


def _match(node: _Node[T], segments: list[str], index: int, values: list[str]) -> tuple[T, dict[str, str]] | None:
    if index == len(segments):
        if node.value is not None:
            return node.value, dict(zip(node.param_names, values))
        return None
    segment = segments[index]
    child = node.static.get(segment)
    if child is not None:
        found = _match(child, segments, index + 1, values)
        if found is not None:
            return found
    if node.param is not None and segment:
        values.append(segment)
        found = _match(node.param, segments, index + 1, values)
        if found is not None:
            return found
        values.pop()
    if node.wildcard is not None:
        rest = "/".join(segments[index:])
        return node.wildcard, dict(zip(node.wildcard_names, [*values, rest]))
    return None


def path_shape(path: str) -> str:
    """``path`` with its parameter names left out (``/x/:id/y`` and ``/x/:name/y`` have one shape)."""
    if ":" not in path:
        return path
    return "/".join("\x00" if segment.startswith(":") and len(segment) > 1 else segment
                    for segment in path.split("/"))


def join_prefix(prefix: str, path: str) -> list[str]:
    """The paths a route declares under ``prefix``: route ``/`` answers both ``/v1`` and ``/v1/``."""
    if not prefix:
        return [path]
    if path in ("/", ""):
        return [prefix, prefix + "/"]
    return [prefix.rstrip("/") + "/" + path.lstrip("/")]


def normalize_prefix(prefix: Any) -> str:
    if not prefix:
        return ""
    prefix = "/" + str(prefix).strip("/")
    return "" if prefix == "/" else prefix
