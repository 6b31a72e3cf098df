"""``$merge`` and ``$patch``: build a schema from another one (the ajv-merge-patch keywords).

A validator plugin. Pass it in the factory's ``validator["plugins"]``; it rewrites every
schema before it is compiled (``engine.add_transform``)::

    from framework import Framework
    from framework.plugins.merge_patch import merge_patch

    app = Framework(validator={"plugins": [merge_patch]})
    app.add_schema({"$id": "item", "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}},
                    "additionalProperties": False})

    @app.post("/items", schema={"body": {"$merge": {
        "source": {"$ref": "item#"},
        "with": {"properties": {"price": {"type": "number"}}, "required": ["name", "price"]},
    }}})
    def create(request, reply):
        return request.body       # {"name": ..., "price": ...}: both declared, both required

    @app.patch("/items/:id", schema={"body": {"$patch": {
        "source": {"$ref": "item#"},
        "with": [{"op": "remove", "path": "/required"}],
    }}})
    def update(request, reply):
        return request.body       # "name" is optional here

Forms (anywhere in a schema: a route's input schemas, nested properties, items,
``definitions``, and the shared schemas they reach):

- ``{"$merge": {"source": S, "with": W}}``: the JSON merge patch (RFC 7396) of ``S`` with
  ``W``; ``W`` may be a list of merge patches applied in order. A ``null`` in ``W``
  removes that key; objects merge recursively; anything else (lists included) replaces.
- ``{"$patch": {"source": S, "with": OPS}}``: the JSON patch (RFC 6902) ``OPS`` applied to
  ``S``: ``add``, ``remove``, ``replace``, ``move``, ``copy``, ``test``. A failing ``test``
  or a path that does not exist fails ``ready()``.

``S`` is a schema written inline or ``{"$ref": ...}`` to a shared schema or a local
definition (any ``$ref`` form a route schema may use, resolved by
:class:`framework.schemas.store.RefIndex`);
``W`` may be a ``$ref`` too. Sources and patches are deep-copied: the shared schema stays
as it was. A source taken from a shared schema loses its top-level ``$id`` (the result is
a new schema, not that one) and its local references (``#/definitions/x``) are rewritten
to point into the shared schema (``item#/definitions/x``), so they keep their meaning.
The result may itself hold ``$merge``/``$patch``: they are expanded too. Keywords written
next to ``$merge``/``$patch`` apply as well (the result and they are combined with
``allOf``; annotations such as ``description`` are copied onto the result).

:func:`merge`, :func:`apply_patch` and :func:`expand` are the pure functions underneath.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

from framework.schemas.keywords import ANNOTATION_KEYWORDS, DATA_KEYWORDS, SCHEMA_MAPS
from framework.schemas.store import JSONData, RefIndex, Schema, absolutize, base_inside, json_equal, pointer_tokens

if TYPE_CHECKING:
    from framework.validation import ValidatorEngine

__all__ = ["merge_patch", "merge", "apply_patch", "expand", "JsonPatchError", "MergePatchError"]

_MAX_DEPTH = 64

#: A JSON value's own type, kept through a function (an object stays an object).
_JsonT = TypeVar("_JsonT", bound=JSONData)


class MergePatchError(ValueError):
    """A ``$merge``/``$patch`` that cannot be expanded (bad shape, unresolvable source)."""


class JsonPatchError(MergePatchError):
    """A JSON patch operation that cannot be applied (RFC 6902 section 5: the whole patch fails)."""


# --------------------------------------------------------------------------- RFC 7396

@overload
def merge(target: JSONData, patch: dict[str, Any]) -> dict[str, Any]: ...
@overload
def merge(target: JSONData, patch: _JsonT) -> _JsonT: ...


def merge(target: JSONData, patch: JSONData) -> JSONData:
    """RFC 7396 JSON merge patch: a new value, ``target`` and ``patch`` untouched.

    A ``patch`` that is not an object is the result (a copy of it); an object patch gives
    an object.

    >>> merge({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": None, "e": 4}, "f": [5]})
    {'a': 1, 'b': {'d': 3, 'e': 4}, 'f': [5]}
    """
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result: dict[str, Any] = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge(result.get(key), value)
    return result


# --------------------------------------------------------------------------- RFC 6902

def _tokens(pointer: object) -> list[str]:
    if not isinstance(pointer, str):
        raise JsonPatchError(f"a JSON pointer must be a string, not {pointer!r}")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise JsonPatchError(f"invalid JSON pointer {pointer!r}: it must be empty or start with '/'")
    return pointer_tokens(pointer)


def _index(container: list[Any], token: str, pointer: str, *, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token.startswith("0")):
        raise JsonPatchError(f"path {pointer!r}: {token!r} is not an array index")
    index = int(token)
    if index > len(container) or (index == len(container) and not allow_end):
        raise JsonPatchError(f"path {pointer!r}: index {index} is out of range")
    return index


def _parent(document: JSONData, pointer: str) -> tuple[JSONData, str]:
    tokens = _tokens(pointer)
    return _walk(document, tokens[:-1], pointer), tokens[-1]


def _get(document: JSONData, pointer: str) -> JSONData:
    return _walk(document, _tokens(pointer), pointer)


def _walk(document: JSONData, tokens: list[str], pointer: str) -> JSONData:
    node: JSONData = document
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, pointer, allow_end=False)]
        else:
            raise JsonPatchError(f"path {pointer!r} does not exist")
    return node


def _add(document: JSONData, pointer: str, value: JSONData) -> JSONData:
    if pointer == "":
        return value
    parent, token = _parent(document, pointer)
    if isinstance(parent, dict):
        parent[token] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, token, pointer, allow_end=True), value)
    else:
        raise JsonPatchError(f"path {pointer!r}: the parent is not an object or an array")
    return document


def _remove(document: JSONData, pointer: str) -> tuple[JSONData, JSONData]:
    if pointer == "":
        return None, document
    parent, token = _parent(document, pointer)
    if isinstance(parent, dict) and token in parent:
        return document, parent.pop(token)
    if isinstance(parent, list):
        return document, parent.pop(_index(parent, token, pointer, allow_end=False))
    raise JsonPatchError(f"path {pointer!r} does not exist")


def apply_patch(document: JSONData, operations: JSONData) -> JSONData:
    """RFC 6902 JSON patch: a new value, ``document`` and ``operations`` untouched.

    >>> apply_patch({"a": [1, 2]}, [{"op": "add", "path": "/a/-", "value": 3},
    ...                             {"op": "move", "from": "/a", "path": "/b"}])
    {'b': [1, 2, 3]}

    Raises :class:`JsonPatchError` (a ``ValueError``) for an unknown operation, a missing
    member, a path that does not exist, or a failing ``test``; the patch is all or nothing.
    """
    if not isinstance(operations, list):
        raise JsonPatchError(f"a JSON patch is a list of operations, not {type(operations).__name__}")
    document = copy.deepcopy(document)
    operation: JSONData
    for number, operation in enumerate(operations):
        if not isinstance(operation, dict) or "op" not in operation or "path" not in operation:
            raise JsonPatchError(f"operation {number} needs 'op' and 'path': {operation!r}")
        op, path = operation["op"], operation["path"]
        if op in ("add", "replace", "test") and "value" not in operation:
            raise JsonPatchError(f"operation {number} ({op}) needs 'value'")
        if op in ("move", "copy") and "from" not in operation:
            raise JsonPatchError(f"operation {number} ({op}) needs 'from'")
        if op == "add":
            document = _add(document, path, copy.deepcopy(operation["value"]))
        elif op == "remove":
            document, _ = _remove(document, path)
        elif op == "replace":
            _get(document, path)  # must exist
            document, _ = _remove(document, path)
            document = _add(document, path, copy.deepcopy(operation["value"]))
        elif op == "move":
            source = operation["from"]
            if path != source and path.startswith(source + "/"):
                raise JsonPatchError(f"operation {number}: cannot move {source!r} into its own child {path!r}")
            document, value = _remove(document, source)
            document = _add(document, path, value)
        elif op == "copy":
            document = _add(document, path, copy.deepcopy(_get(document, operation["from"])))
        elif op == "test":
            if not json_equal(_get(document, path), operation["value"]):
                raise JsonPatchError(f"operation {number}: test failed at {path!r}")
        else:
            raise JsonPatchError(f"operation {number}: unknown op {op!r}")
    return document


# --------------------------------------------------------------------------- schemas

class _Expander:
    def __init__(self, root: Schema, shared: Mapping[str, Any]) -> None:
        self.index = RefIndex(root, shared)
        self.root_base = base_inside(root, "")

    def resolve(self, value: JSONData, what: str, keyword: str, depth: int) -> JSONData:
        """``value``, or a deep copy of what its ``$ref`` names; expanded either way."""
        target: JSONData
        if isinstance(value, dict) and isinstance(value.get("$ref"), str) and len(value) == 1:
            ref: str = value["$ref"]
            try:
                target, outer = self.index.resolve(ref, self.root_base)
            except LookupError as exc:
                raise MergePatchError(f"{keyword}: can't resolve the {what} reference {ref!r}") from exc
            base = base_inside(target, outer)
            if base == self.root_base:
                target = copy.deepcopy(target)
            else:
                # Taken out of another document: its references must keep their meaning.
                target = absolutize(target, base)
                if isinstance(target, dict) and "$ref" not in target:
                    target.pop("$id", None)
            return self.walk(target, depth + 1)
        return self.walk(copy.deepcopy(value), depth + 1)

    def expand_node(self, node: Schema, depth: int) -> JSONData:
        keyword = "$merge" if "$merge" in node else "$patch"
        if "$merge" in node and "$patch" in node:
            raise MergePatchError("a schema cannot hold both $merge and $patch")
        spec: JSONData = node[keyword]
        if not isinstance(spec, dict) or "source" not in spec or "with" not in spec:
            raise MergePatchError(f"{keyword} needs an object with 'source' and 'with', got {spec!r}")
        source = self.resolve(spec["source"], "source", keyword, depth)
        patch: JSONData = spec["with"]
        if keyword == "$merge":
            patches: list[Any] = patch if isinstance(patch, list) else [patch]
            result = source
            item: JSONData
            for item in patches:
                item = self.resolve(item, "with", keyword, depth) if isinstance(item, dict) else item
                if not isinstance(item, dict):
                    raise MergePatchError(f"$merge: 'with' must be an object or a list of objects, got {item!r}")
                result = merge(result, item)
        else:
            if isinstance(patch, dict) and "$ref" in patch:
                patch = self.resolve(patch, "with", keyword, depth)
            try:
                result = apply_patch(source, patch)
            except JsonPatchError as exc:
                raise JsonPatchError(f"$patch: {exc}") from None
        result = self.walk(result, depth + 1)
        siblings = {k: v for k, v in node.items() if k != keyword}
        if not siblings:
            return result
        walked = self.walk(siblings, depth + 1)
        assert isinstance(walked, dict)  # (no $merge/$patch at its top: an object walks to an object)
        siblings = walked
        annotations = {k: siblings.pop(k) for k in list(siblings) if k in ANNOTATION_KEYWORDS or k == "$id"}
        if isinstance(result, dict):
            for key, value in annotations.items():
                result.setdefault(key, value)
        if not siblings:
            return result
        return {**annotations, **siblings, "allOf": [result, *siblings.get("allOf", [])]}

    def walk(self, node: JSONData, depth: int = 0) -> JSONData:
        if depth > _MAX_DEPTH:
            raise MergePatchError(f"$merge/$patch expansion deeper than {_MAX_DEPTH} levels (a reference cycle?)")
        if isinstance(node, dict):
            if "$merge" in node or "$patch" in node:
                return self.expand_node(node, depth)
            out: dict[str, Any] = {}
            value: JSONData
            for key, value in node.items():
                if key in DATA_KEYWORDS:
                    out[key] = value
                elif key in SCHEMA_MAPS and isinstance(value, dict):
                    # {name: subschema}: a property may be called "$merge" without being one.
                    out[key] = {name: self.walk(sub, depth) for name, sub in value.items()}
                else:
                    out[key] = self.walk(value, depth)
            return out
        if isinstance(node, list):
            return [self.walk(item, depth) for item in node]
        return node


def expand(schema: JSONData, shared: Mapping[str, Any] | None = None) -> JSONData:
    """``schema`` with every ``$merge``/``$patch`` replaced by its result (a new schema).

    ``shared`` maps ``$id`` to the shared schemas a ``source`` or ``with`` ``$ref`` may name.

    >>> expand({"$merge": {"source": {"type": "object", "properties": {"a": {"type": "string"}}},
    ...                    "with": {"properties": {"b": {"type": "number"}}}}})
    {'type': 'object', 'properties': {'a': {'type': 'string'}, 'b': {'type': 'number'}}}
    """
    if not isinstance(schema, dict):
        return schema
    return _Expander(schema, shared or {}).walk(schema)


def merge_patch(engine: ValidatorEngine, opts: Mapping[str, Any] | None = None) -> None:
    """Validator plugin: ``Framework(validator={"plugins": [merge_patch]})``.

    Declares the ``$merge`` and ``$patch`` keywords and expands them in every schema
    before it is compiled; a bad ``$merge``/``$patch`` fails ``ready()`` with a
    :class:`MergePatchError` saying what is wrong. No options.
    """
    def transform(schema: JSONData, shared: Mapping[str, JSONData]) -> Any:
        return expand(schema, shared)  # a schema: an object or a boolean

    # Known keywords (strict mode) where this plugin is used: a response schema keeps them.
    engine.add_keyword("$merge")
    engine.add_keyword("$patch")
    engine.add_transform(transform)
