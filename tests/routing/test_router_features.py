"""Router options, multi-parameter and regex segments, has_route/find_route, 405/OPTIONS."""
import pytest

from framework import Framework
from framework.errors import RouteParameterConflictError


def echo(request, reply):
    return {"params": request.params}


def test_ignore_trailing_slash():
    app = Framework(ignore_trailing_slash=True)
    app.get("/a", lambda request, reply: "a")
    app.get("/b/", lambda request, reply: "b")
    app.get("/u/:id", echo)

    def api(instance, opts):
        instance.get("/", lambda request, reply: "root")
    app.register(api, prefix="/v1")
    assert app.inject(url="/a/").text == "a"
    assert app.inject(url="/b").text == "b"
    assert app.inject(url="/b/").text == "b"
    assert app.inject(url="/u/1/").json() == {"params": {"id": "1"}}
    assert app.inject(url="/v1").text == "root" and app.inject(url="/v1/").text == "root"
    strict = Framework()
    strict.get("/a", lambda request, reply: "a")
    assert strict.inject(url="/a/").status_code == 404


def test_ignore_duplicate_slashes():
    app = Framework(ignore_duplicate_slashes=True)
    app.get("/a/b", lambda request, reply: "ab")
    app.get("/u/:id", echo)
    # (werkzeug's test builder reads "//a" as a host: the server's PATH_INFO is given as is)
    assert app.inject(url="/a///b").text == "ab"
    assert app.inject(url="/x", PATH_INFO="//a///b").text == "ab"
    assert app.inject(url="/u//7").json() == {"params": {"id": "7"}}
    assert Framework().get("/a/b", lambda r, p: "x").inject(url="/a//b").status_code == 404


def test_case_insensitive_keeps_parameter_case():
    app = Framework(case_sensitive=False)
    app.get("/Users/:Id", echo)
    app.get("/About", lambda request, reply: "about")
    assert app.inject(url="/about").text == "about"
    assert app.inject(url="/ABOUT").text == "about"
    assert app.inject(url="/USERS/AbC").json() == {"params": {"Id": "AbC"}}
    assert Framework().get("/About", echo).inject(url="/about").status_code == 404


def test_max_param_length_is_a_404():
    app = Framework(max_param_length=5)
    app.get("/u/:id", echo)
    app.get("/r/:a-:b", echo)
    assert app.inject(url="/u/12345").status_code == 200
    assert app.inject(url="/u/123456").status_code == 404
    assert app.inject(url="/r/1-2").status_code == 200
    assert app.inject(url="/r/123456-2").status_code == 404
    default = Framework()
    default.get("/u/:id", echo)
    assert default.inject(url="/u/" + "x" * 100).status_code == 200
    assert default.inject(url="/u/" + "x" * 101).status_code == 404


def test_several_parameters_in_one_segment():
    app = Framework()
    app.get("/flights/:from-:to", echo)
    app.get("/files/:name.:ext", echo)
    app.get("/at/:hour(^\\d{2})h:minute(^\\d{2})m", echo)
    assert app.inject(url="/flights/LHR-JFK").json() == {"params": {"from": "LHR", "to": "JFK"}}
    assert app.inject(url="/files/report.pdf").json() == {"params": {"name": "report", "ext": "pdf"}}
    assert app.inject(url="/at/12h30m").json() == {"params": {"hour": "12", "minute": "30"}}
    assert app.inject(url="/at/1h30m").status_code == 404
    assert app.inject(url="/flights/LHR").status_code == 404


