"""The reply a handler and hooks shape, and how it renders itself for the server.

A handler sets the status and headers and sends a payload (or returns it). The reply
then renders itself (:meth:`Reply.render`): an error payload goes through the route's
error chain, the payload becomes body bytes (``pre_serialization`` hooks, the response
schema for the status, plain JSON, text or bytes), ``on_send`` hooks see it, and the
status line and headers go to ``start_response``. HEAD, 1xx, 204 and 304 answers carry
no body (and no Content-Type on 1xx, 204 and 304; an empty body elsewhere is text/plain,
as WSGI validators want a Content-Type). A werkzeug ``Response`` answers by itself, after
``on_send`` hooks have seen it (they may replace it); ``on_response`` hooks run when the
server closes its body. Each context has its own subclass, which is where reply decorators live.
"""
from __future__ import annotations

from inspect import isawaitable
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Protocol

from orjson import dumps as _orjson_dumps
from typing_extensions import Self

from ..http import encoding
from . import streaming
from ..errors import BadStatusCodeError, ReplySerializationError, SerializationError
from ..http.status import STATUS_LINES, SUCCESS_WITH_CONTENT, status_line
from ..http.headers import check_header, header_value, location
from ..http.problem import PROBLEM_CONTENT_TYPE, Problem, problem_instance
from .hooks import PLAIN_RESULTS, settle
from .request_log import describe

if TYPE_CHECKING:
    import datetime
    import logging
    import os

    from .request import Request, Server

StartResponse = Callable[..., Any]

JSON_CONTENT_TYPE = "application/json; charset=utf-8"
TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"
#: The Content-Type of an answer without a body (``None`` sent, a redirect).
EMPTY_CONTENT_TYPE = TEXT_CONTENT_TYPE
_NO_BODY_STATUSES = frozenset((204, 304))


class StreamedItems(Protocol):
    """How one streamed media type's items are written (``framework.lifecycle.responses.ItemSerializer``)."""

    @property
    def media_type(self) -> str: ...
    @property
    def serialize(self) -> Callable[[Any], str | bytes]: ...
    @property
    def before(self) -> bytes: ...
    @property
    def after(self) -> bytes: ...


class ItemSerializerLookup(Protocol):
    """A route's item serializers (``framework.lifecycle.responses.ItemSerializers``)."""

    def find(self, status: int, content_type: str | None, is_error: bool) -> StreamedItems | None: ...


class StatusSerializers(Protocol):
    """A route's response serializers (``framework.lifecycle.responses.ResponseSerializers``)."""

    @property
    def items(self) -> ItemSerializerLookup | None: ...
    def serialize(self, payload: Any, status: int, content_type: str | None,
                  override: Callable[[Any], str | bytes] | None, is_error: bool) -> str | bytes: ...


class MediaTypeNegotiation(Protocol):
    """How a route chooses a reply's media type from ``Accept``
    (``framework.lifecycle.negotiation.Negotiation`` is one)."""

    def serializer_for(self, reply: "Reply", status: int,
                       serializers: Any) -> Callable[[Any], str | bytes] | None: ...


