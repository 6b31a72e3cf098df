"""Response drift: ``Framework(response_check=rate)`` checks a sampled fraction of replies
against their response schema.

The built-in serializer shapes a reply by its schema: undeclared properties are dropped
and values coerced, silently (fast-json-stringify's contract). That hides drift between
what a handler returns and what the schema says. On a sampled request (``random() <
rate``), once the body bytes exist, :class:`RouteDriftCheck` checks the value the
serializer was given:

* against the schema, with the app's validator engine compiled for the ``"response"``
  part: no coercion, no defaults, no removal, every error (so nothing is hidden, and the
  check works on a plain JSON copy of the value: the handler's objects are never touched);
* against the body: a property of the value that the body lacks was dropped.

Each finding is a JSON pointer (``/secret``, ``/items/0/extra``) and a message.
:class:`DriftRecorder` counts them per (route, status, pointer), logs the first of each at
WARNING, and keeps at most :data:`FINDINGS_LIMIT` of them: pointers come from reply
values, which a handler may build from request data, so what is kept is bounded. A check
that fails is logged and never reaches the client.
"""
from __future__ import annotations

import logging
import threading
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, TypedDict, Union

import orjson

from ..errors import SchemaValidationFailure, SerializationError
from ..http import encoding
from ..schemas.store import escape_token, unescape_token
from ..serialization.runtime import as_mapping
from ..undefined import UNDEFINED

if TYPE_CHECKING:
    from ..validation import Validator

#: Distinct (route, status, pointer) findings kept, counted and logged; later new ones are
#: only counted as ``untracked`` (one log line says the limit was reached).
FINDINGS_LIMIT = 1000
#: Findings one check reports at most (after one per place in a list, see :func:`_template`).
CHECK_LIMIT = 20
#: Characters of a pointer kept (a longer one is cut, ending in ``...``): a property name
#: may come from request data, and each finding kept holds its pointer.
POINTER_LIMIT = 200
#: ``listener(route, status, pointer)``: one more finding (``pointer`` ``None``: an untracked one).
DriftListener = Callable[[str, int, Union[str, None]], None]
_DROPPED = "undeclared property, not sent (the serializer drops what the schema does not declare)"


class DriftFinding(TypedDict):
    """One kind of drift seen: where, how it was first described, and how often seen."""

    route: str
    status: int
    pointer: str
    message: str
    count: int


class DriftReport(TypedDict):
    """What :meth:`framework.Framework.response_drift` returns."""

    #: The fraction of requests checked (``0.0``: off).
    rate: float
    #: Replies checked so far.
    checked: int
    findings: list[DriftFinding]
    #: Findings not kept once :data:`FINDINGS_LIMIT` distinct ones were.
    untracked: int


class DriftRecorder:
    """The application's findings (thread-safe), and the sampling rate."""

    def __init__(self, rate: float, logger: logging.Logger, limit: int = FINDINGS_LIMIT) -> None:
        self.rate = rate
        self.logger = logger
        self.limit = limit
        self._lock = threading.Lock()
        self._findings: dict[tuple[str, int, str], list[Any]] = {}  # key -> [message, count]
        self._checked = 0
        self._untracked = 0
        #: ``listener(route, status, pointer)`` for every finding counted (``pointer`` ``None``:
        #: beyond the limit, counted as untracked): how ``framework.plugins.metrics`` counts them.
        self.listeners: list[DriftListener] = []

    def checked(self) -> None:
        """Count one checked reply."""
        with self._lock:
            self._checked += 1

    def record(self, route: str, status: int, pointer: str, message: str) -> None:
        """Count one finding; log it if it is the first of its (route, status, pointer)."""
        if len(pointer) > POINTER_LIMIT:
            pointer = pointer[:POINTER_LIMIT - 3] + "..."
        key = (route, status, pointer)
        first = limit_reached = False
        with self._lock:
            found = self._findings.get(key)
            tracked = found is not None or len(self._findings) < self.limit
            if found is not None:
                found[1] += 1
            elif tracked:
                self._findings[key] = [message, 1]
                first = True
            else:
                self._untracked += 1
                limit_reached = self._untracked == 1
        for listener in self.listeners:
            try:
                listener(route, status, pointer if tracked else None)
            except Exception as error:  # the answer is made: a listener's failure is only logged
                self.logger.error("response drift listener %r failed: %r", listener, error, exc_info=error)
        if first:
            # (A property name may come from request data: no control character reaches the log line.)
            shown = pointer if pointer.isprintable() else pointer.encode("unicode_escape").decode("ascii")
            self.logger.warning("response drift: %s answered %d, at %s: %s", route, status, shown or "(root)",
                                message, extra={"route": route, "status_code": status, "pointer": pointer})
        elif limit_reached:
            self.logger.warning("response drift: %d distinct findings kept; new ones are counted as untracked, "
                                "not logged", self.limit)

    def report(self) -> DriftReport:
        """The findings so far, by route, status and pointer."""
        with self._lock:
            findings = [DriftFinding(route=route, status=status, pointer=pointer, message=message, count=count)
                        for (route, status, pointer), (message, count) in sorted(self._findings.items())]
            return DriftReport(rate=self.rate, checked=self._checked, findings=findings, untracked=self._untracked)


#: A compiled response serializer (``framework.lifecycle.responses.Serializer``).
Serializer = Callable[[Any], Union[str, bytes]]


