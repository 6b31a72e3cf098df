"""Running fast-json-stringify 5.9.2's recorded cases (``tests/data/conformance``) on this serializer."""
from __future__ import annotations

import datetime as dt
import json
import math
import pathlib
from typing import Any

from framework.serialization import compile_serializer
from framework.undefined import UNDEFINED

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "conformance" / "fast-json-stringify-5.9.2.json"


def load_cases() -> list[dict]:
    return json.loads(DATA.read_text())["cases"]


def decode(value: Any) -> Any:
    """The recorded JS input as the Python value an application would hand over."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if set(value) == {"$date"}:
            text = value["$date"]
            return None if text == "invalid" else dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        if set(value) == {"$undefined"}:
            return UNDEFINED
        if set(value) == {"$bigint"}:
            return int(value["$bigint"])
        if set(value) == {"$number"}:
            return float(value["$number"].replace("Infinity", "inf"))
        return {key: decode(item) for key, item in value.items()}
    return value


def _pairs(pairs: list) -> Any:
    return ("object", [(key, value) for key, value in pairs])


def normal(text: str | bytes) -> Any:
    """JSON text as an order-sensitive tree; 1 and 1.0 are the same number."""
    def number(value: Any) -> Any:
        return int(value) if isinstance(value, float) and value.is_integer() and math.isfinite(value) else value
    return json.loads(text, object_pairs_hook=_pairs, parse_float=lambda s: number(float(s)))


def applicable(case: dict) -> bool:
    """Cases that use options this serializer has no equivalent of (rounding, large-array
    mechanisms, standalone mode, custom Ajv) are out of scope."""
    return "options" not in case


def run(case: dict) -> tuple[bool, str]:
    """``(passed, what happened)`` for one recorded case."""
    shared = {}
    for key, schema in (case.get("shared") or {}).items():
        shared[key] = schema
        if isinstance(schema, dict) and isinstance(schema.get("$id"), str):
            shared.setdefault(schema["$id"], schema)
    try:
        serialize = compile_serializer(case["schema"], shared)
    except Exception as error:  # noqa: BLE001 - any build failure is the observation
        return case["kind"] == "build_error", f"build error {type(error).__name__}: {error}"[:300]
    if case["kind"] == "build_error":
        return False, "built without error"
    try:
        out = serialize(decode(case["input"]))
    except Exception as error:  # noqa: BLE001
        return case["kind"] == "runtime_error", f"runtime error {type(error).__name__}: {error}"[:300]
    if case["kind"] == "runtime_error":
        return False, f"no error, wrote {out[:200]!r}"
    try:
        return normal(out) == normal(case["output"]), f"wrote {out[:200]!r}, expected {case['output'][:200]!r}"
    except ValueError as error:
        return False, f"unparsable output {error}"
