"""Errors on the request path: the handler chain, the default handler and payload, the
fallback when an error cannot be serialized, and not-found.

An exception raised by a hook or a handler (or sent with ``reply.send(error)``) runs
the route's ``on_error`` hooks, then the error handlers from the route's context
outwards: a handler that raises hands its new error to the next one, and the default
handler, last in every chain, always answers. The payload is Fastify's
``{statusCode, code, error, message}``, or with ``Framework(errors="problem+json")`` an
RFC 9457 problem document: the application's :class:`ErrorStyle`, chosen once when it is
made, puts its default handler, its not-found handler and its fixed answers into every
compiled route, so no request asks which. An unexpected exception (one that carries no
status) is answered ``"Internal Server Error"``, its text and traceback going to the log
only. So is an answer that cannot be rendered (an error reply that does not fit its
response schema, an ``on_send`` hook that raises on the error reply too): the fixed 500.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable, Generic

from typing_extensions import TypeVar

from ..errors import ProblemError
from ..http import encoding
from ..http.problem import PROBLEM_CONTENT_TYPE, Problem, problem_instance
from ..http.status import STATUS_CODES
from ..schemas.store import escape_token
from .request_log import describe

if TYPE_CHECKING:
    from .reply import Reply, ReplyRoute
    from .request import Request

#: A compiled route (``NotFoundRoutes`` holds them; this module sits below ``compiled_route``).
RouteT = TypeVar("RouteT", default=Any)

#: ``handler(error, request, reply)``: an error handler (``set_error_handler``).
ErrorHandler = Callable[[BaseException, Any, Any], Any]
JSON_CONTENT_TYPE = "application/json; charset=utf-8"
INTERNAL_ERROR_MESSAGE = "Internal Server Error"
NOT_READY_MESSAGE = "The application could not start; retry later"


def carried_status(error: BaseException) -> int | None:
    """The 400-599 status an error carries (``status_code``, ``status``, or werkzeug's ``code``), if any."""
    status = getattr(error, "status_code", None) or getattr(error, "status", None)
    if not isinstance(status, int):
        code = getattr(error, "code", None)
        status = code if isinstance(code, int) and hasattr(error, "description") else None
    if isinstance(status, int) and 400 <= status <= 599:
        return status
    return None


def status_for(error: BaseException) -> int:
    """The status an error is answered with: the one it carries, else 500."""
    return carried_status(error) or 500


def message_of(error: BaseException, status: int) -> str:
    """An error's message for the client: its ``message``, ``detail`` (Starlette) or
    ``description`` (werkzeug). An unexpected exception (a 5xx answer to an error that
    carries no status) says only ``Internal Server Error``: its text may hold secrets."""
    if status >= 500 and carried_status(error) is None:
        return INTERNAL_ERROR_MESSAGE
    for attribute in ("message", "detail", "description"):
        text = getattr(error, attribute, None)
        if isinstance(text, str):
            return text
    return str(error)


class ErrorPayload(dict[str, Any]):
    """The default error payload, remembering its error: a response schema written for the
    error's status may pick up the error's own attributes (``error.hint``...), as Fastify's
    ``Object.create(error, ...)`` lets it; plain JSON never shows them."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def with_error_fields(self) -> dict[str, Any]:
        """The payload with the error's public attributes added (the payload's own keys win)."""
        fields = {name: value for name, value in vars(self.error).items()
                  if not name.startswith("_") and name not in self}
        return {**self, **fields}


def error_payload(status: int, error: BaseException) -> ErrorPayload:
    """Fastify's error payload, keys in the order ``statusCode, code, error, message``."""
    payload = ErrorPayload(error)
    payload["statusCode"] = status
    code = getattr(error, "code", None)
    if isinstance(code, str):
        payload["code"] = code
    payload["error"] = STATUS_CODES.get(status, "Unknown Error")
    payload["message"] = message_of(error, status)
    return payload


def default_error_handler(error: BaseException, request: "Request", reply: "Reply") -> None:
    """Answer ``error`` as JSON. A status below 500 is logged at info; 500 and above at
    error, once, with the traceback, and with the request id, method and URL as the
    record's ``req_id``, ``method`` and ``url`` (none of which reaches the client). Both
    go through ``request.log``, so the route's ``log_level`` applies. A
    :class:`~framework.errors.ProblemError` is answered as its problem document."""
    _log_error(error, request, reply)
    if isinstance(error, ProblemError):
        reply.send(raised_problem(error, request))
    else:
        reply.send(error_payload(reply.status_code, error))


def problem_error_handler(error: BaseException, request: "Request", reply: "Reply") -> None:
    """``Framework(errors="problem+json")``'s default handler: :func:`default_error_handler`
    answering an RFC 9457 problem document (:func:`problem_for`)."""
    _log_error(error, request, reply)
    reply.send(problem_for(reply.status_code, error, request))


