"""Micro-benchmarks of the validation engine (``python -m benchmarks.validation [--smoke]``).

(a) Validating a valid 10-field body (strings, integers, a nested object, an array of 5
    strings; required, type, maxLength, minimum, enum, items, additionalProperties false)
    with the engine's defaults (coercion and defaults on) against plain
    ``fastjsonschema.compile`` and ``jsonschema``'s ``Draft7Validator`` on the same body.
    Targets: ours <= 1.3x fastjsonschema's time; ours >= 10x faster than jsonschema.
(b) Compile time: 1,000 distinct 10-property body schemas (plus their response schemas,
    compiled by the serializer engine when it is present), the split between code
    generation and ``compile()``/``exec``, plain fastjsonschema on the same schemas, and
    1,000 identical schemas (compiled once, then served from the cache).

Timings are taken in interleaved rounds (each contender once per round, order rotated)
and the median round is reported. Nothing here is a test: ``tests/`` never time anything.
"""
from __future__ import annotations

import copy
import gc
import random
import statistics
import sys
import time
from typing import Any, Callable

import fastjsonschema

from framework.validation import ValidatorEngine
from framework.validation.generator import ValidatorCodeGenerator
from framework.schemas.store import RefIndex

BODY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "email", "age", "status", "address"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "maxLength": 50},
        "email": {"type": "string", "maxLength": 100},
        "city": {"type": "string", "maxLength": 50},
        "country": {"type": "string", "maxLength": 2},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "score": {"type": "integer", "minimum": 1},
        "visits": {"type": "integer", "minimum": 0, "default": 0},
        "status": {"type": "string", "enum": ["active", "inactive", "banned"]},
        "address": {"type": "object", "required": ["street"], "additionalProperties": False,
                    "properties": {"street": {"type": "string", "maxLength": 100},
                                   "zip": {"type": "string", "maxLength": 10}}},
        "tags": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 20}},
    },
}

BODY: dict[str, Any] = {
    "name": "Ada Lovelace", "email": "ada@example.com", "city": "London", "country": "GB",
    "age": 36, "score": 99, "visits": 12, "status": "active",
    "address": {"street": "12 St James's Square", "zip": "SW1Y 4JH"},
    "tags": ["math", "poetry", "engines", "notes", "letters"],
}


def _property(kind: int, i: int, rng: random.Random) -> dict[str, Any]:
    """One property schema of ``kind``; limits and optional keywords vary with ``rng``."""
    maybe = lambda keyword, value: {keyword: value} if rng.random() < 0.5 else {}  # noqa: E731
    return [
        lambda: {"type": "string", "maxLength": rng.randint(5, 200), **maybe("minLength", 1)},
        lambda: {"type": "string", "format": rng.choice(["email", "uuid", "date-time", "uri"])},
        lambda: {"type": "integer", "minimum": rng.randint(0, 9), **maybe("maximum", 1000 + i)},
        lambda: {"type": "number", **maybe("exclusiveMinimum", 0), **maybe("multipleOf", 0.5)},
        lambda: {"type": "boolean", **maybe("default", False)},
        lambda: {"type": "string", "enum": ["a", "b", f"c{i}"][: rng.randint(1, 3)]},
        lambda: {"type": "array", "maxItems": rng.randint(1, 9), "items": {"type": "string", **maybe("maxLength", 9)}},
        lambda: {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}},
                 **maybe("required", ["k"])},
        lambda: {"type": "string", "pattern": "^[a-z]+$", **maybe("maxLength", 30)},
        lambda: {"type": "integer", "enum": [1, 2, 3]},
        lambda: {"type": ["string", "null"], **maybe("default", None)},
        lambda: {"type": "array", "uniqueItems": True, "items": {"type": "integer", **maybe("minimum", 0)}},
    ][kind]()


def _distinct_schema(i: int) -> dict[str, Any]:
    """A 10-property body schema unique to route ``i``: names, limits and shape all differ
    (10 of 12 property kinds, in a random order, with optional keywords), so that the
    engine's code-object reuse between schemas of the same shape does not flatter it."""
    rng = random.Random(i)
    kinds = rng.sample(range(12), 10)
    properties = {f"p{i}_{n}": _property(kind, i, rng) for n, kind in enumerate(kinds)}
    names = list(properties)
    return {"type": "object", "required": rng.sample(names, rng.randint(1, 4)),
            "additionalProperties": rng.random() < 0.7, "properties": properties}


