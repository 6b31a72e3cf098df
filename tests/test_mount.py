"""instance.mount: a Flask application under /legacy inside a context behind bearer_auth,
through inject and on gunicorn."""
import json
import sys

import pytest

from framework import Framework
from servers import call, free_port, start, stop

AUTH = {"Authorization": "Bearer legacy-key"}


@pytest.fixture
def app():
    import mount_app
    return mount_app.app


def test_auth_enforced_before_the_mounted_app(app):
    response = app.inject(url="/legacy/things/a")
    assert response.status_code == 401
    assert response.json() == {"error": "missing authorization header"}
    assert app.inject(url="/legacy", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert app.inject(url="/").json() == {"hello": "framework"}  # outside the context: public


def test_script_name_and_path_info_split(app):
    root = app.inject(url="/legacy/", headers=AUTH)
    assert root.status_code == 200
    assert root.json()["script_name"] == "/legacy" and root.json()["path_info"] == "/"
    assert root.json()["url"].endswith("/legacy/")
    # /legacy itself: PATH_INFO is empty; Flask redirects to its root with the prefix kept.
    bare = app.inject(url="/legacy", headers=AUTH)
    assert bare.status_code == 308 and bare.headers["location"].endswith("/legacy/")
    thing = app.inject(url="/legacy/things/a%20b?x=1&x=2&y=", headers=AUTH).json()
    assert thing["name"] == "a b"
    assert thing["args"] == {"x": ["1", "2"], "y": [""]}
    assert (thing["script_name"], thing["path_info"]) == ("/legacy", "/things/a b")


def test_hooks_and_request_id_apply(app):
    response = app.inject(url="/legacy/things/a", headers=dict(AUTH, **{"x-request-id": "abc"}))
    assert response.headers["x-context"] == "legacy"
    assert response.headers["x-request-id"] == "abc"


def test_post_body_reaches_the_mounted_app_unparsed(app):
    body = json.dumps({"not": "parsed"})
    response = app.inject("POST", "/legacy/things/b", headers=dict(AUTH, **{"content-type": "application/json"}),
                          body=body)
    assert response.json()["body"] == body
    assert response.json()["method"] == "POST"
    # A media type the framework has no parser for is still the mounted app's business.
    odd = app.inject("PUT", "/legacy/things/c", headers=dict(AUTH, **{"content-type": "application/x-odd"}),
                     body="raw")
    assert odd.status_code == 200 and odd.json()["body"] == "raw"


def test_mounted_404_and_errors(app):
    missing = app.inject(url="/legacy/nope", headers=AUTH)
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("text/html")  # Flask's own 404
    assert "Not Found" in missing.text
    assert app.inject(url="/legacy/gone", headers=AUTH).status_code == 410
    crash = app.inject(url="/legacy/crash", headers=AUTH)
    assert crash.status_code == 502
    assert crash.json() == {"handled_by": "legacy context", "error": "the legacy app failed"}
    # Outside the mount, the framework's own 404.
    assert app.inject(url="/elsewhere").json()["message"] == "Route GET:/elsewhere not found"


def test_mount_under_a_prefixed_context_and_plain_wsgi_app():
    seen = []

    def hello(environ, start_response):
        seen.append((environ["SCRIPT_NAME"], environ["PATH_INFO"]))
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"hi ", environ["PATH_INFO"].encode()]

    def v1(instance, opts):
        instance.mount("/wsgi", hello)

    app = Framework()
    app.register(v1, prefix="/v1")
    assert app.inject(url="/v1/wsgi/a/b").text == "hi /a/b"
    assert seen == [("/v1/wsgi", "/a/b")]
    assert "  handler: mount(hello)\n" in str(app.explain("DELETE", "/v1/wsgi/x"))
    with pytest.raises(ValueError):
        Framework().mount("/", hello)
    with pytest.raises(TypeError):
        Framework().mount("/x", "not an app")


def test_lazy_start_response_and_close():
    closed = []

    class Body:
        def __init__(self, start_response):
            self.start_response = start_response

        def __iter__(self):
            self.start_response("201 Created", [("content-type", "text/plain")])
            yield b"one"
            yield b"two"

        def close(self):
            closed.append(True)

    app = Framework()
    app.mount("/lazy", lambda environ, start_response: Body(start_response))
    response = app.inject(url="/lazy/x")
    assert (response.status_code, response.text) == (201, "onetwo")
    assert closed == [True]


@pytest.fixture(scope="module")
def served():
    port = free_port()
    process = start([sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "2", "mount_app:app"], port)
    yield f"http://127.0.0.1:{port}", process
    stop(process)


def test_mount_under_gunicorn(served):
    base, process = served
    status, headers, body = call(base + "/legacy/things/x")
    assert status == 401
    status, headers, body = call(base + "/legacy/things/x%20y?q=1&q=2", headers=AUTH)
    assert status == 200, body
    thing = json.loads(body)
    assert thing["args"] == {"q": ["1", "2"]} and thing["name"] == "x y"
    assert thing["script_name"] == "/legacy"
    assert headers["x-context"] == "legacy"
    status, headers, body = call(base + "/legacy/things/posted", method="POST", body=b'{"a": 1}',
                                 headers=dict(AUTH, **{"content-type": "application/json"}))
    assert status == 200 and json.loads(body)["body"] == '{"a": 1}'
    status, headers, body = call(base + "/legacy/nope", headers=AUTH)
    assert status == 404 and headers["Content-Type"].startswith("text/html")
    status, headers, body = call(base + "/legacy/crash", headers=AUTH)
    assert status == 502 and json.loads(body)["handled_by"] == "legacy context"
    status, headers, body = call(base + "/", headers=AUTH)
    assert status == 200 and json.loads(body) == {"hello": "framework"}
    stop(process)
    output = process.stdout.read()
    assert "on_response GET /legacy/things/x%20y?q=1&q=2 200" in output
    assert "on_response POST /legacy/things/posted 200" in output
    assert "on_response GET /legacy/nope 404" in output
