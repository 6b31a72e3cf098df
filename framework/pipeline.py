"""A route compiled at ``ready()``: hooks, body parsing, validation, handler, serialization.

Everything a request needs is decided here, once: the hooks of every name flattened
from the context chain (ancestors first, then the route's context, then the route's
own), the body parser table, the four input validators, the response serializers by
status, and the error-handler chain. A request then runs one pre-built pipeline and
looks nothing up.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Iterable

from orjson import dumps as _orjson_dumps

from . import encoding
from .content_types import parse_media_type
from .error_handler import JSON_CONTENT_TYPE, ErrorPayload, default_error_handler, status_for
from .errors import (STATUS_CODES, BodyTooLargeError, FailedErrorSerializationError, FrameworkError,
                     InvalidContentLengthError, InvalidMediaTypeError, ResponseSchemaKeyError,
                     SchemaSerializationBuildError, SchemaValidationBuildError, SchemaValidationFailure,
                     ValidationError, format_errors)
from .hooks import REQUEST_HOOKS, synchronous
from .route import BODY_METHODS, BODY_SCHEMA_METHODS, OPTIONAL_BODY_METHODS, Route
from .schemas import normalize_input_schema
from .validation.runtime import Invalid as _Invalid

if TYPE_CHECKING:
    from .app import Framework
    from .reply import Reply
    from .request import Request

#: Parts in the order they validate; validation stops at the first failing part.
INPUT_PARTS = (("params", "params"), ("body", "body"), ("querystring", "query"), ("headers", "headers"))
_RESPONSE_KEY = re.compile(r"^(?:[1-5]\d\d|[1-5]xx|default)$")
_NO_BODY_STATUSES = frozenset((204, 304))
_STATUS_LINES = {status: f"{status} {text}" for status, text in STATUS_CODES.items()}
_CHUNK = 65536


def default_schema_error_formatter(errors: list[dict[str, Any]], data_var: str) -> Exception:
    """A :class:`ValidationError` whose message is :func:`format_errors`' (``body/tags/1 should be string``)."""
    return ValidationError(format_errors(errors, data_var), errors, data_var)


