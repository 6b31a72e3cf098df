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


@pytest.mark.parametrize("siblings", [0, compiled.MAX_COMPARED + 1], ids=["compared", "in a dict"])
@pytest.mark.parametrize("text", HOSTILE)
def test_route_text_reaches_the_written_out_descent_as_literals_only(text, siblings):
    router = Router()
    for number in range(siblings):
        router.add("GET", f"/sibling{number}/:id", number)
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


def written_out(router, method="GET"):
    return compiled.compile_tree(router._trees[method], router.max_param_length, lambda path: None) is not None


@pytest.mark.parametrize("routes, expected", [
    (["/" + "/".join(f"d{level}" for level in range(compiled.MAX_DEPTH - 2)) + "/:x"], True),
    (["/" + "/".join(f"d{level}" for level in range(compiled.MAX_DEPTH)) + "/:x"], False),  # too deep
    ([f"/a{outer}/b{inner}/:x" for outer in range(20) for inner in range(20)], True),  # 821 nodes
    ([f"/a{outer}/b{inner}/:x" for outer in range(20) for inner in range(30)], False),  # 1,221 nodes
])
def test_a_tree_past_the_limits_keeps_the_loop_and_finds_the_same(routes, expected):
    router = Router()
    for number, route in enumerate(routes):
        router.add("GET", route, number)
    assert written_out(router) == expected
    for number, route in enumerate(routes):
        assert router.find("GET", route.replace(":x", "v")) == (number, {"x": "v"})
        assert router.find("GET", route.replace(":x", "v/w")) is None


@pytest.mark.parametrize("wide", [compiled.MAX_COMPARED, compiled.MAX_COMPARED + 1])
def test_a_wide_node_looks_its_children_up_in_a_dict(wide):
    router = Router()
    for number in range(wide - 1):  # the top level's static children: these and "p"
        router.add("GET", f"/s{number}/:x", number)
        router.add("GET", f"/s{number}/:x/t{number}/:y", -number)
    for number in range(wide):  # static children below a parameter
        router.add("GET", f"/p/:x/w{number}/:y", f"w{number}")
    source = descent_source(router)
    assert (".get(segment0)" in source) == (".get(segment2)" in source) == (wide > compiled.MAX_COMPARED)
    for number in range(wide - 1):
        assert router.find("GET", f"/s{number}/v") == (number, {"x": "v"})
        assert router.find("GET", f"/s{number}/v/t{number}/w") == (-number, {"x": "v", "y": "w"})
        assert router.find("GET", f"/s{number}/v/t{number + 1}/w") is None
    for number in range(wide):
        assert router.find("GET", f"/p/v/w{number}/z") == (f"w{number}", {"x": "v", "y": "z"})
        assert router.find("GET", f"/p/v/w{number}") is None
    assert router.find("GET", f"/s{wide}/v") is None
    assert router.find("GET", f"/p/v/w{wide}/z") is None


def test_an_app_answers_through_the_written_out_descent():
    app = Framework(max_param_length=3)
    app.get("/users/:id", lambda request, reply: {"id": request.params["id"]})
    app.get("/users/:id/posts/:post", lambda request, reply: dict(request.params))
    assert app.inject(url="/users/42").json() == {"id": "42"}
    assert app.inject(url="/users/42/posts/7").json() == {"id": "42", "post": "7"}
    assert app.inject(url="/users/4242").status_code == 404  # longer than max_param_length
    assert app.inject(url="/users/42/posts").status_code == 404
