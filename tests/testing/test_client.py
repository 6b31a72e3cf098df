"""framework.testing.Client: cookies, bodies, redirects, base URL and SCRIPT_NAME, through
inject (the application answers each request as it would on a server)."""
from __future__ import annotations

import io

import pytest

from framework import Framework
from framework.errors import TooManyRedirectsError
from framework.plugins.multipart import multipart
from framework.testing import Client, ClientResponse


def echo_app() -> Framework:
    app = Framework()
    app.register(multipart)

    def echo(request, reply):
        files = {name: [storage.filename, storage.content_type, storage.read().decode()]
                 for name, storage in request.files.items(multi=True)} if request.files else {}
        return {"method": request.method, "url": request.url, "query": request.query,
                "content_type": request.headers.get("content-type"), "body": request.body, "files": files,
                "cookie": request.headers.get("cookie"), "x_token": request.headers.get("x-token")}

    app.route(method=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"], url="/echo", handler=echo)
    return app


# Bodies.
def test_json_is_sent_as_json():
    response = Client(echo_app()).post("/echo", json={"a": [1, 2]})
    assert isinstance(response, ClientResponse)
    assert response.json()["body"] == {"a": [1, 2]}
    assert response.json()["content_type"] == "application/json"


def test_data_is_a_form_and_lists_repeat_the_name():
    seen = Client(echo_app()).post("/echo", data={"name": "Ada Lovelace", "tag": ["a", "b"]}).json()
    assert seen["content_type"] == "application/x-www-form-urlencoded"
    assert seen["body"] == {"name": "Ada Lovelace", "tag": ["a", "b"]}


def test_data_as_text_or_bytes_is_sent_as_it_is():
    client = Client(echo_app())
    seen = client.put("/echo", data="plain words", headers={"Content-Type": "text/plain"}).json()
    assert seen["body"] == "plain words"
    assert client.patch("/echo", content=b'{"x":1}', headers={"Content-Type": "application/json"}).json()["body"] == {"x": 1}


def test_files_are_multipart_with_data_as_the_fields():
    upload = io.BytesIO(b"col\n1\n")
    upload.name = "/tmp/report.csv"
    seen = Client(echo_app()).post("/echo", data={"title": "Q3"}, files={
        "report": upload,
        "notes": ("notes.txt", "hello", "text/plain"),
        "raw": b"\x00\x01",
    }).json()
    assert seen["content_type"].startswith("multipart/form-data; boundary=")
    assert seen["body"]["title"] == "Q3"
    assert seen["files"]["report"] == ["report.csv", "text/csv", "col\n1\n"]
    assert seen["files"]["notes"] == ["notes.txt", "text/plain", "hello"]
    assert seen["files"]["raw"][0] == "raw"


def test_one_body_only():
    with pytest.raises(TypeError, match="give one body"):
        Client(echo_app()).post("/echo", json={}, data={"a": "1"})
    with pytest.raises(TypeError, match="text fields"):
        Client(echo_app()).post("/echo", data="a=1", files={"f": b"x"})


# URLs, query strings and headers.
def test_params_headers_and_the_client_defaults():
    client = Client(echo_app(), headers={"X-Token": "default"})
    seen = client.get("/echo?a=1", params={"b": ["2", "3"]}).json()
    assert seen["url"] == "/echo?a=1&b=2&b=3" and seen["query"] == {"a": "1", "b": ["2", "3"]}
    assert seen["x_token"] == "default"
    assert client.get("/echo#top", params={"b": "2"}).json()["url"] == "/echo?b=2"  # params before the fragment
    assert client.get("/echo", headers={"X-Token": "mine"}).json()["x_token"] == "mine"


def test_each_method_helper():
    client = Client(echo_app())
    for helper, method in ((client.get, "GET"), (client.post, "POST"), (client.put, "PUT"),
                           (client.patch, "PATCH"), (client.delete, "DELETE"), (client.options, "OPTIONS")):
        assert helper("/echo").json()["method"] == method
    head = client.head("/echo")
    assert (head.status_code, head.body) == (200, b"")


def test_the_base_url_gives_scheme_host_and_script_name():
    app = Framework(trust_proxy=False)
    app.get("/where", lambda request, reply: {
        "script_name": request.environ["SCRIPT_NAME"], "path": request.path, "host": request.hostname,
        "protocol": request.protocol})
    client = Client(app, base_url="https://api.test:8443/v1/")
    response = client.get("/where")
    assert response.json() == {"script_name": "/v1", "path": "/where", "host": "api.test:8443", "protocol": "https"}
    assert response.url == "https://api.test:8443/v1/where"
    assert client.get("https://api.test:8443/v1/where").status_code == 200
    assert Client(app).get("/where").json()["script_name"] == ""


@pytest.mark.parametrize("base_url", ["ftp://x", "localhost", "http://h/?q=1"])
def test_a_base_url_that_is_no_http_url_is_refused(base_url):
    with pytest.raises(ValueError, match="base_url"):
        Client(Framework(), base_url=base_url)


# Cookies.
def cookie_app() -> Framework:
    app = Framework()
    app.get("/set", lambda request, reply: reply.set_cookie("session", "s1", httponly=True).send({}))
    app.get("/scoped", lambda request, reply: reply.set_cookie("scoped", "only-admin", path="/admin").send({}))
    app.get("/secure", lambda request, reply: reply.set_cookie("tls", "t", secure=True).send({}))
    app.get("/clear", lambda request, reply: reply.clear_cookie("session").send({}))
    app.get("/cookies", lambda request, reply: request.cookies)
    app.get("/admin/cookies", lambda request, reply: request.cookies)
    return app


def test_the_jar_keeps_what_responses_set_and_sends_it_back():
    client = Client(cookie_app())
    client.get("/set")
    assert client.get_cookie("session") == "s1"
    assert client.get("/cookies").json() == {"session": "s1"}
    client.get("/clear")
    assert client.get_cookie("session") is None and client.get("/cookies").json() == {}


def test_paths_and_secure_are_honoured():
    client = Client(cookie_app())
    client.get("/scoped")
    client.get("/secure")  # Secure: never sent over http
    assert client.get("/cookies").json() == {}
    assert client.get("/admin/cookies").json() == {"scoped": "only-admin"}
    tls = Client(cookie_app(), base_url="https://localhost")
    tls.get("/secure")
    assert tls.get("/cookies").json() == {"tls": "t"}


def test_cookies_given_to_the_client_or_to_one_request():
    client = Client(cookie_app(), cookies={"theme": "dark"})
    assert client.get("/cookies", cookies={"once": "1"}).json() == {"theme": "dark", "once": "1"}
    assert client.get("/cookies").json() == {"theme": "dark"}
    client.set_cookie("lang", "fr")
    assert client.get("/cookies").json() == {"theme": "dark", "lang": "fr"}


# Redirects.
def redirect_app() -> Framework:
    app = Framework()
    app.post("/see-other", lambda request, reply: reply.redirect("/echo", 303))
    app.post("/temporary", lambda request, reply: reply.redirect("/echo", 307))
    app.route(method=["POST", "PUT"], url="/moved", handler=lambda request, reply: reply.redirect("/echo", 301))
    app.get("/hop/:n", lambda request, reply: reply.redirect(f"/hop/{int(request.params['n']) + 1}"))
    app.get("/away", lambda request, reply: reply.redirect("https://elsewhere.example/x"))
    app.route(method=["GET", "POST", "PUT"], url="/echo",
              handler=lambda request, reply: {"method": request.method, "body": request.body})
    return app


def test_redirects_are_not_followed_unless_asked():
    client = Client(redirect_app())
    response = client.post("/see-other")
    assert (response.status_code, response.headers["location"], response.is_redirect) == (303, "/echo", True)
    followed = client.post("/see-other", json={"a": 1}, follow_redirects=True)
    assert followed.json() == {"method": "GET", "body": None}
    assert [r.status_code for r in followed.history] == [303] and followed.url == "http://localhost/echo"


def test_307_keeps_the_method_and_the_body():
    response = Client(redirect_app(), follow_redirects=True).post("/temporary", json={"a": 1})
    assert response.json() == {"method": "POST", "body": {"a": 1}}


def test_301_turns_only_a_post_into_a_get():
    client = Client(redirect_app(), follow_redirects=True)
    assert client.post("/moved", json={"a": 1}).json() == {"method": "GET", "body": None}
    assert client.put("/moved", json={"a": 1}).json() == {"method": "PUT", "body": {"a": 1}}


def test_a_redirect_elsewhere_is_returned_and_a_loop_is_refused():
    client = Client(redirect_app(), follow_redirects=True, max_redirects=5)
    away = client.get("/away")
    assert away.status_code == 302 and away.headers["location"] == "https://elsewhere.example/x"
    with pytest.raises(TooManyRedirectsError, match="more than 5 redirects"):
        client.get("/hop/0")


def test_with_closes_the_application():
    closed = []
    app = Framework()
    app.add_hook("on_close", lambda instance: closed.append(True))
    with Client(app) as client:
        assert client.get("/nothing").status_code == 404
    assert closed == [True]
