"""Validation through the public API: routes, parts, errors, formatters, compilers, shared schemas."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.errors import SchemaValidationFailure
from framework.validation import ValidatorEngine


def echo(request, reply):
    return {"body": request.body, "query": request.query, "params": request.params}


# ----------------------------------------------------------------------------- the 400 answer

def test_default_400_payload_is_exact():
    app = Framework()
    app.post("/users", {"schema": {"body": {"type": "object", "required": ["name"],
                                            "properties": {"name": {"type": "string"}}}}}, echo)
    response = app.inject(method="POST", url="/users", json={})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.json() == {"statusCode": 400, "code": "FST_ERR_VALIDATION", "error": "Bad Request",
                               "message": "body should have required property 'name'"}
    assert list(response.json()) == ["statusCode", "code", "error", "message"]


@pytest.mark.parametrize("schema, body, message", [
    ({"properties": {"age": {"type": "integer", "maximum": 5}}}, {"age": 6}, "body/age should be <= 5"),
    ({"properties": {"tags": {"items": {"type": "string"}}}}, {"tags": ["a", {}]}, "body/tags/1 should be string"),
    ({"properties": {"o": {"properties": {"deep": {"minimum": 10}}}}}, {"o": {"deep": 1}},
     "body/o/deep should be >= 10"),
    ({"properties": {"e": {"enum": ["a"]}}}, {"e": "b"}, "body/e should be equal to one of the allowed values"),
    ({"properties": {"s": {"maxLength": 1}}}, {"s": "ab"}, "body/s should NOT have more than 1 characters"),
])
def test_messages_name_part_and_path(schema, body, message):
    app = Framework()
    app.post("/x", {"schema": {"body": schema}}, echo)
    response = app.inject(method="POST", url="/x", json=body)
    assert response.status_code == 400 and response.json()["message"] == message


def test_coerced_defaulted_and_filtered_body_reaches_the_handler():
    app = Framework()
    app.post("/x", {"schema": {"body": {"type": "object", "additionalProperties": False,
                                        "properties": {"n": {"type": "integer"}, "d": {"default": "yes"}}}}},
             echo)
    response = app.inject(method="POST", url="/x", json={"n": "5", "extra": 1})
    assert response.status_code == 200 and response.json()["body"] == {"n": 5, "d": "yes"}


def test_parts_validate_in_order_params_body_querystring_headers():
    app = Framework()
    schema = {"params": {"id": {"type": "integer"}}, "body": {"type": "object", "required": ["b"]},
              "querystring": {"type": "object", "required": ["q"]},
              "headers": {"type": "object", "required": ["h"]}}
    app.post("/x/:id", {"schema": schema}, echo)
    assert app.inject(method="POST", url="/x/abc", json={}).json()["message"] == "params/id should be integer"
    assert app.inject(method="POST", url="/x/1", json={}).json()["message"] == \
        "body should have required property 'b'"
    assert app.inject(method="POST", url="/x/1", json={"b": 1}).json()["message"] == \
        "querystring should have required property 'q'"
    assert app.inject(method="POST", url="/x/1?q=1", json={"b": 1}).json()["message"] == \
        "headers should have required property 'h'"
    assert app.inject(method="POST", url="/x/1?q=1", json={"b": 1}, headers={"h": "1"}).status_code == 200


# ----------------------------------------------------------------------------- querystring

def test_querystring_arrays_and_defaults():
    app = Framework()
    app.get("/q", {"schema": {"querystring": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "empty": {"type": "array", "default": []},
        "n": {"type": "integer"},
    }}}, lambda request, reply: request.query)
    assert app.inject(url="/q?tags=a").json() == {"tags": ["a"], "empty": []}
    assert app.inject(url="/q?tags=a&tags=b&ids=1&ids=2").json() == {
        "tags": ["a", "b"], "ids": [1, 2], "empty": []}
    assert app.inject(url="/q?ids=7&n=3").json() == {"ids": [7], "n": 3, "empty": []}
    assert app.inject(url="/q").json() == {"empty": []}
    response = app.inject(url="/q?n=")
    assert response.status_code == 400 and response.json()["message"] == "querystring/n should be integer"


def test_query_alias():
    app = Framework()
    app.get("/q", {"schema": {"query": {"limit": {"type": "integer", "maximum": 100}}}},
            lambda request, reply: request.query)
    assert app.inject(url="/q?limit=5").json() == {"limit": 5}
    assert app.inject(url="/q?limit=500").json()["message"] == "querystring/limit should be <= 100"


def test_query_and_querystring_together_is_an_error():
    app = Framework()
    with pytest.raises(Exception):
        app.get("/q", {"schema": {"query": {"a": {}}, "querystring": {"b": {}}}}, echo)
        app.ready()


# ----------------------------------------------------------------------------- headers

def test_header_schema_names_are_case_insensitive_and_coerced():
    app = Framework()
    app.get("/h", {"schema": {"headers": {"type": "object", "required": ["X-Token"],
                                          "properties": {"X-Token": {"type": "string", "minLength": 3},
                                                         "X-Count": {"type": "integer"}}}}},
            lambda request, reply: {"token": request.headers["x-token"],
                                    "count": request.headers.get("x-count")})
    assert app.inject(url="/h", headers={"X-TOKEN": "abc", "x-count": "5"}).json() == {"token": "abc", "count": 5}
    response = app.inject(url="/h")
    assert response.status_code == 400 and response.json()["message"] == \
        "headers should have required property 'x-token'"
    assert app.inject(url="/h", headers={"x-token": "ab"}).json()["message"] == \
        "headers/x-token should NOT have fewer than 3 characters"


# ----------------------------------------------------------------------------- error handling

def test_attach_validation():
    app = Framework()

    def handler(request, reply):
        error = request.validation_error
        return {"context": error.validation_context, "keyword": error.validation[0]["keyword"],
                "message": str(error), "status": error.status_code}
    app.post("/x", {"schema": {"body": {"type": "object", "required": ["a"]}}, "attach_validation": True}, handler)
    assert app.inject(method="POST", url="/x", json={}).json() == {
        "context": "body", "keyword": "required", "message": "body should have required property 'a'",
        "status": 400}


def test_attach_validation_is_none_when_valid():
    app = Framework()
    app.post("/x", {"schema": {"body": {"type": "object", "required": ["a"]}}, "attach_validation": True},
             lambda request, reply: {"error": request.validation_error is None})
    assert app.inject(method="POST", url="/x", json={"a": 1}).json() == {"error": True}


def test_custom_error_handler_answers_422():
    app = Framework()

    def on_error(error, request, reply):
        if getattr(error, "validation", None):
            return reply.code(422).send({"context": error.validation_context, "errors": error.validation})
        return reply.code(500).send({"unexpected": str(error)})
    app.set_error_handler(on_error)
    app.get("/q", {"schema": {"querystring": {"n": {"type": "integer"}}}}, echo)
    response = app.inject(url="/q?n=x")
    assert response.status_code == 422
    assert response.json() == {"context": "querystring", "errors": [
        {"keyword": "type", "instance_path": "/n", "schema_path": "#/properties/n/type",
         "params": {"type": "integer"}, "message": "should be integer"}]}


def test_schema_error_formatter_option_and_encapsulated_setter():
    def shout(errors, data_var):
        return ValueError(f"{data_var.upper()}: {len(errors)} error(s)")

    def whisper(errors, data_var):
        return ValueError(f"{data_var} ({errors[0]['keyword']})")

    app = Framework(schema_error_formatter=shout)
    schema = {"schema": {"body": {"type": "object", "required": ["a"]}}}
    app.post("/root", schema, echo)

    def child(instance, opts):
        instance.set_schema_error_formatter(whisper)
        instance.post("/child", schema, echo)
        instance.post("/route", dict(schema, schema_error_formatter=lambda errors, data_var: ValueError("route")),
                      echo)
    app.register(child)

    def sibling(instance, opts):
        instance.post("/sibling", schema, echo)
    app.register(sibling)
    answers = {url: app.inject(method="POST", url=url, json={}) for url in ("/root", "/child", "/sibling", "/route")}
    assert {url: (r.status_code, r.json()["message"]) for url, r in answers.items()} == {
        "/root": (400, "BODY: 1 error(s)"), "/child": (400, "body (required)"),
        "/sibling": (400, "BODY: 1 error(s)"), "/route": (400, "route")}


# ----------------------------------------------------------------------------- custom compilers

def per_part_compiler():
    """The seed's example: one engine per http part, the body without coercion."""
    engines = {
        "body": ValidatorEngine({"coerce_types": False}),
        "params": ValidatorEngine(),
        "querystring": ValidatorEngine(),
    }

    def compiler(schema=None, method=None, url=None, http_part=None):
        if not http_part:
            raise ValueError("missing httpPart")
        engine = engines.get(http_part)
        if engine is None:
            raise ValueError(f"missing validator for {http_part}")
        return engine.compile(schema)
    return compiler


