"""Issue 20, "nothing internal reaches a client": a failing reply hook, a hook of the wrong
shape and a response value that does not fit its schema are answered with the fixed 500
(their text, reprs and memory addresses go to the log only); error texts speak Python."""
import dataclasses
import datetime
import decimal
import enum
import json
import logging
import uuid

import pytest

from framework import Framework
from framework.errors import HookSignatureError, InstanceAlreadyStartedError

SECRET = "could not reach postgresql://admin:hunter2@db"
FIXED_500 = {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}


def error_records(caplog):
    return [record for record in caplog.records if record.levelno >= logging.ERROR]


def logged_text(record):
    """A record's message and its traceback, as a log handler would write them."""
    return logging.Formatter().format(record)


def assert_fixed_500(response):
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.json() == FIXED_500


# Reply hooks that raise.
@pytest.mark.parametrize("hook_name", ["on_send", "pre_serialization"])
def test_a_reply_hook_that_raises_answers_the_fixed_500_and_logs_its_text(hook_name, caplog):
    app = Framework()

    def failing(request, reply, payload):
        raise RuntimeError(SECRET)

    app.add_hook(hook_name, failing)
    app.get("/accounts", lambda request, reply: {"ok": True})
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/accounts")
    assert_fixed_500(response)
    assert "hunter2" not in response.text
    records = error_records(caplog)
    assert records and any("hunter2" in logged_text(record) for record in records)
    assert any("Traceback" in logged_text(record) for record in records)


def test_an_on_send_hook_that_raises_on_text_answers_the_fixed_500(caplog):
    app = Framework()

    def failing(request, reply, payload):
        raise RuntimeError(SECRET)

    app.get("/text", {"on_send": failing}, lambda request, reply: "plain text")
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/text")
    assert_fixed_500(response)
    assert any("hunter2" in logged_text(record) for record in error_records(caplog))


# Hook signatures, checked when the hook is added.
@pytest.mark.parametrize("hook_name, expected", [
    ("on_send", "hook(request, reply, payload)"),
    ("pre_serialization", "hook(request, reply, payload)"),
    ("on_request", "hook(request, reply)"),
    ("on_error", "hook(request, reply, error)"),
    ("on_route", "hook(route_options)"),
    ("on_ready", "hook()"),
    ("on_close", "hook(instance)"),
])
def test_a_hook_with_the_wrong_parameters_is_refused_when_added(hook_name, expected):
    app = Framework()

    def wrong(a, b, c, d):
        return d

    with pytest.raises(HookSignatureError) as info:
        app.add_hook(hook_name, wrong)
    message = str(info.value)
    assert hook_name in message and "wrong" in message and expected in message


def test_a_one_parameter_on_send_hook_is_refused_naming_it():
    app = Framework()

    def add_header(payload):
        return payload

    with pytest.raises(HookSignatureError, match=r"on_send hook .*add_header\(payload\).* "
                                                 r"hook\(request, reply, payload\)"):
        app.add_hook("on_send", add_header)


def test_a_route_hook_with_the_wrong_parameters_is_refused_at_declaration():
    app = Framework()
    with pytest.raises(HookSignatureError, match="pre_serialization"):
        app.get("/x", {"pre_serialization": lambda request, reply: None}, lambda request, reply: {})


def test_hooks_of_the_right_shape_are_accepted():
    app = Framework()

    class Callable:
        def __call__(self, request, reply, payload):
            return payload

    async def async_hook(request, reply):
        return None

    app.add_hook("on_send", Callable())
    app.add_hook("on_send", lambda *args: args[2])
    app.add_hook("pre_serialization", lambda request, reply, payload, extra=None: payload)
    app.add_hook("on_request", async_hook)
    app.add_hook("on_ready", lambda: None)
    app.add_hook("on_register", lambda instance, opts: None)
    app.add_hook("on_listen", print)  # a builtin: no signature to read, trusted
    app.get("/", lambda request, reply: {"ok": True})
    assert app.inject(url="/").json() == {"ok": True}


# Response schemas: a value that does not fit.
@dataclasses.dataclass
class Account:
    name: str
    password_hash: str


def route_with(schema, value, status=200):
    app = Framework()
    app.get("/accounts/:id", {"schema": {"response": {status: schema}}},
            lambda request, reply: reply.code(status).send(value))
    return app


def test_a_value_that_cannot_be_an_integer_answers_the_fixed_500_and_logs_where(caplog):
    account = Account("ann", "pbkdf2:sha256:600000$salt$deadbeef")
    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {
        "type": "object", "properties": {"owner": {"type": "integer"}}}}}}
    app = route_with(schema, {"items": [{"owner": 1}, {"owner": account}]})
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/accounts/7")
    assert_fixed_500(response)
    assert "pbkdf2" not in response.text and "Account" not in response.text
    records = [record for record in error_records(caplog) if "/items/1/owner" in record.getMessage()]
    assert len(records) == 1, [record.getMessage() for record in caplog.records]
    message = records[0].getMessage()
    assert "GET /accounts/:id" in message and "status 200" in message
    assert "cannot be converted to an integer" in message and "pbkdf2" in message