def _log_error(error: BaseException, request: "Request", reply: "Reply") -> None:
    """Copy the error's ``headers`` onto the reply and log the error (the default handlers' common part)."""
    headers = getattr(error, "headers", None)
    if isinstance(headers, dict):
        reply.headers(headers)  # pyright: ignore[reportUnknownArgumentType]  # any error's own dict attribute
    status = reply.status_code
    log: logging.LoggerAdapter[logging.Logger] = request.log
    if status >= 500:
        log.error("request %s %r failed: %s", request.method, request.url, describe(error),
                  exc_info=(type(error), error, error.__traceback__), extra=_request_fields(request))
    elif log.isEnabledFor(logging.INFO):
        log.info("request %s %r answered %s: %r", request.method, request.url, status, message_of(error, status),
                 extra=_request_fields(request))


def problem_for(status: int, error: BaseException, request: "Request") -> Problem:
    """The problem document answering ``error`` with ``status``: ``type`` ``about:blank``
    (the status says what happened, ``code`` which error), the status's reason phrase as
    ``title``, the client's message (:func:`message_of`) as ``detail``, the request's path
    as ``instance``, and the error's ``code``; a validation failure lists each of its
    records under ``errors`` as ``{"pointer": "/body/name", "detail": ...}`` (the part,
    then the value's JSON pointer; a missing or undeclared property is named)."""
    if isinstance(error, ProblemError):
        return raised_problem(error, request)
    code = getattr(error, "code", None)
    members: dict[str, Any] = {"code": code} if isinstance(code, str) else {}
    validation = getattr(error, "validation", None)
    part = getattr(error, "validation_context", None)
    if isinstance(validation, list) and isinstance(part, str):
        records: list[Any] = validation  # pyright: ignore[reportUnknownVariableType]  # any error's own attribute
        failures: list[dict[str, str]] = []
        for record in records:
            if isinstance(record, dict):
                fields: dict[str, Any] = record  # pyright: ignore[reportUnknownVariableType]  # an error record
                failures.append({"pointer": _pointer(part, fields), "detail": str(fields.get("message", ""))})
        members["errors"] = failures
    return Problem(status, message_of(error, status), instance=problem_instance(request.environ), extensions=members)


def _pointer(part: str, record: dict[str, Any]) -> str:
    """Where a validation record's value is: ``/<part><instance_path>``, then the property a
    ``required`` or ``additionalProperties`` record names."""
    pointer = f"/{escape_token(part)}{record.get('instance_path') or ''}"
    params: Any = record.get("params")
    if isinstance(params, dict):
        found: dict[str, Any] = params  # pyright: ignore[reportUnknownVariableType]  # an error record's params
        name = found.get("missingProperty", found.get("additionalProperty"))
        if isinstance(name, str):
            pointer += "/" + escape_token(name)
    return pointer


def raised_problem(error: ProblemError, request: "Request") -> Problem:
    """The problem document of a :class:`~framework.errors.ProblemError`."""
    members: dict[str, Any] = {"code": error.code} if isinstance(error.code, str) else {}
    return Problem(error.status_code, error.detail, title=error.title, type=error.type,
                   instance=error.instance if error.instance is not None else problem_instance(request.environ),
                   extensions={**members, **error.extensions})


def _request_fields(request: "Request") -> dict[str, Any]:
    """A log record's request fields (never its headers: they may carry credentials)."""
    return {"req_id": request.id, "method": request.method, "url": request.url}


def default_not_found_handler(request: "Request", reply: "Reply") -> "Reply":
    """Fastify's 404: ``Route GET:/x?y=1 not found`` (the URL as received)."""
    return reply.code(404).send({"statusCode": 404, "error": "Not Found",
                                 "message": f"Route {request.method}:{request.url} not found"})


def problem_not_found_handler(request: "Request", reply: "Reply") -> "Reply":
    """``Framework(errors="problem+json")``'s 404: the problem document with Fastify's message as ``detail``."""
    return reply.code(404).send(Problem(404, f"Route {request.method}:{request.url} not found",
                                        instance=problem_instance(request.environ)))


def _fixed_internal_error(environ: dict[str, Any]) -> dict[str, Any]:
    return {"statusCode": 500, "error": STATUS_CODES[500], "message": INTERNAL_ERROR_MESSAGE}


def _fixed_internal_problem(environ: dict[str, Any]) -> dict[str, Any]:
    return Problem(500, INTERNAL_ERROR_MESSAGE, instance=problem_instance(environ))


def _not_ready_error(environ: dict[str, Any]) -> dict[str, Any]:
    return {"statusCode": 503, "error": STATUS_CODES[503], "message": NOT_READY_MESSAGE}


