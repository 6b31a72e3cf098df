"""JSON-Schema-Test-Suite ``draft7/optional/`` and ``optional/format/`` through the validator.

Data: the vendored suite (``tests/data/json-schema-test-suite``). Options as plain JSON
Schema (no coercion, defaults or removal). ``$ref`` to ``http://localhost:1234/...`` is
served from the suite's ``remotes/`` through the shared-schema mapping.

Every case passes, or is in ``KNOWN_FAILURES`` with its reason and is asserted to still
fail (a fix shows up as a failure here: move the case out of the table). The reasons
marked "Ajv parity" were checked by running the same case through Ajv 8 with
ajv-formats 2 (Fastify 4's engine): it judges the case the same way as this engine.
A sample also goes through routes (``app.inject``), to cover body parsing.
"""
from __future__ import annotations

import collections
import json
import pathlib

import pytest

from framework import Framework
from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine

SUITE = pathlib.Path(__file__).resolve().parents[1] / "data" / "json-schema-test-suite"
OPTIONAL = SUITE / "draft7" / "optional"
REMOTES = SUITE / "remotes"
# The suite judges unknown keywords as draft 7 does ("ignores unknown keywords"): strict
# mode, on by default, is turned off for it explicitly.
OPTIONS = {"coerce_types": False, "use_defaults": False, "remove_additional": False, "all_errors": False,
           "strict": False}

_HOSTNAME = ("Ajv parity: format 'hostname' is ajv-formats' regex (LDH labels, a trailing dot allowed); "
             "it does not decode A-labels (idn-hostname does, by IDNA 2008)")
_URI = "Ajv parity: ajv-formats' uri/uri-reference regex accepts it"
_URI_TEMPLATE = "Ajv parity: ajv-formats' uri-template regex (RFC 6570 level 4 is not parsed)"
_CONTENT = ("Ajv parity: contentEncoding/contentMediaType are annotations in Ajv 8 (the suite marks "
            "their assertion optional)")

#: (file, group, test) -> why this engine differs from the suite.
KNOWN_FAILURES: dict[tuple[str, str, str], str] = {
    **{("content.json", group, test): _CONTENT for group, test in (
        ("validation of string-encoded content based on media type", "an invalid JSON document"),
        ("validation of binary string-encoding", "an invalid base64 string (% is not a valid character)"),
        ("validation of binary-encoded media type documents", "a validly-encoded invalid JSON document"),
        ("validation of binary-encoded media type documents", "an invalid base64 string that is valid JSON"))},
    ("cross-draft.json", "refs to future drafts are processed as future drafts", "missing bar is invalid"):
        "a draft 2019-09 schema reached by $ref is compiled as draft 7 (dependentRequired is unknown); "
        "Ajv's draft-07 class cannot load it at all",
    ("format/date-time.json", "validation of date-time strings", "a numeric offset without minutes is invalid"):
        "Ajv parity: ajv-formats' time regex takes '+01'",
    **{("format/hostname.json", "validation of A-label (punycode) host names", test): _HOSTNAME for test in (
        "invalid Punycode", "contains illegal char U+302E Hangul single dot tone mark",
        "Begins with a Spacing Combining Mark", "Begins with a Nonspacing Mark", "Begins with an Enclosing Mark",
        "Exceptions that are DISALLOWED, right-to-left chars", "Exceptions that are DISALLOWED, left-to-right chars",
        "MIDDLE DOT with no preceding 'l'", "MIDDLE DOT with nothing preceding", "MIDDLE DOT with no following 'l'",
        "MIDDLE DOT with nothing following", "Greek KERAIA not followed by Greek",
        "Greek KERAIA not followed by anything", "Hebrew GERESH not preceded by Hebrew",
        "Hebrew GERESH not preceded by anything", "Hebrew GERSHAYIM not preceded by Hebrew",
        "Hebrew GERSHAYIM not preceded by anything", "KATAKANA MIDDLE DOT with no Hiragana, Katakana, or Han",
        "KATAKANA MIDDLE DOT with no other characters",
        "Arabic-Indic digits mixed with Extended Arabic-Indic digits", "ZERO WIDTH JOINER not preceded by Virama",
        "ZERO WIDTH JOINER not preceded by anything", 'contains "--" in the 3rd and 4th position')},
    ("format/hostname.json", "validation of host names", "trailing dot"): _HOSTNAME,
    **{("format/unknown.json", "unknown format", f"unknown formats ignore {kind}"):
       "deliberate (Ajv's default strict mode): an unknown format fails ready(), so a misspelt format "
       "never validates nothing" for kind in ("integers", "floats", "objects", "arrays", "booleans", "nulls",
                                              "strings")},
    ("format/uri-reference.json", "validation of URI References",
     "a leading zero in the IPv4 part of an IPv6 literal"): _URI,
    ("format/uri-reference.json", "validation of URI References",
     "a colon in the first segment of a relative-path reference"): _URI,
    ("format/uri.json", "validation of URIs", "leading zero in an embedded IPv4 address is invalid"): _URI,
    **{("format/uri-template.json", "format: uri-template", test): _URI_TEMPLATE for test in (
        "a dotted variable name is valid", "a delete character in a literal is invalid",
        "an apostrophe in a literal is valid")},
}


