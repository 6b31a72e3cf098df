"""Every error the framework raises, with Fastify's ``FST_ERR_*`` codes.

An error reply is JSON with keys in the order ``statusCode, code, error, message``;
``error`` is the status text as Node's ``http.STATUS_CODES`` words it (413 is
"Payload Too Large", not Python's "Request Entity Too Large").

The errors that are only a code, a message and a status are one table of
``create_error`` rows; the others follow it.
"""
from __future__ import annotations

import errno
import sys
from typing import Any, TypeVar, overload

class FrameworkError(Exception):
    """Base of the framework's errors: a message, an optional ``FST_ERR_*`` code and a status.

    Any exception with a ``status_code`` attribute between 400 and 599 is answered with
    that status; the others are 500s. ``headers`` are copied onto the error reply.
    """

    #: The ``FST_ERR_*`` code of the error reply (``None``: no ``code`` key).
    code: str | None = None
    #: The status the error is answered with.
    status_code: int = 500
    #: The message, formatted with the positional arguments (``%s`` each).
    message_template: str = "%s"
    #: The message as formatted.
    message: str

    def __init__(self, *args: Any, status_code: int | None = None, code: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        if args and "%s" in self.message_template:
            message = self.message_template % args if self.message_template.count("%s") == len(args) \
                else " ".join(str(a) for a in args)
        elif args:
            message = str(args[0])
        else:
            message = self.message_template
        super().__init__(message)
        self.message = message
        if status_code is not None:
            self.status_code = status_code
        if code is not None:
            self.code = code
        if headers is not None:
            self.headers = headers

    def __reduce__(self) -> tuple[Any, ...]:
        # The message is already formatted: rebuild without formatting it twice.
        return _rebuild, (type(self), self.message, dict(self.__dict__))


def _rebuild(cls: type[FrameworkError], message: str, state: dict[str, Any]) -> FrameworkError:
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    return error


_E = TypeVar("_E", bound=FrameworkError)


@overload
def create_error(code: str, message: str, status_code: int = 500, *,
                 name: str | None = None, doc: str | None = None) -> type[FrameworkError]: ...
@overload
def create_error(code: str, message: str, status_code: int, base: type[_E], *,
                 name: str | None = None, doc: str | None = None) -> type[_E]: ...
@overload
def create_error(code: str, message: str, status_code: int = 500, *, base: type[_E],
                 name: str | None = None, doc: str | None = None) -> type[_E]: ...
def create_error(code: str, message: str, status_code: int = 500,
                 base: type[FrameworkError] = FrameworkError, *,
                 name: str | None = None, doc: str | None = None) -> type[FrameworkError]:
    """Make an error class in the manner of ``@fastify/error``: ``create_error(code, "x %s", 400)``.

    The class is named ``name`` (``code`` unless given) and belongs to the calling module,
    so tracebacks name where it was made; a class named as the module-level variable that
    holds it also pickles. It subclasses ``base`` (:class:`FrameworkError` unless given),
    and is typed as ``type[base]``; ``doc`` is its docstring.
    """
    # sys._getframe is CPython's (and PyPy's) documented way to read the caller's module.
    module = sys._getframe(1).f_globals.get("__name__", __name__)  # pyright: ignore[reportPrivateUsage]
    return type(name or code, (base,), {"code": code, "message_template": message, "status_code": status_code,
                                        "__module__": module, "__doc__": doc})


class SchemaValidationFailure(Exception):
    """Raised by a compiled validator: ``errors`` holds Ajv-shaped error records.

    A record is a dict ``{keyword, instance_path, schema_path, params, message}``
    (``instance_path`` a JSON pointer, ``""`` for the root; ``message`` in English,
    ``should be integer``). Input validation (``framework.lifecycle.inputs``) turns this into a
    ``ValidationError``.
    """

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(errors[0]["message"] if errors else "validation failed")
        self.errors = errors

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.errors,), dict(self.__dict__)


def format_errors(errors: list[dict[str, Any]], data_var: str) -> str:
    """The default validation message: ``"<data_var><instance_path> <message>"`` for each
    record, joined by ``", "``.

    >>> format_errors([{"instance_path": "/limit", "message": "should be <= 100"}], "querystring")
    'querystring/limit should be <= 100'
    """
    return ", ".join(f"{data_var}{error.get('instance_path', '')} {error.get('message', '')}"
                     for error in errors)