def _same_shape_schema(i: int) -> dict[str, Any]:
    """A 10-property schema whose names and limits differ with ``i`` but whose shape does not."""
    return {
        "type": "object",
        "required": [f"name{i}", f"count{i}"],
        "additionalProperties": False,
        "properties": {
            f"name{i}": {"type": "string", "maxLength": 10 + i % 50},
            f"email{i}": {"type": "string", "maxLength": 100, "format": "email"},
            f"count{i}": {"type": "integer", "minimum": i % 7, "maximum": 1000 + i},
            f"ratio{i}": {"type": "number", "minimum": 0},
            f"flag{i}": {"type": "boolean", "default": False},
            f"kind{i}": {"type": "string", "enum": ["a", "b", f"c{i}"]},
            f"tags{i}": {"type": "array", "maxItems": 5 + i % 3, "items": {"type": "string"}},
            f"meta{i}": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}},
            f"note{i}": {"type": "string", "minLength": 1},
            f"level{i}": {"type": "integer", "enum": [1, 2, 3]},
        },
    }


def _response_schema(i: int) -> dict[str, Any]:
    return {"type": "object", "properties": {"id": {"type": "integer"}, f"name{i}": {"type": "string"},
                                             "tags": {"type": "array", "items": {"type": "string"}}}}


