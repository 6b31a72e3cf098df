"""The ``format`` checks: ajv-formats' "full" set, plus draft-07's IRI/IDN formats.

A check is a predicate ``check(value) -> bool``. String formats only look at strings
and number formats (``int32``, ``int64``, ``float``, ``double``) only at numbers: any
other value passes, as with Ajv. Regexes are anchored with ``\\Z`` (Python's ``$``
also matches before a final newline, which JavaScript's does not).
"""
from __future__ import annotations

import ipaddress
import re
import unicodedata
from typing import Any, Callable, Pattern

import idna
from idna import core as idna_core

from .ecma_regex import compile_pattern
from .ecma_syntax import is_ecma_regex
from .runtime import is_integer, is_number

Check = Callable[[Any], bool]

_DATE = re.compile(r"(\d\d\d\d)-(\d\d)-(\d\d)\Z", re.ASCII)
_TIME = re.compile(r"(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?\Z", re.I | re.ASCII)
_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_date(value: str) -> bool:
    match = _DATE.match(value)
    if not match:
        return False
    year, month, day = (int(g) for g in match.groups())
    return 1 <= month <= 12 and 1 <= day <= (29 if month == 2 and _leap(year) else _DAYS[month])


def _time(value: str, strict_zone: bool) -> bool:
    match = _TIME.match(value)
    if not match:
        return False
    # Whole seconds only: a fraction never changes the verdict (59.999999999999999 is
    # valid, and float() would round it to 60).
    hour, minute, second = int(match.group(1)), int(match.group(2)), int(match.group(3)[:2])
    zone, sign = match.group(4), match.group(5)
    zone_hour, zone_minute = int(match.group(6) or 0), int(match.group(7) or 0)
    if strict_zone and not zone:
        return False
    if zone_hour > 23 or zone_minute > 59:
        return False
    if hour > 23 or minute > 59:
        return False
    if second < 60:
        return True
    # A leap second is 23:59:60 in UTC.
    utc_minute = minute - zone_minute * (1 if sign == "+" else -1 if sign else 0)
    utc_hour = hour - zone_hour * (1 if sign == "+" else -1 if sign else 0) - (1 if utc_minute < 0 else 0)
    return second < 61 and (utc_minute % 60) == 59 and (utc_hour % 24) == 23


def is_time(value: str) -> bool:
    return _time(value, True)


def is_iso_time(value: str) -> bool:
    return _time(value, False)


_DATE_TIME_SEPARATOR = re.compile(r"t|\s", re.I)


def _date_time(value: str, strict_zone: bool) -> bool:
    parts = _DATE_TIME_SEPARATOR.split(value)
    return len(parts) == 2 and is_date(parts[0]) and _time(parts[1], strict_zone)


def is_date_time(value: str) -> bool:
    return _date_time(value, True)


def is_iso_date_time(value: str) -> bool:
    return _date_time(value, False)


def _regex(pattern: str, flags: int = 0) -> Check:
    compiled = re.compile(pattern, flags | re.ASCII)
    return lambda value: compiled.match(value) is not None


_URI_CHARS = r"(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})"
_URI = re.compile(
    r"[a-z][a-z0-9+\-.]*:"                                      # scheme
    r"(?://(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?"   # userinfo
    r"(?:\[[0-9a-f:.v]+\]|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)"  # host
    r"(?::\d*)?"                                                # port
    r"(?:/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*"       # path-abempty
    r"|/?(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?)"
    r"(?:\?" + _URI_CHARS + r"*)?(?:#" + _URI_CHARS + r"*)?\Z", re.I | re.ASCII)
_URI_REFERENCE = re.compile(
    r"(?:[a-z][a-z0-9+\-.]*:)?(?://(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?"
    r"(?:\[[0-9a-f:.v]+\]|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?"
    r"(?:/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*"
    r"|/?(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?)"
    r"(?:\?" + _URI_CHARS + r"*)?(?:#" + _URI_CHARS + r"*)?\Z", re.I | re.ASCII)
# RFC 3987 (IRI): RFC 3986's grammar with ucschar (and iprivate in the query) allowed.
# Every repetition is over a class that excludes the next delimiter, so matching is linear.
_UCS = ("\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef\U00010000-\U0001fffd\U00020000-\U0002fffd"
        "\U00030000-\U0003fffd\U00040000-\U0004fffd\U00050000-\U0005fffd\U00060000-\U0006fffd"
        "\U00070000-\U0007fffd\U00080000-\U0008fffd\U00090000-\U0009fffd\U000a0000-\U000afffd"
        "\U000b0000-\U000bfffd\U000c0000-\U000cfffd\U000d0000-\U000dfffd\U000e1000-\U000efffd")
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_IUNRESERVED = "A-Za-z0-9\\-._~" + _UCS
_SUB_DELIMS = "!$&'()*+,;="
_PCT = "%[0-9A-Fa-f]{2}"
_IPCHAR = f"(?:[{_IUNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_ISEGMENT = f"{_IPCHAR}*"
_IAUTHORITY = (f"(?:(?:[{_IUNRESERVED}{_SUB_DELIMS}:]|{_PCT})*@)?"
               f"(?:\\[[^\\]/?#@\\[%]*\\]|(?:[{_IUNRESERVED}{_SUB_DELIMS}]|{_PCT})*)(?::[0-9]*)?")