class ValidationError(FrameworkError):
    """A route input failed its schema: answered 400 unless an error handler decides otherwise."""

    code = "FST_ERR_VALIDATION"
    status_code = 400

    def __init__(self, message: str, validation: list[dict[str, Any]] | None = None,
                 validation_context: str | None = None) -> None:
        super().__init__(message)
        self.validation = validation if validation is not None else []
        self.validation_context = validation_context


def nesting_records(limit: int) -> list[dict[str, Any]]:
    """The error record of an input nested deeper than ``limit`` levels (arrays and
    objects), which input validation refuses before anything recurses over it."""
    return [{"keyword": "depth", "instance_path": "", "schema_path": "", "params": {"limit": limit},
             "message": f"is nested too deeply (more than {limit} levels)"}]


class InputBuildError(ValueError):
    """A validated value the handler's type cannot hold (``Infinity`` for an ``int``, a
    model's own check failing): raised by ``framework.typeschema``'s builders, answered
    400 by input building naming the part and the JSON pointer of the value."""

    def __init__(self, message: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def inside(self, key: str | int) -> "InputBuildError":
        """The same error, met at ``key`` of the container being built."""
        self.path = (key, *self.path)
        return self


# The table: every error that is only a code, a message and a status, one row each.
# Each row names its class (``name=``) so that it pickles and tracebacks read
# ``framework.errors.BodyTooLargeError``; assignments, not a loop, so type checkers see the names.

# Request-time errors.
BodyTooLargeError = create_error(
    "FST_ERR_CTP_BODY_TOO_LARGE",
    "Request body is too large",
    413, name="BodyTooLargeError",
    doc="The request body is larger than the route's ``body_limit`` (or the application's): 413.")
InvalidContentLengthError = create_error(
    "FST_ERR_CTP_INVALID_CONTENT_LENGTH",
    "Request body size did not match Content-Length",
    400, name="InvalidContentLengthError",
    doc="``Content-Length`` is not a number, is negative, or promises more bytes than the body has: 400.")
EmptyJsonBodyError = create_error(
    "FST_ERR_CTP_EMPTY_JSON_BODY",
    "Body cannot be empty when content-type is set to 'application/json'",
    400, name="EmptyJsonBodyError",
    doc="A request says ``Content-Type: application/json`` but its body is empty: 400.")
FormBodyError = create_error(
    "FST_ERR_CTP_INVALID_FORM",
    "Invalid form body: %s",
    400, name="FormBodyError",
    doc="An ``application/x-www-form-urlencoded`` body holds bytes outside ASCII (a form body is percent-encoded): "
        "400.")
BadUrlError = create_error(
    "FST_ERR_BAD_URL",
    "'%s' is not a valid url component",
    400, name="BadUrlError",
    doc="The request path is not valid UTF-8 once percent-decoded: 400.")
MethodNotAllowedError = create_error(
    "FST_ERR_METHOD_NOT_ALLOWED",
    "Route %s:%s not allowed",
    405, name="MethodNotAllowedError",
    doc="``Framework(method_not_allowed=True)``: a known path asked with a method it has no route for: 405 "
        "(``Allow`` lists its methods).")
NotAcceptableError = create_error(
    "FST_ERR_NOT_ACCEPTABLE",
    "Not Acceptable: this route answers %s",
    406, name="NotAcceptableError",
    doc="A route with ``strict_accept=True`` was asked with an ``Accept`` header that matches none of the media "
        "types it answers (JSON, its context's response serializers, its response ``content`` maps): 406.")
BadStatusCodeError = create_error(
    "FST_ERR_BAD_STATUS_CODE",
    "Called reply with an invalid status code: %s",
    500, name="BadStatusCodeError",
    doc="``reply.code()`` was given something that is not a status code from 100 to 599.")
InvalidHeaderError = create_error(
    "FST_ERR_REP_INVALID_HEADER",
    "Invalid value for header '%s': control characters (CR, LF, NUL...) and text outside latin-1 are not allowed",
    500, name="InvalidHeaderError",
    doc="A reply header value holds control characters (CR, LF, NUL...) or text outside latin-1.")
InvalidHeaderNameError = create_error(
    "FST_ERR_REP_INVALID_HEADER_NAME",
    "Invalid header name %s: a header name is a token (letters, digits and !#$%%&'*+-.^_`|~)",
    500, name="InvalidHeaderNameError",
    doc="A reply header name is not an HTTP token.")

# Start-up errors (raised at declaration or by ready()).
SchemaMissingIdError = create_error(
    "FST_ERR_SCH_MISSING_ID",
    "Missing schema $id property",
    500, name="SchemaMissingIdError",
    doc="``add_schema()`` was given a schema without an ``$id``.")
SchemaAlreadyPresentError = create_error(
    "FST_ERR_SCH_ALREADY_PRESENT",
    "Schema with id '%s' already declared!",
    500, name="SchemaAlreadyPresentError",
    doc="``add_schema()`` was given an ``$id`` this context or an ancestor already has.")
SchemaDuplicateError = create_error(
    "FST_ERR_SCH_DUPLICATE",
    "Schema with '%s' already present!",
    500, name="SchemaDuplicateError",
    doc="A route schema has both ``query`` and ``querystring`` (two names of one part).")
SchemaValidationBuildError = create_error(
    "FST_ERR_SCH_VALIDATION_BUILD",
    "Failed building the validation schema for %s: %s, due to error %s",
    500, name="SchemaValidationBuildError",
    doc="A route's input schema (body, querystring, params, headers) could not be compiled: raised by ``ready()``.")
SchemaSerializationBuildError = create_error(
    "FST_ERR_SCH_SERIALIZATION_BUILD",
    "Failed building the serialization schema for %s: %s, due to error %s",
    500, name="SchemaSerializationBuildError",
    doc="A route's response schema could not be compiled: raised by ``ready()``.")
ResponseSchemaKeyError = create_error(
    "FST_ERR_SCH_RESPONSE_SCHEMA_NOT_NESTED_2XX",
    "Response schema key '%s' is not a status code, a class like '2xx' or 'default'",
    500, name="ResponseSchemaKeyError",
    doc="A key of a route's ``response`` schema is not a status code, a class such as ``2xx``, or ``default``.")
SchemaUnknownKeyError = create_error(
    "FST_ERR_SCH_UNKNOWN_KEY",
    "The schema of route %s has unknown key(s) %s. Schema keys are: %s",
    500, name="SchemaUnknownKeyError",
    doc="A route's ``schema`` has keys other than its parts (``body``, ``querystring``, ``params``, ``headers``, "
        "``response``...).")
DecoratorAlreadyPresentError = create_error(
    "FST_ERR_DEC_ALREADY_PRESENT",
    "The decorator '%s' has already been added!",
    500, name="DecoratorAlreadyPresentError",
    doc="A decorator of that name already exists in this context.")
DecoratorReservedError = create_error(
    "FST_ERR_DEC_RESERVED",
    "The decorator name '%s' is reserved: the %s already has an attribute of that name",
    500, name="DecoratorReservedError", base=DecoratorAlreadyPresentError,
    doc="A decorator name that the instance, request or reply already uses as an attribute.")
DecoratorMissingDependencyError = create_error(
    "FST_ERR_DEC_MISSING_DEPENDENCY",
    "The decorator is missing dependency '%s'.",
    500, name="DecoratorMissingDependencyError",
    doc="A decorator names a dependency (another decorator) that is not present.")
DecoratorAfterStartError = create_error(
    "FST_ERR_DEC_AFTER_START",
    "The decorator '%s' has been added after start!",
    500, name="DecoratorAfterStartError",
    doc="A decorator was added after ``ready()``.")
DecoratorReferenceTypeError = create_error(
    "FST_ERR_DEC_REFERENCE_TYPE",
    "The decorator '%s' of type '%s' is a reference type shared by every request: use None and set it in a hook, "
    "or a property",
    500, name="DecoratorReferenceTypeError",
    doc="A request or reply decorator with a mutable value (dict, list, set...) that every request would share.")
HookInvalidTypeError = create_error(
    "FST_ERR_HOOK_INVALID_TYPE",
    "The hook name must be a string",
    500, name="HookInvalidTypeError",
    doc="``add_hook()`` was given a hook name that is not a string.")
HookInvalidHandlerError = create_error(
    "FST_ERR_HOOK_INVALID_HANDLER",
    "%s hook should be a function, instead got %s",
    500, name="HookInvalidHandlerError",
    doc="``add_hook()`` was given a hook that is not callable.")
HookSignatureError = create_error(
    "FST_ERR_HOOK_SIGNATURE",
    "The %s hook %s cannot be called as %s (%s): declare it as def %s",
    500, name="HookSignatureError",
    doc="A hook cannot be called with the arguments its name passes (an ``on_send`` hook that takes only "
        "``payload``): refused when it is added.")
RouteMissingHandlerError = create_error(
    "FST_ERR_ROUTE_MISSING_HANDLER",
    'Missing handler function for "%s:%s" route.',
    500, name="RouteMissingHandlerError",
    doc="A route has no callable handler, or a route decorator was never applied to a function (raised by "
        "``ready()``).")
RouteDuplicatedHandlerError = create_error(
    "FST_ERR_ROUTE_DUPLICATED_HANDLER",
    'Duplicate handler for "%s:%s" route is not allowed!',
    500, name="RouteDuplicatedHandlerError",
    doc="A route was given a handler twice (as an argument and in its options).")
RouteMethodNotSupportedError = create_error(
    "FST_ERR_ROUTE_METHOD_NOT_SUPPORTED",
    "%s method is not supported.",
    500, name="RouteMethodNotSupportedError",
    doc="A route declares an HTTP method the router does not support.")
RouteUnknownOptionError = create_error(
    "FST_ERR_ROUTE_UNKNOWN_OPTION",
    "Route %s: unknown option(s) %s. Route options are: %s; put your own data under config={...}",
    500, name="RouteUnknownOptionError",
    doc="A route has options the framework does not know (an application's own data goes under ``config``).")
RouteHandlerSignatureError = create_error(
    "FST_ERR_ROUTE_HANDLER_SIGNATURE",
    "The handler of route %s, %s, cannot be called as handler(request, reply) (%s): declare it as def "
    "handler(request, reply)",
    500, name="RouteHandlerSignatureError",
    doc="A route handler cannot be called as ``handler(request, reply)``.")
RoutePathSyntaxError = create_error(
    "FST_ERR_ROUTE_PATH_SYNTAX",
    "Route path '%s' uses <name> or {name} for a parameter, which would match only that literal text: write "
    "parameters as :name, use %s",
    500, name="RoutePathSyntaxError",
    doc="A route path writes a parameter as ``<name>`` or ``{name}``: parameters are written ``:name``.")
RouteParameterNameError = create_error(
    "FST_ERR_ROUTE_PARAM_NAME",
    "%s",
    500, name="RouteParameterNameError",
    doc="A route path's parameter name holds a character no name can (``:x@y``), or an optional parameter "
        "(``:id?``) is not the whole last segment.")
RouteBodyValidationNotSupportedError = create_error(
    "FST_ERR_ROUTE_BODY_VALIDATION_SCHEMA_NOT_SUPPORTED",
    "Body validation schema for %s:%s route is not supported!",
    500, name="RouteBodyValidationNotSupportedError",
    doc="A ``GET`` or ``HEAD`` route declares a body schema.")
RouteBodyLimitError = create_error(
    "FST_ERR_ROUTE_BODY_LIMIT_OPTION_NOT_INT",
    "'body_limit' option must be a positive integer. Got '%s'",
    500, name="RouteBodyLimitError",
    doc="A route's ``body_limit`` is not a positive integer.")
DuplicatedRouteError = create_error(
    "FST_ERR_DUPLICATED_ROUTE",
    "Method '%s' already declared for route '%s'",
    500, name="DuplicatedRouteError",
    doc="A route for this method and path is already declared.")
RouteParameterConflictError = create_error(
    "FST_ERR_DUPLICATED_ROUTE",
    "Route '%s %s' conflicts with '%s %s': they differ only in parameter names, so one would shadow the other. Use "
    "the same parameter names as the first route",
    500, name="RouteParameterConflictError", base=DuplicatedRouteError,
    doc="A route differs from an existing one only in its parameter names (``/x/:id``, ``/x/:name``), so one would "
        "shadow the other.")
InstanceAlreadyStartedError = create_error(
    "FST_ERR_INSTANCE_ALREADY_LISTENING",
    "The application is already started (ready() has run). %s",
    500, name="InstanceAlreadyStartedError",
    doc="A plugin, hook, schema, compiler or handler was added after ``ready()``.")
ContentTypeParserAlreadyPresentError = create_error(
    "FST_ERR_CTP_ALREADY_PRESENT",
    "Content type parser '%s' already present.",
    500, name="ContentTypeParserAlreadyPresentError",
    doc="A content-type parser for this media type (or ``*``) is already present in this context.")
ContentTypeParserInvalidError = create_error(
    "FST_ERR_CTP_INVALID_TYPE",
    "The content type should be a string, a list of strings or a compiled regex",
    500, name="ContentTypeParserInvalidError",
    doc="``add_content_type_parser()`` was given a content type that is not a media type string, a list of them or "
        "a compiled regex, or a parser that is not callable.")
ResponseSerializerInvalidError = create_error(
    "FST_ERR_RSP_SERIALIZER_INVALID",
    "Invalid response serializer for %s: %s",
    500, name="ResponseSerializerInvalidError",
    doc="``add_response_serializer()`` was given something that is not a media type (``type/subtype``, no "
        "wildcard), ``application/json`` (the built-in serialization), or a serializer that is not callable.")
ResponseSerializerAlreadyPresentError = create_error(
    "FST_ERR_RSP_SERIALIZER_ALREADY_PRESENT",
    "Response serializer for '%s' already present in this context.",
    500, name="ResponseSerializerAlreadyPresentError",
    doc="``add_response_serializer()`` was called twice for one media type in one context (a child context may "
        "replace an ancestor's).")
PluginNotPresentError = create_error(
    "FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE",
    "The decorator '%s' required by '%s' is not present in %s",
    500, name="PluginNotPresentError",
    doc="A plugin declares a decorator (``plugin(decorators=...)``) that is not present where it is registered.")
PluginTimeoutError = create_error(
    "FST_ERR_PLUGIN_TIMEOUT",
    "Plugin did not start in time: '%s' did not call 'done' within %s s (Framework(plugin_timeout=...) sets the "
    "limit)",
    500, name="PluginTimeoutError",
    doc="A callback-style plugin did not call ``done`` within ``Framework(plugin_timeout=...)`` seconds.")
PluginDependencyError = create_error(
    "FST_ERR_PLUGIN_DEPENDENCY",
    "The dependency '%s' of plugin '%s' is not registered",
    500, name="PluginDependencyError",
    doc="A plugin declares a dependency (``plugin(dependencies=...)``) that is not registered in its context or an "
        "ancestor.")


# The errors that are no row: their own arguments or attributes, a second base, or no code.
class InvalidMediaTypeError(FrameworkError):
    """No content-type parser accepts the request's ``Content-Type`` (``None``: a body came
    without one): 415."""

    code = "FST_ERR_CTP_INVALID_MEDIA_TYPE"
    message_template = "Unsupported Media Type: %s"
    status_code = 415

    def __init__(self, content_type: str | None, **options: Any) -> None:
        super().__init__(content_type if content_type is not None
                         else "the request has a body but no Content-Type", **options)


class ProblemError(FrameworkError):
    """An error answered as an RFC 9457 problem details document (``application/problem+json``),
    whatever ``Framework(errors=...)`` says: raise it anywhere a request is handled.

    ``ProblemError(403, "your balance is 30", type="https://example.com/probs/credit",
    balance=30)``: ``status`` (400-599), ``detail`` (also the error's ``message``),
    ``title`` (the status's reason phrase by default), ``type`` (``about:blank`` by
    default), ``instance`` (the request's path by default), ``code`` (an extension member,
    as the framework's own errors carry theirs), ``headers`` (copied onto the reply), and
    any other keyword, or ``extensions`` for names that are not identifiers, as extension
    members. An error handler sees it like any error (``status_code``, ``message``) and
    may answer something else.
    """

    def __init__(self, status: int, detail: str | None = None, *, title: str | None = None,
                 type: str = "about:blank", instance: str | None = None,  # noqa: A002 (the RFC's member name)
                 code: str | None = None, headers: dict[str, str] | None = None,
                 extensions: dict[str, Any] | None = None, **members: Any) -> None:
        if not isinstance(status, int) or isinstance(status, bool) or not 400 <= status <= 599:
            raise ValueError(f"a problem's status is an error status (400-599), got {status!r}")
        super().__init__(detail if detail is not None else (title or f"HTTP {status}"), status_code=status,
                         code=code, headers=headers)
        self.detail = detail
        self.title = title
        self.type = type
        self.instance = instance
        #: The extension members (``code`` aside).
        self.extensions = {**(extensions or {}), **members}


class TooManyRedirectsError(RuntimeError):
    """A :class:`framework.testing.Client` request met more redirects than its ``max_redirects``."""


class InvalidCookieError(ValueError):
    """``reply.set_cookie``/``clear_cookie`` got a name that is not an RFC 6265 token, or a
    ``domain`` or ``path`` that would add attributes of its own (``;``, ``,``, spaces,
    control characters) or is no host name; or a signed cookie was set or read where no
    cookie signer is visible. It carries no status: a client sees only the fixed 500, never
    the value (which may come from the request)."""


class JsonBodyError(FrameworkError):
    """Malformed JSON body: 400 with no code, as Fastify 4 answers."""

    status_code = 400


class HookNotSupportedError(FrameworkError):
    """``add_hook()`` was given an unknown hook name; the message suggests the snake_case name when
    there is one."""

    code = "FST_ERR_HOOK_NOT_SUPPORTED"
    message_template = "%s hook not supported!"

    def __init__(self, name: str, suggestion: str | None = None) -> None:
        super().__init__(name)
        if suggestion:
            self.message = f"{self.message} Use '{suggestion}' (hook names are snake_case)."
            self.args = (self.message,)


class TypeSchemaError(FrameworkError, TypeError):
    """A Python type given for a schema (or in a handler's annotations) that has no JSON
    Schema form, or that cannot be read (``framework.typeschema``)."""

    code = "FST_ERR_TYPE_SCHEMA"
    message_template = "%s"


class AddressInUseError(FrameworkError, OSError):
    """``listen()`` on a port another socket holds (an ``OSError`` with ``errno.EADDRINUSE``)."""

    code = "EADDRINUSE"
    message_template = ("address already in use: %s:%s is taken by another process; "
                        "stop it or listen on another port")

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host, port)
        self.host = host
        self.port = port
        self.errno = errno.EADDRINUSE
        self.strerror = self.message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.host, self.port), dict(self.__dict__)


