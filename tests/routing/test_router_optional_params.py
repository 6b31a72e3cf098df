"""``/items/:id?``: find-my-way's optional last parameter, and parameter names checked at
declaration (a character that cannot be in a name is refused, naming the path)."""
import pytest
from openapi_spec_validator import validate

from framework import Framework
from framework.errors import RouteParameterNameError
from framework.plugins.openapi import openapi


def echo(request, reply):
    return {"params": request.params}


def test_optional_last_parameter_matches_with_and_without_it():
    app = Framework()
    app.get("/items/:id?", echo)
    with_id = app.inject(url="/items/3")
    assert with_id.status_code == 200 and with_id.json() == {"params": {"id": "3"}}
    without = app.inject(url="/items")
    assert without.status_code == 200 and without.json() == {"params": {}}  # absent, not ""
    assert app.inject(url="/items/").status_code == 404  # find-my-way: no trailing slash unless ignored
    assert app.inject(url="/items/3/4").status_code == 404
    assert app.inject(method="HEAD", url="/items").status_code == 200


def test_optional_parameter_follows_the_trailing_slash_option_and_prefixes():
    app = Framework(ignore_trailing_slash=True)

    def api(instance, opts):
        instance.get("/:page?", echo)
    app.register(api, prefix="/v1")
    app.get("/:name?", echo)
    assert app.inject(url="/v1/2").json() == {"params": {"page": "2"}}
    assert app.inject(url="/v1").json() == {"params": {}}
    assert app.inject(url="/v1/").json() == {"params": {}}
    assert app.inject(url="/").json() == {"params": {}}
    assert app.inject(url="/bob").json() == {"params": {"name": "bob"}}
    slashed = Framework()
    slashed.get("/files/:name?/", echo)
    assert slashed.inject(url="/files/a/").json() == {"params": {"name": "a"}}
    assert slashed.inject(url="/files/").json() == {"params": {}}
    assert slashed.inject(url="/files").status_code == 404


def test_optional_parameter_with_a_params_schema_and_find_route():
    app = Framework()
    app.get("/items/:id?", {"schema": {"params": {"id": {"type": "integer"}}}}, echo)
    assert app.inject(url="/items/7").json() == {"params": {"id": 7}}
    assert app.inject(url="/items").json() == {"params": {}}
    assert app.inject(url="/items/x").status_code == 400
    app.ready()
    assert app.find_route("GET", "/items/:id?")["params"] == ["id"]
    assert app.find_route("GET", "/items/:id")["url"] == "/items/:id"
    assert app.find_route("GET", "/items")["params"] == []
    assert sorted(route.url for route in app.routes()) == ["/items", "/items/:id"]


def test_an_optional_parameter_that_is_not_the_last_segment_is_refused():
    for path in ("/items/:id?/more", "/a/:x?-:y", "/a/:from-:to?", "/a/:id(\\d+)?", "/a/pre:id?"):
        app = Framework()
        with pytest.raises(RouteParameterNameError) as refused:
            app.get(path, echo)
        assert repr(path) in str(refused.value) and "optional" in str(refused.value)


@pytest.mark.parametrize("path, char", [
    ("/a/:x@y", "@"), ("/a/:id!", "!"), ("/a/:na me", " "), ("/a/:id*", "*"), ("/a/:id+", "+"),
    ("/a/:id=1", "="), ("/a/:id%20", "%"), ("/a/:i,d", ","), ("/a/:id;", ";"), ("/a/:id$", "$"),
])
def test_characters_that_cannot_be_in_a_parameter_name_are_refused(path, char):
    app = Framework()
    with pytest.raises(RouteParameterNameError) as refused:
        app.get(path, echo)
    message = str(refused.value)
    assert repr(path) in message and repr(char) in message


def test_names_that_stop_at_separators_still_work():
    app = Framework()
    app.get("/a/:from-:to", echo)
    app.get("/f/:file.:ext", echo)
    app.get("/u/:user_id/:Name2/x", echo)
    app.get("/r/:id(^\\d+$)", echo)
    assert app.inject(url="/a/1-2").json() == {"params": {"from": "1", "to": "2"}}
    assert app.inject(url="/f/x.txt").json() == {"params": {"file": "x", "ext": "txt"}}
    assert app.inject(url="/u/7/b/x").json() == {"params": {"user_id": "7", "Name2": "b"}}
    assert app.inject(url="/r/12").json() == {"params": {"id": "12"}}


def test_explain_print_routes_and_openapi_see_both_paths():
    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"})
    app.get("/items/:id?", {"schema": {"params": {"id": {"type": "integer"}}}}, echo)
    app.ready()
    explained = app.explain("GET", "/items")
    assert explained["outcome"] == "route" and explained["route"]["url"] == "/items"
    assert explained["route"]["params"] == {}
    with_id = app.explain("GET", "/items/5")
    assert with_id["route"]["url"] == "/items/:id" and with_id["route"]["params"] == {"id": "5"}
    tree = app.print_routes()
    assert "items (GET, HEAD)" in tree and ":id (GET, HEAD)" in tree
    document = app.openapi()
    validate(document)
    paths = document["paths"]
    assert "parameters" not in paths["/items"]["get"]
    assert paths["/items/{id}"]["get"]["parameters"] == [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]
