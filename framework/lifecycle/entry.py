"""A route's entry: the whole request path of one route, emitted as one Python function
(by the route's first request: see ``CompiledRoute.entry``).

``entry(environ, start_response, params)`` builds the request and the reply, runs the
steps the route has in lifecycle order (request id header, "incoming request" log line,
``on_request``, body parsing, ``pre_parsing``... ``pre_validation``, input validation,
typed inputs, ``pre_handler``), then the handler, then renders the reply. The generator
(:func:`compile_entry`) writes only the steps the route has: a route without hooks has no
hook code, one without schemas no validation code, one without request logging no
logging code. There is one request path: what it emits for a route with every feature is
the general case, and :func:`entry_source` shows it for any route (``app.explain()``'s
``entry``).

Values reach the generated code as globals of its namespace (the constants table of
``framework.schemas.codegen``), never as text: routes of one shape share one compiled
code object, and the source is registered with :mod:`linecache`, so a traceback through
an entry shows its real lines.

Input validation is inlined for the default engine's generated functions (called as
``root(data, "", errors)``, as ``InputValidation`` calls them); a route that attaches
validation errors, validates a body by media type (a ``content`` map), checks a body's
depth, or uses a custom validator compiler calls its ``InputValidation`` step instead.
When no application code runs before validation (no hooks, no body, no request id or
log line), the query string and the headers are read from the environ straight into
their validators; otherwise through ``request.query``/``request.headers``, which a hook
may have changed.
"""
from __future__ import annotations

from inspect import isawaitable
from random import random
from typing import Any, Callable, Iterable, Protocol

from orjson import dumps as _orjson_dumps

from ..errors import InvalidMediaTypeError
from ..http import encoding
from ..http.status import STATUS_LINES, SUCCESS_WITH_CONTENT
from ..http.media_types import parse_query_string
from ..schemas.codegen import CodeCache, Constants, Emitter, comment, load
from ..validation import Invalid
from .hooks import PLAIN_RESULTS, HookPhase, run_coroutine
from .inputs import InputValidation
from .reply import Reply
from .request import Request, headers_from_environ
from .request_log import EchoRequestId, LogIncoming
from .responses import CheckedResponseSerializers, ResponseSerializers

#: ``entry(environ, start_response, params)``: one WSGI call answered by one route.
Entry = Callable[[dict[str, Any], Callable[..., Any], dict[str, Any]], Iterable[bytes]]

