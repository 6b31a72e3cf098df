"""Request data never buys super-linear work, and never grows a cache.

Every parser, coercer and format check a request reaches is fed adversarial values of
10,000 and 100,000 characters through ``app.inject``. The time for 100k must stay below
20x the time for 10k (linear growth is 10x; quadratic would be 100x): the minimum of a
few runs, with a floor so that timer noise on fast cases cannot fail the test. This is a
growth test, not a benchmark. Every answer must be a 2xx or a 4xx, never a 500.
"""
from __future__ import annotations

import gc
import time
import tracemalloc
from typing import Callable

import pytest

from framework import Framework
from framework.http import media_types
from framework.validation.ecma_regex import translate_pattern

SMALL, LARGE = 10_000, 100_000
#: Below this, a time is noise (fixed costs of inject, CPU caches, a loaded CI machine):
#: compare against it instead. A quadratic check is 100x, far past 20x this floor.
FLOOR = 0.005
REPEAT = 5

def ok(request, reply):
    # The handler never echoes the value: only parsing and validation are measured.
    return {"ok": True}


def _app() -> Framework:
    app = Framework()
    app.get("/query", {"schema": {"querystring": {"type": "object", "properties": {
        "i": {"type": "integer"}, "n": {"type": "number"}}}}}, ok)
    app.get("/params/:i", {"schema": {"params": {"type": "object", "properties": {"i": {"type": "integer"}}}}}, ok)
    app.get("/headers", {"schema": {"headers": {"type": "object", "properties": {
        "x-n": {"type": "number"}, "x-i": {"type": "integer"}}}}}, ok)
    app.post("/body", {"schema": {"body": {"type": "object", "properties": {
        "i": {"type": "integer"}, "n": {"type": "number"}}}}}, ok)
    app.post("/raw", ok)
    app.get("/cookies", lambda request, reply: {"count": len(request.cookies)})
    for name in FORMATS:
        app.post(f"/format/{name}", {"schema": {"body": {"type": "object", "properties": {
            "v": {"type": "string", "format": name}}}}}, ok)
    return app