@pytest.mark.parametrize("value", [object(), {"a", "b"}, Account("ann", "x"), b"\xff"],
                         ids=["object", "set", "dataclass", "bytes"])
def test_a_string_field_given_what_json_cannot_say_as_a_string_is_the_fixed_500(value, caplog):
    app = route_with({"type": "object", "properties": {"v": {"type": "string"}}}, {"v": value})
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/accounts/1")
    assert_fixed_500(response)
    assert " at 0x" not in response.text
    assert any("/v" in record.getMessage() and "status 200" in record.getMessage()
               for record in error_records(caplog))


class Colour(enum.Enum):
    RED = "red"


class Size(enum.IntEnum):
    BIG = 3


@pytest.mark.parametrize("value, text", [
    ("ann", "ann"), (5, "5"), (True, "true"), (False, "false"), (1.5, "1.5"), (None, ""),
    (datetime.date(2024, 1, 2), "2024-01-02"), (datetime.datetime(2024, 1, 2, 3, 4, 5), "2024-01-02T03:04:05"),
    (datetime.time(3, 4, 5), "03:04:05"), (uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
    (decimal.Decimal("1.10"), "1.10"), (Colour.RED, "red"), (Size.BIG, "3"), (b"bytes", "bytes"),
])
def test_a_string_field_given_a_value_json_can_say_as_a_string(value, text):
    app = route_with({"type": "object", "properties": {"v": {"type": "string"}}}, {"v": value})
    response = app.inject(url="/accounts/1")
    assert response.status_code == 200
    assert response.json() == {"v": text}


def test_a_string_subclass_is_its_text():
    class Name(str):
        pass

    app = route_with({"type": "array", "items": {"type": "string"}}, [Name("ann"), "bob"])
    assert app.inject(url="/accounts/1").json() == ["ann", "bob"]


def test_a_missing_required_property_answers_the_fixed_500_naming_it_in_the_log(caplog):
    schema = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    app = route_with(schema, {"id": 1})
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/accounts/1")
    assert_fixed_500(response)
    assert any('"name" is required!' in record.getMessage() for record in error_records(caplog))


def test_a_non_2xx_reply_that_does_not_fit_its_schema_is_the_fixed_500_not_its_status(caplog):
    account = Account("ann", "pbkdf2:sha256:600000$salt$deadbeef")
    app = route_with({"type": "object", "properties": {"id": {"type": "integer"}}}, {"id": account}, status=404)
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/accounts/7")
    assert_fixed_500(response)
    assert any("status 404" in record.getMessage() and "at /id:" in record.getMessage()
               for record in error_records(caplog))


def test_a_serialization_error_raised_by_a_handler_is_the_fixed_500(caplog):
    from framework.serialization import compile_serializer
    to_json = compile_serializer({"type": "object", "properties": {"id": {"type": "integer"}}})
    app = Framework()
    app.get("/by-hand", lambda request, reply: to_json({"id": Account("ann", "pbkdf2:x")}))
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/by-hand")
    assert_fixed_500(response)
    assert any("pbkdf2" in logged_text(record) for record in error_records(caplog))


def test_plain_json_that_cannot_be_encoded_answers_the_fixed_500(caplog):
    app = Framework()
    app.get("/x", lambda request, reply: {"v": object()})
    with caplog.at_level(logging.ERROR, logger="framework"):
        response = app.inject(url="/x")
    assert_fixed_500(response)
    assert " at 0x" not in response.text
    assert any("GET /x" in record.getMessage() and "status 200" in record.getMessage()
               for record in error_records(caplog))


# Error texts speak Python.
def test_a_body_without_content_type_says_so():
    app = Framework()
    app.post("/echo", lambda request, reply: {"body": request.body})
    response = app.inject(method="POST", url="/echo", body=b"abc")
    assert response.status_code == 415
    message = response.json()["message"]
    assert "undefined" not in message
    assert message == "Unsupported Media Type: the request has a body but no Content-Type"


def test_adding_a_route_after_ready_says_the_application_is_started():
    app = Framework()
    app.ready()
    with pytest.raises(InstanceAlreadyStartedError) as info:
        app.get("/late", lambda request, reply: {})
    assert "Fastify" not in str(info.value)
    assert "The application is already started" in str(info.value)


def test_serialization_messages_name_python_values():
    from framework.serialization import SerializationError, compile_serializer
    serialize = compile_serializer({"type": "object", "properties": {"when": {"type": "string", "format": "date"}}})
    with pytest.raises(SerializationError) as info:
        serialize({"when": 5})
    assert "null" not in str(info.value) and "undefined" not in str(info.value)
    assert json.dumps(info.value.pointer) == '"/when"'
