"""Silent misconfiguration, caught: unknown route options and schema keys, shadowing
parametric routes, plugin forms, coroutines returned at run time, a busy port, handler
signatures and foreign path syntax, schema build errors naming their place, picklable
errors, and bodies of another media type past a JSON body schema."""
import functools
import importlib
import inspect
import os
import pickle
import socket
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest

import framework.errors as errors
import framework.errors as errors_module
from framework import Framework, plugin
from framework.errors import (DuplicatedRouteError, FrameworkError, HookNotSupportedError, InvalidMediaTypeError,
                              PluginTimeoutError, SchemaSerializationBuildError, SchemaValidationBuildError)

ROOT = Path(__file__).resolve().parent.parent


def secret(request, reply):
    return {"secret": 42}


def deny(request, reply):
    reply.code(403).send({"denied": True})


# 1. Unknown route options and schema keys.
def test_fastify_spelling_of_a_hook_option_is_refused_with_the_snake_case_name():
    app = Framework()
    with pytest.raises(errors.RouteUnknownOptionError) as raised:
        app.get("/admin", preHandler=deny, handler=secret)
    assert "'preHandler' (did you mean 'pre_handler'?)" in str(raised.value)
    assert "GET:/admin" in str(raised.value)


def test_unknown_options_are_refused_in_every_declaration_form():
    app = Framework()
    with pytest.raises(errors.RouteUnknownOptionError, match="did you mean 'schema'"):
        app.post("/items", {"schmea": {"body": {"type": "object"}}}, secret)
    with pytest.raises(errors.RouteUnknownOptionError, match="did you mean 'body_limit'"):
        app.route("POST", "/items", secret, bodyLimit=10)
    with pytest.raises(errors.RouteUnknownOptionError, match="'not_an_option'"):
        app.get("/decorated", not_an_option=1)(secret)
    assert app.inject(url="/admin").status_code == 404


def test_config_stays_a_free_form_bag():
    app = Framework()
    app.get("/x", config={"anything": 1, "preHandler": "fine here"},
            handler=lambda request, reply: request.route_options["config"])
    assert app.inject(url="/x").json() == {"anything": 1, "preHandler": "fine here"}


def test_misspelt_schema_keys_are_refused():
    app = Framework()
    with pytest.raises(errors.SchemaUnknownKeyError, match="'respones' \\(did you mean 'response'\\?\\)"):
        app.get("/x", schema={"respones": {200: {"type": "object"}}}, handler=secret)
    with pytest.raises(errors.SchemaUnknownKeyError, match="did you mean 'querystring'"):
        app.get("/y", schema={"querystrng": {"a": {"type": "integer"}}}, handler=secret)


def test_documentation_schema_keys_are_accepted_and_change_nothing():
    app = Framework()
    app.get("/x", schema={"summary": "s", "description": "d", "tags": ["t"], "operation_id": "x",
                          "deprecated": False, "hide": False, "security": [], "consumes": ["application/json"],
                          "produces": ["application/json"]}, handler=secret)
    assert app.inject(url="/x").json() == {"secret": 42}


def test_add_hook_with_fastify_spelling_names_the_hook_to_use():
    app = Framework()
    with pytest.raises(HookNotSupportedError, match="Use 'on_request'"):
        app.add_hook("onRequest", deny)
    with pytest.raises(HookNotSupportedError, match="Use 'pre_handler'"):
        app.add_hook("preHandler", deny)


def test_route_error_handler_runs_before_the_context_handlers():
    app = Framework()
    seen = []

    def context_handler(error, request, reply):
        seen.append("context")
        return {"by": "context"}

    def route_handler(error, request, reply):
        seen.append("route")
        reply.code(418)
        return {"by": "route", "message": str(error)}

    def boom(request, reply):
        raise ValueError("boom")

    app.set_error_handler(context_handler)
    app.get("/own", error_handler=route_handler, handler=boom)
    app.get("/other", handler=boom)
    own = app.inject(url="/own")
    assert (own.status_code, own.json()) == (418, {"by": "route", "message": "boom"})
    assert app.inject(url="/other").json() == {"by": "context"}
    assert seen == ["route", "context"]


