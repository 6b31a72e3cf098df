"""A method's route tree as Python code: the router's descent, written out.

:meth:`Router.find_parametric <framework.routing.router.Router.find_parametric>` walks a
tree segment by segment: a static child if one has the segment, else the plain parameter
(when no pattern competes with it), and the complete search when that descent ends
nowhere. :func:`compile_tree` emits the same descent for one tree as a function of nested
``if`` blocks, one per node: ``/users/:id`` is a comparison with ``"users"``, a length test and a dict,
where the loop paid a dict look-up and attribute reads per segment (0.38 µs against 0.20 µs
on ``/users/42``). A node with many static children looks the segment up in a dict of
functions, one per child. Every block that cannot answer returns the complete search, as
the loop does.

Route paths are application code, yet their text reaches the function only through
``repr()`` (segments, parameter names) or the constants table (the routes): a segment
holding quotes or a newline stays a string. A tree too large to write out (its source
grows with its nodes) keeps the loop: :func:`compile_tree` returns ``None``.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol

from ..schemas.codegen import CodeCache, Constants, Emitter, load

#: What a compiled tree is: ``find(path) -> (value, params) | None``.
Finder = Callable[[str], "tuple[Any, dict[str, str]] | None"]


class TreeNode(Protocol):
    """What the generator reads of a node of the router's tree."""

    @property
    def static(self) -> Mapping[str, "TreeNode"]: ...
    @property
    def fast(self) -> "TreeNode | None": ...
    @property
    def value(self) -> object: ...
    @property
    def param_names(self) -> tuple[str, ...]: ...


#: Past these a tree keeps the loop: the written-out descent's source grows with the tree
#: and is compiled at the method's first look-up (1,000 nodes: about 40 ms), and Python
#: limits how deep blocks may nest.
MAX_NODES = 1000
MAX_DEPTH = 24
#: A node with more static children than this looks the segment up in a dict of functions,
#: one per child, rather than comparing it with each child's text in turn.
MAX_COMPARED = 6

_CACHE = CodeCache("route tree")


def compile_tree(tree: TreeNode, longest: int, search: Callable[[str], Any]) -> tuple[Finder, str] | None:
    """``find(path)`` for ``tree`` (parameters at most ``longest`` characters long;
    ``search(path)``: the complete search) and its source, or ``None`` for a tree over the
    limits above."""
    if not _within_limits(tree):
        return None
    namespace: dict[str, Any] = {"search": search}
    writer = _TreeWriter(namespace, longest)
    line = writer.emitter.line
    with line("def find(path):"):
        line('segments = path[1:].split("/")')
        line("count = len(segments)")
        writer.node(tree, 0, [])
    writer.write_children()
    source = load(_CACHE, writer.emitter, namespace)
    return namespace["find"], source


def _within_limits(tree: TreeNode) -> bool:
    nodes = 0
    level = [tree]
    depth = 0
    while level:
        depth += 1
        nodes += len(level)
        if nodes > MAX_NODES or depth > MAX_DEPTH:
            return False
        below: list[TreeNode] = []
        for node in level:
            below.extend(node.static.values())
            if node.fast is not None:
                below.append(node.fast)
        level = below
    return True


class _TreeWriter:
    def __init__(self, namespace: dict[str, Any], longest: int) -> None:
        self.emitter = Emitter()
        self.constants = Constants(namespace, self.emitter)
        self.longest = longest
        #: Children of wide nodes, each written as a function of its own after the one
        #: that looks it up: ``(function name, node, depth, parameter variables)``.
        self._pending: list[tuple[str, TreeNode, int, list[str]]] = []
        #: ``(dict name, {segment: function name})``, written once every function is.
        self._tables: list[tuple[str, dict[str, str]]] = []

    def node(self, node: TreeNode, depth: int, values: list[str]) -> None:
        """The descent from ``node``, reached with ``depth`` segments taken (the parameters'
        in ``values``): every path through it returns."""
        line = self.emitter.line
        if depth:  # (the path has at least one segment: "/" is [""])
            with line(f"if count == {depth}:", "# the path ends here"):
                if node.value is None:
                    line("return search(path)")
                else:
                    route = self.constants.name(node.value, "route")
                    params = ", ".join(f"{self.constants.source(name)}: {value}"
                                       for name, value in zip(node.param_names, values))
                    line(f"return {route}, {{{params}}}")
        if node.static or node.fast is not None:
            segment = f"segment{depth}"
            line(f"{segment} = segments[{depth}]")
            if len(node.static) > MAX_COMPARED:
                table = f"_children{len(self._tables) + 1}"
                functions: dict[str, str] = {}
                for text, child in node.static.items():
                    name = f"_child{len(self._pending) + 1}"
                    functions[text] = name
                    self._pending.append((name, child, depth + 1, values))
                self._tables.append((table, functions))
                line(f"child = {table}.get({segment})")
                with line("if child is not None:"):
                    line(f"return child({', '.join(['path', 'segments', 'count', *values])})")
            else:
                for text, child in node.static.items():
                    with line(f"if {segment} == {self.constants.source(text)}:"):
                        self.node(child, depth + 1, values)
            if node.fast is not None:
                with line(f"if 0 < len({segment}) <= {self.longest}:", "# the parameter"):
                    self.node(node.fast, depth + 1, [*values, segment])
        line("return search(path)")

    def write_children(self) -> None:
        """The functions of wide nodes' children (which may add more), then their dicts."""
        line = self.emitter.line
        written = 0
        while written < len(self._pending):
            name, node, depth, values = self._pending[written]
            written += 1
            with line(f"def {name}({', '.join(['path', 'segments', 'count', *values])}):"):
                self.node(node, depth, values)
        for table, functions in self._tables:
            items = ", ".join(f"{self.constants.source(text)}: {name}" for text, name in functions.items())
            line(f"{table} = {{{items}}}")