_CACHE = CodeCache("route entry")
#: Names every entry reads from its namespace.
_COMMON: dict[str, Any] = {
    "PLAIN_RESULTS": PLAIN_RESULTS, "isawaitable": isawaitable, "run_coroutine": run_coroutine,
    "Invalid": Invalid, "InvalidMediaTypeError": InvalidMediaTypeError,
    "parse_query_string": parse_query_string, "headers_from_environ": headers_from_environ,
    "new": object.__new__, "random": random, "dumps": _orjson_dumps, "encoding_default": encoding.default, "STATUS_LINES": STATUS_LINES,
    "SUCCESS_WITH_CONTENT": SUCCESS_WITH_CONTENT, "OK": STATUS_LINES[200],
}
JSON_CONTENT_TYPE = "application/json; charset=utf-8"  # as Reply sets it
#: Route methods whose requests are never HEAD requests (a HEAD route is a route of its own).
_NEVER_HEAD = frozenset(("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))


class EntryRoute(Protocol):
    """What the generator reads of a compiled route (``framework.lifecycle.compiled_route.CompiledRoute``
    is one: it sits above this module)."""

    @property
    def method(self) -> str: ...
    @property
    def request_class(self) -> "type[Request]": ...
    @property
    def reply_class(self) -> "type[Reply]": ...
    @property
    def steps(self) -> tuple[Callable[..., None], ...]: ...
    @property
    def handler(self) -> Callable[..., Any]: ...
    @property
    def plain_json(self) -> bool: ...
    @property
    def builtin_serializers(self) -> bool: ...
    @property
    def serializers(self) -> "ResponseSerializers": ...
    @property
    def negotiation(self) -> object | None: ...
    @property
    def pre_serialization(self) -> tuple[Callable[..., Any], ...]: ...
    @property
    def on_send(self) -> tuple[Callable[..., Any], ...]: ...
    @property
    def on_response(self) -> tuple[Callable[..., Any], ...]: ...


class _Writer:
    """The emitter, the constants table, and the blocks left open by steps that may send the reply."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.emitter = Emitter()
        self.constants = Constants(namespace)
        self.open: list[Any] = []

    def line(self, code: str, note: str | None = None) -> Any:
        return self.emitter.line(code, note)

    def name(self, value: Any, kind: str) -> str:
        return self.constants.name(value, kind)

    def unless_sent(self) -> None:
        """What follows runs only if the reply was not sent by what precedes."""
        with self.line("if reply.sent:"):
            self.line("result = reply")
        block = self.line("else:")
        block.__enter__()
        self.open.append(block)

    def close_all(self) -> None:
        while self.open:
            self.open.pop().__exit__(None, None, None)


def compile_entry(route: EntryRoute) -> tuple[Entry, str]:
    """The entry of ``route`` and its source (with comments)."""
    namespace: dict[str, Any] = dict(_COMMON)
    writer = _Writer(namespace)
    line = writer.line
    with line("def entry(environ, start_response, params):"):
        _emit_construction(writer, route)
        with line("try:"):
            for step in route.steps:
                _emit_step(writer, step)
            line(f"result = {writer.name(route.handler, 'handler')}(request, reply)", "# the handler")
            writer.close_all()
        with line("except Exception as error:"):
            line("result = error", "# the reply answers it through the error chain")
        _emit_json_answer(writer, route)
        line("return reply.render(start_response, result)", "# the general answer: Reply.render")
    namespace["route"] = route
    source = load(_CACHE, writer.emitter, namespace)
    entry: Entry = namespace["entry"]
    return entry, source


def _emit_construction(writer: _Writer, route: EntryRoute) -> None:
    """The request and the reply: ``Request.__init__`` and ``Reply.__init__`` inlined (a
    call less each) unless a class of the route's context defines its own."""
    line = writer.line
    request_class = writer.name(route.request_class, "request_class")
    reply_class = writer.name(route.reply_class, "reply_class")
    if route.request_class.__init__ is Request.__init__:
        line(f"request = new({request_class})", "# Request(environ, params, route)")
        line("request.environ = environ")
        line("request.params = params")
        line("request._route = route")
    else:
        line(f"request = {request_class}(environ, params, route)")
    if route.reply_class.__init__ is Reply.__init__:
        line(f"reply = new({reply_class})", "# Reply(request, route): status 200, not sent")
        line("reply.request = request")
        line("reply._headers = {}")
        line("reply._route = route")
    else:
        line(f"reply = {reply_class}(request, route)")


def _emit_step(writer: _Writer, bound: Callable[..., None]) -> None:
    """One step of ``route.steps`` (a bound ``__call__``), inlined where that saves a call."""
    line = writer.line
    step = getattr(bound, "__self__", bound)
    if isinstance(step, EchoRequestId):
        line(f"reply.header({writer.name(step.header, 'header')}, request.id)", "# request_id_header")
    elif isinstance(step, LogIncoming):
        line(f"{writer.name(bound, 'log_incoming')}(request, reply)", "# request logging: incoming request")
    elif isinstance(step, HookPhase):
        for number, hook in enumerate(step.hooks, 1):
            line(f"returned = {writer.name(hook, step.name)}(request, reply)", f"# {step.name} hook {number}")
            with line("if returned.__class__ not in PLAIN_RESULTS and isawaitable(returned):"):
                line("run_coroutine(returned)", "# a coroutine returned at run time")
            writer.unless_sent()
    elif isinstance(step, InputValidation) and _inlinable(step):
        _emit_validation(writer, step)
    else:  # body parsing, typed inputs, a validation step run as a whole
        line(f"{writer.name(bound, 'step')}(request, reply)", comment(type(step).__name__))


def _inlinable(validation: InputValidation) -> bool:
    """Whether every part is the default engine's function with nothing around it."""
    return not validation.attach and validation.max_body_depth is None and all(
        root is not None and by_media_type is None for _, _, _, root, by_media_type, _ in validation.runs)


def _emit_validation(writer: _Writer, validation: InputValidation) -> None:
    line = writer.line
    step = writer.name(validation, "validation")
    # One list for every part: a part that passed left it empty.
    line("errors = []", "# the validation errors")
    for part, attribute, _, root, _, _ in validation.runs:
        validate = writer.name(root, f"validate_{attribute}")
        # The parts as parsed (what the validators were compiled for), unless a step ran
        # before: it may have changed them.
        if part == "params" and validation.as_parsed:
            data = "params"
        elif part == "querystring" and validation.as_parsed:
            data = 'parse_query_string(environ.get("QUERY_STRING", ""))'
        elif part == "headers" and validation.as_parsed:
            data = "headers_from_environ(environ)"
        else:
            data = f"request.{attribute}"
        block: Any = None
        if part == "body":
            line("media_type = request.media_type")
            block = line("if media_type is None or media_type.is_json:", "# a body of another media type: its own parser's")
            block.__enter__()
        with line("try:"):
            line(f"value = {validate}({data}, \"\", errors)", f"# validate {part}")
        with line("except Invalid:"):
            line("pass", "# raised once an error is recorded")
        with line("if errors:"):
            line(f"raise {step}.error(errors, {part!r})")
        line(f"request.{attribute} = value")
        if block is not None:
            block.__exit__(None, None, None)
            if validation.refused_media_types:
                with line(f"elif media_type.essence in {writer.name(validation.refused_media_types, 'refused')}:"):
                    line('raise InvalidMediaTypeError(environ.get("CONTENT_TYPE"))')


def _emit_json_answer(writer: _Writer, route: EntryRoute) -> None:
    """The common answer inlined: a dict or list the handler returned, not sent, with a
    status of ``SUCCESS_WITH_CONTENT`` (2xx but 204, with a status line of its own), as
    JSON (plain, or by the response schema of an exact status), when the handler set no
    ``reply.serializer``, no hook shapes or follows the reply, the route answers only JSON
    (no content negotiation) and the request cannot be a HEAD request. Anything else, and
    any failure to encode, goes to ``Reply.render`` (which reads the same reply state)."""
    if (route.method not in _NEVER_HEAD or route.pre_serialization or route.on_send or route.on_response
            or route.negotiation is not None):  # (Reply.render chooses the media type from Accept)
        return
    by_status: dict[int, tuple[Callable[[Any], Any], str]] = {}
    if route.serializers:
        if not route.builtin_serializers:
            return  # (an application's serializer is called once, by Reply.render)
        by_status = _success_serializers(route.serializers)
        if not by_status:
            return
    elif not route.plain_json:
        return
    line = writer.line
    line("kind = result.__class__", "# the JSON answer, with nothing around it to run")
    # (reply.serializer(fn) set by the handler: Reply.render calls fn.)
    with line("if (kind is dict or kind is list) and not reply.sent and reply._serializer is None:"):
        if by_status:
            # (The reply's own state, read as Reply.render reads it: this is its first branch.)
            line(f"found = {writer.name(by_status, 'response_schemas')}.get(reply.status_code)",
                 "# the 2xx response schema of the status")
            with line("if found is not None:"):
                with line("try:"):
                    line("body = found[0](result)")
                with line("except Exception:"):
                    line("return reply.render(start_response, result)", "# serialized again there, failing as it answers")
                if isinstance(route.serializers, CheckedResponseSerializers):
                    check = route.serializers.check
                    with line(f"if random() < {writer.name(check.rate, 'response_check')}:",
                              "# Framework(response_check=...): this reply is checked"):
                        line(f"{writer.name(check, 'check_drift')}(found[0], result, body, reply.status_code)")
                with line("if body.__class__ is str:"):
                    line("body = body.encode()")
                _emit_start(writer, "found[1]")
        else:
            line("status = reply.status_code")
            # (200 first, and its status line a constant: the usual answer, 3% of S1.)
            with line("if status == 200 or status in SUCCESS_WITH_CONTENT:"):
                with line("try:"):
                    line("body = dumps(result, default=encoding_default)")
                with line("except TypeError:"):
                    line("return reply.render(start_response, result)", "# the slower encoder, or the error")
                _emit_start(writer, "OK if status == 200 else STATUS_LINES[status]")


def _success_serializers(serializers: "ResponseSerializers") -> dict[int, tuple[Callable[[Any], Any], str]]:
    """``{status: (serializer, status line)}`` for the ``SUCCESS_WITH_CONTENT`` statuses whose
    response schema does not depend on the content type, chosen as ``ResponseSerializers.find`` does."""
    found: dict[int, tuple[Callable[[Any], Any], str]] = {}
    for status in SUCCESS_WITH_CONTENT:
        entry = serializers.exact.get(status)
        if entry is None:
            entry = serializers.by_class.get(2)
            if entry is None:
                entry = serializers.default
        if entry is not None and not isinstance(entry, dict):
            found[status] = (entry, STATUS_LINES[status])
    return found


def _emit_start(writer: _Writer, status_line: str) -> None:
    line = writer.line
    json = writer.name(JSON_CONTENT_TYPE, "json")
    line("headers = reply._headers")
    with line("if not headers:", "# no header set: the two lines, without filling the reply's dict"):
        line(f'start_response({status_line}, [("content-type", {json}), ("content-length", str(len(body)))])')
        line("return [body]")
    with line('if "content-type" not in headers:'):
        line(f"headers[\"content-type\"] = {json}")
    line('headers["content-length"] = str(len(body))')
    line(f"start_response({status_line}, reply._lines() if reply._multi_valued else list(headers.items()))")
    line("return [body]")
