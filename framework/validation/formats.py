"""The ``format`` checks: ajv-formats' "full" set, plus draft-07's IRI/IDN formats.

A check is a predicate ``check(value) -> bool``. String formats only look at strings
and number formats (``int32``, ``int64``, ``float``, ``double``) only at numbers: any
other value passes, as with Ajv. Regexes are anchored with ``\\Z`` (Python's ``$``
also matches before a final newline, which JavaScript's does not).
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any, Callable, Pattern

from .ecma_regex import translate_pattern
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
    hour, minute, second = int(match.group(1)), int(match.group(2)), float(match.group(3))
    zone, sign = match.group(4), match.group(5)
    zone_hour, zone_minute = int(match.group(6) or 0), int(match.group(7) or 0)
    if strict_zone and not zone:
        return False
    if zone_hour > 23 or zone_minute > 59:
        return False
    if hour <= 23 and minute <= 59 and second < 60:
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
_IRI_CHARS = r"[^\x00-\x20<>\"{}|\\^`]"
_IRI = re.compile(r"[a-z][a-z0-9+\-.]*:" + _IRI_CHARS + r"*\Z", re.I)
_IRI_REFERENCE = re.compile(_IRI_CHARS + r"*\Z")
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


def is_idn_hostname(value: str) -> bool:
    if len(value) > _HOSTNAME_MAX + 1 or any(len(label) > _LABEL_MAX for label in value.split(".")):
        return False
    try:
        ascii_name = value.encode("idna").decode("ascii")
    except (UnicodeError, ValueError):
        return False
    return is_hostname(ascii_name)


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
        and len(local.encode("utf-8", "surrogatepass")) <= _EMAIL_LOCAL_MAX and is_idn_hostname(domain)


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
    # Draft-07 formats that ajv-formats lacks: loose but useful checks.
    "iri": lambda value: _IRI.match(value) is not None,
    "iri-reference": lambda value: _IRI_REFERENCE.match(value) is not None,
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
        compiled = re.compile(translate_pattern(check))
        return lambda value: compiled.search(value) is not None
    if isinstance(check, re.Pattern):
        return lambda value: check.search(value) is not None
    if callable(check):
        return check
    raise TypeError(f"a format must be a regex string, a compiled regex or a predicate, not {type(check).__name__}")