def test_route_error_handler_that_raises_hands_on_to_the_context_handler():
    app = Framework()
    app.set_error_handler(lambda error, request, reply: {"outer": str(error)})

    def route_handler(error, request, reply):
        raise RuntimeError(f"wrapped {error}")

    def boom(request, reply):
        raise ValueError("boom")

    app.get("/x", error_handler=route_handler, handler=boom)
    assert app.inject(url="/x").json() == {"outer": "wrapped boom"}


def test_expose_head_route_false_adds_no_head_route():
    app = Framework()
    app.get("/with", handler=secret)
    app.get("/without", expose_head_route=False, handler=secret)
    assert app.inject("HEAD", "/with").status_code == 200
    assert app.inject("HEAD", "/without").status_code == 404
    assert app.inject("GET", "/without").json() == {"secret": 42}


def test_unimplemented_fastify_options_are_not_accepted():
    app = Framework()
    with pytest.raises(errors.RouteUnknownOptionError):
        app.get("/x", handler=secret, constraints="x")
    with pytest.raises(ValueError, match="unknown log_level 'x'"):  # log_level is implemented: levels are checked
        app.get("/x", handler=secret, log_level="x")


# 2. Parametric routes that differ only in parameter names.
def test_parametric_routes_differing_only_in_parameter_names_are_refused():
    app = Framework()
    app.get("/x/:id", handler=lambda request, reply: {"id": request.params["id"]})
    with pytest.raises(errors.RouteParameterConflictError) as raised:
        app.get("/x/:name", handler=lambda request, reply: {"name": request.params["name"]})
    assert isinstance(raised.value, DuplicatedRouteError)
    assert "'GET /x/:name' conflicts with 'GET /x/:id'" in str(raised.value)
    app.post("/x/:name", handler=lambda request, reply: {"name": request.params["name"]})  # another method
    app.get("/x/:id/y/:other", handler=secret)
    with pytest.raises(errors.RouteParameterConflictError):
        app.get("/x/:a/y/:b", handler=secret)
    assert app.inject(url="/x/7").json() == {"id": "7"}
    assert app.inject("POST", "/x/7").json() == {"name": "7"}


def test_head_route_differing_in_parameter_names_keeps_its_get():
    app = Framework()
    app.head("/x/:name", handler=lambda request, reply: reply.header("x-name", request.params["name"]).send(""))
    app.get("/x/:id", handler=lambda request, reply: {"id": request.params["id"]})
    assert app.inject("HEAD", "/x/1").headers["x-name"] == "1"
    assert app.inject("GET", "/x/1").json() == {"id": "1"}


# 3. Plugin forms.
def test_plugin_with_a_defaulted_third_parameter_loads_at_once():
    def p(instance, opts, config=None):
        instance.get("/p", handler=lambda request, reply: {"config": config})

    app = Framework()
    app.register(p)
    started = time.monotonic()
    assert app.inject(url="/p").json() == {"config": None}
    assert time.monotonic() - started < 1


def test_plugin_timeout_fails_a_forgotten_done_quickly_naming_plugin_and_option():
    def forgetful(instance, opts, done):
        pass

    app = Framework(plugin_timeout=0.2)
    app.register(forgetful)
    started = time.monotonic()
    with pytest.raises(PluginTimeoutError) as raised:
        app.ready()
    assert time.monotonic() - started < 2
    assert "'forgetful'" in str(raised.value) and "plugin_timeout" in str(raised.value)


# 4. Coroutines returned at run time are awaited.
def _plain_decorator(fn):
    def wrapper(request, reply):
        return fn(request, reply)
    return wrapper


def _wraps_decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper


class AsyncCallable:
    async def __call__(self, request, reply):
        return {"from": "async __call__"}


def test_coroutines_returned_at_run_time_are_awaited():
    async def handler(request, reply):
        return {"from": request.url}

    async def sending(request, reply):
        reply.code(201).send({"sent": True})

    app = Framework()
    app.get("/plain", handler=_plain_decorator(handler))
    app.get("/wraps", handler=_wraps_decorator(handler))
    app.get("/callable", handler=AsyncCallable())
    app.get("/partial", handler=functools.partial(handler))
    app.get("/sends", handler=_plain_decorator(sending))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert app.inject(url="/plain").json() == {"from": "/plain"}
        assert app.inject(url="/wraps").json() == {"from": "/wraps"}
        assert app.inject(url="/callable").json() == {"from": "async __call__"}
        assert app.inject(url="/partial").json() == {"from": "/partial"}
        sends = app.inject(url="/sends")
        assert (sends.status_code, sends.json()) == (201, {"sent": True})


