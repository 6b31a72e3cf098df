"""A route's response serializers, by status, compiled at ``ready()``.

``schema["response"]`` keys are an exact status (``200``, ``"200"``), a class
(``"2xx"``) or ``"default"``; an exact key beats a class, which beats ``default``. An
entry is a schema, or a ``content`` map of media types to schemas, chosen by the
reply's content type (``application/json`` when none is set). An error payload uses
only an exact or class entry, never ``default``: a schema written for successes never
turns an error into a 500 or an empty object.

A ``content`` entry of a sequential media type (:data:`SEQUENTIAL_MEDIA_TYPES`) may give
an ``itemSchema`` (as OpenAPI 3.2 does): the schema of each item of a streamed reply,
compiled here into an item serializer (:class:`ItemSerializers`) that the reply applies
to each item a generator yields, and ``reply.sse`` to each event's ``data``.
"""
from __future__ import annotations

import re
from random import random
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Protocol, Union

from typing_extensions import TypeGuard

from orjson import dumps as _orjson_dumps

from ..http import encoding
from ..http.media_types import declared_essence, parse_media_type
from .drift import DriftRecorder, RouteDriftCheck
from .error_handling import ErrorPayload
from ..errors import ResponseSchemaKeyError, SchemaSerializationBuildError
from .inputs import DeclaredRoute
from .streaming import EVENT_STREAM
from ..schemas.store import is_object

if TYPE_CHECKING:
    from ..schemas.keywords import StrictMode
    from ..validation.engine import Validator, ValidatorEngine

#: A compiled response serializer: ``serializer(payload)`` is the JSON text.
Serializer = Callable[[Any], Union[str, bytes]]
#: One ``schema["response"]`` entry, compiled: a serializer, or one per media type essence.
Entry = Union[Serializer, dict[str, Serializer]]

_RESPONSE_KEY = re.compile(r"(?:[1-5]\d\d|[1-5]xx|default)\Z")

#: The media types an ``itemSchema`` may describe, with the bytes around each serialized
#: item (``None``: server-sent events, whose ``data`` ``reply.sse`` writes): JSON Lines and
#: NDJSON end each item with a line feed, RFC 7464 JSON text sequences also start it with RS.
SEQUENTIAL_MEDIA_TYPES: dict[str, "tuple[bytes, bytes] | None"] = {
    "application/jsonl": (b"", b"\n"),
    "application/x-ndjson": (b"", b"\n"),
    "application/json-seq": (b"\x1e", b"\n"),
    EVENT_STREAM: None,
}


class ItemSerializer(NamedTuple):
    """How the items of one streamed media type are written: ``serialize(item)`` (the
    item schema's compiled serializer) framed by ``before`` and ``after``."""

    media_type: str
    serialize: Serializer
    before: bytes
    after: bytes


class _ItemEntry(NamedTuple):
    by_essence: dict[str, ItemSerializer]
    #: The first item-framed (not event-stream) media type of the entry, for a reply that sets none.
    first: ItemSerializer | None


