"""Router: static, parametric, wildcard, prefix, HEAD, duplicates, shortcut forms."""
import pytest

from framework import Framework
from framework.errors import DuplicatedRouteError, RouteBodyValidationNotSupportedError, RouteDuplicatedHandlerError
from framework.routing.router import Router


def echo(request, reply):
    return {"params": request.params}


def test_static_parametric_and_wildcard():
    app = Framework()
    app.get("/users/me", lambda request, reply: {"me": True})
    app.get("/users/:id", echo)
    app.get("/users/:id/posts/:post", echo)
    app.get("/files/*", echo)
    assert app.inject(url="/users/me").json() == {"me": True}
    assert app.inject(url="/users/42").json() == {"params": {"id": "42"}}
    assert app.inject(url="/users/1/posts/2").json() == {"params": {"id": "1", "post": "2"}}
    assert app.inject(url="/files/a/b.txt").json() == {"params": {"*": "a/b.txt"}}
    assert app.inject(url="/users/%C3%A9").json() == {"params": {"id": "é"}}


def test_static_route_is_a_dict_lookup():
    router = Router()
    router.add("GET", "/a/b", "static")
    router.add("GET", "/a/:x", "param")
    assert router.static["GET"]["/a/b"] == "static"
    assert "/a/:x" not in router.static.get("GET", {})
    assert router.find("GET", "/a/b") == ("static", {})


def test_prefix_joins_with_one_slash_and_root_answers_both():
    app = Framework()

    def api(instance, opts):
        instance.get("/", lambda request, reply: "root of v1")
        instance.get("items", lambda request, reply: "items")

    app.register(api, prefix="/v1/")
    assert app.inject(url="/v1").text == "root of v1"
    assert app.inject(url="/v1/").text == "root of v1"
    assert app.inject(url="/v1/items").text == "items"


def test_head_answered_for_get_with_length_and_no_body():
    app = Framework()
    app.get("/h", lambda request, reply: {"hello": "world"})
    response = app.inject(method="HEAD", url="/h")
    assert response.status_code == 200
    assert response.body == b""
    assert response.headers["content-length"] == "17"


def test_known_path_unregistered_method_is_404():
    app = Framework()
    app.get("/r", echo)
    response = app.inject(method="PUT", url="/r")
    assert response.status_code == 404
    assert response.json()["message"] == "Route PUT:/r not found"


def test_duplicate_route_is_an_error_at_declaration():
    app = Framework()
    app.get("/d", echo)
    with pytest.raises(DuplicatedRouteError, match="Method 'GET' already declared for route '/d'"):
        app.get("/d", echo)


def test_body_schema_on_get_is_an_error():
    app = Framework()
    with pytest.raises(RouteBodyValidationNotSupportedError, match="Body validation schema for GET:/g"):
        app.get("/g", {"schema": {"body": {"type": "object"}}}, echo)


def test_shortcut_forms_and_method_lists():
    app = Framework()
    app.route(method=["GET", "POST"], url="/both", handler=lambda request, reply: request.method)
    app.post("/opts", {"config": {"x": 1}}, lambda request, reply: request.route_options["config"])

    @app.put("/deco", config={"y": 2})
    def deco(request, reply):
        return request.route_options["config"]

    app.all("/any", lambda request, reply: request.method)
    assert app.inject(url="/both").text == "GET"
    assert app.inject(method="POST", url="/both").text == "POST"
    assert app.inject(method="POST", url="/opts").json() == {"x": 1}
    assert app.inject(method="PUT", url="/deco").json() == {"y": 2}
    assert app.inject(method="DELETE", url="/any").text == "DELETE"
    with pytest.raises(RouteDuplicatedHandlerError):
        app.get("/dup", {"handler": echo}, echo)


def test_route_decorator_never_applied_fails_ready():
    app = Framework()
    app.get("/forgotten", {"schema": {}})
    with pytest.raises(Exception, match="Missing handler function"):
        app.ready()


# The descent (static child first, then the plain parameter) is a shortcut of the complete
# search: whatever else is declared, both must give the same answer.
DESCENT_ROUTE_SETS = [
    ["/users/:id"],
    ["/users/:id", "/users/me"],
    ["/users/:id", "/users/me/:x"],  # a static sibling with no route of its own
    ["/users/:id", "/users/a::b"],  # ... and one with a route (a literal colon keeps it in the tree)
    ["/users/:id", "/users/:from-:to"],  # a pattern added after the parameter...
    ["/users/:from-:to", "/users/:id"],  # ... and before
    ["/users/:id", "/users/:n(^\\d+$)"],
    ["/users/:id", "/users/*"],
    ["/:x", "/a/:y", "/a/b/:z"],
    ["/a/:x/c", "/a/:x"],
    ["/a::b/:x", "/a/:x"],
    ["/a//:x"],
    ["/:a/:b", "/users/:id"],
]
DESCENT_PATHS = ["/users/42", "/users/me", "/users/me/1", "/users/1-2", "/users/x-y", "/users/", "/users",
                 "/users/" + "9" * 101, "/users/" + "9" * 100, "/a", "/a/", "/a/b", "/a/b/c", "/a/1/c",
                 "/a:b/1", "/users/a:b", "/a//1", "/a/b/", "/42", "/", "/users/42/", "/x/users/42"]


# Routes added to each set so that the descent is written out with the top level's static
# children looked up in a dict ("wide"), or is too deep to write out and stays a loop.
DESCENT_PADDING = {
    "written out": [],
    "wide": [f"/wide{number}/:x" for number in range(9)],
    "loop": ["/" + "/".join(f"deep{level}" for level in range(30)) + "/:x"],
}


@pytest.mark.parametrize("descent", DESCENT_PADDING)
@pytest.mark.parametrize("paths", DESCENT_ROUTE_SETS, ids="+".join)
def test_the_descent_finds_what_the_complete_search_finds(paths, descent):
    router = Router()
    for path in paths + DESCENT_PADDING[descent]:
        router.add("GET", path, path)
    for path in DESCENT_PATHS:
        static = router.static.get("GET", {}).get(path)
        complete = (static, {}) if static is not None else router.find_segments("GET", path.split("/"))
        assert router.find("GET", path) == complete, path


def test_a_static_segment_that_leads_nowhere_gives_way_to_the_parameter():
    app = Framework(max_param_length=5)
    app.get("/users/:id", echo)
    app.get("/users/me/:tab", echo)
    app.get("/users/:from-:to", echo)
    assert app.inject(url="/users/12345").json() == {"params": {"id": "12345"}}
    assert app.inject(url="/users/123456").status_code == 404  # longer than max_param_length
    assert app.inject(url="/users/").status_code == 404
    assert app.inject(url="/users/1-2").json() == {"params": {"from": "1", "to": "2"}}
    assert app.inject(url="/users/me").json() == {"params": {"id": "me"}}  # /users/me/:tab needs more
    assert app.inject(url="/users/me/x").json() == {"params": {"tab": "x"}}