def test_hooks_and_error_handlers_returning_coroutines_are_awaited():
    async def deny_async(request, reply):
        reply.code(403).send({"denied": True})

    async def handle_async(error, request, reply):
        return {"handled": str(error)}

    def boom(request, reply):
        raise ValueError("boom")

    async def shape_async(request, reply, payload):
        return {**payload, "shaped": True}

    def any_arity_decorator(fn):
        def wrapper(*args):
            return fn(*args)
        return wrapper

    app = Framework()
    app.get("/hooked", pre_handler=_plain_decorator(deny_async), handler=secret)
    app.get("/error", error_handler=any_arity_decorator(handle_async), handler=boom)
    app.get("/shaped", pre_serialization=any_arity_decorator(shape_async), handler=secret)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        hooked = app.inject(url="/hooked")
        assert (hooked.status_code, hooked.json()) == (403, {"denied": True})
        assert app.inject(url="/error").json() == {"handled": "boom"}
        assert app.inject(url="/shaped").json() == {"secret": 42, "shaped": True}


def test_a_sync_wrapper_of_an_async_def_is_not_awaited_twice():
    import asyncio

    async def handler(request, reply):
        return {"ran": "once"}

    @functools.wraps(handler)  # __wrapped__ is the async def, but this runs it itself
    def sync_wrapper(request, reply):
        return asyncio.new_event_loop().run_until_complete(handler(request, reply))

    app = Framework()
    app.get("/x", handler=sync_wrapper)
    app.get("/hooked", on_request=sync_wrapper, handler=secret)
    assert app.inject(url="/x").json() == {"ran": "once"}
    assert app.inject(url="/hooked").json() == {"secret": 42}


def test_an_error_raised_by_a_run_time_coroutine_reaches_the_error_chain():
    async def failing(request, reply):
        raise LookupError("nope")

    app = Framework()
    app.set_error_handler(lambda error, request, reply: reply.code(409).send({"error": str(error)}))
    app.get("/x", handler=_plain_decorator(failing))
    response = app.inject(url="/x")
    assert (response.status_code, response.json()) == (409, {"error": "nope"})


# 5. A busy port (in a subprocess: a server that did start would block).
LISTEN_SCRIPT = textwrap.dedent("""
    import sys
    from framework import Framework
    app = Framework()
    app.get("/", handler=lambda request, reply: {"ok": True})

    def callback(error):
        print("CALLBACK", type(error).__name__, isinstance(error, OSError), error, flush=True)
        sys.exit(0)

    if sys.argv[3] == "callback":
        app.listen(int(sys.argv[1]), server=sys.argv[2], callback=callback)
    else:
        try:
            app.listen(int(sys.argv[1]), server=sys.argv[2])
        except OSError as error:
            print("RAISED", type(error).__name__, error, flush=True)
""")


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
@pytest.mark.parametrize("mode", ["callback", "raise"])
def test_listen_on_a_busy_port_says_address_already_in_use(server, mode):
    if server == "granian":
        pytest.importorskip("granian")
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        started = time.monotonic()
        try:
            result = subprocess.run([sys.executable, "-c", LISTEN_SCRIPT, str(port), server, mode],
                                    env=env, capture_output=True, text=True, timeout=20, start_new_session=True)
        except subprocess.TimeoutExpired as expired:
            pytest.fail(f"listen() on a busy port did not return: {expired.stdout!r} {expired.stderr!r}")
        output = result.stdout
        lines = [line for line in output.splitlines() if line.startswith(("CALLBACK", "RAISED"))]
        expected = "CALLBACK AddressInUseError True" if mode == "callback" else "RAISED AddressInUseError"
        assert lines and lines[0].startswith(expected), (output, result.stderr[-2000:])
        assert "address already in use" in lines[0]
        assert len(lines) == 1  # no success announced first
        assert time.monotonic() - started < 10
    finally:
        holder.close()


RACE_SCRIPT = textwrap.dedent("""
    import sys
    import framework.serving.server as server
    from framework import Framework
    check = server.check_bindable
    calls = []

    def taken_after_the_check(host, port):  # the port is taken between the check and the bind
        calls.append(port)
        if len(calls) > 1:
            check(host, port)

    server.check_bindable = taken_after_the_check
    app = Framework()
    app.get("/", handler=lambda request, reply: {"ok": True})
    app.listen(int(sys.argv[1]), server=sys.argv[2],
               callback=lambda error: print("CALLBACK", type(error).__name__, error, flush=True))
""")


