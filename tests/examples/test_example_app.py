"""The example application served by gunicorn, checked with the curl commands of its page,
docs/guide/example-app.rst.

``TRANSCRIPT`` and ``WRAPPED_TRANSCRIPT`` hold the page's commands (against
port 3000) and their exact outputs, in order (the item ids depend on it). The tests send
the same requests with urllib to a gunicorn started on a free port and compare the
output curl would print; when curl is installed, the commands themselves are run too.
"""
from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import threading

import pytest

# ROOT: the checkout (docs/)
from conftest import ROOT
from example_server import WORKERS, Server, send_request

TRANSCRIPT_HOST = "127.0.0.1:3000"

#: curl's -w formats used on the page: body then status; or status then the challenge.
BODY_AND_STATUS = r"-w '\n%{http_code}\n'"
STATUS_AND_CHALLENGE = r"-o /dev/null -w '%{http_code} %header{www-authenticate}\n'"

# Each entry: the curl command as the page prints it, the request it sends, and the
# exact output. Start the server with: gunicorn examples.app:app --bind 127.0.0.1:3000
TRANSCRIPT = [
    {"curl": r"curl -s -w '\n%{http_code}\n' http://127.0.0.1:3000/child",
     "method": "GET", "path": "/child", "headers": {}, "data": None,
     "output": '{"root_decorator":"root","child_decorator":"child"}\n200\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' http://127.0.0.1:3000/grandchild",
     "method": "GET", "path": "/grandchild", "headers": {}, "data": None,
     "output": '{"root_decorator":"root","child_decorator":"child","grandchild_decorator":"grandchild"}\n200\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' http://127.0.0.1:3000/private",
     "method": "GET", "path": "/private", "headers": {}, "data": None,
     "output": '{"error":"missing authorization header"}\n401\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' -H 'Authorization: Bearer wrong-key' http://127.0.0.1:3000/private",
     "method": "GET", "path": "/private", "headers": {"Authorization": "Bearer wrong-key"}, "data": None,
     "output": '{"error":"invalid authorization header"}\n401\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' -H 'Authorization: Bearer demo-key' http://127.0.0.1:3000/private",
     "method": "GET", "path": "/private", "headers": {"Authorization": "Bearer demo-key"}, "data": None,
     "output": '{"root_decorator":"root"}\n200\n'},
    {"curl": r"curl -s -o /dev/null -w '%{http_code} %header{www-authenticate}\n' http://127.0.0.1:3000/private",
     "method": "GET", "path": "/private", "headers": {}, "data": None,
     "output": "401 Bearer\n"},
    {"curl": r"curl -s -o /dev/null -w '%{http_code} %header{www-authenticate}\n' "
             r"-H 'Authorization: Bearer wrong-key' http://127.0.0.1:3000/private",
     "method": "GET", "path": "/private", "headers": {"Authorization": "Bearer wrong-key"}, "data": None,
     "output": '401 Bearer error="invalid_token"\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' -H 'Content-Type: application/json' "
             r"""-d '{"name":"pen","price":1.5,"secret":"dropped"}' http://127.0.0.1:3000/items""",
     "method": "POST", "path": "/items", "headers": {"Content-Type": "application/json"},
     "data": '{"name":"pen","price":1.5,"secret":"dropped"}',
     "output": '{"id":1,"name":"pen","price":1.5,"tags":[]}\n201\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' -H 'Content-Type: application/json' "
             r"""-d '{"price":1}' http://127.0.0.1:3000/items""",
     "method": "POST", "path": "/items", "headers": {"Content-Type": "application/json"},
     "data": '{"price":1}',
     "output": '{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request",'
               '"message":"body should have required property \'name\'"}\n400\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' -H 'Content-Type: application/json' "
             r"""-d '{"name":"pen","price":-1}' http://127.0.0.1:3000/items""",
     "method": "POST", "path": "/items", "headers": {"Content-Type": "application/json"},
     "data": '{"name":"pen","price":-1}',
     "output": '{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request",'
               '"message":"body/price should be >= 0"}\n400\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' http://127.0.0.1:3000/items/1",
     "method": "GET", "path": "/items/1", "headers": {}, "data": None,
     "output": '{"id":1,"name":"pen","price":1.5,"tags":[]}\n200\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' http://127.0.0.1:3000/items/abc",
     "method": "GET", "path": "/items/abc", "headers": {}, "data": None,
     "output": '{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request",'
               '"message":"params/id should be integer"}\n400\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' -X PUT -H 'Content-Type: application/json' "
             r"""-d '{"name":"fountain pen","price":12,"tags":["office"]}' http://127.0.0.1:3000/items/1""",
     "method": "PUT", "path": "/items/1", "headers": {"Content-Type": "application/json"},
     "data": '{"name":"fountain pen","price":12,"tags":["office"]}',
     "output": '{"id":1,"name":"fountain pen","price":12,"tags":["office"]}\n200\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' 'http://127.0.0.1:3000/items?limit=10'",
     "method": "GET", "path": "/items?limit=10", "headers": {}, "data": None,
     "output": '{"items":[{"id":1,"name":"fountain pen","price":12,"tags":["office"]}]}\n200\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' -X DELETE http://127.0.0.1:3000/items/1",
     "method": "DELETE", "path": "/items/1", "headers": {}, "data": None,
     "output": "\n204\n"},
    {"curl": r"curl -s -w '\n%{http_code}\n' http://127.0.0.1:3000/items/1",
     "method": "GET", "path": "/items/1", "headers": {}, "data": None,
     "output": '{"statusCode":404,"code":"ITEM_NOT_FOUND","error":"Not Found",'
               '"message":"item 1 not found"}\n404\n'},
]

