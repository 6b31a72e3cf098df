"""The router: a dict per method for static paths, then a segment tree for the rest.

Static routes are found with one dict look-up and never pay for parametric matching.
Parametric paths live in a tree per method, walked segment by segment (the walk written
out as code for each method: ``framework.routing.compiled``); at each level a static child
wins over a *pattern* segment, which wins over a plain parameter, which wins over the
trailing ``*`` wildcard (find-my-way's order).

A segment is one of:

* static text (``users``);
* a plain parameter (``:id``): anything non-empty, up to ``max_param_length`` characters;
* a pattern: several parameters and static text in one segment (``:from-:to``,
  ``:file.:ext``), and/or parameters constrained by a regular expression
  (``:id(^\\d+$)``, ``:hour(^\\d{2})h``). A pattern is compiled once, when the route is
  declared, and a request segment is matched with ``re.fullmatch`` on that one segment.
  A parameter without a regex stops at the next static character (``[^-]+`` in
  ``:from-:to``), so the framework's own part of a pattern cannot backtrack; the
  cost of a regex the application writes is the application's choice;
* ``*`` as the last segment: the rest of the path.

A parameter name is letters, digits and ``_``; it ends at ``/``, ``-``, ``.``, ``(``,
``)``, ``~`` or ``:``. Any other character (``:x@y``, ``:id!``) is refused when the route
is declared (find-my-way would make it part of the name). ``:name?`` as the whole last
segment is find-my-way's optional parameter: ``/items/:id?`` declares ``/items/:id`` and
``/items`` (the parameter absent), each a route of its own; a trailing slash after it
stays (``/files/:name?/`` is ``/files/:name/`` and ``/files/``).

Router options (the ``Framework`` factory options of the same names, as in
find-my-way): ``ignore_trailing_slash`` (``/a/`` is ``/a``), ``ignore_duplicate_slashes``
(``//a///b`` is ``/a/b``), ``case_sensitive`` (``False``: static text matches in any
case; parameter values keep the request's case) and ``max_param_length`` (a longer
parameter value does not match: a 404).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Generic, Iterator, TypeVar

from ..errors import DuplicatedRouteError, RouteParameterConflictError, RouteParameterNameError
from .compiled import compile_tree

T = TypeVar("T")

_DUPLICATE_SLASHES = re.compile(r"/{2,}")
#: A parameter's name stops at these characters (find-my-way: ``:from-:to``, ``:file.:ext``).
_NAME_END = frozenset("-.():/~")
#: What a parameter name is made of.
_NAME = re.compile(r"\w+\Z")
_NAME_CHARACTER = re.compile(r"\w")
#: An optional parameter: ``/:name?`` ending the path, before an optional trailing slash.
_OPTIONAL = re.compile(r"/:(\w+)\?(/?)\Z")


def is_static(path: str) -> bool:
    """Whether ``path`` has no parameter and no wildcard."""
    return ":" not in path and "*" not in path


def split_path(path: str) -> list[str]:
    """``path`` split at its slashes, except those inside a parameter's ``(regex)``."""
    if "(" not in path:
        return path.split("/")
    segments: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(path):
        if char == "\\" and depth:
            continue
        if char == "(" and (index == 0 or path[index - 1] != "\\"):
            depth += 1
        elif char == ")" and depth and path[index - 1] != "\\":
            depth -= 1
        elif char == "/" and not depth:
            segments.append(path[start:index])
            start = index + 1
    segments.append(path[start:])
    return segments


def parse_segment(segment: str) -> list[tuple[str, str, str | None]]:
    """A declared segment's parts: ``("static", text, None)`` and ``("param", name, regex)``.
    ``::`` is a literal colon."""
    parts: list[tuple[str, str, str | None]] = []
    text = ""
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == ":" and segment[index + 1:index + 2] == ":":
            text += ":"
            index += 2
            continue
        if char != ":":
            text += char
            index += 1
            continue
        if text:
            parts.append(("static", text, None))
            text = ""
        end = index + 1
        while end < len(segment) and segment[end] not in _NAME_END:
            end += 1
        name = segment[index + 1:end]
        if not name:
            raise ValueError(f"a parameter without a name in path segment {segment!r}")
        regex = None
        if end < len(segment) and segment[end] == "(":
            depth, close = 0, end
            while close < len(segment):
                if segment[close] == "\\":
                    close += 2
                    continue
                if segment[close] == "(":
                    depth += 1
                elif segment[close] == ")":
                    depth -= 1
                    if not depth:
                        break
                close += 1
            if depth:
                raise ValueError(f"unbalanced parentheses in the regex of parameter {name!r}: {segment!r}")
            regex = segment[end + 1:close]
            end = close + 1
        parts.append(("param", name, regex))
        index = end
    if text:
        parts.append(("static", text, None))
    return parts


