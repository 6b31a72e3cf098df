"""A route's response serializers, by status, compiled at ``ready()``.

``schema["response"]`` keys are an exact status (``200``, ``"200"``), a class
(``"2xx"``) or ``"default"``; an exact key beats a class, which beats ``default``. An
entry is a schema, or a ``content`` map of media types to schemas, chosen by the
reply's content type (``application/json`` when none is set). An error payload uses
only an exact or class entry, never ``default``: a schema written for successes never
turns an error into a 500 or an empty object.
"""
from __future__ import annotations

import re
from random import random
from typing import TYPE_CHECKING, Any, Callable, Protocol, Union

from orjson import dumps as _orjson_dumps

from ..http import encoding
from ..http.media_types import declared_essence, parse_media_type
from .drift import DriftRecorder, RouteDriftCheck
from .error_handling import ErrorPayload
from ..errors import ResponseSchemaKeyError, SchemaSerializationBuildError
from .inputs import DeclaredRoute, is_content_map

if TYPE_CHECKING:
    from ..schemas.keywords import StrictMode
    from ..validation.engine import Validator, ValidatorEngine

#: A compiled response serializer: ``serializer(payload)`` is the JSON text.
Serializer = Callable[[Any], Union[str, bytes]]
#: One ``schema["response"]`` entry, compiled: a serializer, or one per media type essence.
Entry = Union[Serializer, dict[str, Serializer]]

_RESPONSE_KEY = re.compile(r"(?:[1-5]\d\d|[1-5]xx|default)\Z")


class ResponseSerializers:
    """The serializers of one route, by exact status, by status class, and ``default``."""

    __slots__ = ("exact", "by_class", "default")

    def __init__(self, exact: dict[int, Entry], by_class: dict[int, Entry], default: Entry | None) -> None:
        #: The entries of exact statuses (``200``).
        self.exact = exact
        #: The entries of status classes, by first digit (``2`` for ``"2xx"``).
        self.by_class = by_class
        #: The ``"default"`` entry (never used for an error payload).
        self.default = default

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


class CheckedResponseSerializers(ResponseSerializers):
    """A route's serializers under ``Framework(response_check=rate)``: a sampled reply is
    also checked against the schema that shaped it (``framework.lifecycle.drift``), once
    its body is made. Only routes of an application with the option on have this class:
    off, nothing here runs."""

    __slots__ = ("check",)

    def __init__(self, exact: dict[int, Entry], by_class: dict[int, Entry], default: Entry | None,
                 check: RouteDriftCheck) -> None:
        super().__init__(exact, by_class, default)
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
        if is_content_map(entry):
            content: dict[str, Any] = entry["content"]
            compiled: Entry = {essence(media_type, status): build(item["schema"], status, media_type)
                               for media_type, item in content.items()}
        else:
            compiled = build(entry, status, None)
        if status == "default":
            default = compiled
        elif status.endswith("xx"):
            by_class[int(status[0])] = compiled
        else:
            exact[int(status)] = compiled
    if validators and drift is not None:
        check = RouteDriftCheck(drift[0], f"{route.method} {route.url}", validators)
        return CheckedResponseSerializers(exact, by_class, default, check)
    return ResponseSerializers(exact, by_class, default)