# Start the server with: EXAMPLE_WRAP_GRANDCHILD=1 gunicorn examples.app:app --bind 127.0.0.1:3000
# (or gunicorn examples.app_wrapped:app --bind 127.0.0.1:3000)
WRAPPED_TRANSCRIPT = [
    {"curl": r"curl -s -w '\n%{http_code}\n' http://127.0.0.1:3000/child",
     "method": "GET", "path": "/child", "headers": {}, "data": None,
     "output": '{"root_decorator":"root","child_decorator":"child","grandchild_decorator":"grandchild"}\n200\n'},
    {"curl": r"curl -s -w '\n%{http_code}\n' http://127.0.0.1:3000/grandchild",
     "method": "GET", "path": "/grandchild", "headers": {}, "data": None,
     "output": '{"root_decorator":"root","child_decorator":"child","grandchild_decorator":"grandchild"}\n200\n'},
]


def curl_command(example: dict) -> str:
    """The curl command an example's fields describe (checks the literal text above)."""
    # One line "401 Bearer ...": the status-and-challenge format; else body then status.
    challenge = re.fullmatch(r"\d{3} .*\n", example["output"]) is not None
    parts = ["curl -s", STATUS_AND_CHALLENGE if challenge else BODY_AND_STATUS]
    if example["method"] in ("PUT", "DELETE"):
        parts.append(f"-X {example['method']}")
    parts += [f"-H {shlex.quote(f'{k}: {v}')}" for k, v in example["headers"].items()]
    if example["data"] is not None:
        parts.append(f"-d {shlex.quote(example['data'])}")
    parts.append(shlex.quote(f"http://{TRANSCRIPT_HOST}{example['path']}"))
    return " ".join(parts)


def curl_output(status: int, body: bytes, headers: dict, example: dict) -> str:
    """What curl prints for this response with the example's -w format."""
    if STATUS_AND_CHALLENGE in example["curl"]:
        return f"{status} {headers.get('www-authenticate', '')}\n"
    return f"{body.decode('utf-8')}\n{status}\n"


@pytest.fixture
def serve():
    servers = []

    def start(target: str = "examples.app:app", **env: str) -> Server:
        server = Server(target, env)
        servers.append(server)
        server.wait_ready()
        return server

    yield start
    for server in servers:
        server.stop()


def run_examples(server: Server, examples: list[dict]) -> None:
    for example in examples:
        status, body, headers = send_request(server.base, example["method"], example["path"],
                                         example["headers"], example["data"])
        assert curl_output(status, body, headers, example) == example["output"], example["curl"]
        if body:
            assert headers["content-type"] == "application/json; charset=utf-8", example["curl"]


# ------------------------------------------------------------------- tests

def test_the_example_page_shows_the_commands_and_outputs_checked_here():
    """docs/guide/example-app.rst shows each command and its exact output, in this order,
    in its literal blocks (indented four spaces)."""
    page = (ROOT / "docs" / "guide" / "example-app.rst").read_text(encoding="utf-8")
    position = 0
    for example in TRANSCRIPT + WRAPPED_TRANSCRIPT:
        shown = "    $ " + example["curl"] + "\n" + "".join(
            "    " + line + "\n" if line else "\n" for line in example["output"].rstrip("\n").split("\n"))
        found = page.find(shown, position)
        assert found >= 0, f"docs/guide/example-app.rst does not show, in order: {example['curl']}"
        position = found + len(shown)


@pytest.mark.parametrize("example", TRANSCRIPT + WRAPPED_TRANSCRIPT, ids=lambda e: e["curl"][8:70])
def test_transcript_commands_match_their_fields(example):
    assert example["curl"] == curl_command(example)