class ReplyRoute(Protocol):
    """What a reply (and the error chain driving it) reads of its compiled route:
    ``framework.lifecycle.compiled_route.CompiledRoute`` is one. The compiled route sits
    above the reply, so the reply names these; the error chain's two entry points come
    with the route (set at ``ready()``), so the reply needs no import of it."""

    @property
    def method(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def log(self) -> "logging.Logger": ...
    @property
    def context(self) -> "Server": ...
    @property
    def plain_json(self) -> bool: ...
    @property
    def serializers(self) -> StatusSerializers: ...
    #: ``None`` unless the route answers more media types than JSON (or is ``strict_accept``).
    @property
    def negotiation(self) -> MediaTypeNegotiation | None: ...
    @property
    def pre_serialization(self) -> tuple[Callable[..., Any], ...]: ...
    @property
    def on_send(self) -> tuple[Callable[..., Any], ...]: ...
    @property
    def on_response(self) -> tuple[Callable[..., Any], ...]: ...
    @property
    def on_error(self) -> tuple[Callable[..., Any], ...]: ...
    @property
    def error_handlers(self) -> tuple[Callable[..., Any], ...]: ...
    @property
    def not_found_handler(self) -> Callable[[str], Callable[..., Any]]: ...
    #: ``answer_error(route, request, reply, error)``: ``framework.lifecycle.error_handling.answer_error``.
    @property
    def answer_error(self) -> "Callable[[ReplyRoute, Request[Any, Any, Any, Any], Reply, BaseException], None]": ...
    #: ``serialization_failure(route, reply, error)``: ``framework.lifecycle.error_handling.serialization_failure``.
    @property
    def serialization_failure(self) -> "Callable[[ReplyRoute, Reply, Exception], bytes]": ...


class Reply:
    """The answer to one request. Chainable: ``reply.code(201).header("x-a", "1").send(data)``."""

    #: Names set on every reply: a decorator may not take them.
    RESERVED = frozenset(("request", "status_code", "sent"))

    request: "Request"
    status_code: int = 200
    sent: bool = False
    _route: ReplyRoute
    _headers: dict[str, Any]
    _payload: Any = None
    _serializer: Callable[[Any], str | bytes] | None = None
    _multi_valued = False  # a header holds a list of values
    #: The exception this reply answers, once the error chain has taken it.
    error: BaseException | None = None

    def __init__(self, request: "Request", route: ReplyRoute) -> None:
        # (A route's entry inlines this: framework.lifecycle.entry.)
        self.request = request
        self._headers = {}
        self._route = route

    # Status.
    def code(self, status_code: int) -> Self:
        """Set the status code (100-599)."""
        if type(status_code) is not int:
            try:
                status_code = int(status_code)
            except (TypeError, ValueError):
                raise BadStatusCodeError(status_code) from None
        if not 100 <= status_code <= 599:
            raise BadStatusCodeError(status_code)
        self.status_code = status_code
        return self

    status = code

    # Headers.
    def header(self, name: str, value: Any) -> Self:
        """Set a header. ``set-cookie`` accumulates, as in Fastify; a list value sends one
        line per item. Names must be RFC 9110 tokens and values may not hold control
        characters (header injection): anything else is an ``InvalidHeaderError``."""
        name = check_header(name)
        if isinstance(value, (list, tuple)):
            # isinstance() narrows Any to list[Unknown]: the items are of any type (str() is taken).
            self._headers[name] = [header_value(name, item) for item in value]  # pyright: ignore[reportUnknownVariableType]
            self._multi_valued = True
        elif name == "set-cookie" and name in self._headers:
            existing: str | list[str] = self._headers[name]
            values = existing if isinstance(existing, list) else [existing]
            self._headers[name] = [*values, header_value(name, value)]
            self._multi_valued = True
        else:
            self._headers[name] = header_value(name, value)
        return self

    def headers(self, headers: Mapping[str, Any]) -> Self:
        """Set several headers: ``header(name, value)`` for each item of ``headers``."""
        for name, value in headers.items():
            self.header(name, value)
        return self

    def set_cookie(self, name: str, value: str = "", max_age: "datetime.timedelta | int | None" = None,
                   expires: "str | datetime.datetime | int | float | None" = None, path: str | None = "/",
                   domain: str | None = None, secure: bool = False, httponly: bool = False,
                   samesite: str | None = None, signed: bool = False) -> Self:
        """Add a ``Set-Cookie`` header (formatted by werkzeug's ``dump_cookie``); each call
        adds one more. ``max_age`` is seconds or a ``timedelta``; ``expires`` a ``datetime``
        or a timestamp; ``samesite`` ``"Strict"``, ``"Lax"`` or ``"None"``. ``name`` must be
        an RFC 6265 token, ``domain`` a host name and ``path`` start with ``/`` and hold no
        ``;``, ``,``, space or control character: anything else raises
        ``InvalidCookieError`` (a ``ValueError``) here, and a client sees only a 500.
        ``signed=True`` sends ``value`` with its signature, made by the ``cookie_signer``
        of the route's context (``framework.plugins.cookie_signing``; without one,
        ``InvalidCookieError``); ``request.signed_cookie(name)`` reads it back."""
        from ..http.cookies import cookie_line, cookie_signer
        if signed:
            value = cookie_signer(self.server, name).sign(value)
        return self.header("set-cookie", cookie_line(name, value, max_age=max_age, expires=expires, path=path,
                                                     domain=domain, secure=secure, httponly=httponly,
                                                     samesite=samesite))

    def clear_cookie(self, name: str, path: str | None = "/", domain: str | None = None) -> Self:
        """Ask the client to delete cookie ``name`` (an empty value that expired in 1970);
        ``path`` and ``domain`` must be those the cookie was set with (and are checked as
        :meth:`set_cookie` checks them)."""
        return self.set_cookie(name, "", max_age=0, expires=0, path=path, domain=domain)

    def get_header(self, name: str) -> str | list[str] | None:
        """The value set for header ``name`` (any case; a list for one set with several values), or ``None``."""
        value: str | list[str] | None = self._headers.get(name.lower())
        return value

    def get_headers(self) -> dict[str, str | list[str]]:
        """A copy of the headers set so far, by lower-cased name."""
        return dict(self._headers)

    def has_header(self, name: str) -> bool:
        """Whether header ``name`` (any case) is set."""
        return name.lower() in self._headers

    def remove_header(self, name: str) -> Self:
        """Unset header ``name`` (any case), if it is set."""
        self._headers.pop(name.lower(), None)
        return self

    def type(self, content_type: str) -> Self:
        """Set ``Content-Type``."""
        return self.header("content-type", content_type)

    # Payload.
    def serializer(self, fn: Callable[[Any], str | bytes]) -> Self:
        """Serialize this reply's payload with ``fn`` instead of the route's response schema."""
        self._serializer = fn
        return self

    def send(self, payload: Any = None) -> Self:
        """Send ``payload``: dicts and lists as JSON, str as text, bytes as octet-stream,
        an exception as an error reply; an iterator or generator (of bytes or str) and a
        binary file object are streamed (see ``framework.lifecycle.streaming``). Sending ends the
        chain of hooks."""
        if self.sent:
            self._route.log.warning("Reply was already sent, did you forget to \"return reply\"?")
            return self
        self.sent = True
        self._payload = payload
        return self

    def send_file(self, path: "str | os.PathLike[str]", download_name: str | None = None, max_age: int | None = None,
                  mimetype: str | None = None, as_attachment: bool | None = None) -> Self:
        """Send the file at ``path`` through werkzeug's ``send_file``: ``ETag`` and
        ``Last-Modified`` (a matching ``If-None-Match``/``If-Modified-Since`` is a 304),
        ``Range`` (206, or 416 for a range outside the file), ``Cache-Control: max-age``
        when ``max_age`` is given, and ``Content-Disposition: attachment`` with
        ``download_name``. A missing file is the not-found answer. The path is used as
        given: never build it from a request without ``werkzeug.security.safe_join``
        (``framework.plugins.static`` does)."""
        from .files import send_file
        return send_file(self, path, download_name=download_name, max_age=max_age, mimetype=mimetype,
                         as_attachment=as_attachment)

    def sse(self, events: Iterable[Any], heartbeat: float | None = 15.0, retry: int | None = None) -> Self:
        """Send server-sent events (``text/event-stream``) from ``events``, an iterable of
        dicts (``data``, ``event``, ``id``, ``retry``; a ``data`` that is not a str is
        sent as JSON) or strings (the data). Each event goes out as it is produced (no
        buffering: ``X-Accel-Buffering: no``); while the iterable is waiting, a comment line
        goes out every ``heartbeat`` seconds, so proxies keep the connection and a client
        that left is noticed. When the route declares ``text/event-stream`` with an
        ``itemSchema`` for the reply's status, every ``data`` is written by that schema's
        serializer. See ``framework.lifecycle.streaming``."""
        items = self._route.serializers.items
        typed = items.find(self.status_code, streaming.EVENT_STREAM, self.error is not None) \
            if items is not None else None
        data_of = streaming.event_data(typed.serialize, self._item_not_serializable) if typed else None
        return streaming.send_sse(self, events, heartbeat, retry, data_of)

    def problem(self, status: int, detail: str | None = None, *, title: str | None = None,
                type: str = "about:blank", instance: str | None = None,  # noqa: A002 (the RFC's member name)
                extensions: Mapping[str, Any] | None = None, **members: Any) -> Self:
        """Send an RFC 9457 problem document (a :class:`~framework.Problem`, made from these
        arguments): ``application/problem+json`` with ``status`` as the reply's status, and
        the request's path as ``instance`` unless given. Other keywords are extension members,
        as are the items of ``extensions`` (for names that are not Python identifiers)."""
        return self.send(Problem(status, detail, title=title, type=type, instance=instance,
                                 extensions=extensions, **members))

    @property
    def payload(self) -> Any:
        """What was sent (``None`` until then)."""
        return self._payload

    def redirect(self, url: str, code: int = 302) -> Self:
        """Redirect to ``url`` (non-ASCII characters are percent-encoded)."""
        return self.code(code).header("location", location(url)).send()

    def call_not_found(self) -> Self:
        """Answer with the not-found handler of this URL, as if no route matched."""
        self.sent = False
        self._payload = None
        self.code(404)
        handler = self._route.not_found_handler(self.request.path)
        result = handler(self.request, self)
        if not self.sent and result is not self:
            self.send(result)
        return self

    @property
    def server(self) -> "Server":
        """The context that declared the route."""
        return self._route.context

    # The error chain (framework.lifecycle.error_handling) drives this.
    def begin_error_handler(self, error: BaseException, status: int) -> None:
        """Make this reply the answer to ``error``, clearing what an earlier error handler
        sent, so that the next one starts afresh."""
        self.error = error
        self.sent = False
        self._payload = None
        self._serializer = None
        self._headers.pop("content-type", None)
        self._headers.pop("content-length", None)
        if self.status_code < 400:
            self.status_code = status

    # Rendering.
    def render(self, start_response: StartResponse, result: object) -> Iterable[bytes]:
        """Answer the server: ``result`` is what the handler returned (or raised), used when
        nothing was sent; an exception always wins."""
        if not self.sent:
            kind = type(result)
            if (kind is dict or kind is list) and self._route.plain_json and self._serializer is None:
                status = self.status_code
                if status in SUCCESS_WITH_CONTENT and self.request.environ["REQUEST_METHOD"] != "HEAD":
                    # The common answer, with nothing around it to run: JSON, straight out.
                    try:
                        body = _orjson_dumps(result, default=encoding.default)
                    except TypeError:
                        try:
                            body = encoding.dumps_bytes(result)
                        except (TypeError, ValueError) as error:
                            return self._render_error(start_response, self._not_serializable(error))
                    headers = self._headers
                    if "content-type" not in headers:
                        headers["content-type"] = JSON_CONTENT_TYPE
                    headers["content-length"] = str(len(body))
                    start_response(STATUS_LINES[status],
                                   _header_lines(headers) if self._multi_valued else list(headers.items()))
                    return [body]
            if kind not in PLAIN_RESULTS and isawaitable(result):  # a coroutine returned at run time
                return self.render(start_response, settle(result))
            self.sent = True
            self._payload = None if result is self else result
        elif result is not self and isinstance(result, BaseException):
            self._payload = result  # raised after sending: the error is the answer
        return self._render_payload(start_response)

    def _render_error(self, start_response: StartResponse, error: BaseException) -> Iterable[bytes]:
        self.sent = True
        self._payload = error
        return self._render_payload(start_response)

    def _render_payload(self, start_response: StartResponse) -> Iterable[bytes]:
        # (type() and isinstance() narrow the Any payload to tuple[Unknown, ...]: a tuple of anything.)
        if type(self._payload) is tuple and _looks_like_status_tuple(self._payload):  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            self._payload = self._status_tuple_error()
        if isinstance(self._payload, BaseException):  # pyright: ignore[reportUnknownMemberType]
            self._route.answer_error(self._route, self.request, self, self._payload)
        try:
            body = self._body()
        except Exception as error:
            body = self._recover(error)
        if isinstance(body, _PassThrough):
            return self._pass_through(start_response, body.application)
        if isinstance(body, streaming.Stream):
            return streaming.start(self, start_response, body)
        return self._start(start_response, body)

    def _pass_through(self, start_response: StartResponse,
                      application: Callable[..., Iterable[bytes]]) -> Iterable[bytes]:
        """A WSGI application (a werkzeug ``Response``) answers; ``on_response`` hooks run
        once the server closes its body, with ``reply.status_code`` set to its status."""
        if not self._route.on_response:
            return application(self.request.environ, start_response)

        def capture(status: str, headers: Any, exc_info: Any = None) -> Any:
            try:
                self.status_code = int(status[:3])
            except ValueError:
                pass
            if exc_info is not None:
                return start_response(status, headers, exc_info)
            return start_response(status, headers)

        return _AfterPassThrough(application(self.request.environ, capture), self._route, self.request, self)

    def _start(self, start_response: StartResponse, body: bytes) -> Iterable[bytes]:
        status = self.status_code
        headers = self._headers
        if status < 200 or status in _NO_BODY_STATUSES:
            body = b""
            headers.pop("content-type", None)
            headers.pop("content-length", None)
        else:
            headers["content-length"] = str(len(body))
            if "content-type" not in headers:  # WSGI (PEP 3333 validators) wants one
                headers["content-type"] = TEXT_CONTENT_TYPE if body else EMPTY_CONTENT_TYPE
        if self.request.environ["REQUEST_METHOD"] == "HEAD":
            body = b""
        start_response(status_line(status),
                       _header_lines(headers) if self._multi_valued else list(headers.items()))
        if self._route.on_response:
            return _AfterResponse(body, self._route, self.request, self)
        return [body]

    def _lines(self) -> list[tuple[str, str]]:
        """The header lines for ``start_response``."""
        return _header_lines(self._headers) if self._multi_valued else list(self._headers.items())

    def _recover(self, error: Exception) -> "bytes | _PassThrough | streaming.Stream":
        """Serialization or an ``on_send`` hook failed: answer that error instead, unless
        this already was the answer to an error."""
        if self.error is None:
            self.status_code = 200  # the new error's status applies
            self._route.answer_error(self._route, self.request, self, error)
            try:
                return self._body()
            except Exception as second:
                error = second
        return self._route.serialization_failure(self._route, self, error)

    def _body(self) -> "bytes | _PassThrough | streaming.Stream":
        """The payload as body bytes (after the error chain, if the payload was an error)."""
        route = self._route
        request = self.request
        payload: object = self._payload
        kind = type(payload)
        headers = self._headers
        if kind is str:
            content_type = headers.get("content-type")
            if content_type is None:
                headers["content-type"] = TEXT_CONTENT_TYPE
            elif "charset" not in content_type and "json" in content_type:
                headers["content-type"] = content_type + "; charset=utf-8"
        elif payload is None:
            pass
        elif kind is bytes or kind is bytearray or kind is memoryview:
            if "content-type" not in headers:
                headers["content-type"] = "application/octet-stream"
        elif kind is not dict and kind is not list and streaming.is_stream(payload):
            # An iterator, a generator or a file object: streamed (framework.lifecycle.streaming).
            items = route.serializers.items
            if items is not None:  # the route has typed streams (an itemSchema)
                payload = self._typed_stream(payload, items)
            if "content-type" not in headers:
                headers["content-type"] = "application/octet-stream"
            for hook in route.on_send:
                payload = hook(request, self, payload)
            if streaming.is_stream(payload):
                return streaming.Stream(payload)
            return self._raw_body(payload)
        elif kind is not dict and kind is not list and callable(payload) and hasattr(payload, "status_code"):
            # A werkzeug Response: on_send hooks see it (and may return another one, or
            # a str/bytes body instead); then it answers by itself.
            for hook in route.on_send:
                payload = hook(request, self, payload)
                if not (callable(payload) and hasattr(payload, "status_code")):
                    break
            else:
                return _PassThrough(payload)
            return self._raw_body(payload)
        else:
            if isinstance(payload, Problem):
                payload = self._problem(payload)
            serializer = self._serializer
            if (route.negotiation is not None and serializer is None and self.error is None
                    and "content-type" not in headers):
                # The media type from Accept (framework.lifecycle.negotiation); None: JSON.
                vary = headers.get("vary")
                if vary is None:
                    headers["vary"] = "Accept"
                elif type(vary) is str:
                    headers["vary"] = with_vary(vary, "Accept")
                serializer = route.negotiation.serializer_for(self, self.status_code, route.serializers)
            for hook in route.pre_serialization:
                payload = hook(request, self, payload)
            try:
                payload = route.serializers.serialize(payload, self.status_code, headers.get("content-type"),
                                                      serializer, self.error is not None)
            except (TypeError, SerializationError) as error:
                raise self._not_serializable(error) from None
            content_type = headers.get("content-type")
            if content_type is None:
                headers["content-type"] = JSON_CONTENT_TYPE
            elif type(payload) is str and serializer is not None and serializer is not self._serializer \
                    and "charset" not in content_type:
                headers["content-type"] = content_type + "; charset=utf-8"  # a negotiated serializer's text
        if route.on_send:
            if type(payload) is bytes and "charset=utf-8" in headers.get("content-type", ""):
                payload = payload.decode()  # hooks get JSON and text as str
            for hook in route.on_send:
                payload = hook(request, self, payload)
        return self._raw_body(payload)

    def _typed_stream(self, payload: Any, items: ItemSerializerLookup) -> Any:
        """``payload``'s items, each written by the item schema of the reply's status and
        media type (the first sequential media type the status declares, when the reply sets none), or
        ``payload`` as it is when none applies."""
        headers = self._headers
        typed = items.find(self.status_code, headers.get("content-type"), self.error is not None)
        if typed is None or typed.media_type == streaming.EVENT_STREAM:  # reply.sse writes its events itself
            return payload
        if "content-type" not in headers:
            headers["content-type"] = typed.media_type
        return streaming.typed_items(payload, typed.serialize, typed.before, typed.after, self._item_not_serializable)

    def _item_not_serializable(self, error: Exception, index: int | None) -> ReplySerializationError:
        """:meth:`_not_serializable` for one item of a typed stream (``None``: an event's data)."""
        failure = self._not_serializable(error)
        where = "an event's data" if index is None else f"item {index}"
        if failure.pointer is not None:
            where += f" at {failure.pointer}" if failure.pointer else " at its top level"
        failure = ReplySerializationError(failure.route, failure.reply_status, None, f"{where}: {failure.reason}")
        failure.__suppress_context__ = True
        return failure

    def _problem(self, problem: Problem) -> Problem:
        """A problem document answers with its status, as ``application/problem+json``, its
        ``instance`` the request's path unless it names one (a copy: the problem sent may be shared)."""
        self.code(problem.status)
        if "content-type" not in self._headers:
            self._headers["content-type"] = PROBLEM_CONTENT_TYPE
        if "instance" in problem:
            return problem
        members = dict(problem)
        return Problem(members.pop("status"), members.pop("detail", None), title=members.pop("title"),
                       type=members.pop("type"), instance=problem_instance(self.request.environ), extensions=members)

    @staticmethod
    def _raw_body(payload: Any) -> bytes:
        if payload is None:
            return b""
        if type(payload) is str:
            return payload.encode()
        return bytes(payload)

    def _status_tuple_error(self) -> TypeError:
        """The error answering a handler that returned Flask's ``(body, status)`` tuple."""
        route = self._route
        shape = ", ".join(("body", "status", "headers")[:len(self._payload)])
        return TypeError(f"the handler of {route.method} {route.url} returned a ({shape}) "
                         "tuple: set the status with reply.code(201) (and headers with reply.header(name, value)), "
                         "then return the body")

    def _not_serializable(self, error: BaseException) -> ReplySerializationError:
        """A clean error (no chained tracebacks) for a reply that its response schema or JSON
        cannot encode, naming the route, the status and where the value is (its JSON pointer):
        it carries no status, so it is answered with the fixed 500 and its text is only logged."""
        pointer: str | None = None
        if isinstance(error, SerializationError):
            pointer = error.pointer
        else:  # orjson's TypeError: the root cause says which value
            cause: BaseException | None = error
            while cause is not None:
                error = cause
                cause = error.__cause__ or error.__context__
        route = self._route
        failure = ReplySerializationError(f"{route.method} {route.url}", self.status_code, pointer, str(error))
        failure.__suppress_context__ = True
        return failure

    def __repr__(self) -> str:
        return f"<Reply {self.status_code}{' sent' if self.sent else ''}>"


def with_vary(vary: str, name: str) -> str:
    """A ``Vary`` value that names ``name`` too (as it is when it already does, or is ``*``)."""
    if vary.strip() == "*" or name.lower() in (item.strip().lower() for item in vary.split(",")):
        return vary
    return f"{vary}, {name}"


def _looks_like_status_tuple(value: tuple[Any, ...]) -> bool:
    """``(body, 201)`` or ``(body, 201, headers)``: Flask's way to set the status."""
    return 2 <= len(value) <= 3 and type(value[1]) is int and 100 <= value[1] <= 599


class _PassThrough:
    """A WSGI application (a werkzeug ``Response``) a handler sent: it answers by itself."""

    __slots__ = ("application",)

    application: Callable[..., Iterable[bytes]]

    def __init__(self, application: Callable[..., Any]) -> None:
        self.application = application


def _header_lines(headers: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The header lines for ``start_response``: a list value gives one line per item."""
    lines: list[tuple[str, str]] = []
    for name, value in headers.items():
        if type(value) is list:
            # type() narrows Any to list[Unknown]: a multi-valued header's values, str (see Reply.header).
            lines.extend((name, item) for item in value)  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
        else:
            lines.append((name, value))
    return lines


class _AfterResponse:
    """The body iterable of a route with ``on_response`` hooks: the server calls ``close()``
    once the response has gone out, and the hooks run then."""

    __slots__ = ("body", "route", "request", "reply")

    def __init__(self, body: bytes, route: ReplyRoute, request: "Request", reply: Reply) -> None:
        self.body = body
        self.route = route
        self.request = request
        self.reply = reply

    def __iter__(self) -> Iterator[bytes]:
        yield self.body

    def close(self) -> None:
        for hook in self.route.on_response:
            try:
                hook(self.request, self.reply)
            except Exception as error:
                self.route.log.error("on_response hook failed: %s", describe(error), exc_info=error)


class _AfterPassThrough(_AfterResponse):
    """A pass-through answer's body iterable, closed by the server: its own ``close()``,
    then the ``on_response`` hooks."""

    __slots__ = ("inner",)

    def __init__(self, inner: Iterable[bytes], route: ReplyRoute, request: "Request", reply: Reply) -> None:
        self.inner = inner
        self.route = route
        self.request = request
        self.reply = reply

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.inner)

    def close(self) -> None:
        try:
            close = getattr(self.inner, "close", None)
            if close is not None:
                close()
        finally:
            _AfterResponse.close(self)