@pytest.mark.parametrize("server", ["gunicorn", "granian"])
def test_a_port_taken_after_the_check_still_says_address_already_in_use(server):
    if server == "granian":
        pytest.importorskip("granian")
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        result = subprocess.run([sys.executable, "-c", RACE_SCRIPT, str(port), server], env=env,
                                capture_output=True, text=True, timeout=30, start_new_session=True)
        lines = [line for line in result.stdout.splitlines() if line.startswith("CALLBACK")]
        assert lines and lines[-1].startswith("CALLBACK AddressInUseError"), (result.stdout, result.stderr[-2000:])
        assert "address already in use" in lines[-1]
    finally:
        holder.close()


# 6. Mistakes caught at declaration.
def test_handler_that_cannot_take_request_and_reply_is_refused():
    app = Framework()
    with pytest.raises(errors.RouteHandlerSignatureError, match="handler\\(request, reply\\)") as raised:
        app.get("/x", handler=lambda: {"x": 1})
    assert "GET:/x" in str(raised.value)
    with pytest.raises(errors.RouteHandlerSignatureError):
        app.get("/y", handler=lambda request, reply, extra: None)
    with pytest.raises(errors.RouteHandlerSignatureError):
        @app.get("/z")
        def needs_keyword(request, reply, *, user):
            return {}


def test_handlers_with_compatible_signatures_are_accepted():
    app = Framework()
    app.get("/args", handler=lambda *args: {"n": len(args)})
    app.get("/defaults", handler=lambda request, reply=None, extra=1: {"extra": extra})
    app.get("/kwargs", handler=lambda request, reply, **kw: {"kw": kw})
    app.get("/builtin", handler=dict)  # a builtin without a signature: accepted unchecked
    assert app.inject(url="/args").json() == {"n": 2}
    assert app.inject(url="/defaults").json() == {"extra": 1}
    assert app.inject(url="/kwargs").json() == {"kw": {}}


@pytest.mark.parametrize("path, fixed", [("/x/<id>", "/x/:id"), ("/x/<int:id>/y", "/x/:id/y"),
                                         ("/x/{id}", "/x/:id"), ("/a/{b}/c/{d}", "/a/:b/c/:d")])
def test_flask_and_fastapi_path_syntax_is_refused(path, fixed):
    app = Framework()
    with pytest.raises(errors.RoutePathSyntaxError) as raised:
        app.get(path, handler=secret)
    assert f"use {fixed}" in str(raised.value)


def test_typo_in_a_response_schema_names_the_route_and_status():
    app = Framework()
    app.get("/x", schema={"response": {200: {"type": "object", "properties": {"a": {"type": "strin"}}}}},
            handler=secret)
    with pytest.raises(SchemaSerializationBuildError) as raised:
        app.ready()
    message = str(raised.value)
    assert "GET: /x" in message and "response['200']" in message and "strin" in message


def test_typo_in_a_body_schema_names_the_route_part_and_path():
    app = Framework()
    app.post("/x", schema={"body": {"type": "object", "properties": {"a": {"type": "strin"}}}}, handler=secret)
    with pytest.raises(SchemaValidationBuildError) as raised:
        app.ready()
    message = str(raised.value)
    assert "POST: /x" in message and "schema.body" in message and "#/properties/a/type" in message


# 7. Errors pickle and name an importable class.
def _error_classes():
    return [value for value in vars(errors_module).values()
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == errors_module.__name__]


