"""Streamed replies: iterators, generators, file objects and server-sent events.

``reply.send(payload)`` (or returning it) streams when ``payload`` is an iterator (a
generator, ``iter(...)``, a text file's lines) or a binary file object:

* the answer has no ``Content-Length`` (the server sends it chunked, or closes the
  connection at its end), except a real file whose size is known;
* the first chunk is produced *before* the status line goes out, so an error raised
  before it is an ordinary error answer (a 500 through the error handlers);
* an error raised after that cannot change the status any more: it is logged and
  re-raised to the server, which closes the connection, so the client sees a
  truncated answer rather than one that looks complete;
* ``on_response`` hooks run once the server has closed the body (after the last chunk,
  or after the client went away); the generator is closed first (its ``finally`` runs);
* server-sent events with a heartbeat are pulled by a thread of their own: when the client
  goes away, that thread closes them (their ``finally`` runs) as soon as they yield their
  next event, and ends, so a source that waits a long time for an event holds its thread
  that long;
* a file object goes through the server's ``wsgi.file_wrapper`` when it offers one (for
  ``sendfile``), unless ``on_response`` hooks must run at its end;
* a HEAD request, a 204 or a 304 sends no body and closes the iterator unread;
* typed streams (a route's ``itemSchema``): :func:`typed_items` writes each item a
  generator yields through the item schema's serializer, one framed item per chunk, and
  ``reply.sse`` each event's ``data``; a route without one runs none of it.

Long streams (server-sent events, slow generators) hold a worker for their whole
length: serve them with threads (gunicorn ``-k gthread --threads N``) or granian, not
gunicorn's sync worker, which serves one request at a time and times out after 30 s.
"""
# This module is the rendering of a streamed reply, split out of framework.lifecycle.reply: it works
# on the reply's underscore state (route, headers, header lines, start) by design, so
# pyright's private-usage check is off here only.
# pyright: reportPrivateUsage=false
from __future__ import annotations

import io
import logging
import os
import queue
import threading
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any, Callable, Iterable, Protocol, TypeVar

from orjson import dumps as _orjson_dumps
from typing_extensions import Self

from ..errors import ReplySerializationError, SerializationError
from ..http.status import status_line

if TYPE_CHECKING:
    from .request import Request


