"""The reply a handler and hooks shape: status, headers, payload, and a per-reply serializer.

``send`` records the payload and ends the chain of hooks; the route's pipeline then
serializes it (``pre_serialization`` hooks, the response schema for the status,
``on_send`` hooks) and answers. Each context has its own subclass, which is where reply
decorators live.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .errors import BadStatusCodeError, InvalidHeaderError

if TYPE_CHECKING:
    from .request import Request


class Reply:
    """The answer to one request. Chainable: ``reply.code(201).header("x-a", "1").send(data)``."""

    _serializer: Callable[[Any], str | bytes] | None = None
    _payload: Any = None
    _not_found = False

    def __init__(self, request: "Request", route: Any) -> None:
        self.request = request
        self.status_code = 200
        self.sent = False
        self._headers: dict[str, str] = {}
        self._route = route

    # Status.
    def code(self, status_code: int) -> "Reply":
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
    def header(self, name: str, value: Any) -> "Reply":
        """Set a header; a value holding CR or LF is refused (header injection)."""
        value = value if type(value) is str else str(value)
        if "\r" in value or "\n" in value or "\r" in name or "\n" in name:
            raise InvalidHeaderError(name)
        self._headers[name.lower()] = value
        return self

    def headers(self, headers: dict[str, Any]) -> "Reply":
        for name, value in headers.items():
            self.header(name, value)
        return self

    def get_header(self, name: str) -> str | None:
        return self._headers.get(name.lower())

    def get_headers(self) -> dict[str, str]:
        return dict(self._headers)

    def has_header(self, name: str) -> bool:
        return name.lower() in self._headers

    def remove_header(self, name: str) -> "Reply":
        self._headers.pop(name.lower(), None)
        return self

    def type(self, content_type: str) -> "Reply":
        """Set ``Content-Type``."""
        return self.header("content-type", content_type)

    # Payload.
    def serializer(self, fn: Callable[[Any], str | bytes]) -> "Reply":
        """Serialize this reply's payload with ``fn`` instead of the route's response schema."""
        self._serializer = fn
        return self

    def send(self, payload: Any = None) -> "Reply":
        """Send ``payload``: dicts and lists as JSON, str as text, bytes as octet-stream,
        an exception as an error reply. Sending ends the chain of hooks."""
        if self.sent:
            self._route.context.log.warning("Reply was already sent, did you forget to \"return reply\"?")
            return self
        self.sent = True
        self._payload = payload
        return self

    def redirect(self, url: str, code: int = 302) -> "Reply":
        return self.code(code).header("location", url).send()

    def call_not_found(self) -> "Reply":
        """Answer with the not-found handler of this URL, as if no route matched."""
        self._not_found = True
        self.sent = True
        return self

    @property
    def server(self) -> Any:
        return self._route.context

    def __repr__(self) -> str:
        return f"<Reply {self.status_code}{' sent' if self.sent else ''}>"
