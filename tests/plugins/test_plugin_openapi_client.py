"""A client generated from the example application's OpenAPI document works against it.

The example runs on gunicorn (four workers, a fresh SQLite file); its document is fetched
from the running server (``/documentation/json``), ``openapi-python-client`` generates a
Python package from it into a temporary directory, and every operation of the document is
called through that package, its statuses and parsed bodies checked. The generator
reading our OpenAPI 3.1 without a warning is part of the check.
"""
from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("openapi_python_client")
pytest.importorskip("httpx")
jwt = pytest.importorskip("jwt")

from example_server import Server  # noqa: E402  (tests/support)

API_KEY = "client-key"
PACKAGE = "example_client"
#: post_hooks: the generator would run ruff on its output; the test needs none.
CONFIG = f"package_name_override: {PACKAGE}\nproject_name_override: example-client\npost_hooks: []\n"


@pytest.fixture(scope="module")
def served():
    server = Server("examples.app:app", {"API_KEYS": API_KEY})
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def document(served):
    with urllib.request.urlopen(served.base + "/documentation/json", timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def generated(document, tmp_path_factory):
    """The generator's output (stdout and stderr), and the generated package, imported."""
    directory = tmp_path_factory.mktemp("client")
    (directory / "doc.json").write_text(json.dumps(document), encoding="utf-8")
    (directory / "config.yaml").write_text(CONFIG, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", "doc.json",
         "--output-path", "out", "--config", "config.yaml"],
        cwd=directory, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    sys.path.insert(0, str(directory / "out"))
    try:
        package = importlib.import_module(PACKAGE)
        yield result.stdout + result.stderr, package
    finally:
        sys.path.remove(str(directory / "out"))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def operation(package, tag: str, operation_id: str):
    return importlib.import_module(f"{package.__name__}.api.{tag}.{operation_id}")


def test_the_generator_reads_the_document_without_a_warning(generated):
    output, _package = generated
    assert "Warning" not in output and "Error" not in output, output


def test_every_operation_has_a_module_named_after_its_operation_id(document, generated):
    _output, package = generated
    operations = {(item[method]["tags"][0], item[method]["operationId"])
                  for item in document["paths"].values() for method in item}
    assert operations == {("account", "get_account_me"), ("child", "get_child"), ("grandchild", "get_grandchild"),
                          ("private", "get_private"), ("items", "listItems"), ("items", "createItem"),
                          ("items", "getItem"), ("items", "replaceItem"), ("items", "deleteItem")}
    modules = {"listItems": "list_items", "createItem": "create_item", "getItem": "get_item",
               "replaceItem": "replace_item", "deleteItem": "delete_item"}
    for tag, operation_id in operations:
        assert callable(operation(package, tag, modules.get(operation_id, operation_id)).sync_detailed)


def test_the_encapsulation_routes_through_the_client(served, generated):
    _output, package = generated
    client = package.Client(base_url=served.base)
    authenticated = package.AuthenticatedClient(base_url=served.base, token=API_KEY)
    for tag, expected in (("child", {"root_decorator": "root", "child_decorator": "child"}),
                          ("grandchild", {"root_decorator": "root", "child_decorator": "child",
                                          "grandchild_decorator": "grandchild"})):
        response = operation(package, tag, f"get_{tag}").sync_detailed(client=client)
        assert (response.status_code, json.loads(response.content)) == (200, expected)
    get_private = operation(package, "private", "get_private")
    refused = get_private.sync_detailed(client=client)
    assert refused.status_code == 401
    assert refused.parsed.to_dict() == {"error": "missing authorization header"}  # bearer_auth's body
    allowed = get_private.sync_detailed(client=authenticated)
    assert (allowed.status_code, json.loads(allowed.content)) == (200, {"root_decorator": "root"})


def test_the_account_route_with_each_scheme(served, generated):
    from examples.app import DEMO_JWT_SECRET, JWT_ISSUER
    _output, package = generated
    get_account_me = operation(package, "account", "get_account_me")
    token = jwt.encode({"sub": "alice", "iss": JWT_ISSUER, "exp": int(time.time()) + 3600}, DEMO_JWT_SECRET, algorithm="HS256")
    by_jwt = get_account_me.sync(client=package.AuthenticatedClient(base_url=served.base, token=token))
    assert (by_jwt.scheme, by_jwt.principal) == ("jwt", "alice")
    by_key = get_account_me.sync_detailed(client=package.AuthenticatedClient(base_url=served.base, token=API_KEY))
    assert by_key.status_code == 200 and by_key.parsed.scheme == "apiKeys"
    refused = get_account_me.sync_detailed(client=package.Client(base_url=served.base))
    assert refused.status_code == 401


def test_the_items_crud_through_the_client(served, generated):
    _output, package = generated
    from importlib import import_module
    models = import_module(f"{PACKAGE}.models")
    client = package.Client(base_url=served.base)
    items = {name: operation(package, "items", name)
             for name in ("create_item", "list_items", "get_item", "replace_item", "delete_item")}

    created = items["create_item"].sync_detailed(client=client, body=models.ItemInput(name="pen", price=1.5,
                                                                                     tags=["office"]))
    assert created.status_code == 201
    item = created.parsed
    assert isinstance(item, models.Item)
    assert (item.name, item.price, item.tags) == ("pen", 1.5, ["office"])

    invalid = items["create_item"].sync_detailed(client=client, body=models.ItemInput(name="pen", price=-1))
    assert invalid.status_code == 400
    assert invalid.parsed.to_dict()["code"] == "FST_ERR_VALIDATION"

    listed = items["list_items"].sync(client=client, limit=100)
    assert [entry.to_dict() for entry in listed.items] == [item.to_dict()]

    assert items["get_item"].sync(client=client, id=item.id).to_dict() == item.to_dict()
    replaced = items["replace_item"].sync(client=client, id=item.id,
                                          body=models.ItemInput(name="pencil", price=2, tags=[]))
    assert (replaced.id, replaced.name, replaced.price, replaced.tags) == (item.id, "pencil", 2, [])

    deleted = items["delete_item"].sync_detailed(client=client, id=item.id)
    assert deleted.status_code == 204 and deleted.content == b""
    missing = items["get_item"].sync_detailed(client=client, id=item.id)
    assert missing.status_code == 404
    assert isinstance(missing.parsed, models.Error)
    assert missing.parsed.to_dict() == {"statusCode": 404, "code": "ITEM_NOT_FOUND", "error": "Not Found",
                                        "message": f"item {item.id} not found"}
