"""``print_routes()`` and ``print_plugins()``: the route and plugin trees as text."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..routing.router import Router


def render_plugins(node: dict[str, Any]) -> str:
    """avvio's tree: ``label N ms`` with ``├──``/``└──`` connectors (``├─┬`` where children follow)."""
    lines = [f"{node['name']} {round(node['ms'])} ms"]

    def walk(children: list[dict[str, Any]], indent: str) -> None:
        for index, child in enumerate(children):
            last = index == len(children) - 1
            branch = ("└─" if last else "├─") + ("┬" if child["children"] else "─")
            lines.append(f"{indent}{branch} {child['name']} {round(child['ms'])} ms")
            walk(child["children"], indent + ("  " if last else "│ "))

    walk(node["children"], "")
    return "\n".join(lines) + "\n"


def render_routes(router: "Router[Any]", notes: Mapping[tuple[str, str], str] | None = None) -> str:
    """Routes as a tree of path segments, methods in brackets (``(GET, HEAD)``); under a
    path, a ``• METHOD note`` line for each ``(method, path)`` that ``notes`` names."""
    notes = notes or {}
    tree: dict[str, Any] = {}
    for method, path in router.routes():
        node = tree
        parts = [part for part in path.split("/")[1:]]
        for part in parts[:-1] if parts else []:
            node = node.setdefault("/" + part, {})
        leaf = node.setdefault("/" + (parts[-1] if parts else ""), {})
        leaf.setdefault("", []).append(method)
        if (method, path) in notes:
            leaf.setdefault(" notes", []).append(f"• {method} {notes[method, path]}")
    lines: list[str] = []

    def walk(node: dict[str, Any], indent: str) -> None:
        names = [name for name in node if name.startswith("/")]
        for index, name in enumerate(names):
            last = index == len(names) - 1
            child = node[name]
            methods = child.get("", [])
            label = f"{name} ({', '.join(methods)})" if methods else name
            lines.append(f"{indent}{'└── ' if last else '├── '}{label}")
            inner = indent + ("    " if last else "│   ")
            lines.extend(inner + note for note in child.get(" notes", ()))
            walk(child, inner)

    walk(tree, "")
    return "\n".join(lines) + "\n"
