"""app.explain / python -m framework explain: the compiled path of one request, checked exactly."""
import json
import subprocess
import sys

import pytest

from conftest import SUPPORT_PATH  # the repository root, or examples/ alone under tox
from framework import Framework
from framework.serving.cli import main
from test_encapsulation import build

PATH_1 = """\
GET /path_1
route: GET /path_1
context: root > first_child
steps:
  on_request:
    stand_in_bearer_auth.check (stand_in_bearer_auth in first_child)
  handler: build.first_child.<lambda>
serializers:
  none (plain JSON)
reply hooks: none
errors:
  handlers: default_error_handler (framework)
not found: default_not_found_handler (root)
decorators:
  instance: none
  request: root_decorator (root)
  reply: none
"""

PATH_3_UNWRAPPED = """\
GET /path_3
route: GET /path_3
context: root > second_child > grandchild
steps:
  handler: build.grandchild.<lambda>
serializers:
  none (plain JSON)
reply hooks: none
errors:
  handlers: default_error_handler (framework)
not found: default_not_found_handler (root)
decorators:
  instance: none
  request: root_decorator (root), child_decorator (second_child), grandchild_decorator (grandchild)
  reply: none
"""

PATH_2_WRAPPED_DECORATORS = ("  request: root_decorator (root), child_decorator (second_child), "
                             "grandchild_decorator (grandchild in second_child)\n")


@pytest.mark.parametrize("wrap", [False, True])
def test_seed_scenario_path_1_exact(wrap):
    app = build(wrap)
    assert str(app.explain("GET", "/path_1")) == PATH_1
    assert app.explain("GET", "/path_1").render() == PATH_1


def test_seed_scenario_unwrapped_exact():
    app = build(False)
    assert str(app.explain("GET", "/path_3")) == PATH_3_UNWRAPPED
    path_2 = str(app.explain("GET", "/path_2"))
    assert "  request: root_decorator (root), child_decorator (second_child)\n" in path_2
    assert "grandchild" not in path_2


def test_seed_scenario_wrapped_exact():
    app = build(True)
    # Wrapped, the grandchild plugin runs in second_child: /path_3 is second_child's route,
    # and /path_2 sees the grandchild's decorator, attributed to the plugin that added it.
    expected_3 = (PATH_3_UNWRAPPED.replace("root > second_child > grandchild", "root > second_child")
                  .replace("grandchild_decorator (grandchild)", "grandchild_decorator (grandchild in second_child)"))
    assert str(app.explain("GET", "/path_3")) == expected_3
    path_2 = str(app.explain("GET", "/path_2"))
    assert path_2 == expected_3.replace("/path_3", "/path_2").replace("build.grandchild", "build.second_child")
    assert PATH_2_WRAPPED_DECORATORS in path_2


def test_seed_scenario_data():
    explanation = build(False).explain("GET", "/path_1")
    assert isinstance(explanation, dict)
    assert explanation["outcome"] == "route"
    assert explanation["route"] == {"method": "GET", "url": "/path_1", "params": {}, "context": "first_child",
                                    "prefix": "", "contexts": ["root", "first_child"]}
    assert explanation["steps"] == [
        {"step": "on_request", "hooks": [{"name": "stand_in_bearer_auth.check", "plugin": "stand_in_bearer_auth",
                                          "context": "first_child"}]},
        {"step": "handler", "name": "build.first_child.<lambda>"}]
    assert explanation["decorators"]["request"] == [{"name": "root_decorator", "plugin": "root", "context": "root"}]
    json.dumps(explanation)  # plain data


def test_no_handler_or_hook_runs():
    calls = []
    app = Framework()
    app.add_hook("on_request", lambda request, reply: calls.append("hook"))
    app.get("/x", lambda request, reply: calls.append("handler"))
    app.explain("GET", "/x")
    assert calls == []


