"""Issue 11, item 7 (last part): limits beyond 2**53 compare as JavaScript does for doubles."""
from __future__ import annotations

import pytest

from framework import Framework


@pytest.mark.parametrize("keyword, limit, value, ok", [
    ("minimum", -18446744073709551615, "-18446744073709551600", True),    # both -2**64 as doubles
    ("maximum", 18446744073709551615, "18446744073709551600", True),
    ("maximum", 972783798187987123879878123.18878137, "972783798187987123879878123.188781371", True),
    ("exclusiveMinimum", -972783798187987123879878123.18878137, "-972783798187987123879878123.188781371", False),
    ("minimum", -18446744073709551615, "-1e30", False),
    ("maximum", 2 ** 64, "1e300", False),
])
def test_big_limits_through_a_route(keyword, limit, value, ok):
    app = Framework(validator={"custom_options": {"coerce_types": False}})
    app.post("/x", {"schema": {"body": {"type": "object", "properties": {"v": {keyword: limit}}}}},
             lambda request, reply: {"ok": True})
    response = app.inject(method="POST", url="/x", body=('{"v": %s}' % value).encode(),
                          headers={"content-type": "application/json"})
    assert (response.status_code == 200) is ok, response.text


def test_exact_ints_still_compare_exactly():
    from framework.validation import ValidatorEngine
    from framework.errors import SchemaValidationFailure
    validate = ValidatorEngine().compile({"maximum": 18446744073709551615})
    assert validate(18446744073709551615) == 18446744073709551615
    with pytest.raises(SchemaValidationFailure):
        validate(18446744073709551616)