_ITAIL = (f"(?:\\?(?:[{_IUNRESERVED}{_SUB_DELIMS}:@/?{_IPRIVATE}]|{_PCT})*)?"
          f"(?:#(?:[{_IUNRESERVED}{_SUB_DELIMS}:@/?]|{_PCT})*)?\\Z")
_ISCHEME = "[A-Za-z][A-Za-z0-9+\\-.]*:"
_IHIER_PART = (f"(?://{_IAUTHORITY}(?:/{_ISEGMENT})*|/(?:{_IPCHAR}+(?:/{_ISEGMENT})*)?"
               f"|{_IPCHAR}+(?:/{_ISEGMENT})*|)")
_IRELATIVE_PART = (f"(?://{_IAUTHORITY}(?:/{_ISEGMENT})*|/(?:{_IPCHAR}+(?:/{_ISEGMENT})*)?"
                   f"|(?:[{_IUNRESERVED}{_SUB_DELIMS}@]|{_PCT})+(?:/{_ISEGMENT})*|)")
_IRI = re.compile(_ISCHEME + _IHIER_PART + _ITAIL)
_IRI_REFERENCE = re.compile(f"(?:{_ISCHEME}{_IHIER_PART}|{_IRELATIVE_PART}){_ITAIL}")
_IP_LITERAL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+\-.]*:)?//[^/?#\[\]]*\[([^\]]*)\]")
_IP_FUTURE = re.compile(r"[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+\Z")


def _iri(pattern: "re.Pattern[str]", value: str) -> bool:
    if pattern.match(value) is None:
        return False
    literal = _IP_LITERAL.match(value)
    if literal is None or _IP_FUTURE.match(literal.group(1)):
        return True
    try:   # an IPv6 literal: ipaddress refuses a leading zero in an embedded IPv4 part
        ipaddress.IPv6Address(literal.group(1))
    except ValueError:
        return False
    return True


def is_iri(value: str) -> bool:
    return _iri(_IRI, value)


def is_iri_reference(value: str) -> bool:
    return _iri(_IRI_REFERENCE, value)


_URL = re.compile(
    r"(?:https?|ftp)://(?:[^\s:@]+(?::[^\s:@]*)?@)?(?:(?!10(?:\.\d{1,3}){3})(?!127(?:\.\d{1,3}){3})"
    r"(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))"
    r"|(?:(?:[a-z0-9\u00a1-\uffff]+-)*[a-z0-9\u00a1-\uffff]+)(?:\.(?:[a-z0-9\u00a1-\uffff]+-)*[a-z0-9\u00a1-\uffff]+)*"
    r"(?:\.[a-z\u00a1-\uffff]{2,})?)(?::\d{2,5})?(?:/[^\s]*)?\Z", re.I)
_HOSTNAME = re.compile(
    r"(?=.{1,253}\.?\Z)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?\Z",
    re.I | re.ASCII)


def is_uri(value: str) -> bool:
    return _URI.match(value) is not None


def is_hostname(value: str) -> bool:
    return _HOSTNAME.match(value) is not None


#: RFC 1034/5890 limits. An A-label is never shorter than its U-label, so a longer Unicode
#: string cannot pass; refusing it before the (super-linear) IDNA codec bounds the work.
_HOSTNAME_MAX = 253
_LABEL_MAX = 63
_EMAIL_LOCAL_MAX = 64


_IDN_SEPARATORS = re.compile("[.\u3002\uff0e\uff61]")
_LDH_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\Z")
_RTL = frozenset(("R", "AL", "AN"))


