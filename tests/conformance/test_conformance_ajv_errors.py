"""ajv-errors 3.0.0's own spec data, run through routes with ``framework.plugins.error_messages``.

The cases (``tests/data/conformance/ajv-errors-3.0.0.json``) were recorded from
ajv-errors' spec at tag v3.0.0 run with Ajv 8: each schema, plugin options and data,
and the error objects Ajv returned. Here each goes through ``Framework(validator=
{"plugins": [(error_messages, options)]})``, ``set_error_handler`` and ``inject``;
keywords, instance and schema paths, ``emUsed``, the ``errorMessage`` texts and the
records they replaced must agree (other keywords' texts differ by design: "should"
where Ajv says "must"). Known failures must still fail, each with its reason.
"""
from __future__ import annotations

import pytest

from ajv_errors_cases import applicable, load_cases, run

KNOWN_FAILURES: dict[str, str] = {}

CASES = [case for case in load_cases() if applicable(case)]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case):
    passed, detail = run(case)
    if case["id"] in KNOWN_FAILURES:
        assert not passed, f"now passes: remove it from KNOWN_FAILURES ({KNOWN_FAILURES[case['id']]})"
    else:
        assert passed, detail


def test_pass_count():
    # The figure the README reports: keep both in step.
    assert (sum(run(case)[0] for case in CASES), len(CASES), len(load_cases())) == (147, 147, 148)
