"""Hypothesis strategies for the ``format`` values ``fuzz`` draws: one for every format
of :mod:`framework.validation.formats`, each drawing only values that format accepts,
in printable ASCII (so that a query string, path or header can carry them too).

A format an application adds itself (the ``formats`` validator option) has no strategy
here: ``fuzz`` draws plain strings for it, and keeps those the route's validator accepts.
"""
from __future__ import annotations

import base64
import datetime
import string
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

#: The number formats that bound an integer: ``fuzz`` draws integers within them.
INTEGER_FORMATS = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}

_ALNUM = string.ascii_lowercase + string.digits
_SAFE = string.ascii_letters + string.digits + "-_"


def _label() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.text(_ALNUM, min_size=1, max_size=10)


def _hostname() -> SearchStrategy[str]:
    # LDH labels without hyphens and a letters-only top-level label: a host name, an
    # IDNA host name, an email domain and a URL host alike.
    from hypothesis import strategies as st
    def join(labels: list[str], top: str) -> str:
        return ".".join([*labels, top])
    return st.builds(join, st.lists(_label(), min_size=1, max_size=3),
                     st.text(string.ascii_lowercase, min_size=2, max_size=6))


def _email() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    atom = st.text(_ALNUM + "+_-", min_size=1, max_size=8)
    def join(atoms: list[str], domain: str) -> str:
        return ".".join(atoms) + "@" + domain
    return st.builds(join, st.lists(atom, min_size=1, max_size=2), _hostname())


def _path() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.lists(st.text(_SAFE + ".~", max_size=8), max_size=3).map(lambda segments: "".join(
        "/" + segment for segment in segments))


def _url() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    def query(key: str, value: str) -> str:
        return f"?{key}={value}"

    def join(scheme: str, host: str, path: str, tail: str) -> str:
        # A query right after the host ("http://a.bc?k=v") is no URL to ajv-formats' "url".
        return f"{scheme}://{host}{path or ('/' if tail else '')}{tail}"
    return st.builds(join, st.sampled_from(["http", "https", "ftp"]), _hostname(), _path(),
                     st.one_of(st.just(""), st.builds(query, _label(), _label())))


def _uri() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.one_of(_url(), _label().map(lambda name: f"urn:example:{name}"))


def _uri_reference() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.one_of(_uri(), _path(), _label().map(lambda name: f"#{name}"))


def _uri_template() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    variable = st.text(_ALNUM + "_", min_size=1, max_size=6)
    def join(base: str, name: str) -> str:
        return f"{base}/{{{name}}}"
    return st.one_of(_uri(), st.builds(join, _url(), variable))


def _date() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.dates().map(lambda day: day.isoformat())


def _time(zone_required: bool) -> SearchStrategy[str]:
    from hypothesis import strategies as st
    zones = ["Z", "+00:00", "-08:00", "+05:30", "+14:00"] + ([] if zone_required else [""])
    def join(moment: datetime.time, zone: str) -> str:
        return moment.isoformat() + zone
    return st.builds(join, st.times(), st.sampled_from(zones))


def _date_time(zone_required: bool) -> SearchStrategy[str]:
    from hypothesis import strategies as st
    def join(day: str, moment: str) -> str:
        return f"{day}T{moment}"
    return st.builds(join, _date(), _time(zone_required))


def _duration() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    def date_part(years: int, months: int, days: int) -> str:
        return f"P{years}Y{months}M{days}D"

    def time_part(hours: int, minutes: int, seconds: int) -> str:
        return f"PT{hours}H{minutes}M{seconds}S"
    number = st.integers(0, 99)
    return st.one_of(st.builds(date_part, number, number, number), st.builds(time_part, number, number, number),
                     number.map(lambda weeks: f"P{weeks}W"))


def _ipv4() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.ip_addresses(v=4).map(str)


def _ipv6() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.ip_addresses(v=6).map(str)


def _uuid() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.uuids().map(str)


def _regex() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.one_of(st.sampled_from(["^[a-z]+$", "[0-9]{2,4}", "a|b", "(?:ab)*c", "\\d+\\.\\d*"]),
                     st.text(string.ascii_letters, min_size=1, max_size=8))


def _json_pointer() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    segment = st.lists(st.sampled_from([*_ALNUM, "~0", "~1", "-"]), max_size=5).map("".join)
    return st.lists(segment, max_size=3).map(lambda segments: "".join("/" + s for s in segments))


def _relative_json_pointer() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    def join(up: int, rest: str) -> str:
        return f"{up}{rest}"
    return st.builds(join, st.integers(0, 20), st.one_of(st.just("#"), _json_pointer()))


def _byte() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.binary(max_size=12).map(lambda data: base64.b64encode(data).decode("ascii"))


def _any_text() -> SearchStrategy[str]:
    from hypothesis import strategies as st
    return st.text(_SAFE, max_size=12)


_STRATEGIES: dict[str, Callable[[], SearchStrategy[str]]] = {
    "date": _date,
    "time": lambda: _time(True),
    "date-time": lambda: _date_time(True),
    "iso-time": lambda: _time(False),
    "iso-date-time": lambda: _date_time(False),
    "duration": _duration,
    "uri": _uri,
    "uri-reference": _uri_reference,
    "uri-template": _uri_template,
    "url": _url,
    "email": _email,
    "hostname": _hostname,
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "regex": _regex,
    "uuid": _uuid,
    "json-pointer": _json_pointer,
    "json-pointer-uri-fragment": lambda: _json_pointer().map(lambda pointer: "#" + pointer),
    "relative-json-pointer": _relative_json_pointer,
    "byte": _byte,
    "password": _any_text,
    "binary": _any_text,
    # ASCII URIs and host names are IRIs and IDNA host names.
    "iri": _uri,
    "iri-reference": _uri_reference,
    "idn-email": _email,
    "idn-hostname": _hostname,
}


def format_strategy(name: object) -> SearchStrategy[str] | None:
    """Strings valid for string format ``name``, or ``None`` when it has no strategy here."""
    build = _STRATEGIES.get(name) if isinstance(name, str) else None
    return build() if build is not None else None