def _interleaved(contenders: dict[str, Callable[[], None]], calls: int, rounds: int) -> dict[str, float]:
    """Median microseconds per call for each contender, over interleaved rounds."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    for round_index in range(rounds):
        order = names[round_index % len(names):] + names[:round_index % len(names)]
        for name in order:
            fn = contenders[name]
            gc.disable()
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            elapsed = time.perf_counter() - start
            gc.enable()
            samples[name].append(elapsed / calls * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def bench_validation(smoke: bool) -> list[dict[str, Any]]:
    import jsonschema

    ours = ValidatorEngine().compile(copy.deepcopy(BODY_SCHEMA))
    plain = fastjsonschema.compile(dict(copy.deepcopy(BODY_SCHEMA), **{"$schema": "http://json-schema.org/draft-07/schema#"}))
    reference = jsonschema.Draft7Validator(copy.deepcopy(BODY_SCHEMA))
    body_ours, body_plain, body_reference = (copy.deepcopy(BODY) for _ in range(3))
    # Every contender must accept the body as it is (and ours must leave it unchanged).
    assert ours(body_ours) == BODY and plain(body_plain) == BODY and reference.is_valid(body_reference)
    calls, rounds = (200, 3) if smoke else (20_000, 15)
    timing = _interleaved({
        "ours": lambda: ours(body_ours),
        "fastjsonschema": lambda: plain(body_plain),
        "jsonschema": lambda: reference.validate(body_reference),
    }, calls, rounds)
    return [
        {"measure": "validate 10-field body (us/call)", "ours": timing["ours"],
         "fastjsonschema": timing["fastjsonschema"], "jsonschema": timing["jsonschema"],
         "ours/fastjsonschema time": timing["ours"] / timing["fastjsonschema"],
         "target": "<= 1.3", "met": timing["ours"] / timing["fastjsonschema"] <= 1.3},
        {"measure": "speed-up over jsonschema (x)", "ours": timing["jsonschema"] / timing["ours"],
         "target": ">= 10", "met": timing["jsonschema"] / timing["ours"] >= 10},
    ]


def _compile_breakdown(schemas: list[dict[str, Any]]) -> tuple[float, float, float]:
    """CPU seconds spent (indexing, generating, compile+exec) for the schemas, one fresh engine."""
    engine = ValidatorEngine()
    index_time = generate_time = exec_time = 0.0
    for schema in schemas:
        t0 = time.process_time()
        index = RefIndex(schema, {})
        index.preload()
        t1 = time.process_time()
        generator = ValidatorCodeGenerator(schema, index, engine.options, engine._formats, engine._keywords)
        emitter = generator.emitter()
        source = emitter.source()
        t2 = time.process_time()
        exec(compile(emitter.code(), "<validator>", "exec"), generator.globals)  # noqa: S102
        t3 = time.process_time()
        index_time += t1 - t0
        generate_time += t2 - t1
        exec_time += t3 - t2
    return index_time, generate_time, exec_time


def bench_compile(smoke: bool) -> list[dict[str, Any]]:
    count = 50 if smoke else 1000
    schemas = [_distinct_schema(i) for i in range(count)]
    responses = [_response_schema(i) for i in range(count)]
    try:
        from framework.serialization import compile_serializer
    except ImportError:  # the serializer engine is another package's; measure without it
        compile_serializer = None

    engine = ValidatorEngine()
    cpu_start, start = time.process_time(), time.perf_counter()
    for schema in schemas:
        engine.compile(schema, {})
    ours_total = time.perf_counter() - start
    ours_cpu = time.process_time() - cpu_start

    serializer_total = 0.0
    if compile_serializer is not None:
        start = time.perf_counter()
        for schema in responses:
            compile_serializer(schema, shared={})
        serializer_total = time.perf_counter() - start

    index_time, generate_time, exec_time = _compile_breakdown(schemas[: min(count, 200)])
    sampled = min(count, 200)

    plain_count = 20 if smoke else 100
    start = time.perf_counter()
    for schema in schemas[:plain_count]:
        fastjsonschema.compile(dict(copy.deepcopy(schema), **{"$schema": "http://json-schema.org/draft-07/schema#"}))
    plain_per = (time.perf_counter() - start) / plain_count

    same_shape_engine = ValidatorEngine()
    start = time.perf_counter()
    for i in range(count):
        same_shape_engine.compile(_same_shape_schema(i), {})
    same_shape_total = time.perf_counter() - start

    identical_engine = ValidatorEngine()
    start = time.perf_counter()
    for _ in range(count):
        identical_engine.compile(_distinct_schema(0), {})
    identical_total = time.perf_counter() - start

    per_ms = ours_total / count * 1e3
    return [
        {"measure": f"compile {count} distinct 10-property schemas (s)", "ours": ours_total,
         "per schema (ms)": per_ms, "target": "<= 2-3 ms per schema", "met": per_ms <= 3},
        {"measure": "  same, CPU time of this process (less sensitive to a loaded machine) (s)",
         "ours": ours_cpu, "per schema (ms)": ours_cpu / count * 1e3},
        {"measure": f"  + {count} response schemas, serializer engine (s)", "ours": serializer_total,
         "per schema (ms)": serializer_total / count * 1e3 if compile_serializer else None,
         "target": "total well under 7.9 s" if not smoke else ""},
        {"measure": "  total validators + serializers (s)", "ours": ours_total + serializer_total,
         "target": "< 7.9 s for 1,000 routes" if not smoke else "",
         "met": (ours_total + serializer_total) < 7.9 if not smoke else None},
        {"measure": f"  split over {sampled} schemas: index / generate / compile+exec (CPU ms per schema)",
         "ours": index_time / sampled * 1e3, "generate": generate_time / sampled * 1e3,
         "compile+exec": exec_time / sampled * 1e3},
        {"measure": f"plain fastjsonschema.compile, same schemas ({plain_count}) (ms per schema)",
         "ours": plain_per * 1e3, "per schema (ms)": per_ms,
         "ours/fastjsonschema time": per_ms / (plain_per * 1e3)},
        {"measure": f"compile {count} distinct schemas of one shape (names, limits differ) (s)",
         "ours": same_shape_total, "per schema (ms)": same_shape_total / count * 1e3},
        {"measure": f"compile {count} identical schemas (s)", "ours": identical_total, "target": "< 1 s",
         "met": identical_total < 1},
    ]


def run(smoke: bool = False) -> list[dict[str, Any]]:
    """All rows: validation speed (a) then compile time (b)."""
    return bench_validation(smoke) + bench_compile(smoke)


def _table(rows: list[dict[str, Any]]) -> str:
    headers: list[str] = []
    for row in rows:
        headers.extend(k for k in row if k not in headers)

    def show(value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, float):
            return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.0f}"
        return str(value)
    cells = [[show(row.get(h)) for h in headers] for row in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(headers, widths)),
             "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


if __name__ == "__main__":
    print(_table(run(smoke="--smoke" in sys.argv[1:])))
