"""fast-json-stringify 5.9.2's own test data, run through ``compile_serializer``.

The cases (``tests/data/conformance/fast-json-stringify-5.9.2.json``) were recorded from
fast-json-stringify's test suite at tag v5.9.2: each schema, input and the output (or
the build/run-time error) fast-json-stringify gave. Each case must pass here, except
the known failures below, which must still fail (so that a fix shows up): each has
its reason, a deliberate difference (README, "Conformance: serializer") or a gap.
"""
from __future__ import annotations

import pytest

from fjs_cases import applicable, load_cases, run

DATE_TEXT = ("deliberate: a datetime is written by isoformat() (its own offset, microseconds), "
             "not JS's toISOString() (UTC, milliseconds, Z)")
JS_STRING = "deliberate: an object or list coerced to a string is Python's str(), not JS's String()"

KNOWN_FAILURES = {
    "additionalProperties-0": JS_STRING,
    "additionalProperties-4": JS_STRING,
    "patternProperties-336": JS_STRING,
    "patternProperties-338": JS_STRING,
    "anyof-89": DATE_TEXT, "anyof-90": DATE_TEXT, "array-98": DATE_TEXT, "date-168": DATE_TEXT,
    "date-169": DATE_TEXT, "date-170": DATE_TEXT, "date-178": DATE_TEXT, "date-190": DATE_TEXT,
    "oneof-329": DATE_TEXT, "typesArray-462": DATE_TEXT, "sanitize-414": DATE_TEXT,
    "allof-24": "gap: after an allOf merge fast-json-stringify keeps the merged properties' order; "
                "we put required properties first",
    "allof-35": "gap: allOf parts with different types are merged (intersected), not refused",
    "allof-36": "gap: allOf parts with different types are merged (intersected), not refused",
    "allof-37": "gap: allOf parts with different formats are merged (first wins), not refused",
    "allof-38": "gap: allOf parts with different nullable values are merged, not refused",
    "anyof-94": "gap: a string branch's format is not checked when choosing an anyOf branch",
    "array-110": "gap: tuple items are coerced to their schema, not validated (1 becomes \"1\")",
    "array-111": "gap: tuple items are coerced to their schema, not validated (1 becomes \"1\")",
    "invalidSchema-283": "deliberate: only the shared schemas a response schema reaches are checked",
    "ref-360": "gap: a plain-name $id (\"#first-schema\") inside a shared schema is not resolved "
               "(the resolver is framework.schemas.store', shared with the validator)",
    "ref-362": "gap: plain-name $id inside a shared schema (see ref-360)",
    "ref-365": "gap: plain-name $id inside a shared schema (see ref-360)",
    "ref-397": "gap: a duplicate $id in one schema is not refused (the first wins)",
    "ref-398": "gap: a duplicate anchor in one schema is not refused (the first wins)",
    "toJSON-438": "deliberate: a null object is written {} (fast-json-stringify crashes reading a property of null)",
    "toJSON-439": "deliberate: a null object is written {} (see toJSON-438)",
    "typesArray-463": "deliberate: None for an array is [] (the README's coercion), not an error",
}

CASES = [case for case in load_cases() if applicable(case)]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case):
    passed, detail = run(case)
    if case["id"] in KNOWN_FAILURES:
        assert not passed, f"now passes: remove it from KNOWN_FAILURES ({KNOWN_FAILURES[case['id']]})"
    else:
        assert passed, detail


def test_known_failures_are_real_case_ids():
    ids = {case["id"] for case in CASES}
    assert set(KNOWN_FAILURES) <= ids


def test_pass_count():
    # The figure the README reports: keep both in step.
    passed = sum(run(case)[0] for case in CASES)
    assert (passed, len(CASES), len(load_cases())) == (397, 429, 468)