def test_set_validator_compiler_one_engine_per_part():
    app = Framework()
    app.set_validator_compiler(per_part_compiler())
    app.post("/x/:id", {"schema": {"params": {"id": {"type": "integer"}},
                                   "body": {"properties": {"n": {"type": "integer"}}},
                                   "querystring": {"q": {"type": "integer"}}}}, echo)
    ok = app.inject(method="POST", url="/x/5?q=7", json={"n": 1}).json()
    assert ok["params"] == {"id": 5} and ok["query"] == {"q": 7} and ok["body"] == {"n": 1}
    response = app.inject(method="POST", url="/x/5?q=7", json={"n": "1"})
    assert response.status_code == 400 and response.json()["message"] == "body/n should be integer"


def test_validator_compiler_raising_for_an_unknown_part_fails_ready():
    app = Framework()
    app.set_validator_compiler(per_part_compiler())
    app.get("/h", {"schema": {"headers": {"x": {"type": "string"}}}}, echo)
    with pytest.raises(Exception, match="missing validator for headers"):
        app.ready()


def test_validator_compiler_result_forms():
    def compiler(schema=None, method=None, url=None, http_part=None):
        mode = schema["x-mode"]

        def validate(data):
            bad = data.get("bad") is not None
            if mode == "value-error":
                return {"error": ValueError("nope")} if bad else {"value": {"replaced": True}}
            if mode == "bool":
                validate.errors = [{"keyword": "custom", "instance_path": "/bad", "schema_path": "#",
                                    "params": {}, "message": "should not be bad"}] if bad else None
                return not bad
            if bad:
                raise ValueError("raised")
            return True
        return validate
    app = Framework()
    app.set_validator_compiler(compiler)
    for mode in ("value-error", "bool", "raise"):
        app.post("/" + mode, {"schema": {"body": {"type": "object", "x-mode": mode}}}, echo)
    assert app.inject(method="POST", url="/value-error", json={}).json()["body"] == {"replaced": True}
    response = app.inject(method="POST", url="/value-error", json={"bad": 1})
    assert response.status_code == 400 and response.json()["message"] == "nope"
    assert app.inject(method="POST", url="/bool", json={"a": 1}).json()["body"] == {"a": 1}
    response = app.inject(method="POST", url="/bool", json={"bad": 1})
    assert response.status_code == 400 and response.json()["message"] == "body/bad should not be bad"
    assert app.inject(method="POST", url="/raise", json={}).status_code == 200
    response = app.inject(method="POST", url="/raise", json={"bad": 1})
    assert response.status_code == 400 and response.json()["message"] == "raised"