class Pipeline:
    """One route's request processing. ``pipeline(environ, start_response, params)`` answers a request."""

    def __init__(self, route: Route, app: "Framework", not_found: bool = False) -> None:
        context = route.context
        self.route = route
        self.app = app
        self.context = context
        self.request_cls = context._request_cls
        self.reply_cls = context._reply_cls
        self.handler = synchronous(route.options["handler"])
        for name in REQUEST_HOOKS:
            setattr(self, name, tuple(synchronous(h) for h in _route_hooks(route, name)))
        self.has_request_hooks = bool(self.on_request or self.pre_parsing or self.pre_validation
                                      or self.pre_handler)
        self.parsers = context._parsers
        self.body_limit = route.options.get("body_limit") or app._body_limit
        method = route.method
        # 2: parse an announced body; 1: only with a content type and a length; 0: never.
        self.body_mode = 0 if not_found else 2 if method in BODY_METHODS else 1 if method in OPTIONAL_BODY_METHODS \
            else 0
        self.error_handlers = tuple(synchronous(h) for h in _error_handler_chain(context))
        self.attach_validation = bool(route.options.get("attach_validation"))
        self.schema_error_formatter = (route.options.get("schema_error_formatter")
                                       or context._inherited("_schema_error_formatter")
                                       or default_schema_error_formatter)
        self.validators: tuple[tuple[str, str, Any, Any], ...] = ()
        self.body_validators: dict[str, Callable[[Any], Any]] | None = None
        self.response_exact: dict[int, Any] = {}
        self.response_class: dict[int, Any] = {}
        self.response_default: Any = None
        self.has_response_schemas = False
        if not not_found:
            self._compile_validators()
            self._compile_serializers()
        self.plain_reply = not (self.has_response_schemas or self.pre_serialization or self.on_send
                                or self.on_response)

    # Start-up.
    def _compile_validators(self) -> None:
        schema = self.route.schema
        options = self.route.options
        compiler = options.get("validator_compiler") or self.context._inherited("_validator_compiler")
        validators = []
        for part, attribute in INPUT_PARTS:
            part_schema = schema.get(part)
            if part_schema is None:
                continue
            if part == "body" and self.route.method not in BODY_SCHEMA_METHODS:
                continue
            if part == "body" and isinstance(part_schema, dict) and _is_content_map(part_schema):
                self.body_validators = {
                    parse_media_type(media_type).essence: self._compile_one(entry["schema"], part, compiler)
                    for media_type, entry in part_schema["content"].items()}
                validators.append((part, attribute, None, None))
                continue
            validate = self._compile_one(part_schema, part, compiler)
            validators.append((part, attribute, validate, getattr(validate, "root", None)))
        self.validators = tuple(validators)

    def _compile_one(self, schema: Any, part: str, compiler: Callable[..., Any] | None) -> Callable[[Any], Any]:
        route = self.route
        normalized = normalize_input_schema(schema, part)
        try:
            if compiler is None:
                return self.app._validator_engine().compile(normalized, shared=self.context.get_schemas(),
                                                           http_part=part)
            return _adapt_custom_validator(compiler(schema=normalized, method=route.method, url=route.url,
                                                    http_part=part))
        except Exception as error:
            raise SchemaValidationBuildError(route.method, route.url, error) from error

    def _compile_serializers(self) -> None:
        response = self.route.schema.get("response")
        if not response:
            return
        route = self.route
        compiler = route.options.get("serializer_compiler") or self.context._inherited("_serializer_compiler")
        for key, entry in response.items():
            status = str(key).lower()
            if not _RESPONSE_KEY.match(status):
                raise ResponseSchemaKeyError(key)
            if isinstance(entry, dict) and _is_content_map(entry):
                compiled: Any = {parse_media_type(media_type).essence:
                                 self._compile_serializer(item["schema"], status, media_type, compiler)
                                 for media_type, item in entry["content"].items()}
            else:
                compiled = self._compile_serializer(entry, status, None, compiler)
            if status == "default":
                self.response_default = compiled
            elif status.endswith("xx"):
                self.response_class[int(status[0])] = compiled
            else:
                self.response_exact[int(status)] = compiled
        self.has_response_schemas = True

    def _compile_serializer(self, schema: Any, status: str, content_type: str | None,
                            compiler: Callable[..., Any] | None) -> Callable[[Any], Any]:
        route = self.route
        try:
            if compiler is None:
                from .serialization import compile_serializer
                return compile_serializer(schema, shared=self.context.get_schemas())
            return compiler(schema=schema, method=route.method, url=route.url, http_status=status,
                            content_type=content_type)
        except Exception as error:
            raise SchemaSerializationBuildError(route.method, route.url, error) from error

    # A request.
    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any],
                 params: dict[str, str]) -> Iterable[bytes]:
        request = self.request_cls(environ, params, self.route)
        reply = self.reply_cls(request, self.route)
        try:
            if self.has_request_hooks:
                self._process(request, reply)
            else:  # the same steps, minus the hooks this route does not have
                if self.body_mode:
                    self._parse_body(request)
                if self.validators:
                    self._validate(request)
                result = self.handler(request, reply)
                if not reply.sent and result is not reply:
                    kind = type(result)
                    status = reply.status_code
                    if self.plain_reply and (kind is dict or kind is list) and 200 <= status < 300 \
                            and status != 204 and environ["REQUEST_METHOD"] != "HEAD":
                        # The common case, with nothing to run around it: answer here.
                        try:
                            body = _orjson_dumps(result, default=encoding.default)
                        except TypeError:
                            body = encoding.dumps_bytes(result)  # UNDEFINED entries and other rarities
                        headers = reply._headers
                        if "content-type" not in headers:
                            headers["content-type"] = JSON_CONTENT_TYPE
                        headers["content-length"] = str(len(body))
                        start_response(_STATUS_LINES[status], list(headers.items()))
                        return [body]
                    reply.sent = True
                    reply._payload = result
        except Exception as error:
            reply.sent = True
            reply._payload = error
        return self._respond(environ, start_response, request, reply)

    def _process(self, request: "Request", reply: "Reply") -> None:
        for hook in self.on_request:
            hook(request, reply)
            if reply.sent:
                return
        for hook in self.pre_parsing:
            hook(request, reply)
            if reply.sent:
                return
        if self.body_mode:
            self._parse_body(request)
        for hook in self.pre_validation:
            hook(request, reply)
            if reply.sent:
                return
        if self.validators:
            self._validate(request)
        for hook in self.pre_handler:
            hook(request, reply)
            if reply.sent:
                return
        result = self.handler(request, reply)
        if not reply.sent and result is not reply:
            reply.send(result)

    def _parse_body(self, request: "Request") -> None:
        environ = request.environ
        content_type = environ.get("CONTENT_TYPE")
        length = environ.get("CONTENT_LENGTH")
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if self.body_mode == 1:
            if not content_type or not (chunked or length):
                return
        elif not content_type and not chunked and (not length or length == "0"):
            return
        if not content_type:
            parser = self.parsers.catch_all
            if parser is None:
                raise InvalidMediaTypeError("undefined")
        else:
            media_type = parse_media_type(content_type)
            parser = self.parsers.find(media_type) if media_type is not None else None
            if parser is None:
                raise InvalidMediaTypeError(content_type)
            request.media_type = media_type
        request.body = parser(request, self._read_body(environ, length, chunked))

    def _read_body(self, environ: dict[str, Any], length: str | None, chunked: bool) -> bytes:
        stream = environ["wsgi.input"]
        limit = self.body_limit
        if length and not chunked:
            try:
                expected = int(length)
            except ValueError:
                raise InvalidContentLengthError() from None
            if expected > limit:
                raise BodyTooLargeError(headers={"connection": "close"})
            if expected < 0:
                raise InvalidContentLengthError()
            body = stream.read(expected) if expected else b""
            while len(body) < expected:  # a server's read(n) may return less than n
                more = stream.read(expected - len(body))
                if not more:
                    raise InvalidContentLengthError()
                body += more
            return body
        if not chunked and not environ.get("wsgi.input_terminated"):
            # Without a length or an end marker a read could block forever: no body.
            return b""
        chunks = []
        size = 0
        while True:
            chunk = stream.read(min(_CHUNK, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > limit:
                raise BodyTooLargeError(headers={"connection": "close"})
            chunks.append(chunk)

    def _validate(self, request: "Request") -> None:
        for part, attribute, validate, root in self.validators:
            if part == "body":
                media_type = request.media_type
                if self.body_validators is not None:
                    validate = self.body_validators.get(media_type.essence if media_type else "application/json")
                    if validate is None:
                        continue
                elif media_type is not None and not media_type.is_json:
                    continue  # validation runs for the JSON content type only (seed 4.4 note 4)
            if root is not None:  # the default engine's generated code, called as its wrapper would
                errors: list[dict[str, Any]] = []
                try:
                    value = root(getattr(request, attribute), "", errors)
                except _Invalid:
                    pass
                if not errors:
                    setattr(request, attribute, value)
                    continue
                error = self._validation_error(errors, part)
            else:
                try:
                    setattr(request, attribute, validate(getattr(request, attribute)))
                except SchemaValidationFailure as failure:
                    error = self._validation_error(failure.errors, part)
                except Exception as raised:
                    error = _as_validation_error(raised, part)
                else:
                    continue
            if self.attach_validation:
                request.validation_error = error
                return
            raise error

    def _validation_error(self, errors: list[dict[str, Any]], part: str) -> Exception:
        error = self.schema_error_formatter(errors, part)
        if not isinstance(error, BaseException):
            raise TypeError("The schema error formatter must return an Exception")
        return _as_validation_error(error, part, errors)

    # The answer.
    def _respond(self, environ: dict[str, Any], start_response: Callable[..., Any],
                 request: "Request", reply: "Reply") -> Iterable[bytes]:
        if reply._not_found:
            self.app._answer_not_found(request, reply)
        try:
            body = self._serialize(request, reply)
        except Exception as error:
            body = self._serialization_failed(request, reply, error)
        if type(body) is not bytes:  # a WSGI application (a werkzeug Response) answers itself
            return body(environ, start_response)
        status = reply.status_code
        headers = reply._headers
        if status < 200 or status in _NO_BODY_STATUSES:
            body = b""
            headers.pop("content-type", None)
            headers.pop("content-length", None)
        else:
            headers["content-length"] = str(len(body))
        if environ["REQUEST_METHOD"] == "HEAD":
            body = b""
        start_response(_STATUS_LINES.get(status) or f"{status} Unknown", list(headers.items()))
        if self.on_response:
            return _AfterResponse(body, self.on_response, request, reply)
        return [body]

    def _serialize(self, request: "Request", reply: "Reply") -> Any:
        """The body as bytes (or a WSGI application to pass through)."""
        while isinstance(reply._payload, BaseException):
            self._handle_error(request, reply, reply._payload)
        payload = reply._payload
        kind = type(payload)
        headers = reply._headers
        if kind is str:
            content_type = headers.get("content-type")
            if content_type is None:
                headers["content-type"] = "text/plain; charset=utf-8"
            elif "charset" not in content_type and "json" in content_type:
                headers["content-type"] = content_type + "; charset=utf-8"
        elif payload is None:
            pass
        elif kind is bytes or kind is bytearray or kind is memoryview:
            if "content-type" not in headers:
                headers["content-type"] = "application/octet-stream"
        elif kind is not dict and kind is not list and callable(payload) and hasattr(payload, "status_code"):
            return payload  # a werkzeug Response
        else:
            for hook in self.pre_serialization:
                payload = hook(request, reply, payload)
            serializer = reply._serializer
            if serializer is None and self.has_response_schemas:
                serializer = self._response_serializer(reply.status_code, headers.get("content-type"), reply)
                if serializer is not None and isinstance(payload, ErrorPayload):
                    payload = payload.with_error_fields()
            if serializer is not None:
                payload = serializer(payload)
            else:
                try:
                    payload = _orjson_dumps(payload, default=encoding.default)
                except TypeError:
                    payload = encoding.dumps_bytes(payload)  # UNDEFINED entries and other rarities
            if "content-type" not in headers:
                headers["content-type"] = JSON_CONTENT_TYPE
        if self.on_send:
            if type(payload) is bytes and "charset=utf-8" in headers.get("content-type", ""):
                payload = payload.decode()  # hooks get JSON and text as str
            for hook in self.on_send:
                payload = hook(request, reply, payload)
        if payload is None:
            return b""
        if type(payload) is str:
            return payload.encode()
        return bytes(payload)

    def _response_serializer(self, status: int, content_type: str | None, reply: "Reply") -> Any:
        entry = self.response_exact.get(status)
        if entry is None:
            entry = self.response_class.get(status // 100)
            # An error is never shaped by a schema written for successes.
            if entry is None and not getattr(reply, "_is_error", False):
                entry = self.response_default
        if type(entry) is dict:
            media_type = parse_media_type(content_type) if content_type else None
            return entry.get(media_type.essence if media_type else "application/json")
        return entry

    def _handle_error(self, request: "Request", reply: "Reply", error: BaseException) -> None:
        reply._is_error = True  # type: ignore[attr-defined]
        reply._error = error  # type: ignore[attr-defined]
        if self.on_error and not getattr(reply, "_on_error_ran", False):
            reply._on_error_ran = True  # type: ignore[attr-defined]
            for hook in self.on_error:
                try:
                    hook(request, reply, error)
                except Exception as hook_error:
                    self.context.log.error("on_error hook failed: %s", hook_error, exc_info=hook_error)
        handlers = self.error_handlers  # ends with the default handler, which always answers
        index = getattr(reply, "_next_error_handler", 0)
        while index < len(handlers):
            handler = handlers[index]
            index = reply._next_error_handler = index + 1  # type: ignore[attr-defined]
            reply.sent = False
            reply._payload = None
            reply._serializer = None
            reply._headers.pop("content-type", None)
            reply._headers.pop("content-length", None)
            if reply.status_code < 400:
                reply.status_code = status_for(error)
            try:
                result = handler(error, request, reply)
            except Exception as raised:
                error = raised
                continue
            if not reply.sent:
                reply.send(None if result is reply else result)
            if isinstance(reply._payload, BaseException) and reply._payload is not error:
                error = reply._payload
                continue
            if isinstance(reply._payload, BaseException):  # a handler sent the same error on
                continue
            return

    def _serialization_failed(self, request: "Request", reply: "Reply", error: Exception) -> bytes:
        """Serialization or an ``on_send`` hook failed: answer that error, or if that was
        already the answer to an error, Fastify's FST_ERR_FAILED_ERROR_SERIALIZATION."""
        if not getattr(reply, "_is_error", False):
            reply.sent = True
            reply._payload = error
            reply.status_code = 200
            try:
                return self._serialize(request, reply)
            except Exception as second:
                error = second
        original = getattr(reply, "_error", error)
        self.context.log.error("failed to serialize an error: %s", error, exc_info=error)
        failure = FailedErrorSerializationError(str(error), str(original))
        reply.status_code = 500
        reply._headers = {"content-type": JSON_CONTENT_TYPE}
        return encoding.dumps_bytes({"statusCode": 500, "code": failure.code, "message": failure.message})


class _AfterResponse:
    """The body iterable of a route with ``on_response`` hooks: the server calls ``close()``
    once the response has gone out, and the hooks run then."""

    __slots__ = ("body", "hooks", "request", "reply")

    def __init__(self, body: bytes, hooks: tuple[Callable[..., Any], ...], request: Any, reply: Any) -> None:
        self.body = body
        self.hooks = hooks
        self.request = request
        self.reply = reply

    def __iter__(self) -> Any:
        yield self.body

    def close(self) -> None:
        for hook in self.hooks:
            try:
                hook(self.request, self.reply)
            except Exception as error:
                self.reply.server.log.error("on_response hook failed: %s", error, exc_info=error)


def _route_hooks(route: Route, name: str) -> list[Callable[..., Any]]:
    hooks = route.context._collect_hooks(name)
    own = route.options.get(name)
    if own is not None:
        hooks.extend(own if isinstance(own, (list, tuple)) else [own])
    return hooks


def _error_handler_chain(context: Any) -> list[Callable[..., Any]]:
    chain = []
    while context is not None:
        if context._error_handler is not None:
            chain.append(context._error_handler)
        context = context._parent
    chain.append(default_error_handler)
    return chain


def _is_content_map(schema: dict[str, Any]) -> bool:
    content = schema.get("content")
    return isinstance(content, dict) and bool(content) and all(
        isinstance(entry, dict) and "schema" in entry for entry in content.values())


def _as_validation_error(error: BaseException, part: str,
                         errors: list[dict[str, Any]] | None = None) -> BaseException:
    """Give any error a validation failure raised the attributes Fastify gives it."""
    if not isinstance(getattr(error, "status_code", None), int):
        error.status_code = 400  # type: ignore[attr-defined]
    if not getattr(error, "code", None):
        error.code = "FST_ERR_VALIDATION"  # type: ignore[attr-defined]
    if errors is not None or getattr(error, "validation", None) is None:
        error.validation = errors if errors is not None else [  # type: ignore[attr-defined]
            {"keyword": "exception", "instance_path": "", "schema_path": "", "params": {},
             "message": str(error)}]
    if not getattr(error, "validation_context", None):
        error.validation_context = part  # type: ignore[attr-defined]
    return error


def _adapt_custom_validator(validate: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Turn a custom validator's result forms into ours: return the value or raise.

    Honoured: ``{"value": v}`` (v replaces the part) / ``{"error": e}``; ``True``/``False``
    with the errors on ``validate.errors``; and raising (a validation failure).
    """
    if not callable(validate):
        raise TypeError("a validator compiler must return a function")

    def run(data: Any) -> Any:
        result = validate(data)
        if result is True or result is None:
            return data
        if result is False:
            raise SchemaValidationFailure(_records(getattr(validate, "errors", None)))
        if isinstance(result, dict) and result.keys() <= {"value", "error"} and result:
            error = result.get("error")
            if error:
                if isinstance(error, BaseException):
                    raise error
                raise SchemaValidationFailure(_records(error))
            return result.get("value", data)
        return data

    return run


def _records(errors: Any) -> list[dict[str, Any]]:
    if isinstance(errors, list):
        return [e if isinstance(e, dict) else {"keyword": "error", "instance_path": "", "schema_path": "",
                                               "params": {}, "message": str(e)} for e in errors]
    message = str(errors) if errors else "should be valid"
    return [{"keyword": "error", "instance_path": "", "schema_path": "", "params": {}, "message": message}]


__all__ = ["Pipeline", "FrameworkError", "default_schema_error_formatter"]
