"""One dispatch decides which route answers a request, and with which parameters:
what the handler receives is what ``app.explain`` reports, and ``find_route`` /
``has_route`` know the route explain names (issue 21)."""
import pytest

from framework import Framework


def _app():
    app = Framework(method_not_allowed=True)

    def echo(declared):
        def handler(request, reply):
            return {"url": declared, "params": dict(request.params)}
        return handler

    for url in ("/files/:name", "/a/:rest", "/a/b/c", "/users/:id(^\\d+$)", "/users/me", "/tags/:tag(^[a-zé]+$)", "/static/path",
                "/assets/*", "/items/:id?", "/get-only", "/p/:x", "/p/:x/:y"):
        app.get(url, echo(url))

    def api(instance, opts):
        instance.get("/things/:id", echo("/v1/things/:id"))

        def api_not_found(request, reply):
            reply.code(404)
            return {"not_found": "api", "path": request.path}

        instance.set_not_found_handler(api_not_found)

    app.register(api, prefix="/v1")
    return app


@pytest.fixture(scope="module")
def app():
    return _app()


ROUTED = [
    ("GET", "/files/caf%C3%A9", "/files/:name", {"name": "café"}),
    ("GET", "/a/b%2Fc", "/a/:rest", {"rest": "b/c"}),
    ("GET", "/a/b/c", "/a/b/c", {}),
    ("GET", "/users/42", "/users/:id(^\\d+$)", {"id": "42"}),
    ("GET", "/users/me", "/users/me", {}),
    ("GET", "/tags/caf%C3%A9", "/tags/:tag(^[a-zé]+$)", {"tag": "café"}),
    ("GET", "/static/path", "/static/path", {}),
    ("GET", "/assets/img/caf%C3%A9.png", "/assets/*", {"*": "img/café.png"}),
    ("GET", "/assets/a%2Fb/c", "/assets/*", {"*": "a/b/c"}),
    ("GET", "/items/7", "/items/:id", {"id": "7"}),
    ("GET", "/items", "/items", {}),
    ("HEAD", "/get-only", "/get-only", {}),
    ("GET", "/p/x%2Fy", "/p/:x", {"x": "x/y"}),
    ("GET", "/p/x/y", "/p/:x/:y", {"x": "x", "y": "y"}),
    ("GET", "/v1/things/caf%C3%A9", "/v1/things/:id", {"id": "café"}),
]


@pytest.mark.parametrize(("method", "url", "declared", "params"), ROUTED)
def test_the_handler_receives_the_parameters_explain_reports(app, method, url, declared, params):
    explained = app.explain(method, url)
    assert explained["outcome"] == "route"
    assert explained["route"]["url"] == declared
    assert explained["route"]["params"] == params
    if method == "HEAD":
        response = app.inject(method="GET", url=url)
        assert app.inject(method="HEAD", url=url).status_code == 200
    else:
        response = app.inject(method=method, url=url)
    assert response.status_code == 200
    # (an optional parameter declares two routes: explain names the one that matched)
    assert response.json()["url"] == ("/items/:id?" if declared.startswith("/items") else declared)
    assert response.json()["params"] == params
    assert app.find_route(method, declared)["url"] == declared
    assert app.has_route(method, declared)


def test_a_regex_parameter_that_does_not_match_is_not_found_for_both(app):
    explained = app.explain("GET", "/users/abc")
    assert explained["outcome"] == "not_found"
    assert app.inject(url="/users/abc").status_code == 404
    assert not app.has_route("GET", "/users/abc")


def test_a_prefixed_context_not_found_is_the_same_for_both(app):
    explained = app.explain("GET", "/v1/nothing/caf%C3%A9")
    assert explained["outcome"] == "not_found"
    assert explained["route"]["prefix"] == "/v1"
    assert explained["not_found"]["handler"] == "_app.api.api_not_found"
    response = app.inject(url="/v1/nothing/caf%C3%A9")
    assert response.status_code == 404
    assert response.json() == {"not_found": "api", "path": "/v1/nothing/café"}


def test_an_unknown_path_is_a_404_for_both(app):
    assert app.explain("GET", "/nowhere")["outcome"] == "not_found"
    assert app.explain("GET", "/nowhere")["route"]["prefix"] == ""
    assert app.inject(url="/nowhere").status_code == 404
    assert app.find_route("GET", "/nowhere") is None


def test_an_encoded_slash_where_no_route_takes_it_is_not_found_for_both(app):
    # /static/path exists, but /static%2Fpath is one segment that no route takes.
    assert app.explain("GET", "/static%2Fpath")["outcome"] == "not_found"
    assert app.inject(url="/static%2Fpath").status_code == 404


def test_another_method_is_a_405_with_the_same_allow_for_both(app):
    explained = app.explain("DELETE", "/files/caf%C3%A9")
    assert explained["outcome"] == "method_not_allowed"
    response = app.inject(method="DELETE", url="/files/caf%C3%A9")
    assert response.status_code == 405
    assert response.headers["allow"] == ", ".join(explained["allow"])


def test_a_path_that_is_not_utf8_is_a_400_for_both(app):
    # (werkzeug's test environ would decode %FF to U+FFFD: this is the environ a server gives)
    statuses = []
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/files/\xff", "RAW_URI": "/files/%FF",
               "SERVER_NAME": "localhost", "SERVER_PORT": "80", "wsgi.url_scheme": "http",
               "wsgi.input": __import__("io").BytesIO(), "REMOTE_ADDR": "127.0.0.1"}
    body = b"".join(app(environ, lambda status, headers, *rest: statuses.append(status)))
    assert statuses == ["400 Bad Request"]
    assert b"\xff" not in body
    explained = app.explain("GET", "/files/%FF")
    assert explained["outcome"] == "bad_url"
    assert explained["route"]["params"] == {}
