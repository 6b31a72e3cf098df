"""framework.plugins.openapi on the example application: the document operation by operation, the
document and the Swagger UI page served by gunicorn, the page rendered in headless
Chromium, and schemathesis run against the server (``pytest -m schemathesis`` alone).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from openapi_spec_validator import validate

from conftest import ROOT
from example_server import Server, send_request

ERROR_400 = {"description": "Bad Request", "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/FrameworkError"}}}}
ITEM_REF = {"$ref": "#/components/schemas/item"}
ID_PARAMETER = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}
NOT_FOUND = {"description": "No item has this id", "content": {"application/json": {
    "schema": {"description": "No item has this id", "$ref": "#/components/schemas/error"}}}}


def json_content(schema: dict) -> dict:
    return {"application/json": {"schema": schema}}


@pytest.fixture(scope="module")
def document() -> dict:
    from examples.app import create_app

    app = create_app(api_keys=["k"])
    app.ready()
    return app.openapi()


@pytest.fixture
def server():
    started = Server("examples.app:app", {})
    try:
        started.wait_ready()
        yield started
    finally:
        started.stop()


def test_the_example_document_is_valid_openapi_31(document):
    validate(document)
    assert document["openapi"] == "3.1.0"
    assert document["info"]["title"] == "framework example"
    assert document["tags"] == [{"name": "items", "description": "The item store (SQLite or PostgreSQL)"}]


def test_every_route_of_the_example_is_one_operation(document):
    operations = sorted((method.upper(), path) for path, item in document["paths"].items() for method in item)
    assert operations == [("DELETE", "/items/{id}"), ("GET", "/account/me"), ("GET", "/child"), ("GET", "/grandchild"),
                          ("GET", "/items"), ("GET", "/items/{id}"), ("GET", "/private"), ("POST", "/items"),
                          ("PUT", "/items/{id}")]


def test_the_encapsulation_routes_and_their_security(document):
    paths = document["paths"]
    # decorator_values serves three routes: their operationIds are the method and path; the
    # tag is the declaring plugin's name, the summary the handler's docstring.
    summary = "The three decorators as this route's request sees them (invisible ones: UNDEFINED)."
    assert paths["/private"]["get"] == {
        "tags": ["private"], "summary": summary, "operationId": "get_private",
        "responses": {"default": {"description": "Default Response"},
                      "401": {"description": "Unauthorized", "content": json_content(
                          {"$ref": "#/components/schemas/FrameworkError"})}},
        "security": [{"bearerAuth": []}]}
    for public in ("child", "grandchild"):
        assert paths[f"/{public}"]["get"] == {"tags": [public], "summary": summary, "operationId": f"get_{public}",
                                             "responses": {"default": {"description": "Default Response"}}}
    assert paths["/account/me"]["get"]["operationId"] == "get_account_me"
    assert paths["/account/me"]["get"]["tags"] == ["account"]
    assert document["components"]["securitySchemes"] == {
        "bearerAuth": {"type": "http", "scheme": "bearer"},
        "jwt": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},  # framework.plugins.auth's (/account)
        "apiKeys": {"type": "http", "scheme": "bearer"}}
    assert paths["/account/me"]["get"]["security"] == [{"jwt": []}, {"apiKeys": []}]


def test_the_items_operations(document):
    items, item = document["paths"]["/items"], document["paths"]["/items/{id}"]
    assert items["get"] == {
        "summary": "List the items", "tags": ["items"], "operationId": "listItems",
        "parameters": [{"name": "limit", "in": "query", "description": "How many items at most", "schema": {
            "type": "integer", "minimum": 1, "maximum": 100, "default": 20, "description": "How many items at most"}}],
        "responses": {"200": {"description": "OK", "content": json_content(
            {"type": "object", "properties": {"items": {"type": "array", "items": ITEM_REF}}})},
            "400": ERROR_400}}
    body = {"required": True, "content": json_content({"$ref": "#/components/schemas/item-input"})}
    assert items["post"] == {
        "summary": "Create an item", "tags": ["items"], "operationId": "createItem", "requestBody": body,
        "responses": {"201": {"description": "Created", "content": json_content(ITEM_REF)}, "400": ERROR_400}}
    assert item["get"] == {
        "summary": "Read an item", "tags": ["items"], "operationId": "getItem", "parameters": [ID_PARAMETER],
        "responses": {"200": {"description": "OK", "content": json_content(ITEM_REF)}, "404": NOT_FOUND,
                      "400": ERROR_400}}
    assert item["put"] == {
        "summary": "Replace an item", "tags": ["items"], "operationId": "replaceItem", "parameters": [ID_PARAMETER],
        "requestBody": body,
        "responses": {"200": {"description": "OK", "content": json_content(ITEM_REF)}, "404": NOT_FOUND,
                      "400": ERROR_400}}
    assert item["delete"] == {
        "summary": "Delete an item", "tags": ["items"], "operationId": "deleteItem", "parameters": [ID_PARAMETER],
        "responses": {"204": {"description": "Deleted"}, "404": NOT_FOUND, "400": ERROR_400}}


def test_the_example_components(document):
    from examples.app import ERROR, ITEM, ITEM_INPUT

    schemas = document["components"]["schemas"]
    assert set(schemas) == {"item", "item-input", "error", "FrameworkError"}
    assert schemas["item"] == {k: v for k, v in ITEM.items() if k != "$id"}
    # The validator drops undeclared properties (remove_additional), so the document does not
    # promise a refusal: additionalProperties false is left out.
    assert schemas["item-input"] == {k: v for k, v in ITEM_INPUT.items() if k not in ("$id", "additionalProperties")}
    assert schemas["error"] == {k: v for k, v in ERROR.items() if k != "$id"}


def test_gunicorn_serves_the_document_and_the_page(server, document):
    status, body, headers = send_request(server.base, "GET", "/documentation/json", {}, None)
    assert status == 200 and headers["content-type"] == "application/json; charset=utf-8"
    served = json.loads(body)
    validate(served)
    assert served == document
    status, page, headers = send_request(server.base, "GET", "/documentation", {}, None)
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    for asset in re.findall(rb'(?:src|href)="(/documentation/static/[^"]+)"', page):
        assert send_request(server.base, "GET", asset.decode(), {}, None)[0] == 200, asset
    assert b"http" not in page  # nothing from a CDN


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _headless(*arguments: str) -> subprocess.CompletedProcess:
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed (.ci/run installs it on Debian)")
        pytest.skip("chromium is not installed")
    return subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--virtual-time-budget=10000", *arguments],
                          capture_output=True, text=True, timeout=120)


def test_swagger_ui_renders_every_operation_in_chromium(server, document, tmp_path):
    result = _headless(f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", server.base + "/documentation")
    dom = result.stdout
    blocks = re.findall(r'class="opblock opblock-(get|post|put|delete|patch|head|options|trace)\b', dom)
    operations = [(method, path) for path, item in document["paths"].items() for method in item]
    assert len(blocks) == len(operations) == 9, dom[-2000:]
    assert sorted(blocks) == sorted(method for method, _ in operations)
    for method, path in operations:
        assert re.search(rf'data-path="{re.escape(path)}"', dom), (method, path)
    assert "framework example" in dom and "Authorize" in dom  # the title, and the bearer scheme's button

    # The README's screenshot (docs/openapi.png): refreshed with OPENAPI_SCREENSHOT=1.
    shot = tmp_path / "openapi.png"
    _headless(f"--user-data-dir={tmp_path / 'profile2'}", "--window-size=1280,1480", f"--screenshot={shot}",
              server.base + "/documentation")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    target = ROOT / "docs" / "openapi.png"
    if os.environ.get("OPENAPI_SCREENSHOT") == "1" or not target.exists():
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, target)


def test_swagger_ui_authorize_lists_each_auth_scheme_in_chromium(server, tmp_path):
    from browser import Browser  # tests/support: Chromium over the DevTools protocol
    browser_path = _chromium()
    if browser_path is None:
        _headless()  # fails on CI, skips elsewhere
    with Browser(browser_path, str(tmp_path / "profile")) as browser:
        page = browser.open(server.base + "/documentation")
        page.wait_for("document.querySelector('.btn.authorize') !== null")
        page.evaluate("document.querySelector('.btn.authorize').click()")
        page.wait_for("document.querySelectorAll('.auth-container').length > 0")
        schemes = page.evaluate("[...document.querySelectorAll('.auth-container h4')].map(e => e.innerText)")
    # bearer_auth's scheme (/private), framework.plugins.auth's JWT and API keys (/account/me)
    assert [re.sub(r"\s+", " ", text).strip() for text in schemes] == [
        "bearerAuth (http, Bearer)", "jwt (http, Bearer)", "apiKeys (http, Bearer)"]


def _schemathesis(server: Server, where: Path, *options: str) -> subprocess.CompletedProcess:
    executable = Path(sys.executable).with_name("schemathesis")
    command = [str(executable)] if executable.exists() else [sys.executable, "-m", "schemathesis.cli"]
    return subprocess.run(
        [*command, "run", server.base + "/documentation/json", "--url", server.base,
         "--max-examples", "25", "--seed", "1", "-H", "Authorization: Bearer demo-key", "--no-color", *options],
        capture_output=True, text=True, timeout=600, cwd=where,  # its .schemathesis/ state stays out of the tree
        env={**os.environ, "SCHEMATHESIS_HOOKS": ""})


@pytest.mark.schemathesis
def test_schemathesis_passes_against_the_example_app(server, tmp_path):
    """Every default check and phase (an undeclared method included: the example answers
    405), bounded examples."""
    result = _schemathesis(server, tmp_path)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert re.search(r"\d+ generated, \d+ passed", result.stdout), result.stdout[-2000:]