def _not_ready_problem(environ: dict[str, Any]) -> dict[str, Any]:
    return Problem(503, NOT_READY_MESSAGE, instance=problem_instance(environ))


class ErrorStyle:
    """How the framework words the errors it answers itself: Fastify's JSON
    (``Framework(errors="fastify")``, the default) or RFC 9457 problem documents
    (``errors="problem+json"``). Chosen once, when the application is made; each compiled
    route takes its default error handler and its two entry points into the error chain
    from it, and the application its not-found handler and fixed answers."""

    __slots__ = ("name", "content_type", "error_handler", "not_found_handler", "_internal_error", "_not_ready")

    def __init__(self, name: str, content_type: str, error_handler: ErrorHandler,
                 not_found_handler: Callable[["Request", "Reply"], "Reply"],
                 internal_error: Callable[[dict[str, Any]], dict[str, Any]],
                 not_ready: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        #: The ``errors`` option's value.
        self.name = name
        #: The Content-Type of the error answers.
        self.content_type = content_type
        #: The last handler of every route's error chain: it always answers.
        self.error_handler = error_handler
        #: The root's not-found handler, unless the application sets its own.
        self.not_found_handler = not_found_handler
        self._internal_error = internal_error
        self._not_ready = not_ready

    def internal_error(self, request: "Request") -> dict[str, Any]:
        """The fixed 500's payload (a reply sends it as JSON, or a problem as a problem)."""
        return self._internal_error(request.environ)

    def not_ready(self, environ: dict[str, Any]) -> bytes:
        """The body of the 503 answered while the application could not start."""
        return encoding.dumps_bytes(self._not_ready(environ))

    def answer_error(self, route: "ReplyRoute", request: "Request", reply: "Reply", error: BaseException) -> None:
        """Run ``on_error`` hooks, then the error handlers until one sends a payload that is not an error."""
        for hook in route.on_error:
            try:
                hook(request, reply, error)
            except Exception as hook_error:
                route.log.error("on_error hook failed: %s", describe(hook_error), exc_info=hook_error,
                                extra=_request_fields(request))
        for handler in route.error_handlers:  # the last, the default handler, always answers
            reply.begin_error_handler(error, status_for(error))
            try:
                result = handler(error, request, reply)
                if not reply.sent:
                    reply.send(None if result is reply else result)
            except Exception as raised:
                error = raised
                continue
            if isinstance(reply.payload, BaseException):  # the handler sent an error on
                error = reply.payload
                continue
            return
        # Every handler failed, the default one included: answer a fixed 500.
        route.log.error("request %s %r: the default error handler failed: %s", request.method, request.url,
                        describe(error), exc_info=error, extra=_request_fields(request))
        reply.begin_error_handler(error, 500)
        # Whatever a failed handler set (half of an error's headers) goes: the error chain owns the reply's headers.
        reply._headers.clear()  # pyright: ignore[reportPrivateUsage]
        reply.code(500).send(self.internal_error(request))

    def serialization_failure(self, route: "ReplyRoute", reply: "Reply", error: Exception) -> bytes:
        """The answer when the reply to an error could not be rendered either (its payload
        does not fit the response schema for its status, an ``on_send`` hook raised on it):
        the fixed 500, the failure logged with its traceback (never its text to the client)."""
        original = reply.error if reply.error is not None else error
        request = reply.request
        route.log.error("request %s %r: the answer to %s could not be rendered: %s", request.method, request.url,
                        describe(original), describe(error), exc_info=error, extra=_request_fields(request))
        reply.begin_error_handler(error, 500)
        reply.code(500).header("content-type", self.content_type)
        return encoding.dumps_bytes(self.internal_error(request))

    def __repr__(self) -> str:
        return f"<error style {self.name}>"


#: The styles by the ``errors`` option's value.
ERROR_STYLES = {
    "fastify": ErrorStyle("fastify", JSON_CONTENT_TYPE, default_error_handler, default_not_found_handler,
                          _fixed_internal_error, _not_ready_error),
    "problem+json": ErrorStyle("problem+json", PROBLEM_CONTENT_TYPE, problem_error_handler,
                               problem_not_found_handler, _fixed_internal_problem, _not_ready_problem),
}


class NotFoundRoutes(Generic[RouteT]):
    """The not-found answer of each prefix, longest prefix first, the root's last."""

    def __init__(self, by_prefix: list[tuple[str, RouteT]], root: RouteT) -> None:
        self.by_prefix = sorted(by_prefix, key=lambda item: len(item[0]), reverse=True)
        self.root = root

    def find(self, path: str) -> RouteT:
        """The not-found route for ``path``: its longest matching prefix's, else the root's."""
        for prefix, answer in self.by_prefix:
            if path == prefix or path.startswith(prefix + "/"):
                return answer
        return self.root
