"""The router's descent written out (``framework.routing.compiled``): the generated
function answers as the complete search does, carries route text only as literals, and
is made again when a route is added."""
import pytest

from framework import Framework
from framework.routing import compiled
from framework.routing.router import Router

# Route text a generator could be fooled by, were it pasted into the source.
HOSTILE = ["q'uo\"te", "back\\\\slash", "new\nline", "\"\"\"", "'; raise SystemExit; '", "br{ace}", "#comment", "\\x00"]


def descent_source(router, method="GET"):
    tree = router._trees[method]
    found = compiled.compile_tree(tree, router.max_param_length, lambda path: None)
    assert found is not None
    return found[1]


@pytest.mark.parametrize("text", HOSTILE)
def test_route_text_reaches_the_written_out_descent_as_literals_only(text):
    router = Router()
    router.add("GET", f"/{text}/:id", "segment")
    router.add("GET", "/names/:" + "a" * 3, "name")
    assert router.find("GET", f"/{text}/7") == ("segment", {"id": "7"})
    assert router.find("GET", "/names/8") == ("name", {"aaa": "8"})
    assert router.find("GET", "/other/7") is None
    assert repr(text) in descent_source(router)  # the segment, as its repr()


def test_a_route_added_after_a_look_up_is_found():
    router = Router()
    router.add("GET", "/users/:id", "user")
    assert router.find("GET", "/users/1/posts") is None
    router.add("GET", "/users/:id/posts", "posts")
    assert router.find("GET", "/users/1/posts") == ("posts", {"id": "1"})
    assert router.find("GET", "/users/1") == ("user", {"id": "1"})


def test_a_method_without_routes_keeps_no_descent():
    router = Router()
    router.add("GET", "/users/:id", "user")
    for method in ("FOO", "BAR", "get"):  # request data: nothing is kept for it
        assert router.find(method, "/users/1") is None
    assert router.find("GET", "/users/1") == ("user", {"id": "1"})
    assert set(router.finders) == {"GET"}


@pytest.mark.parametrize("routes, written_out", [
    ([f"/s{number}/:x" for number in range(compiled.MAX_STATIC_CHILDREN)], True),
    ([f"/s{number}/:x" for number in range(compiled.MAX_STATIC_CHILDREN + 1)], False),  # too wide
    (["/" + "/".join(f"d{level}" for level in range(compiled.MAX_DEPTH - 2)) + "/:x"], True),
    (["/" + "/".join(f"d{level}" for level in range(compiled.MAX_DEPTH)) + "/:x"], False),  # too deep
    ([f"/a/b{number}/c{number}/:x" for number in range(5)], True),
    ([f"/a{outer}/b{inner}/:x" for outer in range(8) for inner in range(8)], False),  # too many nodes
])
def test_a_tree_past_the_limits_keeps_the_loop_and_finds_the_same(routes, written_out):
    router = Router()
    for number, route in enumerate(routes):
        router.add("GET", route, number)
    assert (compiled.compile_tree(router._trees["GET"], 100, lambda path: None) is not None) == written_out
    for number, route in enumerate(routes):
        assert router.find("GET", route.replace(":x", "v")) == (number, {"x": "v"})
        assert router.find("GET", route.replace(":x", "v/w")) is None


def test_an_app_answers_through_the_written_out_descent():
    app = Framework(max_param_length=3)
    app.get("/users/:id", lambda request, reply: {"id": request.params["id"]})
    app.get("/users/:id/posts/:post", lambda request, reply: dict(request.params))
    assert app.inject(url="/users/42").json() == {"id": "42"}
    assert app.inject(url="/users/42/posts/7").json() == {"id": "42", "post": "7"}
    assert app.inject(url="/users/4242").status_code == 404  # longer than max_param_length
    assert app.inject(url="/users/42/posts").status_code == 404