def _cases() -> list[tuple[str, str, str, object, object, bool]]:
    cases = []
    for path in sorted(list(OPTIONAL.glob("*.json")) + list((OPTIONAL / "format").glob("*.json"))):
        name = path.relative_to(OPTIONAL).as_posix()
        for group in json.loads(path.read_text(encoding="utf-8")):
            for test in group["tests"]:
                cases.append((name, group["description"], test["description"], group["schema"], test["data"],
                              test["valid"]))
    return cases


def _remotes() -> dict[str, object]:
    return {"http://localhost:1234/" + path.relative_to(REMOTES).as_posix(): json.loads(path.read_text())
            for path in REMOTES.rglob("*.json")}


CASES = _cases()
SHARED = _remotes()
_ENGINE = ValidatorEngine(OPTIONS)


def engine_passes(schema: object, data: object, valid: bool) -> bool:
    try:
        validate = _ENGINE.compile(schema, SHARED)
    except Exception:  # noqa: BLE001 - a schema refused at compile time is a failed case
        return False
    try:
        validate(json.loads(json.dumps(data)))
    except SchemaValidationFailure:
        return not valid
    return valid


def test_the_suite_is_here_and_the_table_names_real_cases():
    assert len(CASES) > 700
    assert set(KNOWN_FAILURES) <= {case[:3] for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[" | ".join(case[:3]) for case in CASES])
def test_optional_case(case):
    name, group, description, schema, data, valid = case
    passes = engine_passes(schema, data, valid)
    reason = KNOWN_FAILURES.get((name, group, description))
    if reason is None:
        assert passes, f"{'valid' if valid else 'invalid'} data judged otherwise"
    else:
        assert not passes, f"a known failure passes now ({reason}): remove it from KNOWN_FAILURES"


def pass_counts() -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for name, _group, _description, schema, data, valid in CASES:
        source = "optional/format" if name.startswith("format/") else "optional"
        counts[source][1] += 1
        counts[source][0] += engine_passes(schema, data, valid)
    return {source: (passed, total) for source, (passed, total) in counts.items()}


def test_pass_counts():
    counts = pass_counts()
    print("\n" + "\n".join(f"draft7/{source}: {p}/{t}" for source, (p, t) in sorted(counts.items())))
    assert sum(p for p, _ in counts.values()) == len(CASES) - len(KNOWN_FAILURES)


# ------------------------------------------------------------------------------ through routes

def _route_sample() -> list[tuple]:
    # Self-contained schemas (no $ref/$id: they are wrapped under a property here); every
    # bignum/float-overflow/regex case, and every third of the others.
    sample = []
    for index, case in enumerate(CASES):
        text = json.dumps(case[3])
        if "$ref" in text or "$id" in text or case[:3] in KNOWN_FAILURES:
            continue
        if case[0] in ("bignum.json", "float-overflow.json", "ecmascript-regex.json", "format/regex.json") \
                or index % 3 == 0:
            sample.append(case)
    return sample


ROUTE_SAMPLE = _route_sample()


@pytest.fixture(scope="module")
def client():
    app = Framework(validator={"custom_options": OPTIONS})
    for number, case in enumerate(ROUTE_SAMPLE):
        schema = {"type": "object", "required": ["v"], "properties": {"v": case[3]}}
        app.post(f"/case/{number}", {"schema": {"body": schema}}, lambda request, reply: {"ok": True})
    app.ready()
    return app


@pytest.mark.parametrize("number", range(len(ROUTE_SAMPLE)),
                         ids=[" | ".join(case[:3]) for case in ROUTE_SAMPLE])
def test_optional_case_through_a_route(client, number):
    case = ROUTE_SAMPLE[number]
    body = '{"v": ' + json.dumps(case[4], ensure_ascii=False) + "}"
    response = client.inject(method="POST", url=f"/case/{number}", body=body.encode("utf-8"),
                             headers={"content-type": "application/json"})
    assert response.status_code == (200 if case[5] else 400), response.text