class ItemSerializers:
    """A route's item serializers (``itemSchema`` entries), by exact status, status class
    and ``default``, chosen as :meth:`ResponseSerializers.find` chooses a schema."""

    __slots__ = ("exact", "by_class", "default")

    def __init__(self, exact: dict[int, _ItemEntry], by_class: dict[int, _ItemEntry],
                 default: _ItemEntry | None) -> None:
        self.exact = exact
        self.by_class = by_class
        self.default = default

    def find(self, status: int, content_type: str | None, is_error: bool) -> ItemSerializer | None:
        """The item serializer for ``status`` and the reply's ``content_type``; with no
        content type, the first sequential media type the status declares (not server-sent events)."""
        entry = self.exact.get(status)
        if entry is None:
            entry = self.by_class.get(status // 100)
            if entry is None and not is_error:
                entry = self.default
        if entry is None:
            return None
        if not content_type:
            return entry.first
        media_type = parse_media_type(content_type)
        return entry.by_essence.get(media_type.essence) if media_type else None


class ResponseSerializers:
    """The serializers of one route, by exact status, by status class, and ``default``."""

    __slots__ = ("exact", "by_class", "default", "items")

    def __init__(self, exact: dict[int, Entry], by_class: dict[int, Entry], default: Entry | None,
                 items: ItemSerializers | None = None) -> None:
        #: The entries of exact statuses (``200``).
        self.exact = exact
        #: The entries of status classes, by first digit (``2`` for ``"2xx"``).
        self.by_class = by_class
        #: The ``"default"`` entry (never used for an error payload).
        self.default = default
        #: The serializers of streamed items (``itemSchema`` entries); ``None`` when the
        #: route declares none, so that its streams cost nothing more.
        self.items = items

    def __bool__(self) -> bool:
        return bool(self.exact or self.by_class or self.default is not None)

    def find(self, status: int, content_type: str | None, is_error: bool) -> Serializer | None:
        """The serializer for ``status`` and the reply's ``content_type`` (an error never uses ``default``)."""
        entry = self.exact.get(status)
        if entry is None:
            entry = self.by_class.get(status // 100)
            if entry is None and not is_error:
                entry = self.default
        # ``type(entry) is dict``: pyright does not narrow the Callable member of Entry on it,
        # and mypy keeps dict in the other branch (a dict subclass would not be excluded).
        if type(entry) is dict:
            media_type = parse_media_type(content_type) if content_type else None
            return entry.get(media_type.essence if media_type else "application/json")  # pyright: ignore[reportFunctionMemberAccess]
        return entry  # type: ignore[return-value]

    def find_declared(self, status: int, essence: str) -> Serializer | None:
        """The serializer a ``content`` map declares for ``essence`` at ``status`` (a success:
        exact, class, then ``default``), or ``None`` (no entry, or a plain schema)."""
        entry = self.exact.get(status)
        if entry is None:
            entry = self.by_class.get(status // 100)
            if entry is None:
                entry = self.default
        if type(entry) is dict:
            return entry.get(essence)  # pyright: ignore[reportFunctionMemberAccess]
        return None

    def declared_media_types(self) -> list[str]:
        """Every media type essence the ``content`` maps of successes (2xx, ``2xx``,
        ``default``) declare, in declaration order: those an ``Accept`` may choose."""
        entries = [*(entry for status, entry in self.exact.items() if 200 <= status < 300),
                   *([self.by_class[2]] if 2 in self.by_class else []), *([self.default] if self.default else [])]
        found: dict[str, None] = {}
        for entry in entries:
            if type(entry) is dict:  # (as in find(): pyright keeps the Callable member of Entry)
                found.update(dict.fromkeys(entry))  # pyright: ignore[reportArgumentType]
        return list(found)

    def serialize(self, payload: Any, status: int, content_type: str | None, override: Serializer | None,
                  is_error: bool) -> "str | bytes":
        """``payload`` as JSON: by ``override`` (``reply.serializer``), the schema for the
        status, or plain encoding (``UNDEFINED`` entries left out)."""
        serializer = override
        if serializer is None and self:
            serializer = self.find(status, content_type, is_error)
            if serializer is not None and isinstance(payload, ErrorPayload):
                payload = payload.with_error_fields()
        if serializer is not None:
            return serializer(payload)
        try:
            return _orjson_dumps(payload, default=encoding.default)
        except TypeError:
            return encoding.dumps_bytes(payload)

    def __repr__(self) -> str:
        keys = [*map(str, self.exact), *(f"{c}xx" for c in self.by_class), *(["default"] if self.default else [])]
        return f"<response serializers {', '.join(keys)}>"


def is_response_content_map(schema: object) -> TypeGuard[dict[str, Any]]:
    """``{"content": {media_type: {"schema": ...} or {"itemSchema": ...}}}``: a response
    schema per media type (``itemSchema``: of each item of a stream)."""
    if not is_object(schema):
        return False
    content = schema.get("content")
    return is_object(content) and bool(content) and all(
        is_object(entry) and ("schema" in entry or "itemSchema" in entry) for entry in content.values())


class CheckedResponseSerializers(ResponseSerializers):
    """A route's serializers under ``Framework(response_check=rate)``: a sampled reply is
    also checked against the schema that shaped it (``framework.lifecycle.drift``), once
    its body is made. Only routes of an application with the option on have this class:
    off, nothing here runs."""

    __slots__ = ("check",)

    def __init__(self, exact: dict[int, Entry], by_class: dict[int, Entry], default: Entry | None,
                 items: ItemSerializers | None, check: RouteDriftCheck) -> None:
        super().__init__(exact, by_class, default, items)
        #: ``check(serializer, value, body, status)``; its ``rate`` is the sampled fraction.
        self.check = check

    def serialize(self, payload: Any, status: int, content_type: str | None, override: Serializer | None,
                  is_error: bool) -> "str | bytes":
        """As :meth:`ResponseSerializers.serialize`; on a sampled reply shaped by a schema,
        the check runs after the body is made."""
        serializer = None if override is not None or random() >= self.check.rate else \
            self.find(status, content_type, is_error)
        if serializer is None:
            return ResponseSerializers.serialize(self, payload, status, content_type, override, is_error)
        if isinstance(payload, ErrorPayload):
            payload = payload.with_error_fields()
        body = serializer(payload)
        self.check(serializer, payload, body, status)
        return body


class HasValidatorEngine(Protocol):
    """The app's state as :func:`strict_keywords` reads it (``framework.state.AppState`` is one)."""

    def validator_engine(self) -> "ValidatorEngine": ...


def strict_keywords(state: HasValidatorEngine) -> "tuple[StrictMode, frozenset[str]] | None":
    """Strict mode for the built-in serializer, as the app's validator has it (``custom_options``'
    ``strict``, on by default): ``(mode, keywords the validator knows)``, or ``None`` when off."""
    engine = state.validator_engine()
    mode: StrictMode = engine.options["strict"]
    return (mode, engine.known_keywords) if mode else None


def compile_response_serializers(route: DeclaredRoute, compile_default: Callable[..., Serializer],
                                 compiler: Callable[..., Serializer] | None, shared: dict[str, Any],
                                 strict: "tuple[StrictMode, frozenset[str]] | None" = None,
                                 drift: "tuple[DriftRecorder, Callable[..., Validator]] | None" = None
                                 ) -> ResponseSerializers:
    """Compile every entry of ``route.schema["response"]`` (``compiler``: a ``set_serializer_compiler`` function).

    ``strict`` (from :func:`strict_keywords`): Ajv's strict mode for the built-in
    serializer: unknown keywords (but those known) and unknown formats fail ``ready()``.
    ``drift`` (``Framework(response_check=...)``: the recorder, and the validator compiler
    of the ``"response"`` part): each built-in serializer gets its schema's validator, and
    the route a :class:`CheckedResponseSerializers`."""
    exact: dict[int, Entry] = {}
    by_class: dict[int, Entry] = {}
    default: Entry | None = None
    item_exact: dict[int, _ItemEntry] = {}
    item_by_class: dict[int, _ItemEntry] = {}
    item_default: _ItemEntry | None = None
    validators: dict[Serializer, Validator] = {}

    def build(schema: Any, status: str, content_type: str | None) -> Serializer:
        try:
            if compiler is None:
                if strict is not None:
                    serializer = compile_default(schema, shared=shared, strict=strict[0], keywords=strict[1],
                                                 document=f"response {status}")
                else:
                    serializer = compile_default(schema, shared=shared)
                if drift is not None:
                    validators[serializer] = drift[1](schema, shared, http_part="response")
                return serializer
            return compiler(schema=schema, method=route.method, url=route.url, http_status=status,
                            content_type=content_type)
        except Exception as error:
            where = f"{route.url}, schema.response[{status!r}]" + (f" content {content_type!r}" if content_type else "")
            raise SchemaSerializationBuildError(route.method, where, error) from error

    def item_serializer(schema: Any, status: str, media_type: str) -> ItemSerializer:
        media = essence(media_type, status)
        if media not in SEQUENTIAL_MEDIA_TYPES:
            raise SchemaSerializationBuildError(
                route.method, f"{route.url}, schema.response[{status!r}] content {media_type!r}",
                ValueError(f"itemSchema describes the items of a sequential media type "
                           f"({', '.join(SEQUENTIAL_MEDIA_TYPES)}), not of {media}"))
        framing = SEQUENTIAL_MEDIA_TYPES[media] or (b"", b"")
        return ItemSerializer(media, build(schema, status, media_type), *framing)

    def essence(media_type: str, status: str) -> str:
        try:
            return declared_essence(media_type)
        except ValueError as error:
            raise SchemaSerializationBuildError(route.method, f"{route.url}, schema.response[{status!r}]",
                                                error) from None

    responses: dict[str | int, Any] = route.schema.get("response") or {}
    for key, entry in responses.items():
        status = str(key).lower()
        if not _RESPONSE_KEY.match(status):
            raise ResponseSchemaKeyError(key)
        items: _ItemEntry | None = None
        if is_response_content_map(entry):
            content: dict[str, Any] = entry["content"]
            compiled: Entry | None = {essence(media_type, status): build(item["schema"], status, media_type)
                                      for media_type, item in content.items() if "schema" in item} or None
            by_essence = {essence(media_type, status): item_serializer(item["itemSchema"], status, media_type)
                          for media_type, item in content.items() if "itemSchema" in item}
            if by_essence:
                framed = [found for found in by_essence.values() if found.media_type != EVENT_STREAM]
                items = _ItemEntry(by_essence, framed[0] if framed else None)
        else:
            compiled = build(entry, status, None)
        if status == "default":
            default, item_default = compiled, items
            continue
        if status.endswith("xx"):
            if compiled is not None:
                by_class[int(status[0])] = compiled
            if items is not None:
                item_by_class[int(status[0])] = items
        else:
            if compiled is not None:
                exact[int(status)] = compiled
            if items is not None:
                item_exact[int(status)] = items
    found_items = ItemSerializers(item_exact, item_by_class, item_default) \
        if item_exact or item_by_class or item_default is not None else None
    if validators and drift is not None:
        check = RouteDriftCheck(drift[0], f"{route.method} {route.url}", validators)
        return CheckedResponseSerializers(exact, by_class, default, found_items, check)
    return ResponseSerializers(exact, by_class, default, found_items)