def is_idn_hostname(value: str) -> bool:
    """RFC 5890-5893 (IDNA 2008): each label an LDH label, a valid A-label (canonical
    Punycode of a valid U-label) or a valid U-label (code points, hyphens, leading
    combining marks, CONTEXTJ/CONTEXTO rules: the ``idna`` package); the Bidi rule on
    every label of a name with a right-to-left label; at most 253 octets in ASCII form.
    """
    # A U-label is never longer than its A-label: bound the input before any IDNA work.
    if not value or len(value) > _HOSTNAME_MAX:
        return False
    labels = _IDN_SEPARATORS.split(value)
    if any(not label or len(label) > _LABEL_MAX for label in labels):
        return False   # empty label (also a trailing dot) or too long
    size = len(labels) - 1
    unicode_labels: list[str] = []
    try:
        for label in labels:
            if label.isascii():
                if not _LDH_LABEL.match(label):
                    return False
                if label[2:4] == "--":
                    if label[:4].lower() != "xn--":
                        return False
                    ulabel = idna.ulabel(label)
                    if idna.alabel(ulabel).decode("ascii") != label.lower():
                        return False   # not the canonical encoding of its U-label
                    unicode_labels.append(ulabel)
                else:
                    unicode_labels.append(label)
                size += len(label)
            else:
                idna_core.check_label(label)
                size += len(idna.alabel(label))
                unicode_labels.append(label)
        if size > _HOSTNAME_MAX:
            return False
        if any(unicodedata.bidirectional(char) in _RTL for label in unicode_labels for char in label):
            for label in unicode_labels:
                idna_core.check_bidi(label, check_ltr=True)
    except (idna.IDNAError, UnicodeError, ValueError):
        return False
    return True


def is_ipv6(value: str) -> bool:
    if "%" in value or not value or value.strip() != value:
        return False
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


def is_regex(value: str) -> bool:
    # Request data: parsed against the ECMA-262 grammar in linear time, never compiled or
    # cached (translate_pattern's cache and re's are for the application's own patterns).
    return is_ecma_regex(value)


def is_idn_email(value: str) -> bool:
    local, at, domain = value.partition("@")
    return bool(at) and bool(local) and "@" not in domain \
        and len(local.encode("utf-8", "surrogatepass")) <= _EMAIL_LOCAL_MAX and len(domain) <= _HOSTNAME_MAX \
        and is_idn_hostname(unicodedata.normalize("NFC", domain))   # RFC 6531: the domain may be un-normalized


def _int_range(low: int, high: int) -> Check:
    def check(value: Any) -> bool:
        return not is_number(value) or (is_integer(value) and low <= value <= high)
    return check


def _any(value: Any) -> bool:
    return True


_EMAIL = _regex(r"[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9]"
                r"(?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\Z", re.I)

#: name -> check, for strings.
STRING_FORMATS: dict[str, Check] = {
    "date": is_date,
    "time": is_time,
    "date-time": is_date_time,
    "iso-time": is_iso_time,
    "iso-date-time": is_iso_date_time,
    "duration": _regex(r"P(?!\Z)(?:(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+S)?)?"
                       r"|\d+W)\Z"),
    "uri": is_uri,
    "uri-reference": lambda value: _URI_REFERENCE.match(value) is not None,
    "uri-template": _regex(r"(?:(?:[^\x00-\x20\"'<>%\\^`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?"
                           r"(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+"
                           r"(?::[1-9][0-9]{0,3}|\*)?)*\})*\Z", re.I),
    "url": lambda value: _URL.match(value) is not None,
    "email": _EMAIL,
    "hostname": is_hostname,
    "ipv4": _regex(r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\Z"),
    "ipv6": is_ipv6,
    "regex": is_regex,
    "uuid": _regex(r"(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}\Z", re.I),
    "json-pointer": _regex(r"(?:/(?:[^~/]|~0|~1)*)*\Z"),
    "json-pointer-uri-fragment": _regex(r"#(?:/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*\Z", re.I),
    "relative-json-pointer": _regex(r"(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]|~0|~1)*)*)\Z"),
    "byte": _regex(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\Z"),
    "password": _any,
    "binary": _any,
    # Draft-07 formats that ajv-formats lacks: RFC 3987 IRIs, IDNA 2008 host names.
    "iri": is_iri,
    "iri-reference": is_iri_reference,
    "idn-email": is_idn_email,
    "idn-hostname": is_idn_hostname,
}

#: name -> check, for numbers (other values pass).
NUMBER_FORMATS: dict[str, Check] = {
    "int32": _int_range(-2 ** 31, 2 ** 31 - 1),
    "int64": _int_range(-2 ** 63, 2 ** 63 - 1),
    "float": _any,
    "double": _any,
}


def make_check(check: "str | Pattern[str] | Check") -> Check:
    """A user format (regex source, compiled regex or predicate) as a predicate on strings."""
    if isinstance(check, str):
        compiled = compile_pattern(check)
        return lambda value: compiled.search(value) is not None
    if isinstance(check, re.Pattern):
        return lambda value: check.search(value) is not None
    if callable(check):
        return check
    raise TypeError(f"a format must be a regex string, a compiled regex or a predicate, not {type(check).__name__}")
