"""Every row of DESIGN 7's error table, with exact payloads and Node's status texts."""
import io
import json
import logging
import pickle

import pytest

import framework.errors
from framework import Framework, FrameworkError, create_error

JSON_TYPE = "application/json; charset=utf-8"


def payload(response):
    assert response.headers["content-type"] == JSON_TYPE
    return json.loads(response.body)


@pytest.fixture
def app():
    app = Framework()
    app.post("/echo", lambda request, reply: {"body": request.body})
    app.get("/boom", lambda request, reply: (_ for _ in ()).throw(RuntimeError("kaboom")))
    return app


def test_unknown_route_404_with_raw_url(app):
    response = app.inject(url="/nope?x=1")
    assert response.status_code == 404
    assert list(payload(response)) == ["statusCode", "error", "message"]
    assert payload(response) == {"statusCode": 404, "error": "Not Found", "message": "Route GET:/nope?x=1 not found"}


@pytest.mark.parametrize("body", [b'{"a":', b"{'a': 1}", b"NaN", b"[Infinity]", b'{"a": -Infinity}', b"[1e400]",
                                  b"01", b"[" * 100000 + b"]" * 100000])
def test_malformed_json_is_400_without_code(app, body):
    response = app.inject(method="POST", url="/echo", body=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    data = payload(response)
    assert list(data) == ["statusCode", "error", "message"]
    assert data["error"] == "Bad Request" and data["message"]


def test_json_that_is_valid_but_looks_suspicious_still_parses(app):
    body = b'{"s": "NaN Infinity 1e400 01", "n": 1e300, "z": 0.5}'
    response = app.inject(method="POST", url="/echo", body=body, headers={"Content-Type": "application/json"})
    assert response.json() == {"body": {"s": "NaN Infinity 1e400 01", "n": 1e300, "z": 0.5}}


def test_empty_json_body(app):
    response = app.inject(method="POST", url="/echo", body=b"", headers={"Content-Type": "application/json",
                                                                       "Content-Length": "0"})
    assert response.status_code == 400
    assert payload(response) == {"statusCode": 400, "code": "FST_ERR_CTP_EMPTY_JSON_BODY", "error": "Bad Request",
                                 "message": "Body cannot be empty when content-type is set to 'application/json'"}


def test_body_over_limit_is_413_without_reading_the_rest():
    app = Framework(body_limit=10)
    app.post("/echo", lambda request, reply: {"body": request.body})

    class Stream(io.BytesIO):
        def read(self, size=-1):
            if size is None or size < 0 or self.tell() + size > 11:
                raise AssertionError("read past the body limit")
            return super().read(size)

    declared = app.inject(method="POST", url="/echo", headers={"Content-Type": "application/json",
                                                             "Content-Length": "50"},
                          **{"wsgi.input": Stream(b"x" * 50)})
    assert declared.status_code == 413
    assert payload(declared) == {"statusCode": 413, "code": "FST_ERR_CTP_BODY_TOO_LARGE",
                                 "error": "Payload Too Large", "message": "Request body is too large"}
    assert "connection" not in declared.headers  # hop-by-hop: the server decides (PEP 3333)
    chunked = app.inject(method="POST", url="/echo", headers={"Content-Type": "application/json",
                                                            "Transfer-Encoding": "chunked"},
                         **{"wsgi.input": Stream(b"[" + b"1," * 40 + b"1]"), "CONTENT_LENGTH": ""})
    assert chunked.status_code == 413


def test_body_within_limit_streamed_without_length():
    app = Framework(body_limit=100)
    app.post("/echo", lambda request, reply: {"body": request.body})
    response = app.inject(method="POST", url="/echo", headers={"Content-Type": "application/json",
                                                             "Transfer-Encoding": "chunked"},
                          **{"wsgi.input": io.BytesIO(b'{"a": [1, 2]}'), "CONTENT_LENGTH": ""})
    assert response.json() == {"body": {"a": [1, 2]}}


def test_unsupported_media_type_and_missing_content_type(app):
    response = app.inject(method="POST", url="/echo", body=b"<a/>", headers={"Content-Type": "application/xml"})
    assert response.status_code == 415
    assert payload(response) == {"statusCode": 415, "code": "FST_ERR_CTP_INVALID_MEDIA_TYPE",
                                 "error": "Unsupported Media Type", "message": "Unsupported Media Type: application/xml"}
    response = app.inject(method="POST", url="/echo", body=b"abc")
    assert payload(response)["message"] == "Unsupported Media Type: the request has a body but no Content-Type"
    form = app.inject(method="POST", url="/echo", body=b"a=1",
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 200  # the built-in form parser (issue 15)


def test_exception_in_handler_is_500_without_traceback_and_logged(app, caplog):
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/boom")
    assert response.status_code == 500
    assert payload(response) == {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}
    assert "Traceback" not in response.text
    record = next(r for r in caplog.records if r.levelno == logging.ERROR)
    assert record.exc_info and record.exc_info[1].args == ("kaboom",)
    assert record.req_id.startswith("req-")


@pytest.mark.parametrize("status, text", [(400, "Bad Request"), (413, "Payload Too Large"), (414, "URI Too Long"),
                                          (416, "Range Not Satisfiable"), (418, "I'm a Teapot"),
                                          (503, "Service Unavailable")])
def test_exception_with_status_code_and_node_status_texts(status, text):
    app = Framework()

    class Custom(Exception):
        status_code = status

    def handler(request, reply):
        raise Custom("boom")

    app.get("/e", handler)
    response = app.inject(url="/e")
    assert response.status_code == status
    assert payload(response) == {"statusCode": status, "error": text, "message": "boom"}


def test_error_code_headers_and_explicit_status():
    app = Framework()
    Teapot = create_error("MY_TEAPOT", "short %s", 418)

    def with_headers(request, reply):
        raise FrameworkError("limited", status_code=429, headers={"retry-after": "5"})

    app.get("/teapot", lambda request, reply: (_ for _ in ()).throw(Teapot("and stout")))
    app.get("/headers", with_headers)
    app.get("/redirect-error", lambda request, reply: reply.code(302).send(ValueError("x")))
    app.get("/gone", lambda request, reply: reply.code(404).send(ValueError("gone")))
    assert payload(app.inject(url="/teapot")) == {"statusCode": 418, "code": "MY_TEAPOT", "error": "I'm a Teapot",
                                                  "message": "short and stout"}
    limited = app.inject(url="/headers")
    assert limited.status_code == 429 and limited.headers["retry-after"] == "5"
    assert app.inject(url="/redirect-error").status_code == 500
    gone = app.inject(url="/gone")
    assert gone.status_code == 404 and payload(gone)["message"] == "gone"


def test_child_error_handler_failure_goes_to_parent():
    app = Framework()
    app.set_error_handler(lambda error, request, reply: reply.code(500).send({"root_saw": str(error)}))

    def child(instance, opts):
        def failing_handler(error, request, reply):
            raise RuntimeError(f"handler failed: {error}")
        instance.set_error_handler(failing_handler)
        instance.get("/inner", lambda request, reply: (_ for _ in ()).throw(ValueError("inner")))

    app.register(child)
    app.get("/outer", lambda request, reply: (_ for _ in ()).throw(ValueError("outer")))
    assert app.inject(url="/inner").json() == {"root_saw": "handler failed: inner"}
    assert app.inject(url="/outer").json() == {"root_saw": "outer"}


def test_header_value_with_crlf_is_refused():
    app = Framework()
    app.get("/h", lambda request, reply: reply.header("x-injected", "a\r\nSet-Cookie: evil=1").send("no"))
    response = app.inject(url="/h")
    assert response.status_code == 500
    assert "set-cookie" not in response.headers
    assert payload(response)["code"] == "FST_ERR_REP_INVALID_HEADER"


def test_bad_status_code():
    app = Framework()
    app.get("/s", lambda request, reply: reply.code(999).send("x"))
    response = app.inject(url="/s")
    assert response.status_code == 500
    assert payload(response)["message"] == "Called reply with an invalid status code: 999"


def test_body_read_in_short_pieces_and_a_body_shorter_than_declared():
    app = Framework()
    app.post("/echo", lambda request, reply: {"body": request.body})

    class Trickle(io.BytesIO):
        def read(self, size=-1):
            return super().read(min(size, 3))

    headers = {"Content-Type": "application/json", "Content-Length": "13"}
    response = app.inject(method="POST", url="/echo", headers=headers, **{"wsgi.input": Trickle(b'{"a": [1, 2]}')})
    assert response.json() == {"body": {"a": [1, 2]}}
    short = app.inject(method="POST", url="/echo", headers=headers, **{"wsgi.input": io.BytesIO(b'{"a": 1}')})
    assert short.status_code == 400
    assert payload(short) == {"statusCode": 400, "code": "FST_ERR_CTP_INVALID_CONTENT_LENGTH", "error": "Bad Request",
                              "message": "Request body size did not match Content-Length"}


#: Every ``FrameworkError`` of ``framework.errors``, as the code defined them before the
#: errors became one table (issue 21): name, code, status, message template, base classes.
#: MethodNotAllowedError and FormBodyError were made in app.py and content_types.py.
ERROR_CLASSES = [
    ("FrameworkError", None, 500, "%s", ("Exception",)),
    ("ValidationError", "FST_ERR_VALIDATION", 400, "%s", ("FrameworkError",)),
    ("JsonBodyError", None, 400, "%s", ("FrameworkError",)),
    ("InvalidMediaTypeError", "FST_ERR_CTP_INVALID_MEDIA_TYPE", 415, "Unsupported Media Type: %s", ("FrameworkError",)),
    ("HookNotSupportedError", "FST_ERR_HOOK_NOT_SUPPORTED", 500, "%s hook not supported!", ("FrameworkError",)),
    ("TypeSchemaError", "FST_ERR_TYPE_SCHEMA", 500, "%s", ("FrameworkError", "TypeError")),
    ("AddressInUseError", "EADDRINUSE", 500, "address already in use: %s:%s is taken by another process; "
     "stop it or listen on another port", ("FrameworkError", "OSError")),
    ("SettingsError", "FST_ERR_SETTINGS", 500, "invalid settings (values are not shown):\n%s", ("FrameworkError",)),
    ("ProblemError", None, 500, "%s", ("FrameworkError",)),
    ("BodyTooLargeError", "FST_ERR_CTP_BODY_TOO_LARGE", 413, "Request body is too large", ("FrameworkError",)),
    ("InvalidContentLengthError", "FST_ERR_CTP_INVALID_CONTENT_LENGTH", 400,
     "Request body size did not match Content-Length", ("FrameworkError",)),
    ("EmptyJsonBodyError", "FST_ERR_CTP_EMPTY_JSON_BODY", 400,
     "Body cannot be empty when content-type is set to 'application/json'", ("FrameworkError",)),
    ("FormBodyError", "FST_ERR_CTP_INVALID_FORM", 400, "Invalid form body: %s", ("FrameworkError",)),
    ("BadUrlError", "FST_ERR_BAD_URL", 400, "'%s' is not a valid url component", ("FrameworkError",)),
    ("MethodNotAllowedError", "FST_ERR_METHOD_NOT_ALLOWED", 405, "Route %s:%s not allowed", ("FrameworkError",)),
    ("NotAcceptableError", "FST_ERR_NOT_ACCEPTABLE", 406, "Not Acceptable: this route answers %s", ("FrameworkError",)),
    ("BadStatusCodeError", "FST_ERR_BAD_STATUS_CODE", 500, "Called reply with an invalid status code: %s",
     ("FrameworkError",)),
    ("InvalidHeaderError", "FST_ERR_REP_INVALID_HEADER", 500, "Invalid value for header '%s': control characters "
     "(CR, LF, NUL...) and text outside latin-1 are not allowed", ("FrameworkError",)),
    ("InvalidHeaderNameError", "FST_ERR_REP_INVALID_HEADER_NAME", 500,
     "Invalid header name %s: a header name is a token (letters, digits and !#$%%&'*+-.^_`|~)", ("FrameworkError",)),
    ("SchemaMissingIdError", "FST_ERR_SCH_MISSING_ID", 500, "Missing schema $id property", ("FrameworkError",)),
    ("SchemaAlreadyPresentError", "FST_ERR_SCH_ALREADY_PRESENT", 500, "Schema with id '%s' already declared!",
     ("FrameworkError",)),
    ("SchemaDuplicateError", "FST_ERR_SCH_DUPLICATE", 500, "Schema with '%s' already present!", ("FrameworkError",)),
    ("SchemaValidationBuildError", "FST_ERR_SCH_VALIDATION_BUILD", 500,
     "Failed building the validation schema for %s: %s, due to error %s", ("FrameworkError",)),
    ("SchemaSerializationBuildError", "FST_ERR_SCH_SERIALIZATION_BUILD", 500,
     "Failed building the serialization schema for %s: %s, due to error %s", ("FrameworkError",)),
    ("ResponseSchemaKeyError", "FST_ERR_SCH_RESPONSE_SCHEMA_NOT_NESTED_2XX", 500,
     "Response schema key '%s' is not a status code, a class like '2xx' or 'default'", ("FrameworkError",)),
    ("SchemaUnknownKeyError", "FST_ERR_SCH_UNKNOWN_KEY", 500,
     "The schema of route %s has unknown key(s) %s. Schema keys are: %s", ("FrameworkError",)),
    ("DecoratorAlreadyPresentError", "FST_ERR_DEC_ALREADY_PRESENT", 500, "The decorator '%s' has already been added!",
     ("FrameworkError",)),
    ("DecoratorReservedError", "FST_ERR_DEC_RESERVED", 500,
     "The decorator name '%s' is reserved: the %s already has an attribute of that name",
     ("DecoratorAlreadyPresentError",)),
    ("DecoratorMissingDependencyError", "FST_ERR_DEC_MISSING_DEPENDENCY", 500,
     "The decorator is missing dependency '%s'.", ("FrameworkError",)),
    ("DecoratorAfterStartError", "FST_ERR_DEC_AFTER_START", 500, "The decorator '%s' has been added after start!",
     ("FrameworkError",)),
    ("DecoratorReferenceTypeError", "FST_ERR_DEC_REFERENCE_TYPE", 500,
     "The decorator '%s' of type '%s' is a reference type shared by every request: use None and set it in a "
     "hook, or a property", ("FrameworkError",)),
    ("HookInvalidTypeError", "FST_ERR_HOOK_INVALID_TYPE", 500, "The hook name must be a string", ("FrameworkError",)),
    ("HookInvalidHandlerError", "FST_ERR_HOOK_INVALID_HANDLER", 500, "%s hook should be a function, instead got %s",
     ("FrameworkError",)),
    ("HookSignatureError", "FST_ERR_HOOK_SIGNATURE", 500,
     "The %s hook %s cannot be called as %s (%s): declare it as def %s", ("FrameworkError",)),
    ("RouteMissingHandlerError", "FST_ERR_ROUTE_MISSING_HANDLER", 500, 'Missing handler function for "%s:%s" route.',
     ("FrameworkError",)),
    ("RouteDuplicatedHandlerError", "FST_ERR_ROUTE_DUPLICATED_HANDLER", 500,
     'Duplicate handler for "%s:%s" route is not allowed!', ("FrameworkError",)),
    ("RouteMethodNotSupportedError", "FST_ERR_ROUTE_METHOD_NOT_SUPPORTED", 500, "%s method is not supported.",
     ("FrameworkError",)),
    ("RouteUnknownOptionError", "FST_ERR_ROUTE_UNKNOWN_OPTION", 500,
     "Route %s: unknown option(s) %s. Route options are: %s; put your own data under config={...}",
     ("FrameworkError",)),
    ("RouteHandlerSignatureError", "FST_ERR_ROUTE_HANDLER_SIGNATURE", 500,
     "The handler of route %s, %s, cannot be called as handler(request, reply) (%s): declare it as "
     "def handler(request, reply)", ("FrameworkError",)),
    ("RoutePathSyntaxError", "FST_ERR_ROUTE_PATH_SYNTAX", 500,
     "Route path '%s' uses <name> or {name} for a parameter, which would match only that literal text: write "
     "parameters as :name, use %s", ("FrameworkError",)),
    ("RouteParameterNameError", "FST_ERR_ROUTE_PARAM_NAME", 500, "%s", ("FrameworkError",)),
    ("RouteBodyValidationNotSupportedError", "FST_ERR_ROUTE_BODY_VALIDATION_SCHEMA_NOT_SUPPORTED", 500,
     "Body validation schema for %s:%s route is not supported!", ("FrameworkError",)),
    ("RouteBodyLimitError", "FST_ERR_ROUTE_BODY_LIMIT_OPTION_NOT_INT", 500,
     "'body_limit' option must be a positive integer. Got '%s'", ("FrameworkError",)),
    ("DuplicatedRouteError", "FST_ERR_DUPLICATED_ROUTE", 500, "Method '%s' already declared for route '%s'",
     ("FrameworkError",)),
    ("RouteParameterConflictError", "FST_ERR_DUPLICATED_ROUTE", 500,
     "Route '%s %s' conflicts with '%s %s': they differ only in parameter names, so one would shadow the other. "
     "Use the same parameter names as the first route", ("DuplicatedRouteError",)),
    ("InstanceAlreadyStartedError", "FST_ERR_INSTANCE_ALREADY_LISTENING", 500,
     "The application is already started (ready() has run). %s", ("FrameworkError",)),
    ("ContentTypeParserAlreadyPresentError", "FST_ERR_CTP_ALREADY_PRESENT", 500,
     "Content type parser '%s' already present.", ("FrameworkError",)),
    ("ContentTypeParserInvalidError", "FST_ERR_CTP_INVALID_TYPE", 500,
     "The content type should be a string, a list of strings or a compiled regex", ("FrameworkError",)),
    ("ResponseSerializerInvalidError", "FST_ERR_RSP_SERIALIZER_INVALID", 500, "Invalid response serializer for %s: %s",
     ("FrameworkError",)),
    ("ResponseSerializerAlreadyPresentError", "FST_ERR_RSP_SERIALIZER_ALREADY_PRESENT", 500,
     "Response serializer for '%s' already present in this context.", ("FrameworkError",)),
    ("PluginNotPresentError", "FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE", 500,
     "The decorator '%s' required by '%s' is not present in %s", ("FrameworkError",)),
    ("PluginTimeoutError", "FST_ERR_PLUGIN_TIMEOUT", 500,
     "Plugin did not start in time: '%s' did not call 'done' within %s s (Framework(plugin_timeout=...) sets "
     "the limit)", ("FrameworkError",)),
    ("PluginDependencyError", "FST_ERR_PLUGIN_DEPENDENCY", 500, "The dependency '%s' of plugin '%s' is not registered",
     ("FrameworkError",)),
]


@pytest.mark.parametrize("name, code, status, message, bases", ERROR_CLASSES, ids=[row[0] for row in ERROR_CLASSES])
def test_each_framework_error_keeps_its_name_code_status_message_and_bases(name, code, status, message, bases):
    cls = getattr(framework.errors, name)
    assert (cls.__name__, cls.__qualname__, cls.__module__) == (name, name, "framework.errors")
    assert (cls.code, cls.status_code, cls.message_template) == (code, status, message)
    assert tuple(base.__name__ for base in cls.__bases__) == bases
    assert (vars(cls).get("__doc__") or "").strip(), f"{name} has no docstring of its own"


def test_the_list_is_every_framework_error():
    defined = {name for name, value in vars(framework.errors).items()
               if isinstance(value, type) and issubclass(value, FrameworkError)}
    assert defined == {row[0] for row in ERROR_CLASSES}


def test_the_405_and_the_invalid_form_body_replies():
    app = Framework(method_not_allowed=True)
    app.get("/r", lambda request, reply: "ok")
    app.post("/form", lambda request, reply: request.body)
    assert payload(app.inject(method="DELETE", url="/r")) == {
        "statusCode": 405, "code": "FST_ERR_METHOD_NOT_ALLOWED", "error": "Method Not Allowed",
        "message": "Route DELETE:/r not allowed"}
    form = app.inject(method="POST", url="/form", body="é=1".encode(),
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert payload(form) == {"statusCode": 400, "code": "FST_ERR_CTP_INVALID_FORM", "error": "Bad Request",
                             "message": "Invalid form body: the body holds bytes outside ASCII: percent-encode them"}


ItemNotFound = create_error("ITEM_NOT_FOUND", "item %s not found", 404, name="ItemNotFound",
                            doc="No item has that id.")


def test_create_error_names_and_documents_its_class_which_then_pickles():
    assert (ItemNotFound.__name__, ItemNotFound.__module__, ItemNotFound.__doc__) == \
        ("ItemNotFound", __name__, "No item has that id.")
    copy = pickle.loads(pickle.dumps(ItemNotFound(7)))
    assert type(copy) is ItemNotFound and (copy.status_code, copy.code, str(copy)) == \
        (404, "ITEM_NOT_FOUND", "item 7 not found")
    unnamed = create_error("MY_CODE", "x")
    assert (unnamed.__name__, unnamed.__doc__, unnamed.status_code) == ("MY_CODE", None, 500)
