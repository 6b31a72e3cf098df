"""Content negotiation: the media type of a reply chosen from the request's ``Accept``.

A route negotiates when it can answer more than JSON: its context (or an ancestor) has
registered a response serializer for another media type
(``app.add_response_serializer("text/csv", fn)``), or its response schema has a
``content`` map naming another media type. Which routes negotiate is decided at
``ready()`` (:func:`compile_negotiation`); a route that answers only JSON has no
:class:`Negotiation` and never reads ``Accept``.

When the handler has not set ``Content-Type``, the reply asks :meth:`Negotiation.choose`
for the best of the route's media types (werkzeug parses ``Accept``: q-values, wildcards,
specificity; a tie goes to JSON, which is listed first), and adds ``Vary: Accept``. JSON is
the answer to no ``Accept``, to ``*/*``, and (unless the route has ``strict_accept=True``)
to an ``Accept`` that matches nothing. With ``strict_accept=True``, such a request is
answered 406 (``NotAcceptableError``) before the handler runs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Union

from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

from ..errors import NotAcceptableError
from .reply import Reply, with_vary

if TYPE_CHECKING:
    from .request import Request
    from .responses import ResponseSerializers

#: A response serializer registered for a media type: ``fn(payload)`` is the body (a str
#: is sent UTF-8 encoded, bytes as they are).
MediaTypeSerializer = Callable[[Any], Union[str, bytes]]

JSON = "application/json"

# Choices by (a route's media types, Accept value), for the whole process: a client chooses
# the header, so only short values are kept, and no more than a fixed number of them.
_choices: dict[tuple[tuple[str, ...], str], "str | None"] = {}
_CACHE_SIZE = 256
_CACHE_MAX_LENGTH = 200


class Negotiation:
    """The media types one route can answer (JSON first), and how to serialize each."""

    __slots__ = ("media_types", "registered", "strict")

    def __init__(self, media_types: tuple[str, ...], registered: Mapping[str, MediaTypeSerializer],
                 strict: bool) -> None:
        #: Every media type the route can answer, JSON first (it wins a tie).
        self.media_types = media_types
        #: The serializers registered with ``add_response_serializer`` visible to the route, by essence.
        self.registered = dict(registered)
        #: ``strict_accept=True``: an ``Accept`` that matches nothing is answered 406.
        self.strict = strict

    def choose(self, environ: Mapping[str, Any]) -> str | None:
        """The best media type for the request's ``Accept`` (JSON when there is none, or
        it is empty or unreadable), or ``None`` when it matches none of the route's."""
        accept = environ.get("HTTP_ACCEPT")
        if not accept:
            return JSON
        key = (self.media_types, accept)
        try:
            return _choices[key]
        except KeyError:
            pass
        parsed = parse_accept_header(accept, MIMEAccept)
        choice = parsed.best_match(self.media_types) if parsed else JSON
        if len(accept) <= _CACHE_MAX_LENGTH and len(_choices) < _CACHE_SIZE:
            _choices[key] = choice
        return choice

    def __call__(self, request: "Request", reply: "Reply") -> None:
        """The step of a ``strict_accept`` route, before its handler: 406 unless ``Accept``
        matches one of the route's media types."""
        if self.choose(request.environ) is None:
            vary = reply.get_header("vary")
            if vary is None or type(vary) is str:
                reply.header("vary", "Accept" if vary is None else with_vary(vary, "Accept"))
            raise NotAcceptableError(", ".join(self.media_types))

    def serializer_for(self, reply: "Reply", status: int,
                       serializers: "ResponseSerializers") -> MediaTypeSerializer | None:
        """Choose the reply's media type (its handler set no ``Content-Type``; the reply has
        added ``Accept`` to ``Vary``), and return the serializer of the chosen type when it is not JSON:
        the response schema's ``content`` entry for it at ``status``, else the registered
        serializer. ``None``: JSON, as a route without negotiation answers (also when the
        chosen type is declared only for other statuses)."""
        essence = self.choose(reply.request.environ)
        if essence is None or essence == JSON:
            return None
        serializer = serializers.find_declared(status, essence) if serializers else None
        if serializer is None:
            serializer = self.registered.get(essence)
            if serializer is None:
                return None
        reply.header("content-type", essence)
        return serializer

    def __repr__(self) -> str:
        return f"<negotiation {', '.join(self.media_types)}{' strict' if self.strict else ''}>"


def compile_negotiation(registered: Mapping[str, MediaTypeSerializer], serializers: "ResponseSerializers",
                        strict: bool) -> Negotiation | None:
    """The negotiation of a route, or ``None`` when it answers only JSON and is not strict
    (the common case: nothing on its request path reads ``Accept``). ``registered``: the
    serializers its context sees; ``serializers``: its compiled response schemas."""
    media_types = dict.fromkeys((JSON, *registered, *serializers.declared_media_types()))
    if len(media_types) == 1 and not strict:
        return None
    return Negotiation(tuple(media_types), registered, strict)