class SettingsError(FrameworkError):
    """``framework.settings.load_settings`` found settings missing or invalid (or a
    malformed ``.env`` line): the message lists every problem, one a line, naming the
    variable (``APP_PORT: should be integer``) and never a value, since any setting may be
    a secret. ``problems`` holds those lines."""

    code = "FST_ERR_SETTINGS"
    message_template = "invalid settings (values are not shown):\n%s"

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


# Schema compilation errors (engines).
class UnresolvableRefError(LookupError):
    """A ``$ref`` names nothing in its document or the shared store (raised at ``ready()``)."""

    def __init__(self, ref: str) -> None:
        super().__init__(f"can't resolve reference {ref}")
        self.ref = ref

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.ref,)


class SchemaCompileError(ValueError):
    """An engine cannot compile the schema: a bad keyword value, an unknown ``format`` or
    ``type``, an invalid ``pattern``, a ``$ref`` loop the serializer cannot shape."""


class TypegenError(ValueError):
    """``framework.typegen`` cannot turn these schemas or sources into types: a schema that
    is not a JSON object, one ``$id`` twice, a ``$ref`` that names nothing, a missing or
    invalid file (the message says which)."""


class SerializationError(Exception):
    """A response value does not fit its schema (message as fast-json-stringify words it).

    ``pointer`` is the JSON pointer of the value in the response (``"/items/1/owner"``;
    ``""`` for the whole value). It carries no status: the reply answers the fixed 500,
    and the message, which may quote the value, goes only to the log.
    """

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.message, self.pointer)


class ReplySerializationError(TypeError):
    """A reply's payload does not fit its response schema, or is not JSON: an unexpected
    error (it carries no status), answered with the fixed 500. The message, for the log,
    names the route, the reply's status and the JSON pointer of the value."""

    def __init__(self, route: str, reply_status: int, pointer: str | None, reason: str) -> None:
        where = "" if pointer is None else f" at {pointer}" if pointer else " at the top level"
        super().__init__(f"cannot serialize the reply of {route} (status {reply_status}){where}: {reason}")
        self.route = route
        self.reply_status = reply_status  # not ``status``: that would be the status of the error reply
        self.pointer = pointer
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.route, self.reply_status, self.pointer, self.reason)


class Invalid(Exception):
    """Raised by generated validation code to stop at the first error (``all_errors=False``).

    The error records themselves are already in the ``errors`` list: the exception only
    unwinds to the caller (or to the ``try`` of an ``anyOf``/``oneOf``/``not``/``if``).
    """


class JsonDecodeError(ValueError):
    """A request body is not RFC 8259 JSON; the message says where."""

