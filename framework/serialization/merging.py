"""``allOf`` (and ``anyOf``/``oneOf`` branches) merged into one schema, as fast-json-stringify does.

A serializer cannot check several schemas against one value; it needs one shape. The
parts are merged keyword by keyword: ``properties`` and ``patternProperties`` are
united (a property named in several parts gets ``{"allOf": [...]}``, merged in turn when
the generator reaches it), ``required`` is united in order, ``type`` is intersected,
``additionalProperties: false`` in any part wins, and for any other keyword the first
part that has it wins.

Parts may come from different documents (a ``$ref`` into a shared schema): the
generator rewrites their references to absolute ones first
(:func:`framework.schemas.store.absolutize`), so the merged schema resolves them from any
document.
"""
from __future__ import annotations

import copy
from typing import Any

from ..schemas.store import JSONData

Schema = dict[str, Any]


def _as_list(kind: JSONData) -> list[Any]:
    return list(kind) if isinstance(kind, list) else [kind]


def _merge_type(first: JSONData, second: JSONData) -> Any:
    left, right = _as_list(first), _as_list(second)
    merged = [t for t in left if t in right]
    # integer is a number: the narrower type survives the intersection.
    if "integer" in left and "number" in right and "integer" not in merged:
        merged.append("integer")
    if "integer" in right and "number" in left and "integer" not in merged:
        merged.append("integer")
    if not merged:
        return first
    return merged[0] if len(merged) == 1 else merged


def _merge_maps(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    merged = dict(first)
    for key, sub in second.items():
        merged[key] = {"allOf": [merged[key], sub]} if key in merged else sub
    return merged


def merge_schemas(parts: list[Any]) -> Schema:
    """One schema equivalent, for serialization, to all of ``parts`` (already ``$ref``-free at top)."""
    merged: Schema = {}
    part: JSONData
    value: JSONData
    for part in parts:
        if part is True or part == {}:
            continue
        if part is False or not isinstance(part, dict):
            continue
        for key, value in part.items():
            if key == "$id":
                continue
            if key not in merged:
                merged[key] = copy.copy(value) if isinstance(value, (dict, list)) else value
            elif key == "type":
                merged["type"] = _merge_type(merged["type"], value)
            elif key in ("properties", "patternProperties") and isinstance(value, dict):
                merged[key] = _merge_maps(merged[key], value)
            elif key == "required" and isinstance(value, list):
                merged["required"] = list(dict.fromkeys([*merged["required"], *value]))
            elif key == "additionalProperties":
                old = merged[key]
                if old is False or value is False:
                    merged[key] = False
                elif isinstance(old, dict) and isinstance(value, dict):
                    merged[key] = {"allOf": [old, value]}
                elif isinstance(value, dict):
                    merged[key] = value
            elif key in ("items", "additionalItems") and isinstance(value, dict) and isinstance(merged[key], dict):
                merged[key] = {"allOf": [merged[key], value]}
            elif key == "nullable":
                merged["nullable"] = merged["nullable"] is True and value is True
            elif key == "enum" and isinstance(value, list):
                enum: JSONData = merged.get("enum")
                if isinstance(enum, list):
                    merged["enum"] = [item for item in enum if item in value]
    return merged