class RouteDriftCheck:
    """One route's check: ``check(serializer, value, body, status)``, run on a sampled
    reply after ``serializer(value)`` gave ``body``; it never raises."""

    def __init__(self, recorder: DriftRecorder, route: str, validators: "dict[Serializer, Validator]") -> None:
        self.recorder = recorder
        #: The sampling rate, read by the route's entry and its serializers.
        self.rate = recorder.rate
        self.route = route
        self.validators = validators

    def __call__(self, serializer: Serializer, value: Any, body: str | bytes, status: int) -> None:
        try:
            findings = self.findings(serializer, value, body)
        except Exception as error:  # the answer is made: a failed check is only logged
            self.recorder.logger.error("response check of %s (status %d) failed: %r", self.route, status, error,
                                       exc_info=error)
            return
        self.recorder.checked()
        for pointer, message in findings:
            self.recorder.record(self.route, status, pointer, message)

    def findings(self, serializer: Serializer, value: Any, body: str | bytes) -> list[tuple[str, str]]:
        """``(pointer, message)`` for each place ``value`` drifts from the schema of ``serializer``."""
        plain = _json_value(value)
        found: list[tuple[str, str, str]] = []  # (pointer, its place, message)
        try:
            self.validators[serializer](plain)
        except SchemaValidationFailure as failure:
            for record in failure.errors:
                pointer = _error_pointer(record)
                found.append((pointer, _template(plain, pointer), str(record.get("message", ""))))
        found.extend((pointer, place, _DROPPED) for pointer, place in _dropped(plain, orjson.loads(body)))
        kept: list[tuple[str, str]] = []
        places: set[str] = set()
        for pointer, place, message in found:
            if place not in places:
                places.add(place)
                kept.append((pointer, message))
                if len(kept) == CHECK_LIMIT:
                    break
        return kept


#: The types a JSON value is already (``None`` aside), kept as they are.
_SCALARS = frozenset((str, int, float, bool))


def _json_value(value: Any) -> Any:
    """``value`` as the plain JSON the serializer reads it as (mappings, dataclasses, named
    tuples as objects; ``UNDEFINED`` entries left out): a copy, so validating it changes nothing."""
    kind: type = value.__class__
    if kind in _SCALARS or value is None:
        return value
    if kind is dict or isinstance(value, Mapping) or (issubclass(kind, tuple) and hasattr(value, "_asdict")):
        return _object(as_mapping(value, ""))
    if kind is list or kind is tuple or issubclass(kind, (set, frozenset)):
        items: Iterable[Any] = value
        return [item if item.__class__ in _SCALARS else _json_value(item) for item in items]
    try:
        return _object(as_mapping(value, ""))  # a dataclass, a msgspec Struct, a pydantic model
    except SerializationError:
        return orjson.loads(encoding.dumps_bytes(value))  # a date, a Decimal, a UUID...


def _object(mapping: Mapping[Any, Any]) -> dict[str, Any]:
    return {key if key.__class__ is str else str(key): item if item.__class__ in _SCALARS else _json_value(item)
            for key, item in mapping.items() if item is not UNDEFINED}


def _error_pointer(record: Mapping[str, Any]) -> str:
    """A validator error's pointer: its instance path, down to the property it names when it
    names one (an undeclared or a missing property)."""
    pointer = str(record.get("instance_path", ""))
    params: Mapping[str, Any] = record.get("params") or {}
    name: object = params.get("additionalProperty", params.get("missingProperty"))
    return f"{pointer}/{escape_token(name)}" if name is not None else pointer


def _dropped(value: Any, sent: Any) -> Iterator[tuple[str, str]]:
    """The pointers (with their :func:`_template`) of the properties of ``value`` that
    ``sent`` (the body parsed) lacks, in document order."""
    pending: deque[tuple[Any, Any, str, str]] = deque([(value, sent, "", "")])
    while pending:
        value, sent, pointer, place = pending.popleft()
        # (Read through ``__class__``: JSON values are Any, which ``type(...) is`` would narrow to unknowns.)
        kind, sent_kind = value.__class__, sent.__class__
        if kind is dict and sent_kind is dict:
            members: dict[str, Any] = value
            sent_members: dict[str, Any] = sent
            for key, item in members.items():
                if key not in sent_members:
                    token = escape_token(key)
                    yield f"{pointer}/{token}", f"{place}/{token}"
                elif item.__class__ is dict or item.__class__ is list:  # (nothing is dropped inside a scalar)
                    token = escape_token(key)
                    pending.append((item, sent_members[key], f"{pointer}/{token}", f"{place}/{token}"))
        elif kind is list and sent_kind is list:
            items: list[Any] = value
            sent_items: list[Any] = sent
            for index, (item, item_sent) in enumerate(zip(items, sent_items)):
                if item.__class__ is dict or item.__class__ is list:
                    pending.append((item, item_sent, f"{pointer}/{index}", f"{place}/*"))


def _template(value: Any, pointer: str) -> str:
    """``pointer`` with its list indices as ``*``: one finding per place in a list of like
    items (``/items/0/extra`` stands for ``/items/1/extra``...)."""
    parts: list[str] = []
    for token in pointer.split("/")[1:]:
        kind: type = value.__class__
        if kind is list:
            items: list[Any] = value
            parts.append("*")
            value = items[int(token)] if token.isdigit() and int(token) < len(items) else None
        else:
            parts.append(token)
            members: dict[str, Any] = value if kind is dict else {}
            value = members.get(unescape_token(token))
    return "/" + "/".join(parts) if parts else ""