def test_validator_compiler_raise_reaches_error_handler_with_context():
    app = Framework()

    def compiler(schema=None, method=None, url=None, http_part=None):
        def validate(data):
            raise SchemaValidationFailure([{"keyword": "k", "instance_path": "", "schema_path": "#",
                                            "params": {}, "message": "should be fine"}])
        return validate
    app.set_validator_compiler(compiler)
    app.set_error_handler(lambda error, request, reply: reply.code(422).send(
        {"context": error.validation_context, "n": len(error.validation)}))
    app.get("/q", {"schema": {"querystring": {"a": {}}}}, echo)
    assert app.inject(url="/q").json() == {"context": "querystring", "n": 1}


# ----------------------------------------------------------------------------- shared schemas

def test_get_schemas_scoping():
    app = Framework()
    seen = {}
    app.add_schema({"$id": "A", "type": "string"})

    def child(instance, opts):
        instance.add_schema({"$id": "B", "type": "string"})

        def grandchild(inner, opts):
            inner.add_schema({"$id": "C", "type": "string"})
            seen["grandchild"] = sorted(inner.get_schemas())
        instance.register(grandchild)
        seen["child"] = sorted(instance.get_schemas())
    app.register(child)
    app.ready()
    assert sorted(app.get_schemas()) == ["A"]
    assert seen == {"child": ["A", "B"], "grandchild": ["A", "B", "C"]}


SHARED = {
    "$id": "shared",
    "type": "object",
    "required": ["v"],
    "properties": {"v": {"type": "integer", "minimum": 1}},
    "definitions": {"int": {"type": "integer", "minimum": 1},
                    "named": {"$id": "#named", "type": "integer", "minimum": 1}},
}


def _part_schema(form: str) -> dict:
    """An object schema whose property ``v`` must be an integer >= 1, through ``$ref`` form ``form``."""
    local_defs = {"int": {"type": "integer", "minimum": 1},
                  "anchor": {"$id": "#local", "type": "integer", "minimum": 1}}
    if form == "id#":
        return {"$ref": "shared#"}
    ref = {"#name": "#local", "#/definitions/x": "#/definitions/int", "id#/definitions/x": "shared#/definitions/int",
           "id#/properties/x": "shared#/properties/v", "id#name": "shared#named"}[form]
    return {"type": "object", "required": ["v"], "properties": {"v": {"$ref": ref}}, "definitions": local_defs}