def test_regex_parameters_and_precedence():
    app = Framework()
    app.get("/users/:id(^\\d+$)", lambda request, reply: {"numeric": request.params["id"]})
    app.get("/users/:name", lambda request, reply: {"name": request.params["name"]})
    app.get("/users/me", lambda request, reply: {"me": True})
    app.get("/codes/:code(\\d{3})", echo)  # braces inside a regex are not FastAPI's {name}
    assert app.inject(url="/users/42").json() == {"numeric": "42"}
    assert app.inject(url="/users/bob").json() == {"name": "bob"}
    assert app.inject(url="/users/me").json() == {"me": True}
    assert app.inject(url="/codes/404").json() == {"params": {"code": "404"}}
    assert app.inject(url="/codes/4040").status_code == 404
    assert app.inject(url="/codes/40").status_code == 404


def test_regex_matches_the_whole_segment_only():
    app = Framework()
    app.get("/n/:id(\\d+)/x", echo)
    assert app.inject(url="/n/12/x").status_code == 200
    assert app.inject(url="/n/12a/x").status_code == 404  # fullmatch, not search


def test_regex_routes_differing_only_in_names_conflict():
    app = Framework()
    app.get("/r/:id(\\d+)", echo)
    with pytest.raises(RouteParameterConflictError):
        app.get("/r/:num(\\d+)", echo)
    app.get("/r/:slug([a-z]+)", echo)  # another regex: another route


def test_bad_regex_fails_at_declaration():
    import re
    app = Framework()
    with pytest.raises(re.error):
        app.get("/r/:id([)", echo)


def test_has_route_and_find_route():
    app = Framework()
    handler = lambda request, reply: "x"  # noqa: E731
    app.get("/users/:id", handler, config={"tag": 1})

    def api(instance, opts):
        instance.post("/items", handler)
    app.register(api, prefix="/v1")
    app.ready()
    assert app.has_route("GET", "/users/:id")
    assert app.has_route({"method": "GET", "url": "/users/:name"})
    assert app.has_route("HEAD", "/users/:id")
    assert not app.has_route("POST", "/users/:id")
    assert not app.has_route("GET", "/users/42")  # a declared path, not a request
    assert app.has_route("POST", "/v1/items")
    found = app.find_route("GET", "/users/:id")
    assert found["params"] == ["id"] and found["handler"] is handler
    assert found["options"]["config"] == {"tag": 1}
    assert app.find_route("GET", "/nope") is None


def test_has_plugin():
    from framework import plugin
    app = Framework()
    app.register(plugin(lambda instance, opts: None, name="my-plugin"))
    app.ready()
    assert app.has_plugin("my-plugin") and not app.has_plugin("other")


def test_method_not_allowed_405_and_options_204():
    app = Framework(method_not_allowed=True)
    app.get("/r", echo)
    app.post("/r", echo)
    app.put("/u/:id", echo)
    response = app.inject(method="DELETE", url="/r")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD, POST, OPTIONS"
    assert response.json()["message"] == "Route DELETE:/r not allowed"
    options = app.inject(method="OPTIONS", url="/u/3")
    assert options.status_code == 204 and options.headers["allow"] == "PUT, OPTIONS"
    assert options.body == b""
    assert app.inject(method="GET", url="/nowhere").status_code == 404


def test_method_not_allowed_default_stays_404():
    app = Framework()
    app.get("/r", echo)
    assert app.inject(method="DELETE", url="/r").status_code == 404
    assert app.inject(method="OPTIONS", url="/r").status_code == 404


def test_expose_head_route_false_and_route_error_handler():
    app = Framework(method_not_allowed=True)

    def boom(request, reply):
        raise ValueError("boom")

    def own(error, request, reply):
        return reply.code(418).send({"own": str(error)})

    app.get("/nohead", echo, expose_head_route=False)
    app.get("/err", boom, error_handler=own)
    response = app.inject(method="HEAD", url="/nohead")
    assert response.status_code == 405 and response.headers["allow"] == "GET, OPTIONS"
    assert app.inject(url="/err").status_code == 418
    assert app.inject(url="/err").json() == {"own": "boom"}


def test_static_fast_path_unchanged():
    app = Framework()
    app.get("/s", echo)
    app.ready()
    assert app._state.router.static["GET"]["/s"].url == "/s"