def _instance(cls):
    try:
        signature = inspect.signature(cls).parameters.values()
    except ValueError:  # a built-in exception's own __init__
        signature = []
    parameters = [p for p in signature if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    if cls is errors_module.SchemaValidationFailure:
        return cls([{"message": "should be integer", "instance_path": "/a"}])
    if cls is errors_module.ProblemError:  # a status first
        return cls(409, "item 7 exists", code="ITEM_EXISTS", balance=30)
    if parameters:
        return cls(*[f"arg{i}" for i in range(len(parameters))])
    template = getattr(cls, "message_template", "")
    return cls(*[f"arg{i}" for i in range(template.count("%s") - template.count("%%s"))])


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_class_round_trips_through_pickle(cls):
    error = _instance(cls)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is cls
    assert str(copy) == str(error)
    for attribute in ("code", "status_code", "message", "errno", "validation", "validation_context", "errors"):
        assert getattr(copy, attribute, None) == getattr(error, attribute, None), attribute


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_class_names_an_importable_class(cls):
    module_name, _, qualname = f"{cls.__module__}.{cls.__qualname__}".rpartition(".")
    assert getattr(importlib.import_module(module_name), qualname) is cls


def test_framework_errors_with_a_status_keep_it_through_pickle():
    error = InvalidMediaTypeError("text/plain", headers={"x-a": "1"})
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.status_code, copy.code, copy.headers, copy.message) == \
        (415, "FST_ERR_CTP_INVALID_MEDIA_TYPE", {"x-a": "1"}, "Unsupported Media Type: text/plain")
    assert isinstance(copy, FrameworkError)


# 8. A body of another media type past a JSON body schema.
BODY_SCHEMA = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}


def echo(request, reply):
    return {"name": request.body["name"]}


def test_a_builtin_text_parser_does_not_carry_a_body_past_a_json_schema():
    app = Framework()
    app.post("/items", schema={"body": BODY_SCHEMA}, handler=echo)
    response = app.inject("POST", "/items", headers={"content-type": "text/plain"}, body="hello")
    assert response.status_code == 415
    assert response.json()["code"] == "FST_ERR_CTP_INVALID_MEDIA_TYPE"
    assert app.inject("POST", "/items", json={"name": "a"}).json() == {"name": "a"}
    assert app.inject("POST", "/items", json={"nom": "a"}).status_code == 400


def test_a_parser_the_application_added_skips_the_json_schema():
    app = Framework()
    app.add_content_type_parser("application/x-www-form-urlencoded",
                                lambda request, body: {"form": body.decode()})
    app.add_content_type_parser("text/plain", lambda request, body: {"name": body.decode()})
    app.post("/items", schema={"body": BODY_SCHEMA}, handler=lambda request, reply: request.body)
    form = app.inject("POST", "/items", headers={"content-type": "application/x-www-form-urlencoded"}, body="a=1")
    assert form.json() == {"form": "a=1"}
    text = app.inject("POST", "/items", headers={"content-type": "text/plain"}, body="hello")
    assert text.json() == {"name": "hello"}


def test_a_content_map_accepts_the_media_types_it_lists():
    app = Framework()
    app.post("/both", schema={"body": {"content": {
        "text/plain": {"schema": {"type": "string", "maxLength": 5}},
        "application/json": {"schema": BODY_SCHEMA}}}}, handler=lambda request, reply: {"body": request.body})
    app.post("/json-only", schema={"body": {"content": {"application/json": {"schema": BODY_SCHEMA}}}},
             handler=lambda request, reply: {"body": request.body})
    assert app.inject("POST", "/both", headers={"content-type": "text/plain"}, body="hi").json() == {"body": "hi"}
    assert app.inject("POST", "/both", headers={"content-type": "text/plain"}, body="too long").status_code == 400
    assert app.inject("POST", "/both", json={"name": "a"}).json() == {"body": {"name": "a"}}
    refused = app.inject("POST", "/json-only", headers={"content-type": "text/plain"}, body="hi")
    assert refused.status_code == 415


def test_example_app_refuses_a_text_body_for_items():
    from examples.app import create_app
    app = create_app(api_keys=["k"])
    response = app.inject("POST", "/items", headers={"content-type": "text/plain"}, body="not json")
    assert response.status_code == 415, response.text
    assert response.json()["code"] == "FST_ERR_CTP_INVALID_MEDIA_TYPE"
    created = app.inject("POST", "/items", json={"name": "pen", "price": 1})
    assert created.status_code in (200, 201)


@pytest.mark.parametrize("part", ["body", "response"])
def test_a_content_map_key_that_is_not_a_media_type_fails_ready_naming_the_route(part):
    app = Framework()
    content = {"content": {"not a media type": {"schema": {"type": "object"}}}}
    schema = {"body": content} if part == "body" else {"response": {200: content}}
    app.post("/x", {"schema": schema}, lambda request, reply: {})
    expected = SchemaValidationBuildError if part == "body" else SchemaSerializationBuildError
    with pytest.raises(expected, match=r"/x.*'not a media type' in a content map is not a media type"):
        app.ready()
