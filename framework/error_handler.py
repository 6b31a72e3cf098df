"""The default error handler and the error payload: ``{statusCode, code, error, message}``."""
from __future__ import annotations

import logging
from typing import Any

from .errors import STATUS_CODES

JSON_CONTENT_TYPE = "application/json; charset=utf-8"


def status_for(error: BaseException) -> int:
    """The status an error is answered with: its ``status_code`` (or ``status``) if 400-599, else 500."""
    status = getattr(error, "status_code", None) or getattr(error, "status", None)
    if isinstance(status, int) and 400 <= status <= 599:
        return status
    return 500


def message_of(error: BaseException) -> str:
    message = getattr(error, "message", None)
    return message if isinstance(message, str) else str(error)


class ErrorPayload(dict):  # type: ignore[type-arg]
    """The default error payload, remembering its error: a response schema written for the
    error's status may pick up the error's own attributes (``error.hint``...), as Fastify's
    ``Object.create(error, ...)`` lets it; plain JSON never shows them."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def with_error_fields(self) -> dict[str, Any]:
        fields = {name: value for name, value in vars(self.error).items()
                  if not name.startswith("_") and name not in self}
        return {**self, **fields}


def error_payload(status: int, error: BaseException) -> dict[str, Any]:
    """Fastify's error payload, keys in the order ``statusCode, code, error, message``."""
    payload: dict[str, Any] = ErrorPayload(error)
    payload["statusCode"] = status
    code = getattr(error, "code", None)
    if isinstance(code, str):
        payload["code"] = code
    payload["error"] = STATUS_CODES.get(status, "Unknown Error")
    payload["message"] = message_of(error)
    return payload


def default_error_handler(error: BaseException, request: Any, reply: Any) -> None:
    """Answer ``error`` as JSON; a status below 500 is logged at info, 500 and above at error
    with the traceback (which never reaches the client)."""
    headers = getattr(error, "headers", None)
    if isinstance(headers, dict):
        reply.headers(headers)
    status = reply.status_code
    log: logging.Logger = reply.server.log
    if status >= 500:
        log.error("request %s %s failed: %s", request.method, request.url, message_of(error),
                  exc_info=(type(error), error, error.__traceback__), extra={"req_id": request.id})
    elif log.isEnabledFor(logging.INFO):
        log.info("request %s %s answered %s: %s", request.method, request.url, status, message_of(error),
                 extra={"req_id": request.id})
    reply.send(error_payload(status, error))
