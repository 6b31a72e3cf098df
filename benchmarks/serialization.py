"""Micro-benchmark of the response-schema serializer (issue 4, item 6).

Contenders run interleaved, round by round, so a noisy machine slows them alike; each
row reports the median over rounds and ratios computed inside this one run. Never read
a lone absolute number from here.

Scenarios:

* ``rows50``: 50 rows of 8 declared fields (int, str, str, int, number, bool, str, int),
  each row also carrying an undeclared ``secret`` that must not appear.
* ``small5``: one object of 5 declared fields, no extra field.

Contenders: the compiled serializer (encoding with orjson, the default, and with ujson);
the two alternatives the generator could emit, written out by hand as it would (an
f-string per object with literal keys and ``encode_basestring_ascii``; a shaped dict
per object encoded with ujson); a hand-written dict-comprehension filter followed by
ujson / json / orjson; and bare ``ujson.dumps`` of the unfiltered value.

Targets: ``compiled`` >= 1.3x ``hand+ujson`` and >= 2x ``hand+json`` on rows50;
``compiled`` within 1.5x of ``bare ujson`` on small5.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ujson

from framework.serialization import compile_serializer
from framework.serialization.generator import SerializerGenerator

try:
    import orjson
except ImportError:  # pragma: no cover
    orjson = None

FIELDS = ("id", "name", "email", "age", "score", "active", "country", "visits")
ROW_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer"}, "name": {"type": "string"}, "email": {"type": "string"},
            "age": {"type": "integer"}, "score": {"type": "number"}, "active": {"type": "boolean"},
            "country": {"type": "string"}, "visits": {"type": "integer"},
        },
    },
}
SMALL_FIELDS = ("id", "name", "email", "age", "active")
SMALL_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}, "email": {"type": "string"},
        "age": {"type": "integer"}, "active": {"type": "boolean"},
    },
}


def make_rows(count: int = 50) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"user {i}", "email": f"user{i}@example.com", "age": 20 + i % 50,
             "score": i * 1.25 + 0.1, "active": i % 2 == 0, "country": "FR", "visits": i * 10,
             "secret": "hunter2"} for i in range(count)]


SMALL = {"id": 7, "name": "Ada Lovelace", "email": "ada@example.com", "age": 36, "active": True}


def _compiled_with_ujson(schema: dict[str, Any]) -> Callable[[Any], str]:
    """The same generated shaping, encoded by ujson instead of orjson (outside the cache).

    ujson is called without keyword arguments, which it parses on every call (~1 us).
    """
    generator = SerializerGenerator(schema)
    namespace = dict(generator.namespace, _orjson_dumps=ujson.dumps)
    exec(compile(generator.source, "<bench>", "exec"), namespace)  # noqa: S102
    return namespace["serialize"]


def _slow(value: Any) -> Any:  # the fallback an f-string generator would call; unused here
    raise RuntimeError("benchmark data takes the fast path")


_TF = ("false", "true")
_INF = float("inf")


def _fstring_row(r: dict[str, Any], esc: Callable[[str], str] = encode_basestring_ascii,
                 integer: Callable[[int], str] = int.__repr__) -> str:
    # What a string-building generator would emit: checks, then one f-string per object.
    if type(r) is dict:
        try:
            e = r["score"]
            if type(e) is float and -_INF < e < _INF or type(e) is int:
                return ('{"id":' f'{integer(r["id"])}' ',"name":' f'{esc(r["name"])}'
                        ',"email":' f'{esc(r["email"])}' ',"age":' f'{integer(r["age"])}'
                        ',"score":' f'{e!r}' ',"active":' f'{_TF[r["active"]]}'
                        ',"country":' f'{esc(r["country"])}' ',"visits":' f'{integer(r["visits"])}' '}')
        except (KeyError, TypeError, IndexError):
            pass
    return _slow(r)


def fstring_rows(rows: list[dict[str, Any]]) -> str:
    if type(rows) is list:
        return "[" + ",".join([_fstring_row(r) for r in rows]) + "]"
    return _slow(rows)


def fstring_small(r: dict[str, Any], esc: Callable[[str], str] = encode_basestring_ascii,
                  integer: Callable[[int], str] = int.__repr__) -> str:
    if type(r) is dict:
        try:
            return ('{"id":' f'{integer(r["id"])}' ',"name":' f'{esc(r["name"])}' ',"email":'
                    f'{esc(r["email"])}' ',"age":' f'{integer(r["age"])}' ',"active":' f'{_TF[r["active"]]}' '}')
        except (KeyError, TypeError, IndexError):
            pass
    return _slow(r)


def hand_filter(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: row[key] for key in FIELDS} for row in rows]


def hand_filter_small(row: dict[str, Any]) -> dict[str, Any]:
    return {key: row[key] for key in SMALL_FIELDS}


def contenders() -> dict[str, dict[str, Callable[[], Any]]]:
    rows = make_rows()
    compiled_rows = compile_serializer(ROW_SCHEMA)
    compiled_small = compile_serializer(SMALL_SCHEMA)
    ujson_rows = _compiled_with_ujson(ROW_SCHEMA)
    ujson_small = _compiled_with_ujson(SMALL_SCHEMA)
    expected = hand_filter(rows)
    for text in (compiled_rows(rows), ujson_rows(rows), fstring_rows(rows)):
        assert json.loads(text) == expected, "contenders disagree"
    for text in (compiled_small(SMALL), ujson_small(SMALL), fstring_small(SMALL)):
        assert json.loads(text) == SMALL, "contenders disagree"
    scenarios: dict[str, dict[str, Callable[[], Any]]] = {
        "rows50": {
            "compiled": lambda: compiled_rows(rows),
            "compiled, ujson encode": lambda: ujson_rows(rows),
            "f-string codegen (hand)": lambda: fstring_rows(rows),
            "hand+ujson": lambda: ujson.dumps(hand_filter(rows)),
            "hand+json": lambda: json.dumps(hand_filter(rows)),
        },
        "small5": {
            "compiled": lambda: compiled_small(SMALL),
            "compiled, ujson encode": lambda: ujson_small(SMALL),
            "f-string codegen (hand)": lambda: fstring_small(SMALL),
            "hand+ujson": lambda: ujson.dumps(hand_filter_small(SMALL)),
            "bare ujson": lambda: ujson.dumps(SMALL),
        },
    }
    if orjson is not None:
        scenarios["rows50"]["hand+orjson"] = lambda: orjson.dumps(hand_filter(rows)).decode()
        scenarios["small5"]["bare orjson"] = lambda: orjson.dumps(SMALL).decode()
    return scenarios


def _time(fn: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number * 1e6


TARGETS = {("rows50", "hand+ujson"): 1.3, ("rows50", "hand+json"): 2.0}
SMALL_LIMIT = 1.5  # compiled small5 time / bare ujson time


def run(smoke: bool = False) -> list[dict[str, Any]]:
    """Time every contender, interleaved round by round; one row per (scenario, contender).

    ``speedup`` is the contender's median divided by ``compiled``'s (above 1: compiled is
    faster); ``target`` shows the goal where one applies.
    """
    rounds = 3 if smoke else 25
    numbers = {"rows50": 20 if smoke else 300, "small5": 200 if smoke else 10000}
    rows: list[dict[str, Any]] = []
    for scenario, fns in contenders().items():
        samples: dict[str, list[float]] = {name: [] for name in fns}
        for _ in range(rounds):
            for name, fn in fns.items():
                samples[name].append(_time(fn, numbers[scenario]))
        medians = {name: statistics.median(values) for name, values in samples.items()}
        ours = medians["compiled"]
        for name, median in medians.items():
            target = TARGETS.get((scenario, name))
            row: dict[str, Any] = {
                "scenario": scenario, "contender": name, "median_us": median,
                "speedup": median / ours,
                "target": f">= {target}x" if target else "",
            }
            if scenario == "small5" and name == "bare ujson":
                row["target"] = f"compiled <= {SMALL_LIMIT}x of this"
                row["met"] = ours / median <= SMALL_LIMIT
            elif target:
                row["met"] = median / ours >= target
            rows.append(row)
    return rows


def main() -> None:
    smoke = "--smoke" in sys.argv
    rows = run(smoke=smoke)
    print(f"{'scenario':8} {'contender':26} {'median us':>10} {'compiled is':>12}  target")
    for row in rows:
        met = "" if "met" not in row else ("  met" if row["met"] else "  NOT MET")
        print(f"{row['scenario']:8} {row['contender']:26} {row['median_us']:10.2f} "
              f"{row['speedup']:11.2f}x  {row['target']}{met}")


if __name__ == "__main__":
    main()
