"""Issue 11, item 7: ``idn-hostname`` (IDNA 2008), ``iri``/``iri-reference`` (RFC 3987), ``time``.

Cases from JSON-Schema-Test-Suite draft7/optional/format that failed before, through routes.
"""
from __future__ import annotations

import pytest

from framework import Framework


def check(fmt, value):
    app = Framework()
    app.post("/x", {"schema": {"body": {"type": "object", "properties": {"v": {"type": "string", "format": fmt}}}}},
             lambda request, reply: {"ok": True})
    return app.inject(method="POST", url="/x", json={"v": value}).status_code == 200


@pytest.mark.parametrize("value, valid", [
    ("실례.테스트", True),
    ("\u302e실례.테스트", False),           # illegal first char U+302E
    ("xn--X", False),                        # invalid Punycode
    ("XN--aa---o47jg78q", False),            # "--" in 3rd/4th position of the U-label
    ("\u0300hello", False),                  # begins with a combining mark
    ("a\u00b7l", False), ("l\u00b7l", True),  # MIDDLE DOT context rule
    ("\u03b1\u0375S", False), ("\u03b1\u0375\u03b2", True),   # Greek KERAIA
    ("\u05f3\u05d1", False), ("\u05d0\u05f3\u05d1", True),   # Hebrew GERESH
    ("def\u30fbabc", False), ("\u30fb\u3041", True),          # KATAKANA MIDDLE DOT
    ("\u0915\u200d\u0937", False), ("\u0915\u094d\u200d\u0937", True),   # ZWJ after a virama only
    ("0a.\u05d0", False),                    # Bidi rule over the whole name
    ("xn---9uc", False),                     # not canonical Punycode
    ("example.", False), ("example\u3002", False),   # empty trailing label
    ("example\u3002com", True),
    ("é" * 64, False),                       # label too long
])
def test_idn_hostname(value, valid):
    assert check("idn-hostname", value) is valid


def test_idn_email_domain_may_be_unnormalized():
    assert check("idn-email", "user@cafe\u0301.com")


@pytest.mark.parametrize("value, valid", [
    ("http://ƒøø.ßår/?∂éœ=πîx#πîüx", True),
    ("http://[2001:0db8:85a3:0000:0000:8a2e:0370:7334]", True),
    ("http://2001:0db8:85a3:0000:0000:8a2e:0370:7334", False),   # IPv6 without brackets
    ("http://[::ffff:192.168.0.01]", False),                      # leading zero in the IPv4 part
    ("http://[V1.fe]", True),                                     # IPvFuture
    ("http://a b", False), ("/relative", False), ("http://a/\u00e9\n", False),
])
def test_iri(value, valid):
    assert check("iri", value) is valid


@pytest.mark.parametrize("value, valid", [("//ƒøø.ßår/?∂éœ=πîx#πîüx", True), ("/âππ", True), ("âππ", True),
                                          ("#ƒrägmênt", True), ("\\\\WINDOWS\\filëßåré", False),
                                          ("#ƒräg\\mênt", False)])
def test_iri_reference(value, valid):
    assert check("iri-reference", value) is valid


@pytest.mark.parametrize("value, valid", [("1985-04-12T00:59:59.999999999999999Z", True),
                                          ("2016-12-31T24:59:60+01:00", False),
                                          ("1998-12-31T23:59:60Z", True)])
def test_date_time_seconds(value, valid):
    assert check("date-time", value) is valid


@pytest.mark.parametrize("value, valid", [
    ("(?P<n>a)", False), ("(?#comment)", False), ("(?i)abc", False),   # Python-only syntax
    ("(?<=a+)b", True), ("(?<!ab*)c", True),                        # ES2018 variable-width lookbehind
    ("(?<n>a)\\k<n>", True), ("^\\p{L}+$", True), ("\\p{Nope}", False),
])
def test_format_regex_judges_by_ecma262(value, valid):
    # Item 5: verified (ecma_syntax.py); the value is parsed, never compiled.
    assert check("regex", value) is valid