def expand_optional(path: str) -> list[str]:
    """The paths a declared path stands for: ``/items/:id?`` is ``/items/:id`` and
    ``/items``; ``/:id?`` is ``/:id`` and ``/``; any other path is itself."""
    found = _OPTIONAL.search(path)
    if found is None:
        return [path]
    head, name, slash = path[:found.start()], found.group(1), found.group(2)
    return [f"{head}/:{name}{slash}", head + slash or "/"]


def check_parameter_names(path: str) -> None:
    """Refuse a path whose parameter names hold a character no name can, or whose
    optional parameter is not the whole last segment (``RouteParameterNameError``)."""
    if ":" not in path:
        return
    for segment in split_path(expand_optional(path)[0]):
        if ":" not in segment:
            continue
        parts = parse_segment(segment)
        if all(kind == "static" for kind, _, _ in parts):
            continue  # "::", a literal colon
        for kind, text, _ in parts:
            if "?" in text:  # a "?" left once the optional last parameter is taken out
                raise RouteParameterNameError(
                    f"Route path {path!r}: an optional parameter (:name?) must be a whole segment, the "
                    "last one (a trailing '/' may follow): /items/:id? answers /items and /items/3")
            if kind == "param" and not _NAME.match(text):
                character = next(char for char in text if not _NAME_CHARACTER.match(char))
                raise RouteParameterNameError(
                    f"Route path {path!r}: the parameter name {text!r} holds {character!r}, which no "
                    "parameter name can: a name is letters, digits and '_', and ends at '/', '-', '.' "
                    "or '(' (a regex)")


def strip_regexes(path: str) -> str:
    """``path`` without its parameters' ``(regex)`` (for checks on the path's own syntax)."""
    if "(" not in path:
        return path
    out: list[str] = []
    for segment in split_path(path):
        if ":" not in segment:
            out.append(segment)
            continue
        try:
            parts = parse_segment(segment)
        except ValueError:
            out.append(segment)
            continue
        out.append("".join(text if kind == "static" else ":" + text for kind, text, _ in parts))
    return "/".join(out)


class _Pattern:
    """A compiled pattern segment: its regex and the parameter names, in order."""

    __slots__ = ("source", "regex", "names", "groups")

    def __init__(self, parts: list[tuple[str, str, str | None]], case_sensitive: bool) -> None:
        pieces: list[str] = []
        names: list[str] = []
        groups: list[str] = []
        source: list[str] = []
        for index, (kind, text, regex) in enumerate(parts):
            if kind == "static":
                pieces.append(re.escape(text))
                source.append(text if case_sensitive else text.lower())
                continue
            group = f"p{len(names)}"
            if regex is not None:
                body = regex[1:] if regex.startswith("^") else regex
                if body.endswith("$") and not body.endswith("\\$"):
                    body = body[:-1]
                source.append(f"\x00({regex})")
            else:
                following = parts[index + 1] if index + 1 < len(parts) else None
                if following is not None and following[0] == "static":
                    body = f"[^{re.escape(following[1][0])}]+"
                else:
                    body = ".+"
                source.append("\x00")
            pieces.append(f"(?P<{group}>{body})")
            names.append(text)
            groups.append(group)
        self.source = "".join(source)
        self.regex = re.compile("".join(pieces), 0 if case_sensitive else re.IGNORECASE)
        self.names = tuple(names)
        self.groups = tuple(groups)

    def match(self, segment: str, max_length: int) -> list[str] | None:
        found = self.regex.fullmatch(segment)
        if found is None:
            return None
        values = [found.group(group) for group in self.groups]
        for value in values:
            if len(value) > max_length:
                return None
        return values