def test_transcript(serve):
    server = serve()
    run_examples(server, TRANSCRIPT)
    # The key never appears in the challenge, and siblings of /private stay public.
    status, body, headers = send_request(server.base, "GET", "/private", {"Authorization": "Bearer sneaky"}, None)
    assert status == 401 and "sneaky" not in headers["www-authenticate"] and b"sneaky" not in body
    status, _, headers = send_request(server.base, "GET", "/child", {}, None)
    assert status == 200 and "www-authenticate" not in headers


def test_every_worker_sees_the_same_items(serve):
    """Create in one request, read in the next on other workers.

    The server starts once one worker answers; the test first reaches all four (identified
    by pid in the access log), then reads each new item until a worker other than the one
    that created it has answered, each step within a deadline: it never relies on how the
    kernel spreads connections, only on a sync worker taking one connection at a time."""
    server = serve()
    assert len(server.reach_workers("/child?every-worker", lambda pids, answers: len(pids) == WORKERS)) == WORKERS
    created = []
    for n in range(6):
        status, body, _ = send_request(server.base, "POST", "/items", {"Content-Type": "application/json"},
                                   json.dumps({"name": f"item {n}", "price": n}))
        assert status == 201, body
        item = json.loads(body)
        created.append(item)
        posts = [pid for pid, method, _ in server.access(lambda lines: sum(m == "POST" for _, m, _ in lines) > n)
                 if method == "POST"]
        creator = posts[n]

        def read_elsewhere(pids, answers, item=item, creator=creator):
            assert all((status, json.loads(body)) == (200, item) for status, _, body in answers), answers
            return pids - {creator}

        assert server.reach_workers(f"/items/{item['id']}", read_elsewhere) - {creator}
    status, body, _ = send_request(server.base, "GET", "/items?limit=100", {}, None)
    assert json.loads(body)["items"] == created
    assert [item["id"] for item in created] == list(range(1, 7))


def test_wrapped_grandchild_and_api_keys_from_the_environment(serve):
    server = serve(EXAMPLE_WRAP_GRANDCHILD="1", API_KEYS="alpha, beta")
    run_examples(server, WRAPPED_TRANSCRIPT)
    assert send_request(server.base, "GET", "/private", {"Authorization": "Bearer demo-key"}, None)[0] == 401
    status, body, _ = send_request(server.base, "GET", "/private", {"Authorization": "Bearer beta"}, None)
    assert (status, json.loads(body)) == (200, {"root_decorator": "root"})


def test_app_wrapped_module(serve):
    server = serve("examples.app_wrapped:app")
    run_examples(server, WRAPPED_TRANSCRIPT)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed: the page's commands not run literally")
def test_transcript_curl_commands_literally(serve):
    server = serve()
    for example in TRANSCRIPT:
        command = example["curl"].replace(TRANSCRIPT_HOST, f"127.0.0.1:{server.port}")
        result = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=20)
        assert result.stdout == example["output"], command


def test_store_gives_unique_ids_under_concurrency(tmp_path):
    from examples.app import create_app  # importable from the repository root (tests/conftest.py)

    app = create_app(api_keys=["k"], database=str(tmp_path / "items.sqlite3"))
    ids: list[int] = []
    lock = threading.Lock()

    def create(n: int) -> None:
        response = app.inject(method="POST", url="/items", json={"name": f"item {n}", "price": n})
        with lock:
            ids.append(response.json()["id"])

    threads = [threading.Thread(target=create, args=(n,)) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(ids) == list(range(1, 41))
    listed = app.inject(method="GET", url="/items?limit=100").json()["items"]
    assert len(listed) == 40 and all("revision" not in item for item in listed)
    app.close()


def test_store_survives_the_app_and_closes_its_connections(tmp_path):
    from examples.app import create_app

    database = str(tmp_path / "items.sqlite3")
    with create_app(api_keys=["k"], database=database) as app:
        assert app.inject(method="POST", url="/items", json={"name": "pen", "price": 1}).status_code == 201
    with create_app(api_keys=["k"], database=database) as app:  # another process would see the same
        assert app.inject(url="/items/1").json() == {"id": 1, "name": "pen", "price": 1, "tags": []}
        assert app.inject(method="PUT", url="/items/1", json={"name": "pen", "price": 2}).json()["price"] == 2
        assert app.inject(method="DELETE", url="/items/1").status_code == 204
        assert app.inject(method="PUT", url="/items/1", json={"name": "pen", "price": 2}).status_code == 404
        assert app.inject(method="DELETE", url="/items/1").status_code == 404


def test_api_keys_from_env():
    from examples.app import DEMO_KEY, api_keys_from_env

    assert api_keys_from_env({}) == [DEMO_KEY] == ["demo-key"]
    assert api_keys_from_env({"API_KEYS": " a, b ,,c "}) == ["a", "b", "c"]
    assert api_keys_from_env({"API_KEYS": ""}) == []
