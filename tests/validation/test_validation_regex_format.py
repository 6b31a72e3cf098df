"""The ``regex`` format agrees with JavaScript's ``new RegExp(value, "u")`` (what Ajv runs).

Random patterns built from ECMA-262 syntax fragments are judged by the engine and, when
Node.js is installed, by Node itself; the answers must be identical. Without Node the
fixed table below still runs (its answers were taken from Node 20).
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine

FRAGMENTS = ["a", "b", "é", "(", ")", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<n>", "(?<m>", "\\k<n>", "[", "]",
             "^", "-", "\\d", "\\b", "\\B", "*", "+", "?", "{1}", "{1,2}", "{2,1}", "{", "}", "|", "\\", "\\1",
             "\\2", "\\0", "\\u0041", "\\u{41}", "\\x4", "\\x41", "\\p{L}", "\\p{Lu}", "\\p{Script=Latin}",
             "\\cA", "\\/", "\\-", ".", "$", "\\.", "\\n", "\\w", "0", "\\s", ",", "=", "<", ">", "!", ":",
             "(?P<p>", "(?#", "(?i)", "\\Z", "\\A"]

#: (pattern, valid) as Node 20 judges them with the u flag.
KNOWN = [
    ("(?<=a+)b", True), ("(?<n>x)\\k<n>", True), ("\\p{L}", True), ("\\p{Script=Greek}", True), ("[a-z]", True),
    ("a{1,3}?", True), ("^\\d+$", True), ("(a)\\1", True), ("[\\d-]", True), ("\\u{1F600}", True), ("[^]", True),
    ("[]", True), ("[a-c-e]", True), ("\\bx*", True), ("(?P<n>x)", False), ("(?#c)", False), ("(?i)a", False),
    ("^*", False), ("a**", False), ("(?=a)*", False), ("\\Z", False), ("[z-a]", False), ("[\\d-z]", False),
    ("(", False), (")", False), ("a{", False), ("}", False), ("]", False), ("a{3,2}", False), ("\\k<x>", False),
    ("(a)\\2", False), ("\\p{Foo}", False), ("\\c1", False), ("\\01", False), ("\\a", False), ("\\-", False),
    ("(?<n>a)(?<n>b)", False), ("[a", False), ("\\", False), ("\\u{110000}", False), ("(?<=a)*", False),
]


def _engine_says(patterns: list[str]) -> list[bool]:
    validate = ValidatorEngine({"coerce_types": False}).compile({"type": "string", "format": "regex"}, {})
    answers = []
    for pattern in patterns:
        try:
            validate(pattern)
        except SchemaValidationFailure:
            answers.append(False)
        else:
            answers.append(True)
    return answers


@pytest.mark.parametrize("pattern, valid", KNOWN)
def test_known_patterns(pattern, valid):
    assert _engine_says([pattern]) == [valid]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_random_patterns_agree_with_node():
    rng = random.Random(20240601)
    patterns = sorted({"".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 8))) for _ in range(20_000)})
    script = ("const ps = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(ps.map(p => { try { new RegExp(p, 'u'); return true }"
              " catch (e) { return false } })))")
    node = subprocess.run(["node", "-e", script], input=json.dumps(patterns), capture_output=True, text=True,
                          timeout=120, check=True)
    expected = json.loads(node.stdout)
    assert sum(expected) > 1000  # the sample holds plenty of valid patterns too
    disagreements = [(p, e) for p, e, ours in zip(patterns, expected, _engine_says(patterns)) if e != ours]
    assert disagreements == []