class _Node(Generic[T]):
    __slots__ = ("static", "param", "fast", "patterns", "wildcard", "value", "param_names", "wildcard_names")

    def __init__(self) -> None:
        self.static: dict[str, _Node[T]] = {}
        self.param: _Node[T] | None = None
        #: ``param`` when no pattern child competes with it: the greedy descent may take it.
        self.fast: _Node[T] | None = None
        self.patterns: list[tuple[_Pattern, _Node[T]]] = []
        self.wildcard: T | None = None
        self.value: T | None = None
        self.param_names: tuple[str, ...] = ()
        self.wildcard_names: tuple[str, ...] = ()


class Router(Generic[T]):
    """Maps ``(method, path)`` to a value (a route) and its parameters."""

    def __init__(self, *, ignore_trailing_slash: bool = False, ignore_duplicate_slashes: bool = False,
                 case_sensitive: bool = True, max_param_length: int = 100) -> None:
        for name, flag in (("ignore_trailing_slash", ignore_trailing_slash),
                           ("ignore_duplicate_slashes", ignore_duplicate_slashes),
                           ("case_sensitive", case_sensitive)):
            if not isinstance(flag, bool):  # pyright: ignore[reportUnnecessaryIsInstance]  # untyped callers
                raise TypeError(f"{name} must be True or False, got {flag!r}")
        if type(max_param_length) is not int or max_param_length <= 0:
            raise ValueError(f"max_param_length must be a positive integer, got {max_param_length!r}")
        self.ignore_trailing_slash = ignore_trailing_slash
        self.ignore_duplicate_slashes = ignore_duplicate_slashes
        self.case_sensitive = case_sensitive
        self.max_param_length = max_param_length
        #: Whether a request path needs rewriting before it is looked up.
        self._normalizing = ignore_trailing_slash or ignore_duplicate_slashes or not case_sensitive
        self.static: dict[str, dict[str, T]] = {}
        self._trees: dict[str, _Node[T]] = {}
        self._paths: dict[str, list[str]] = {}
        #: Per method, each path by its shape (parameter names left out), with its value.
        self._shapes: dict[str, dict[str, tuple[str, T]]] = {}
        #: ``finders[method](path)`` is :meth:`find_parametric` for a method with a tree, when
        #: no option rewrites request paths: made by the method's first look-up (written out
        #: by ``framework.routing.compiled``), dropped by the next route added.
        self.finders: dict[str, Callable[[str], tuple[T, dict[str, str]] | None]] = {}

    # Paths.
    def normalize(self, path: str) -> str:
        """A declared path as the router keeps it (slashes and case per the options;
        parameter names and regexes keep their case)."""
        if self.ignore_duplicate_slashes and "//" in path:
            path = _DUPLICATE_SLASHES.sub("/", path)
        if self.ignore_trailing_slash and len(path) > 1 and path.endswith("/"):
            path = path.rstrip("/") or "/"
        if not self.case_sensitive:
            path = "/".join(segment if ":" in segment else segment.lower() for segment in split_path(path))
        return path

    def _request_path(self, path: str) -> str:
        if self.ignore_duplicate_slashes and "//" in path:
            path = _DUPLICATE_SLASHES.sub("/", path)
        if self.ignore_trailing_slash and len(path) > 1 and path.endswith("/"):
            path = path.rstrip("/") or "/"
        return path

    def shape(self, path: str) -> str:
        """``path`` with its parameter names left out (``/x/:id/y`` and ``/x/:name/y`` have one shape)."""
        if ":" not in path:
            return path
        shaped: list[str] = []
        for segment in split_path(path):
            if ":" not in segment:
                shaped.append(segment)
            elif segment.startswith(":") and len(segment) > 1 and not (set(segment[1:]) & _NAME_END):
                shaped.append("\x00")
            else:
                shaped.append(_Pattern(parse_segment(segment), self.case_sensitive).source)
        return "/".join(shaped)

    # Declaring.
    def add(self, method: str, path: str, value: T) -> None:
        """Add a route; a second route for the same method and path is an error, and so
        is one that differs only in parameter names (``/x/:id``, ``/x/:name``): only one
        of them could ever match (find-my-way refuses it too)."""
        path = self.normalize(path)
        if path in self._paths.get(method, ()):
            raise DuplicatedRouteError(method, path)
        self.finders.pop(method, None)
        shapes = self._shapes.setdefault(method, {})
        shape = self.shape(path)
        if shape in shapes:
            raise RouteParameterConflictError(method, path, method, shapes[shape][0])
        if is_static(path):
            shapes[shape] = (path, value)
            self._paths.setdefault(method, []).append(path)
            self.static.setdefault(method, {})[path] = value
            return
        tree: _Node[T] = self._trees.get(method) or _Node()
        node = tree
        names: list[str] = []
        segments = split_path(path)[1:]
        for index, segment in enumerate(segments):
            if segment == "*" and index == len(segments) - 1:
                node.wildcard = value
                node.wildcard_names = (*names, "*")
                break
            if ":" not in segment:
                node = node.static.setdefault(segment, _Node())
                continue
            parts = parse_segment(segment)
            if len(parts) == 1 and parts[0][0] == "param" and parts[0][2] is None:
                names.append(parts[0][1])
                if node.param is None:
                    node.param = _Node()
                    if not node.patterns:
                        node.fast = node.param
                node = node.param
                continue
            if all(kind == "static" for kind, _, _ in parts):  # "::" only: a literal colon
                node = node.static.setdefault(parts[0][1] if self.case_sensitive else parts[0][1].lower(), _Node())
                continue
            pattern = _Pattern(parts, self.case_sensitive)
            names.extend(pattern.names)
            child: _Node[T]
            for existing, child in node.patterns:
                if existing.source == pattern.source:
                    node = child
                    break
            else:
                child = _Node()
                node.patterns.append((pattern, child))
                node.fast = None  # a pattern is tried before the plain parameter
                node = child
        else:
            node.value = value
            node.param_names = tuple(names)
        self._trees[method] = tree
        shapes[shape] = (path, value)
        self._paths.setdefault(method, []).append(path)

    def has(self, method: str, path: str) -> bool:
        """Whether a route of ``method`` has this path, or one differing only in parameter names."""
        return self.shape(self.normalize(path)) in self._shapes.get(method, ())

    def get(self, method: str, path: str) -> tuple[str, T] | None:
        """The declared path and value of the route of ``method`` declared with this path
        (or one differing only in parameter names), or ``None``; nothing is matched."""
        return self._shapes.get(method, {}).get(self.shape(self.normalize(path)))

    # Matching.
    def find(self, method: str, path: str) -> tuple[T, dict[str, str]] | None:
        """The route for ``method`` and ``path`` with its parameters, or ``None``."""
        routes = self.static.get(method)
        if routes is not None:
            value = routes.get(path)
            if value is not None:
                return value, {}
        return self.find_parametric(method, path)

    def find_parametric(self, method: str, path: str) -> tuple[T, dict[str, str]] | None:
        """:meth:`find` for a path already known not to be a static route as given."""
        finder = self.finders.get(method)
        if finder is not None:
            return finder(path)
        if self._normalizing:
            return self._find_normalized(method, path)
        if method not in self._trees:  # (request data: no finder is kept for it)
            return None
        return self._finder(method)(path)

    def _finder(self, method: str) -> Callable[[str], tuple[T, dict[str, str]] | None]:
        """The descent of ``method``'s tree: written out by ``compile_tree``, or the loop
        (:meth:`_descend`) for a tree too large for that."""
        tree = self._trees[method]

        def search(path: str) -> tuple[T, dict[str, str]] | None:
            segments = path.split("/")
            return self._match(tree, segments, segments, 1, [])

        def descend(path: str) -> tuple[T, dict[str, str]] | None:
            return self._descend(tree, path)

        compiled = compile_tree(tree, self.max_param_length, search)
        finder = compiled[0] if compiled is not None else descend
        # Two threads may both get here: each makes the same finder, either one stays.
        self.finders[method] = finder
        return finder

    def _descend(self, tree: _Node[T], path: str) -> tuple[T, dict[str, str]] | None:
        # Greedy descent (static child first, then the parameter) finds almost every
        # route; only a dead end, or a level with pattern segments, pays for the search.
        node = tree
        values: list[str] = []
        longest = self.max_param_length
        for segment in path[1:].split("/"):
            child = node.static.get(segment)
            if child is not None:
                node = child
            elif node.fast is not None and 0 < len(segment) <= longest:
                values.append(segment)
                node = node.fast
            else:
                segments = path.split("/")
                return self._match(tree, segments, segments, 1, [])
        if node.value is not None:
            if len(values) == 1:  # the common case, built without zip() (a third of the cost)
                return node.value, {node.param_names[0]: values[0]}
            return node.value, dict(zip(node.param_names, values))
        segments = path.split("/")
        return self._match(tree, segments, segments, 1, [])

    def _find_normalized(self, method: str, path: str) -> tuple[T, dict[str, str]] | None:
        path = self._request_path(path)
        key = path if self.case_sensitive else path.lower()
        routes = self.static.get(method)
        if routes is not None:
            value = routes.get(key)
            if value is not None:
                return value, {}
        tree = self._trees.get(method)
        if tree is None:
            return None
        segments = path.split("/")
        keys = segments if self.case_sensitive else [segment.lower() for segment in segments]
        return self._match(tree, keys, segments, 1, [])

    def find_segments(self, method: str, segments: list[str]) -> tuple[T, dict[str, str]] | None:
        """Match a path already split at its slashes (``["", "users", "a/b"]``: a segment may
        hold a decoded ``/``, which only a parameter can take)."""
        node = self._trees.get(method)
        if node is None:
            return None
        keys = segments if self.case_sensitive else [segment.lower() for segment in segments]
        return self._match(node, keys, segments, 1, [])

    def methods(self) -> list[str]:
        """The methods that have a route, sorted."""
        return sorted(set(self.static) | set(self._trees))

    def _match(self, node: _Node[T], keys: list[str], segments: list[str], index: int,
               values: list[str]) -> tuple[T, dict[str, str]] | None:
        if index == len(segments):
            if node.value is not None:
                return node.value, dict(zip(node.param_names, values))
            return None
        segment = segments[index]
        child = node.static.get(keys[index])
        if child is not None:
            found = self._match(child, keys, segments, index + 1, values)
            if found is not None:
                return found
        longest = self.max_param_length
        for pattern, child in node.patterns:
            matched = pattern.match(segment, longest)
            if matched is not None:
                found = self._match(child, keys, segments, index + 1, values + matched)
                if found is not None:
                    return found
        if node.param is not None and 0 < len(segment) <= longest:
            values.append(segment)
            found = self._match(node.param, keys, segments, index + 1, values)
            if found is not None:
                return found
            values.pop()
        if node.wildcard is not None:
            rest = "/".join(segments[index:])
            return node.wildcard, dict(zip(node.wildcard_names, [*values, rest]))
        return None

    def routes(self) -> Iterator[tuple[str, str]]:
        """Every declared ``(method, path)``, in declaration order per method."""
        for method, paths in self._paths.items():
            for path in paths:
                yield method, path


def join_prefix(prefix: str, path: str) -> list[str]:
    """The paths a route declares under ``prefix``: route ``/`` answers both ``/v1`` and ``/v1/``."""
    if not prefix:
        return [path]
    if path in ("/", ""):
        return [prefix, prefix + "/"]
    return [prefix.rstrip("/") + "/" + path.lstrip("/")]


def normalize_prefix(prefix: Any) -> str:
    """A plugin's ``prefix`` option as a path: ``""`` for none or ``/``, else ``/a/b`` (no trailing slash)."""
    if not prefix:
        return ""
    prefix = "/" + str(prefix).strip("/")
    return "" if prefix == "/" else prefix


def parameter_names(path: str) -> list[str]:
    """The parameter names of a declared path, in order (``*`` for the wildcard)."""
    names: list[str] = []
    for segment in split_path(path):
        if segment == "*":
            names.append("*")
        elif ":" in segment:
            names.extend(text for kind, text, _ in parse_segment(segment) if kind == "param")
    return names
