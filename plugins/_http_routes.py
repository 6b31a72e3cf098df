"""What the telemetry plugins (``otel``, ``metrics``) name a request by: its route as
declared, never its path, and its method from a bounded set, so that span names and
metric labels stay a bounded set whatever clients send; and the histogram bounds both
record with."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, cast

#: Methods reported as themselves; any other is ``_OTHER`` (the semantic conventions' rule).
KNOWN_METHODS = frozenset(("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE",
                           # the WebDAV methods a route may be declared for
                           "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "SEARCH"))
OTHER_METHOD = "_OTHER"
#: The request duration histogram's bounds (seconds): the OpenTelemetry HTTP conventions' advice.
DURATION_BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10)
#: The body size histograms' bounds (bytes).
SIZE_BUCKETS: tuple[int, ...] = (0, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000)


def known_method(method: str) -> str:
    """``method`` as reported: itself when known, else ``_OTHER``."""
    return method if method in KNOWN_METHODS else OTHER_METHOD


def byte_count(value: object) -> int | None:
    """A ``Content-Length`` value as an int, or ``None`` when it is not one (ASCII digits
    only: ``str.isdigit`` accepts ``"²"``, which ``int`` refuses)."""
    if type(value) is str and value.isascii() and value.isdigit():
        return int(value)
    return None


def route_template(options: Mapping[str, Any]) -> str | None:
    """The route a request's ``route_options`` belong to, as declared, with its context's
    prefix (``/v1/items/:id``; a mounted application: its mount prefix), or ``None`` for
    the answers no route gives (404, 405, a path that is not UTF-8)."""
    url = options.get("url")
    if not isinstance(url, str):
        return None
    prefix: str = options.get("prefix") or ""
    if options.get("mount") and url.endswith("/*"):
        url = url[:-2]
    if not prefix:
        return url or "/"
    if url in ("", "/"):
        return prefix
    return prefix.rstrip("/") + "/" + url.lstrip("/")


def excluded(options: Mapping[str, Any], key: str) -> bool:
    """Whether the route opted out with ``config={key: False}``."""
    config: object = options.get("config")
    return isinstance(config, dict) and cast("dict[str, Any]", config).get(key) is False


T = TypeVar("T")


class RouteTable(Generic[T]):
    """What a plugin works out once per route (``make(options)``), found again by the
    identity of the route's options dict. Those dicts are made when routes are declared
    (and the not-found routes at ``ready()``), never per request, so the table holds one
    entry per route; each entry keeps its dict alive, so an id is never reused."""

    __slots__ = ("make", "entries")

    def __init__(self, make: Callable[[Mapping[str, Any]], T]) -> None:
        self.make = make
        self.entries: dict[int, tuple[Mapping[str, Any], T]] = {}

    def __getitem__(self, options: Mapping[str, Any]) -> T:
        entry = self.entries.get(id(options))
        if entry is None:
            entry = self.entries[id(options)] = (options, self.make(options))
        return entry[1]

