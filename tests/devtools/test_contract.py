"""``framework.devtools.contract`` and ``python -m framework contract lock|check``: the contract
file's form (``$ref`` resolved, normalized, auth), and the command line end to end.

The classification of each kind of schema change is in ``test_contract_rules.py``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import SUPPORT_MODULES, SUPPORT_PATH
from framework import Framework
from framework.devtools.contract import Change, check, dumps, load, lock, render
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.openapi import openapi

import pytest


def locked(app: Framework) -> dict[str, Any]:
    try:
        return lock(app)
    finally:
        app.close()


def test_lock_resolves_shared_local_and_nested_refs_through_the_one_resolver():
    app = Framework()
    app.add_schema({"$id": "money", "type": "number", "minimum": 0})
    app.add_schema({"$id": "item", "type": "object", "required": ["price"],
                    "properties": {"price": {"$ref": "money#"}, "size": {"$ref": "#/definitions/size"}},
                    "definitions": {"size": {"type": "string", "enum": ["S", "M"]}}})
    app.post("/items", {"schema": {"body": {"$ref": "item#"}, "response": {201: {"$ref": "item#"}}}},
             lambda request, reply: request.body)
    entry = locked(app)["routes"]["POST /items"]
    item = {"type": "object", "required": ["price"],
            "properties": {"price": {"type": "number", "minimum": 0}, "size": {"type": "string", "enum": ["S", "M"]}}}
    assert entry == {"request": {"body": {"application/json": item}},
                     "responses": {"201": {"application/json": item}}}


def test_lock_marks_a_recursive_reference_instead_of_looping():
    app = Framework()
    app.add_schema({"$id": "node", "type": "object", "properties": {
        "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "node#"}}}})
    app.get("/tree", {"schema": {"response": {200: {"$ref": "node#"}}}}, lambda request, reply: {"name": "x"})
    tree = locked(app)["routes"]["GET /tree"]["responses"]["200"]["application/json"]
    assert tree["properties"]["children"] == {"type": "array", "items": {"$recursive": "node#"}}
    assert tree["properties"]["name"] == {"type": "string"}


def test_lock_normalizes_what_has_several_spellings():
    app = Framework()
    # The short form of parameters, header names in any case, nullable, required in any order.
    app.post("/x/", {"schema": {
        "querystring": {"a": {"type": "string"}},
        "headers": {"type": "object", "properties": {"X-Tenant": {"type": "string"}}, "required": ["X-Tenant"]},
        "body": {"type": "object", "required": ["b", "a"], "description": "dropped",
                 "properties": {"a": {"type": "string", "nullable": True, "title": "dropped"}, "b": {"type": "integer"}}},
    }}, lambda request, reply: {})
    request = locked(app)["routes"]["POST /x/"]["request"]
    assert request["querystring"] == {"type": "object", "properties": {"a": {"type": "string"}}}
    assert request["headers"] == {"type": "object", "properties": {"x-tenant": {"type": "string"}},
                                  "required": ["x-tenant"]}
    assert request["body"]["application/json"] == {"type": "object", "required": ["a", "b"], "properties": {
        "a": {"type": ["null", "string"]}, "b": {"type": "integer"}}}


def test_lock_keys_content_maps_by_media_type_essence_as_the_engines_do():
    app = Framework()
    content = {"content": {"Application/JSON; charset=utf-8": {"schema": {"type": "object"}}}}
    app.post("/x", {"schema": {"body": content, "response": {200: content}}}, lambda request, reply: {})
    entry = locked(app)["routes"]["POST /x"]
    assert list(entry["request"]["body"]) == ["application/json"]
    assert list(entry["responses"]["200"]) == ["application/json"]


def test_lock_lists_each_declared_route_once_and_not_the_added_head_routes():
    app = Framework()

    def items(instance: Any, opts: dict[str, Any]) -> None:
        instance.get("/", lambda request, reply: [])   # /items and /items/: one declaration
        instance.route(method=["PUT", "PATCH"], url="/:id", handler=lambda request, reply: {})

    app.register(items, prefix="/items")
    assert sorted(locked(app)["routes"]) == ["GET /items", "PATCH /items/:id", "PUT /items/:id"]


def test_lock_reads_auth_from_the_openapi_document_when_the_plugin_is_there():
    app = Framework()
    app.register(openapi, route_prefix=None)

    def private(instance: Any, opts: dict[str, Any]) -> None:
        instance.register(bearer_auth, keys={"secret"})
        instance.get("/private", lambda request, reply: {})

    app.register(private)
    app.get("/public", lambda request, reply: {})
    contract = locked(app)
    assert contract["notes"] == []
    assert contract["routes"]["GET /private"]["security"] == [{"bearerAuth": []}]
    assert contract["routes"]["GET /public"]["security"] == []


def test_guarding_a_public_route_is_a_breaking_change():
    def build(guarded: bool) -> Framework:
        app = Framework()
        app.register(openapi, route_prefix=None)

        def reports(instance: Any, opts: dict[str, Any]) -> None:
            if guarded:
                instance.register(bearer_auth, keys={"secret"})
            instance.get("/reports", lambda request, reply: {})

        app.register(reports)
        return app

    changes = check(locked(build(False)), locked(build(True)))
    assert changes == [Change("api-security-added", "error", "GET /reports", "/security",
                              "security requirement bearerAuth added")]
    assert changes[0].breaking


def test_without_the_openapi_plugin_auth_is_the_declared_security_and_a_note_says_so():
    app = Framework()
    app.get("/a", {"schema": {"security": [{"apiKey": []}]}}, lambda request, reply: {})
    app.get("/b", lambda request, reply: {})
    contract = locked(app)
    assert contract["routes"]["GET /a"]["security"] == [{"apiKey": []}]
    assert "security" not in contract["routes"]["GET /b"]
    assert len(contract["notes"]) == 1 and "openapi" in contract["notes"][0]


def test_renaming_a_path_parameter_is_the_same_route():
    def build(name: str) -> Framework:
        app = Framework()
        app.get(f"/items/:{name}", {"schema": {"params": {name: {"type": "integer"}}}}, lambda request, reply: {})
        return app

    # To a client, a path parameter is positional: its name is not part of the contract.
    assert check(locked(build("id")), locked(build("item_id"))) == []
    narrowed = Framework()
    narrowed.get("/items/:item_id", {"schema": {"params": {"item_id": {"type": "integer", "minimum": 1}}}},
                 lambda request, reply: {})
    assert [(change.route, change.rule, change.pointer) for change in check(locked(build("id")), locked(narrowed))] \
        == [("GET /items/:id -> GET /items/:item_id", "request-parameter-min-set",
             "/request/params/properties/item_id/minimum")]


def test_a_path_parameter_schema_added_or_removed_is_compared_with_a_string():
    def build(params: dict[str, Any] | None) -> Framework:
        app = Framework()
        app.get("/items/:id", {"schema": {"params": params}} if params else {}, lambda request, reply: {})
        return app

    assert check(locked(build(None)), locked(build({"id": {"type": "string"}}))) == []
    assert [(change.rule, change.breaking) for change in check(locked(build(None)),
                                                               locked(build({"id": {"type": "integer"}})))] \
        == [("request-parameter-type-changed", True)]
    assert [(change.rule, change.breaking) for change in check(locked(build({"id": {"type": "integer"}})),
                                                               locked(build(None)))] \
        == [("request-parameter-type-changed", True)]


def test_a_change_inside_a_shared_schema_is_reported_at_every_route_that_uses_it():
    def build(max_length: int) -> Framework:
        app = Framework()
        app.add_schema({"$id": "name", "type": "string", "maxLength": max_length})
        for url in ("/a", "/b"):
            app.post(url, {"schema": {"body": {"type": "object", "properties": {"name": {"$ref": "name#"}}}}},
                     lambda request, reply: {})
        return app

    changes = check(locked(build(100)), locked(build(50)))
    assert [(change.route, change.rule, change.pointer) for change in changes] == [
        (route, "request-property-max-length-decreased", "/request/body/application~1json/properties/name/maxLength")
        for route in ("POST /a", "POST /b")]
    assert render(changes).splitlines()[-1] == "2 change(s), 2 breaking"
    assert str(changes[0]) == ("ERROR   request-property-max-length-decreased: POST /a at "
                               "/request/body/application~1json/properties/name/maxLength: "
                               "maxLength decreased to 50 (was 100)")


def test_dumps_is_sorted_indented_json_and_load_reads_it_back(tmp_path: Path):
    app = Framework()
    app.get("/b", lambda request, reply: {})
    app.get("/a", {"schema": {"querystring": {"z": {"type": "string"}, "y": {"type": "integer"}}}},
            lambda request, reply: {})
    contract = locked(app)
    text = dumps(contract)
    assert text.index('"GET /a"') < text.index('"GET /b"') and text.index('"y"') < text.index('"z"')
    assert text.endswith("}\n") and '\n  "routes": {' in text
    path = tmp_path / "contract.json"
    path.write_text(text, encoding="utf-8")
    assert load(str(path)) == contract


@pytest.mark.parametrize("text, message", [
    ("{", "is not JSON"),
    ('{"routes": {}}', "is not a contract file"),
    ('{"contract": 1, "routes": []}', "is not a contract file"),
    ("[]", "is not a contract file"),
    ('{"contract": 1, "routes": {"GET /a": []}}', "the entry of 'GET /a' is not a route's contract"),
    ('{"contract": 1, "routes": {"GET /a": {"request": {}, "responses": {"200": 1}}}}', "is not a route's"),
    ('{"contract": 1, "routes": {"GET /a": {"request": {}, "responses": {}, "security": {}}}}', "is not a route's"),
])
def test_load_refuses_what_is_not_a_contract_file(tmp_path: Path, text: str, message: str):
    path = tmp_path / "contract.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load(str(path))


# --------------------------------------------------------------------------- the command line

def contract_command(*args: str, version: str = "1", cwd: Path = SUPPORT_MODULES) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ, CONTRACT_APP_VERSION=version,
                   PYTHONPATH=os.pathsep.join(filter(None, [str(SUPPORT_MODULES), str(SUPPORT_PATH),
                                                            os.environ.get("PYTHONPATH", "")])))
    return subprocess.run([sys.executable, "-m", "framework", "contract", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=environ)


def test_cli_lock_then_check_a_breaking_and_a_compatible_version(tmp_path: Path):
    lock_file = tmp_path / "api.json"
    result = contract_command("lock", "contract_app:app", "--output", str(lock_file))
    assert result.returncode == 0, result.stderr
    written = json.loads(lock_file.read_text(encoding="utf-8"))
    assert sorted(written["routes"]) == ["GET /items", "GET /items/:id", "GET /private", "POST /items"]
    assert written["routes"]["GET /private"]["security"] == [{"bearerAuth": []}]

    same = contract_command("check", "contract_app:app", "--against", str(lock_file))
    assert (same.returncode, same.stdout, same.stderr) == (0, "no changes\n", "")

    breaking = contract_command("check", "contract_app:app", "--against", str(lock_file), version="2")
    assert breaking.returncode == 1, breaking.stderr
    assert breaking.stdout.splitlines() == [
        "ERROR   response-required-property-removed: GET /items at "
        "/responses/200/application~1json/items/properties/name: property 'name' removed",
        "ERROR   response-required-property-removed: GET /items/:id at "
        "/responses/200/application~1json/properties/name: property 'name' removed",
        "ERROR   request-property-became-required: POST /items at "
        "/request/body/application~1json/properties/price: property 'price' became required",
        "ERROR   response-required-property-removed: POST /items at "
        "/responses/201/application~1json/properties/name: property 'name' removed",
        "4 change(s), 4 breaking",
    ]

    compatible = contract_command("check", "contract_app:app", "--against", str(lock_file), version="3")
    assert compatible.returncode == 0, compatible.stderr
    assert compatible.stdout.splitlines()[0] == ("INFO    new-optional-request-parameter: GET /items at "
                                                 "/request/querystring/properties/sort: new optional query parameter "
                                                 "'sort'")
    assert compatible.stdout.splitlines()[-1] == "4 change(s), 0 breaking"


def test_cli_lock_defaults_to_contract_json_and_dash_is_stdout(tmp_path: Path):
    assert contract_command("lock", "contract_app:app", cwd=tmp_path).returncode == 0
    printed = contract_command("lock", "contract_app:app", "--output", "-")
    assert printed.returncode == 0
    assert (tmp_path / "contract.json").read_text(encoding="utf-8") == printed.stdout
    assert contract_command("check", "contract_app:app", cwd=tmp_path).returncode == 0


def test_cli_check_without_a_usable_lock_file_is_a_clear_error(tmp_path: Path):
    missing = contract_command("check", "contract_app:app", "--against", str(tmp_path / "nope.json"))
    assert missing.returncode == 2
    assert missing.stdout == ""
    assert missing.stderr == (f"error: no contract file {str(tmp_path / 'nope.json')!r}: write one with "
                              f"python -m framework contract lock contract_app:app --output {tmp_path / 'nope.json'}\n")
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"contract": 1, "routes": ', encoding="utf-8")
    result = contract_command("check", "contract_app:app", "--against", str(corrupt))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {corrupt} is not JSON: ") and "Traceback" not in result.stderr
    unwritable = contract_command("lock", "contract_app:app", "--output", str(tmp_path / "no-such-dir" / "c.json"))
    assert (unwritable.returncode, unwritable.stderr) == (
        2, f"error: cannot write {tmp_path / 'no-such-dir' / 'c.json'}: No such file or directory\n")


def test_the_example_application_matches_its_committed_contract():
    # How CI runs the gate: the suite runs this. After a deliberate change, re-lock with
    # python -m framework contract lock examples.app:app --output examples/contract.json
    against = SUPPORT_PATH / "examples" / "contract.json"
    result = subprocess.run([sys.executable, "-m", "framework", "contract", "check", "examples.app:app",
                             "--against", str(against)], capture_output=True, text=True, timeout=120,
                            cwd=SUPPORT_PATH)
    assert (result.returncode, result.stdout) == (0, "no changes\n"), result.stderr


def test_a_typed_stream_s_items_are_locked_as_an_array_and_checked_as_one():
    def app_with(item: dict[str, Any]) -> Framework:
        app = Framework()
        app.get("/items", {"schema": {"response": {200: {"content": {"application/jsonl": {"itemSchema": item}}}}}},
                lambda request, reply: iter(()))
        return app

    before = locked(app_with({"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}))
    after = locked(app_with({"type": "object", "properties": {"id": {"type": "integer"}}}))
    assert before["routes"]["GET /items"]["responses"]["200"] == {"application/jsonl": {
        "type": "array", "items": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}}
    assert [change.rule for change in check(before, after)] == ["response-property-became-optional"]
