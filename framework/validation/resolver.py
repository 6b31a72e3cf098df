"""``$ref`` resolution for the validator: ``$id`` scopes, anchors, pointers, shared schemas.

fastjsonschema's ``RefResolver`` rewrites ``$ref`` in place, keeps a store shared between
instances by default, never looks for ``$id`` inside lists (``allOf: [{"$id": ...}]``)
and ``urlopen()``s any URI it does not know. This index does none of that: it only
reads the schemas, and a reference that is neither in the schema being compiled nor in
the shared schemas handed to the compiler raises
:class:`framework.schemas.UnresolvableRefError`. Nothing is ever fetched.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from ..schemas import UnresolvableRefError

_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependencies")
_LISTS = ("items", "allOf", "anyOf", "oneOf")
_SINGLES = ("items", "additionalItems", "additionalProperties", "contains", "propertyNames",
            "not", "if", "then", "else")


def join(base: str, ref: str) -> str:
    """RFC 3986 reference resolution that also works for ``urn:`` bases."""
    if not base:
        return ref
    if ref.startswith("#"):
        return base.partition("#")[0] + ref
    if urlsplit(ref).scheme:
        return ref
    return urljoin(base, ref)


def strip_fragment(uri: str) -> str:
    return uri.partition("#")[0]


class RefIndex:
    """Where every ``$id`` of the compiled schema (and of shared schemas reached) points.

    A located node is ``(node, outer_base)``: ``outer_base`` is the base URI in effect
    around the node, so entering the node applies its own ``$id`` exactly once.
    """

    def __init__(self, root: Any, shared: Mapping[str, Any] | None) -> None:
        self.shared = shared or {}
        self.resources: dict[str, tuple[Any, str]] = {}
        self.anchors: dict[str, tuple[Any, str]] = {}
        self._shared_indexed: set[str] = set()
        self._all_shared_indexed = False
        #: the shared schemas a compilation reached (for the compile cache key).
        self.reached: dict[str, Any] = {}
        #: every ``(ref, base)`` met while indexing, for :meth:`preload`.
        self.refs: list[tuple[str, str]] = []
        self.resources.setdefault("", (root, ""))
        self._walk(root, "")

    # ---------------------------------------------------------------- indexing
    def _walk(self, node: Any, outer: str) -> None:
        stack = [(node, outer)]
        while stack:
            node, outer = stack.pop()
            if not isinstance(node, dict):
                continue
            base = outer
            ref = node.get("$ref")
            if isinstance(ref, str):
                self.refs.append((ref, outer))
            node_id = node.get("$id")
            # Draft 7: "$ref" makes every sibling keyword, "$id" included, ignored for scoping.
            if isinstance(node_id, str) and "$ref" not in node:
                full = join(outer, node_id)
                uri, _, fragment = full.partition("#")
                if fragment:
                    self.anchors.setdefault(uri + "#" + fragment, (node, outer))
                else:
                    self.resources.setdefault(uri, (node, outer))
                base = uri
            for key in _MAPS:
                value = node.get(key)
                if isinstance(value, dict):
                    stack.extend((sub, base) for sub in value.values() if isinstance(sub, dict))
            for key in _LISTS:
                value = node.get(key)
                if isinstance(value, list):
                    stack.extend((sub, base) for sub in value if isinstance(sub, dict))
            for key in _SINGLES:
                value = node.get(key)
                if isinstance(value, dict):
                    stack.append((value, base))

    def _index_shared(self, key: str) -> bool:
        if key in self._shared_indexed or key not in self.shared:
            return False
        self._shared_indexed.add(key)
        document = self.shared[key]
        self.reached[key] = document
        uri = strip_fragment(key)
        node_id = document.get("$id") if isinstance(document, dict) and "$ref" not in document else None
        base = strip_fragment(node_id) if isinstance(node_id, str) else ""
        # Entering the document applies its own $id: an empty outer base makes that give
        # the id itself (a relative id such as "folder/x.json" must not be applied twice).
        outer = "" if base else uri
        base = base or uri
        self.resources.setdefault(uri, (document, outer))
        self.resources.setdefault(base, (document, outer))
        if isinstance(document, dict):
            self._walk({k: v for k, v in document.items() if k != "$id"}, base)
        return True

    def _find_resource(self, uri: str, location: str) -> tuple[Any, str] | None:
        for candidate in (uri, location):
            if candidate in self.resources:
                return self.resources[candidate]
            for key in (candidate, candidate + "#"):
                if self._index_shared(key):
                    return self.resources.get(strip_fragment(key))
        if not self._all_shared_indexed:
            # An $id nested inside some shared schema: index them all once, then retry.
            self._all_shared_indexed = True
            for key in list(self.shared):
                self._index_shared(key)
            for candidate in (uri, location):
                if candidate in self.resources:
                    return self.resources[candidate]
        return None

    def preload(self) -> None:
        """Resolve every ``$ref`` now (raising for an unresolvable one), indexing the shared
        schemas they reach, transitively; :attr:`reached` is then complete."""
        done = 0
        while done < len(self.refs):
            ref, base = self.refs[done]
            done += 1
            self.resolve(ref, base)

    # ---------------------------------------------------------------- resolving
    def resolve(self, ref: str, base: str) -> tuple[Any, str]:
        """``(target node, base URI around it)`` for ``ref`` met where ``base`` applies."""
        full = join(base, ref)
        uri, _, fragment = full.partition("#")
        location = strip_fragment(ref)
        if fragment and not fragment.startswith("/"):
            for candidate in (uri, location):
                if candidate + "#" + fragment in self.anchors:
                    return self.anchors[candidate + "#" + fragment]
            if self._find_resource(uri, location) is not None:
                for candidate in (uri, location):
                    if candidate + "#" + fragment in self.anchors:
                        return self.anchors[candidate + "#" + fragment]
            raise UnresolvableRefError(ref)
        found = self._find_resource(uri, location)
        if found is None:
            raise UnresolvableRefError(ref)
        node, outer = found
        if not fragment:
            return node, outer
        return self._follow(node, outer, fragment, ref)

    @staticmethod
    def _follow(node: Any, outer: str, pointer: str, ref: str) -> tuple[Any, str]:
        # state: "schema" (node is a schema), "container" (its children are schemas), "other".
        state = "schema"
        for token in pointer.split("/")[1:]:
            token = unquote(token).replace("~1", "/").replace("~0", "~")
            if state == "schema" and isinstance(node, dict):
                node_id = node.get("$id")
                if isinstance(node_id, str) and "$ref" not in node:
                    outer = strip_fragment(join(outer, node_id))
            if isinstance(node, dict) and token in node:
                child = node[token]
                if state == "schema":
                    if token in _SINGLES and isinstance(child, (dict, bool)):
                        state = "schema"
                    elif (token in _MAPS and isinstance(child, dict)) or (token in _LISTS and isinstance(child, list)):
                        state = "container"
                    else:
                        state = "other"
                else:
                    state = "schema" if state == "container" else "other"
                node = child
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
                state = "schema" if state == "container" else "other"
            else:
                raise UnresolvableRefError(ref)
        return node, outer