# Each format with values built to make backtracking or quadratic algorithms show:
# long runs of characters the check accepts, then one it refuses (or none).
FORMATS: dict[str, list[Callable[[int], str]]] = {
    "date-time": [lambda n: "2020-01-01T" + "1" * n, lambda n: "2020-01-01" + " " * n + "x",
                  lambda n: "2020-01-01T00:00:00." + "1" * n + "x"],
    "date": [lambda n: "2020-01-" + "1" * n],
    "time": [lambda n: "00:00:00." + "1" * n + "x"],
    "uri": [lambda n: "a:" + "/" * n + "\x00", lambda n: "a://" + "a" * n + "@", lambda n: "a:" + "%aa" * (n // 3) + "%",
            lambda n: "a://[" + ":" * n, lambda n: "http://a/" + "a/" * (n // 2) + " "],
    "uri-reference": [lambda n: "/" * n + "\x00", lambda n: "//" + "a" * n + "@@", lambda n: "a/" * (n // 2) + "%"],
    "iri": [lambda n: "a:" + "é" * n + " "],
    "iri-reference": [lambda n: "é" * n + " "],
    "uri-template": [lambda n: "{" + "a" * n, lambda n: "{a," * (n // 3) + "}", lambda n: "%aa" * (n // 3) + "%"],
    "email": [lambda n: "a@" + "a-" * (n // 2) + "!", lambda n: "a." * (n // 2) + "@", lambda n: "a@" + "a." * (n // 2)],
    "idn-email": [lambda n: "a@" + "é" * n, lambda n: "é" * n + "@a.b", lambda n: "a@" + "é." * (n // 2)],
    "hostname": [lambda n: "a" * n + "!", lambda n: "a-" * (n // 2), lambda n: "a." * (n // 2) + "-"],
    "idn-hostname": [lambda n: "é" * n, lambda n: "é." * (n // 2), lambda n: "a" * n + "!"],
    "ipv4": [lambda n: "1." * (n // 2)],
    "ipv6": [lambda n: "1:" * (n // 2), lambda n: "::" + "f" * n, lambda n: ":" * n],
    "uuid": [lambda n: "a" * n, lambda n: "urn:uuid:" + "-" * n],
    "json-pointer": [lambda n: "/" + "~" * n, lambda n: "/a" * (n // 2) + "~"],
    "relative-json-pointer": [lambda n: "1" * n + "x", lambda n: "0" + "/a" * (n // 2) + "~"],
    "regex": [lambda n: "a" * n, lambda n: "(" * (n // 2) + ")" * (n // 2), lambda n: "(" * n,
              lambda n: "[" + "a-" * (n // 2), lambda n: "(?<" + "a" * n, lambda n: "a{" + "1" * n + ",",
              lambda n: "\\p{" + "L" * n, lambda n: "(?:a|" * (n // 5) + ")" * (n // 5), lambda n: "\\1" * (n // 2)],
    "duration": [lambda n: "P" + "1" * n + "X", lambda n: "PT" + "1H" * (n // 2)],
    "json-pointer-uri-fragment": [lambda n: "#" + "/a" * (n // 2) + "%"],
    "byte": [lambda n: "a" * n + "="],
    "url": [lambda n: "http://" + "a-" * (n // 2) + "!", lambda n: "http://a." * (n // 9)],
}

NUMBER_TEXTS: list[Callable[[int], str]] = [
    lambda n: "1" * n, lambda n: "1" * n + "x", lambda n: "9" * n + ".5", lambda n: "0x" + "f" * n,
    lambda n: " " * n + "1", lambda n: "1e" + "9" * n, lambda n: "." + "1" * n + "e", lambda n: "-" + "0" * n,
]


def _cost(send: Callable[[str], object], make: Callable[[int], str], size: int) -> float:
    value = make(size)
    best = float("inf")
    for _ in range(REPEAT):
        start = time.perf_counter()
        response = send(value)
        best = min(best, time.perf_counter() - start)
        assert response.status_code < 500, (response.status_code, response.text[:300])
    return best


def _assert_linear(send: Callable[[str], object], make: Callable[[int], str]) -> None:
    for attempt in range(2):  # one re-measure: a busy machine can stall one run, not two
        small = _cost(send, make, SMALL)
        large = _cost(send, make, LARGE)
        if large < 20 * max(small, FLOOR):
            break
    assert large < 20 * max(small, FLOOR), f"{large:.4f}s at 100k vs {small:.4f}s at 10k: super-linear"
    assert large < 1.0, f"{large:.2f}s for one 100k-character request"


@pytest.fixture(scope="module")
def app() -> Framework:
    return _app()


@pytest.mark.parametrize("make", NUMBER_TEXTS)
@pytest.mark.parametrize("part", ["query-integer", "query-number", "params", "header-number", "header-integer",
                                  "body-integer", "body-number"])
def test_numeric_coercion_is_linear(app, part, make):
    senders = {
        "query-integer": lambda v: app.inject(url="/query", query={"i": v}),
        "query-number": lambda v: app.inject(url="/query", query={"n": v}),
        "params": lambda v: app.inject(url="/params/" + v.replace(" ", "0")),
        "header-number": lambda v: app.inject(url="/headers", headers={"x-n": v.strip() or "1"}),
        "header-integer": lambda v: app.inject(url="/headers", headers={"x-i": v.strip() or "1"}),
        "body-integer": lambda v: app.inject(method="POST", url="/body", json={"i": v}),
        "body-number": lambda v: app.inject(method="POST", url="/body", json={"n": v}),
    }
    _assert_linear(senders[part], make)


@pytest.mark.parametrize("digits", [400, 5_000, 100_000])
def test_long_digit_strings_are_javascript_numbers_not_500s(digits):
    # JS's Number() of a long digit string is a double; past 1.8e308 it is Infinity, which
    # Ajv's coercion (and this engine's, see ajv-compat.md 1.1) accepts like "Infinity".
    app = Framework()
    app.post("/n", {"schema": {"body": {"type": "object", "properties": {"n": {"type": "number"}}}}},
             lambda request, reply: {"finite": request.body["n"] not in (float("inf"), float("-inf"))})
    response = app.inject(method="POST", url="/n", json={"n": "1" * digits})
    assert response.status_code == 200 and response.json() == {"finite": False}
    response = app.inject(method="POST", url="/n", json={"n": "1" * digits + "x"})
    assert response.status_code == 400 and response.json()["message"] == "body/n should be number"
    response = app.inject(method="POST", url="/n", json={"n": "1" * 300})
    assert response.status_code == 200 and response.json() == {"finite": True}


@pytest.mark.parametrize("make", [
    lambda n: "application/json" + " " * n + "x",
    lambda n: "application/json" + " " * n + ";" + " " * n + "x",
    lambda n: "application/json;" + "a=b;" * (n // 4) + "x",
    lambda n: 'application/json; a="' + "\\a" * (n // 2),
    lambda n: "application/" + "a" * n + "/",
    lambda n: "application/json" + "\t;" * (n // 2) + "=",
])
def test_content_type_parsing_is_linear(app, make):
    _assert_linear(lambda v: app.inject(method="POST", url="/raw", body=b"{}", headers={"Content-Type": v}), make)


@pytest.mark.parametrize("make", [lambda n: "a=" + "b" * n, lambda n: "a=b; " * (n // 5), lambda n: '"' * n,
                                  lambda n: "a=" + '"\\' * (n // 2)])
def test_cookie_parsing_is_linear(app, make):
    _assert_linear(lambda v: app.inject(url="/cookies", headers={"Cookie": v}), make)


@pytest.mark.parametrize("make", [lambda n: "i=1&" * (n // 4), lambda n: "%" * n, lambda n: "a=" + "%2" * (n // 2),
                                  lambda n: "&" * n, lambda n: "=" * n])
def test_query_string_parsing_is_linear(app, make):
    _assert_linear(lambda v: app.inject(url="/query?" + v), make)


@pytest.mark.parametrize("name, make", [(name, make) for name, makes in FORMATS.items() for make in makes])
def test_format_checks_are_linear(app, name, make):
    _assert_linear(lambda v: app.inject(method="POST", url=f"/format/{name}", json={"v": v}), make)


@pytest.mark.parametrize("value, valid", [
    (r"(?<=a+)b", True), (r"(?<n>x)\k<n>", True), (r"\p{L}+", True), (r"[\u{1F600}-\u{1F64F}]", True),
    (r"(?P<n>x)", False), (r"(?#comment)", False), (r"(?i)a", False), (r"\Z", False), (r"a{2,1}", False),
    (r"(?=a)*", False), (r"[z-a]", False), (r"(a)\2", False), ("(" * 50_000, False), ("(" * 5_000 + ")" * 5_000, True),
])
def test_regex_format_follows_ecma262_with_the_u_flag(value, valid):
    app = Framework()
    app.post("/r", {"schema": {"body": {"type": "object", "properties": {"v": {"type": "string", "format": "regex"}}}}},
             ok)
    response = app.inject(method="POST", url="/r", json={"v": value})
    assert response.status_code == (200 if valid else 400), response.text[:200]


@pytest.mark.parametrize("name, value, valid", [
    ("idn-hostname", "例え.テスト", True), ("idn-hostname", "a" * 64 + ".com", False),
    ("idn-hostname", ("é" * 10 + ".") * 30, False), ("idn-email", "用户@例え.テスト", True),
    ("idn-email", "a" * 65 + "@example.com", False), ("idn-email", "a@b@c", False),
])
def test_idn_formats_refuse_over_long_values(name, value, valid):
    app = Framework()
    app.post("/f", {"schema": {"body": {"type": "object", "properties": {"v": {"type": "string", "format": name}}}}},
             ok)
    assert app.inject(method="POST", url="/f", json={"v": value}).status_code == (200 if valid else 400)


def test_media_type_cache_does_not_grow_with_request_data(app):
    for index in range(300):
        app.inject(method="POST", url="/raw", body=b"{}",
                   headers={"Content-Type": f"application/json; x={index}; pad={'p' * 200}"})
    assert len(media_types._cache) <= media_types._CACHE_SIZE
    assert all(len(header) <= 100 for header in media_types._cache)


def test_regex_format_compiles_and_caches_nothing(app):
    send = [f"(?<g{index}>[a-z]+)" + "x" * 10_000 for index in range(300)]
    app.inject(method="POST", url="/format/regex", json={"v": send[0]})  # warm up
    gc.collect()
    cached = translate_pattern.cache_info().currsize
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for value in send:
        assert app.inject(method="POST", url="/format/regex", json={"v": value}).status_code == 200
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert translate_pattern.cache_info().currsize == cached
    # Compiling and caching them cost about 1 MB each; what remains now is noise.
    assert grown < 1_000_000, f"{grown} bytes kept after 300 distinct regex values"