class StreamedRoute(Protocol):
    """What streaming reads of the reply's compiled route (``CompiledRoute`` is one)."""

    @property
    def log(self) -> logging.Logger: ...
    @property
    def method(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def on_response(self) -> tuple[Callable[..., Any], ...]: ...


class StreamedReply(Protocol):
    """What streaming reads of, and does with, a reply: ``framework.lifecycle.reply.Reply``
    is one. This module sits below the reply (which hands it its streams), so it names
    these, the reply's own rendering steps included."""

    @property
    def request(self) -> "Request[Any, Any, Any, Any]": ...
    status_code: int
    error: BaseException | None
    @property
    def _route(self) -> StreamedRoute: ...
    @property
    def _headers(self) -> dict[str, Any]: ...
    def _start(self, start_response: Callable[..., Any], body: bytes) -> Iterable[bytes]: ...
    def _lines(self) -> list[tuple[str, str]]: ...
    def _render_error(self, start_response: Callable[..., Any], error: BaseException) -> Iterable[bytes]: ...
    def header(self, name: str, value: Any) -> Self: ...
    def send(self, payload: Any = None) -> Self: ...


#: The reply's own class (a context's subclass) is what ``reply.sse`` gives back.
ReplyT = TypeVar("ReplyT", bound=StreamedReply)

#: The media type of server-sent events.
EVENT_STREAM = "text/event-stream"
#: ``serialize(item)``: an item schema's compiled serializer (JSON text).
ItemSerialize = Callable[[Any], "str | bytes"]
#: ``failure(error, index)``: the clean error for an item (``index``; ``None`` for an
#: event's data) that its serializer refused (``Reply._not_serializable``).
ItemFailure = Callable[[Exception, "int | None"], Exception]

_BLOCK = 65536
_NO_BODY_STATUSES = frozenset((204, 304))


def is_stream(payload: Any) -> bool:
    """Whether ``payload`` is sent as a stream: an iterator or a file object."""
    return isinstance(payload, Iterator) or (hasattr(payload, "read") and callable(payload.read))


class Stream:
    """The body of a streamed reply, between ``Reply._body`` and :func:`start`: ``payload``
    is the iterator or file object sent."""

    __slots__ = ("payload",)

    def __init__(self, payload: Any) -> None:
        self.payload = payload


def _is_binary_file(payload: Any) -> bool:
    return hasattr(payload, "read") and not isinstance(payload, io.TextIOBase)


def _remaining_size(file: IO[bytes]) -> int | None:
    """The bytes left in a real file (``None`` when unknown: a pipe, a socket, a BytesIO)."""
    try:
        size = os.fstat(file.fileno()).st_size
        return max(size - file.tell(), 0)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def _chunk(value: Any) -> bytes:
    # A chunk is anything a generator yields (Any); pyright calls type() of Any type[Unknown],
    # and isinstance narrows Any to memoryview[Unknown]. mypy sees Any returned where the
    # type() test has made it bytes.
    kind = type(value)  # pyright: ignore[reportUnknownVariableType]
    if kind is bytes:
        return value  # type: ignore[no-any-return]
    if kind is str:
        return value.encode()  # type: ignore[no-any-return]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)  # pyright: ignore[reportUnknownArgumentType]
    raise TypeError(f"a streamed reply yielded a {kind.__name__}: yield bytes or str")


def typed_items(items: Iterable[Any], serialize: ItemSerialize, before: bytes, after: bytes,
                failure: ItemFailure) -> Iterator[bytes]:
    """Each of ``items`` as ``before + serialize(item) + after`` (one JSON Lines line, say).
    Every item is data, a str or bytes too: there is no pre-encoded item. An item the
    serializer refuses raises ``failure(error, index)``; ``items`` is closed at the end."""
    source = iter(items)
    index = 0
    try:
        for item in source:
            try:
                text = serialize(item)
            except (TypeError, ValueError, SerializationError) as error:
                raise failure(error, index) from None
            body = text.encode() if isinstance(text, str) else text
            yield before + body + after if before else body + after
            index += 1
    finally:
        _close(source)


def event_data(serialize: ItemSerialize, failure: ItemFailure) -> Callable[[Any], str]:
    """An event's ``data`` as its item schema's JSON (for :func:`format_event`)."""
    def data(value: Any) -> str:
        try:
            body = serialize(value)
        except (TypeError, ValueError, SerializationError) as error:
            raise failure(error, None) from None
        return body.decode() if isinstance(body, bytes) else body
    return data


def _close(value: Any) -> None:
    close = getattr(value, "close", None)
    if close is not None:
        close()


def start(reply: StreamedReply, start_response: Callable[..., Any], stream: Stream) -> Iterable[bytes]:
    """Answer the server with a streamed body (see the module's docstring)."""
    payload = stream.payload
    route = reply._route
    request = reply.request
    environ = request.environ
    headers = reply._headers
    status = reply.status_code
    headers.pop("content-length", None)
    no_body = status < 200 or status in _NO_BODY_STATUSES or environ["REQUEST_METHOD"] == "HEAD"
    if no_body:
        _close(payload)
        if status < 200 or status in _NO_BODY_STATUSES:
            headers.pop("content-type", None)
            return reply._start(start_response, b"")
        # HEAD: the headers a GET sends, without a length (a stream's is unknown)
        start_response(status_line(status), reply._lines())
        return _StreamBody(b"", iter(()), None, reply)
    if _is_binary_file(payload):
        size = _remaining_size(payload)
        if size is not None:
            headers["content-length"] = str(size)
        lines = reply._lines()
        wrapper: Callable[[Any, int], Iterable[bytes]] | None = environ.get("wsgi.file_wrapper")
        if wrapper is not None and not route.on_response:
            start_response(status_line(status), lines)
            return wrapper(payload, _BLOCK)
        start_response(status_line(status), lines)
        return _StreamBody(b"", _file_chunks(payload), payload, reply)
    iterator = iter(payload)
    try:
        first = _chunk(next(iterator, b""))
    except Exception as error:  # before the status went out: an ordinary error answer
        _close(payload)
        if isinstance(error, ReplySerializationError):
            # It carries no status: the fixed 500, whatever status the handler set (as
            # Reply._recover answers a body its schema refuses).
            reply.status_code = 200
        return reply._render_error(start_response, error)
    start_response(status_line(status), reply._lines())
    return _StreamBody(first, iterator, payload, reply)


def _file_chunks(file: Any) -> Iterator[bytes]:
    while True:
        block = file.read(_BLOCK)
        if not block:
            return
        yield block


class _StreamBody:
    """The body iterable of a streamed reply; the server calls ``close()`` at its end."""

    __slots__ = ("first", "iterator", "source", "reply")

    def __init__(self, first: bytes, iterator: Iterator[Any], source: Any, reply: StreamedReply) -> None:
        self.first = first
        self.iterator = iterator
        self.source = source
        self.reply = reply

    def __iter__(self) -> Iterator[bytes]:
        if self.first:
            yield self.first
        try:
            for value in self.iterator:
                chunk = _chunk(value)
                if chunk:
                    yield chunk
        except Exception as error:
            reply = self.reply
            reply.error = error
            route = reply._route
            route.log.error("the streamed reply of %s %s failed after its status was sent, closing the "
                            "connection: %r", route.method, route.url, error, exc_info=error)
            raise

    def close(self) -> None:
        reply = self.reply
        try:
            _close(self.source)
        except Exception as error:
            reply._route.log.error("closing a streamed reply failed: %r", error, exc_info=error)
        finally:
            for hook in reply._route.on_response:
                try:
                    hook(reply.request, reply)
                except Exception as error:
                    reply._route.log.error("on_response hook failed: %r", error, exc_info=error)


# Server-sent events.
def format_event(event: dict[str, Any] | str | bytes, data_of: Callable[[Any], str] | None = None) -> bytes:
    """One event in the ``text/event-stream`` format (a str is the data). ``data_of``
    (:func:`event_data`, for a route whose event stream has an ``itemSchema``) writes
    every ``data``, a str too."""
    if isinstance(event, (str, bytes)):
        event = {"data": event}
    if not isinstance(event, dict):  # pyright: ignore[reportUnnecessaryIsInstance]  # untyped callers
        raise TypeError(f"an event is a dict (data, event, id, retry) or a str, not a {type(event).__name__}")
    lines: list[str] = []
    for field in ("event", "id"):
        value = event.get(field)
        if value is not None:
            text = str(value)
            if "\n" in text or "\r" in text:
                raise ValueError(f"an event's {field} cannot hold a line break")
            lines.append(f"{field}: {text}")
    if event.get("retry") is not None:
        lines.append(f"retry: {int(event['retry'])}")
    data = event.get("data")
    if data is not None:
        if data_of is not None:
            data = data_of(data)
        elif isinstance(data, bytes):
            data = data.decode()
        elif not isinstance(data, str):
            data = _orjson_dumps(data).decode()
        lines.extend(f"data: {line}" for line in data.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return ("\n".join(lines) + "\n\n").encode()


_HEARTBEAT = b": heartbeat\n\n"
# What the producer thread hands to the server's thread.
_EVENT, _END, _ERROR = "event", "end", "error"
#: How long a producer waits on a full queue before it looks again whether the client left.
_POLL = 0.5


def _stream_head(retry: int | None) -> bytes:
    return f"retry: {retry}\n\n".encode() if retry is not None else b": stream open\n\n"


class _HeartbeatEvents:
    """The event stream with a heartbeat: ``events`` is pulled by a thread of its own (it
    may wait for its next event as long as it likes) into a small queue; the server's
    thread sends what arrives, and a comment every ``heartbeat`` seconds while nothing does.

    The server calls ``close()`` when the client leaves, possibly from another thread while
    ``__next__`` waits. A running generator can only be closed by the thread running it, so
    ``close()`` raises a flag: the producer never waits more than ``_POLL`` on a full queue
    without looking at it, and once it sees it, it stops, closes ``events`` (their
    ``finally`` runs) and its thread ends. A producer waiting inside ``events`` for their
    next event stops when that event comes."""

    __slots__ = ("_head", "_source", "_heartbeat", "_log", "_pending", "_closed", "_started", "_data_of")

    def __init__(self, events: Iterable[Any], heartbeat: float, retry: int | None, log: logging.Logger,
                 data_of: Callable[[Any], str] | None = None) -> None:
        self._data_of = data_of
        self._head: bytes | None = _stream_head(retry)
        self._source = iter(events)
        self._heartbeat = heartbeat
        self._log = log
        self._pending: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=16)
        self._closed = threading.Event()
        self._started = False

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        head = self._head
        if head is not None:
            # The first chunk is asked for by streaming.start(), before the server holds the
            # body: close() cannot run meanwhile, so starting needs no lock.
            self._head = None
            self._started = True
            threading.Thread(target=self._produce, name="sse-events", daemon=True).start()
            return head
        while not self._closed.is_set():
            try:
                kind, value = self._pending.get(timeout=self._heartbeat)
            except queue.Empty:
                return _HEARTBEAT
            if kind == _EVENT:
                return format_event(value, self._data_of)
            self._closed.set()  # the producer is done
            if kind == _ERROR:
                raise value
        raise StopIteration

    def close(self) -> None:
        self._closed.set()
        if not self._started:  # no thread runs the events: close them here
            _close(self._source)
            return
        try:  # wake a __next__ waiting in another thread (a full queue wakes it anyway)
            self._pending.put_nowait((_END, None))
        except queue.Full:
            pass

    def _put(self, kind: str, value: Any) -> bool:
        """Queue an item for the server's thread; ``False`` once the stream is closed."""
        while not self._closed.is_set():
            try:
                self._pending.put((kind, value), timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        source = self._source
        try:
            for event in source:
                if not self._put(_EVENT, event):
                    return
            self._put(_END, None)
        except BaseException as error:  # handed to the server's thread, which logs it
            if not self._put(_ERROR, error):
                self._log.error("the events of a closed server-sent stream failed: %r", error, exc_info=error)
        finally:
            try:
                _close(source)
            except Exception as error:
                self._log.error("closing the events of a server-sent stream failed: %r", error, exc_info=error)


def _events(events: Iterable[Any], retry: int | None, data_of: Callable[[Any], str] | None) -> Iterator[bytes]:
    yield _stream_head(retry)
    source = iter(events)
    try:
        for event in source:
            yield format_event(event, data_of)
    finally:
        _close(source)


def send_sse(reply: ReplyT, events: Iterable[Any], heartbeat: float | None, retry: int | None,
             data_of: Callable[[Any], str] | None = None) -> ReplyT:
    """``reply.sse(events)``: see :meth:`framework.lifecycle.reply.Reply.sse` (``data_of``:
    :func:`event_data`, when the route types its events)."""
    if heartbeat is not None and heartbeat <= 0:
        raise ValueError("heartbeat must be a positive number of seconds, or None")
    reply.header("content-type", "text/event-stream; charset=utf-8")
    reply.header("cache-control", "no-cache")
    reply.header("x-accel-buffering", "no")
    body: Iterator[bytes]
    if heartbeat is None:
        body = _events(events, retry, data_of)
    else:
        body = _HeartbeatEvents(events, heartbeat, retry, reply._route.log, data_of)
    return reply.send(body)