REF_FORMS = ("#name", "#/definitions/x", "id#", "id#/definitions/x", "id#/properties/x", "id#name")


@pytest.mark.parametrize("part", ("body", "querystring", "params", "headers"))
@pytest.mark.parametrize("form", REF_FORMS)
def test_every_ref_form_for_every_part(part, form):
    app = Framework()
    app.add_schema(SHARED)

    def handler(request, reply):
        value = {"body": request.body, "querystring": request.query, "params": request.params,
                 "headers": request.headers}[part]["v"]
        return {"v": value}

    url = "/x/:v" if part == "params" else "/x"
    app.post(url, {"schema": {part: _part_schema(form)}}, handler)

    def send(value):
        kwargs = {"method": "POST", "url": "/x", "json": {}}
        if part == "params":
            kwargs["url"] = f"/x/{value}"
        elif part == "body":
            kwargs["json"] = {"v": value}
        elif part == "querystring":
            kwargs["url"] = f"/x?v={value}"
        else:
            kwargs["headers"] = {"V": str(value)}
        return app.inject(**kwargs)

    response = send(5)
    assert response.status_code == 200 and response.json() == {"v": 5}
    response = send(0)
    assert response.status_code == 400
    assert response.json()["message"] == f"{part}/v should be >= 1"
    response = send("abc")
    assert response.status_code == 400 and response.json()["message"] == f"{part}/v should be integer"


def test_shared_schema_of_a_child_context_is_visible_to_its_routes_only():
    app = Framework()

    def child(instance, opts):
        instance.add_schema({"$id": "mine", "type": "integer"})
        instance.get("/ok", {"schema": {"querystring": {"n": {"$ref": "mine#"}}}},
                     lambda request, reply: request.query)
    app.register(child)
    app.get("/outside", {"schema": {"querystring": {"n": {"$ref": "mine#"}}}}, echo)
    with pytest.raises(Exception, match="mine#"):
        app.ready()


def test_unresolvable_ref_fails_ready_naming_route_and_reference():
    app = Framework()
    app.post("/broken", {"schema": {"body": {"properties": {"a": {"$ref": "nowhere#/definitions/x"}}}}}, echo)
    with pytest.raises(Exception) as caught:
        app.ready()
    message = str(caught.value)
    assert "/broken" in message and "POST" in message and "nowhere#/definitions/x" in message


def test_unknown_format_fails_ready():
    app = Framework()
    app.post("/f", {"schema": {"body": {"properties": {"a": {"type": "string", "format": "nope"}}}}}, echo)
    with pytest.raises(Exception, match="nope"):
        app.ready()


# ----------------------------------------------------------------------------- options and plugins

def test_custom_options_reach_the_engine():
    app = Framework(validator={"custom_options": {"coerce_types": False, "all_errors": True,
                                                  "remove_additional": False}})
    app.post("/x", {"schema": {"body": {"type": "object", "additionalProperties": False,
                                        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}},
             echo)
    response = app.inject(method="POST", url="/x", json={"a": "1", "b": "2", "c": 3})
    assert response.status_code == 400
    assert response.json()["message"] == (
        "body should NOT have additional properties, body/a should be integer, body/b should be integer")


def test_validator_plugins_reach_the_engine():
    def plugin(engine, opts):
        engine.add_format("upper", lambda value: value.isupper())
        engine.add_keyword("x-even", lambda data, value, parent: not isinstance(data, int) or data % 2 == 0)
    app = Framework(validator={"plugins": [plugin]})
    app.post("/x", {"schema": {"body": {"properties": {"s": {"type": "string", "format": "upper"},
                                                       "n": {"type": "integer", "x-even": True}}}}}, echo)
    assert app.inject(method="POST", url="/x", json={"s": "AB", "n": 2}).status_code == 200
    assert app.inject(method="POST", url="/x", json={"s": "ab"}).json()["message"] == \
        'body/s should match format "upper"'
    assert app.inject(method="POST", url="/x", json={"n": 3}).json()["message"] == \
        'body/n should pass "x-even" keyword validation'


def test_unknown_custom_option_fails():
    app = Framework(validator={"custom_options": {"coerceTypes": "array"}})
    app.post("/x", {"schema": {"body": {"type": "object"}}}, echo)
    with pytest.raises(TypeError, match="coerceTypes"):
        app.ready()