def rich_app():
    app = Framework(method_not_allowed=True, request_id_header="x-request-id")
    app.add_schema({"$id": "item", "type": "object", "properties": {"name": {"type": "string"}},
                    "required": ["name"]})
    app.decorate_reply("tagged", True)

    def timing(request, reply):
        pass
    app.add_hook("on_request", timing)

    def api(instance, opts):
        def audit(request, reply, payload):
            return payload
        instance.add_hook("on_send", audit)

        def handle(error, request, reply):
            raise error
        instance.set_error_handler(handle)

        def api_not_found(request, reply):
            return reply.code(404).send({"api": "nope"})
        instance.set_not_found_handler(api_not_found)

        def create(request, reply):
            return {}

        def check(request, reply):
            pass
        instance.post("/items/:id", create, pre_handler=check, schema={
            "params": {"type": "object", "properties": {"id": {"type": "integer"}}},
            "body": {"$ref": "item#"},
            "response": {201: {"$ref": "item#"}, "2xx": {"type": "object"}, "default": {"type": "object"}}})

    app.register(api, prefix="/api")
    return app


RICH = """\
POST /api/items/7?x=1
route: POST /api/items/:id
params: id='7'
context: root > api
steps:
  request id: echo in x-request-id
  on_request:
    rich_app.timing (root)
  body: parse, limit 1048576 bytes, parser parse_json
  validation: params, body
  pre_handler:
    rich_app.api.check (route option in api)
  handler: rich_app.api.create
validation:
  validator: default (coerce_types='array', use_defaults=True, remove_additional=True)
  params: object {id}
  body: schema $ref item#
serializers:
  201 (exact): 201; application/json
  2xx (class): 2xx except 201; application/json
  default (default): any status without an exact or class key, errors excepted; application/json
reply hooks:
  on_send:
    rich_app.api.audit (api)
errors:
  handlers: rich_app.api.handle (api) -> default_error_handler (framework)
not found: rich_app.api.api_not_found (api)
decorators:
  instance: none
  request: none
  reply: tagged (root)
"""


def test_schemas_serializers_and_error_chain_exact():
    app = rich_app()
    explanation = app.explain("POST", "/api/items/7?x=1", {"Content-Type": "application/json"})
    assert str(explanation) == RICH
    assert explanation["request"]["query"] == {"x": "1"}
    assert explanation["validation"]["parts"]["body"] == {"schema": {"$ref": "item#"}, "refs": ["item#"]}
    assert [entry["kind"] for entry in explanation["serializers"]] == ["exact", "class", "default"]


def test_unknown_route_not_found_and_405():
    app = rich_app()
    not_found = app.explain("GET", "/api/zzz")
    assert not_found["outcome"] == "not_found"
    assert str(not_found).startswith("GET /api/zzz\nroute: none, not found (prefix /api)\ncontext: root > api\n")
    assert not_found["steps"][-1] == {"step": "handler", "name": "rich_app.api.api_not_found"}
    not_allowed = app.explain("GET", "/api/items/7")
    assert not_allowed["outcome"] == "method_not_allowed"
    assert not_allowed["allow"] == ["POST", "OPTIONS"]
    assert "route: none, 405 method not allowed (Allow: POST, OPTIONS)\n" in str(not_allowed)
    root_not_found = Framework().explain("DELETE", "/nothing")
    assert "not found: default_not_found_handler (root)\n" in str(root_not_found)


def test_cli_explain(capsys, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "explained_app", rich_app(), raising=False)
    assert main(["explain", f"{__name__}:explained_app", "POST", "/api/items/7?x=1",
                 "-H", "Content-Type: application/json"]) == 0
    assert capsys.readouterr().out == RICH


def test_cli_explain_example_app_subprocess():
    result = subprocess.run([sys.executable, "-m", "framework", "explain", "examples.app:create_app", "GET",
                             "/items/1", "--json"], capture_output=True, text=True, timeout=60,
                            cwd=SUPPORT_PATH)
    assert result.returncode == 0, result.stderr
    explanation = json.loads(result.stdout)
    assert explanation["outcome"] == "route"
    assert explanation["route"]["params"] == {"id": "1"}


def test_request_logging_and_first_hooks():
    app = Framework(request_logging=True)

    def late(request, reply):
        pass

    def early(request, reply):
        pass
    app.add_hook("on_request", late)
    app.add_hook("on_request", early, first=True)
    app.get("/x", lambda request, reply: {})
    explanation = app.explain("GET", "/x")
    assert [step["step"] for step in explanation["steps"]] == ["log_incoming", "on_request", "handler"]
    assert [hook["name"] for hook in explanation["steps"][1]["hooks"]] == [
        "test_request_logging_and_first_hooks.early", "test_request_logging_and_first_hooks.late"]
    assert explanation["reply"]["on_response"] == [
        {"name": "log_completed", "plugin": "request_logging", "context": "root"}]
