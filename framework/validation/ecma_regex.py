"""ECMA-262 regular expressions (Ajv's ``pattern``, ``u`` flag) rewritten for Python's ``re``.

Differences handled: ``\\d``/``\\w`` are ASCII in JavaScript, ``$`` is the end of input
(Python's also matches before a final newline), ``.`` excludes every JS line
terminator, named groups are ``(?<n>...)``, ``\\u{...}`` code points, ``[^]`` and
``[]``, a literal ``[`` in a class. ``\\p{...}``/``\\P{...}`` (Unicode properties: general
categories, ``Script=``/``Script_Extensions=``, binary properties) are checked against
ECMA-262's tables (:mod:`.ecma_syntax`) and compiled with the ``regex`` package, which
has Unicode's property data (``re`` has none); every other pattern stays with ``re``.
"""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, TypeAlias, Union

if TYPE_CHECKING:
    import regex

#: What :func:`compile_pattern` gives: an ``re`` pattern, or a ``regex`` one for a pattern
#: with Unicode property escapes (both have the same ``search``).
CompiledPattern: TypeAlias = Union["re.Pattern[str]", "regex.Pattern[str]"]

# JavaScript's \s: WhiteSpace and LineTerminator (Python's lacks U+FEFF).
_JS_SPACE = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_CLASS_ESCAPES = {"d": "0-9", "w": "A-Za-z0-9_", "s": _JS_SPACE}
_ESCAPES = {"d": "[0-9]", "D": "[^0-9]", "w": "[A-Za-z0-9_]", "W": "[^A-Za-z0-9_]",
            "s": "[" + _JS_SPACE + "]", "S": "[^" + _JS_SPACE + "]"}
_DOT = "[^\\n\\r\\u2028\\u2029]"


@functools.lru_cache(maxsize=1024)
def translate_pattern(pattern: str) -> str:
    """Python ``re`` source equivalent to the JavaScript ``pattern``. Raises ValueError if unsupported.

    A pattern with ``\\p{...}`` translates to ``regex`` source (see :func:`compile_pattern`).
    """
    return _translate(pattern)[0]


def _translate(pattern: str) -> tuple[str, bool]:
    """``(source, uses_property_escapes)``."""
    properties = False
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= n:
                raise ValueError("pattern ends with a lone backslash")
            nxt = pattern[i + 1]
            if nxt in "pP" and i + 2 < n and pattern[i + 2] == "{":
                end = pattern.find("}", i)
                if end < 0:
                    raise ValueError("unterminated Unicode property escape")
                # Same spelling in the regex package: \p{L}, \p{Script=Greek}, \P{sc=Grek}.
                out.append(pattern[i:end + 1])
                properties = True
                i = end + 1
                continue
            if nxt == "u" and i + 2 < n and pattern[i + 2] == "{":
                end = pattern.index("}", i)
                out.append("\\U%08x" % int(pattern[i + 3:end], 16))
                i = end + 1
                continue
            if nxt == "c" and i + 2 < n and pattern[i + 2].isalpha():
                out.append("\\x%02x" % (ord(pattern[i + 2]) % 32))
                i += 3
                continue
            if nxt == "k" and i + 2 < n and pattern[i + 2] == "<":
                end = pattern.index(">", i)
                out.append("(?P=" + pattern[i + 3:end] + ")")
                i = end + 1
                continue
            if in_class and nxt in _CLASS_ESCAPES:
                out.append(_CLASS_ESCAPES[nxt])
            elif not in_class and nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
            elif nxt == "/":
                out.append("/")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
                out.append(char)
            elif char == "[":
                out.append("\\[")
            elif char in "&~|-" and i + 1 < n and pattern[i + 1] == char:
                # Python reserves doubled set operators for future syntax.
                out.append("\\" + char)
            else:
                out.append(char)
            i += 1
            continue
        if char == "[":
            if pattern.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                continue
            if pattern.startswith("[]", i):
                out.append("(?!)")
                i += 2
                continue
            in_class = True
            out.append("[")
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            continue
        if char == "$":
            out.append("(?!(?s:.))")
        elif char == ".":
            out.append(_DOT)
        elif char == "(" and pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        else:
            out.append(char)
        i += 1
    return "".join(out), properties


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> CompiledPattern:
    """Compile a JSON-Schema ``pattern``; ``ValueError`` for an invalid or unsupported one.

    Schema text only (the application's patterns), never request data. A pattern with
    Unicode property escapes must be valid ECMA-262 (``u`` flag), names included, and is
    compiled with ``regex``; the result has the same ``search`` as an ``re`` pattern.
    """
    source, properties = _translate(pattern)
    if properties:
        from .ecma_syntax import is_ecma_regex
        if not is_ecma_regex(pattern):
            raise ValueError(f"invalid pattern {pattern!r}: not an ECMA-262 regular expression "
                             "(unknown Unicode property?)")
        try:
            import regex
        except ImportError as exc:  # a dependency (setup.cfg); say what is missing
            raise ValueError(f"pattern {pattern!r} uses \\p{{...}}, which needs the 'regex' package") from exc
        try:
            return regex.compile(source, regex.VERSION0)
        except regex.error as exc:
            raise ValueError(f"invalid pattern {pattern!r}: {exc}") from exc
    try:
        return re.compile(source)
    except re.error as exc:
        raise ValueError(f"invalid pattern {pattern!r}: {exc}") from exc
