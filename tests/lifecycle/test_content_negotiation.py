"""Content negotiation through inject: ``add_response_serializer(media_type, fn)`` per
context, the reply's media type chosen from ``Accept`` (JSON by default, ties to JSON),
``Vary: Accept`` where the answer depended on it, response ``content`` maps as candidates,
and ``strict_accept=True`` answering 406 (Fastify's shape and problem+json) before the handler."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.lifecycle import negotiation
from framework.errors import (InstanceAlreadyStartedError, ResponseSerializerAlreadyPresentError,
                              ResponseSerializerInvalidError)

JSON = "application/json; charset=utf-8"
CSV = "text/csv; charset=utf-8"
ROWS = [{"id": 1, "name": "ada"}, {"id": 2, "name": "bob"}]


def to_csv(rows):
    return "".join(f"{row['id']},{row['name']}\n" for row in rows)


def csv_app(**options):
    app = Framework(**options)
    app.add_response_serializer("text/csv", to_csv)
    app.get("/rows", lambda request, reply: ROWS)
    return app


def get(app, url, accept=None, method="GET"):
    return app.inject(method, url, headers={"accept": accept} if accept is not None else None)


# Choosing.
@pytest.mark.parametrize("accept", [None, "", "*/*", "application/json", "application/*",
                                    "text/csv;q=0.5, application/json;q=0.5", "text/csv;q=0.1, */*"])
def test_json_is_the_answer_without_a_preference_for_another_type(accept):
    response = get(csv_app(), "/rows", accept)
    assert response.status_code == 200
    assert response.headers["content-type"] == JSON
    assert response.json() == ROWS
    assert response.headers["vary"] == "Accept"


@pytest.mark.parametrize("accept", ["text/csv", "text/*", "text/csv, application/json;q=0.9",
                                    "application/json;q=0.2, text/csv;q=0.8", "TEXT/CSV"])
def test_a_registered_media_type_the_client_prefers_is_serialized_by_its_function(accept):
    response = get(csv_app(), "/rows", accept)
    assert response.status_code == 200
    assert response.headers["content-type"] == CSV
    assert response.text == "1,ada\n2,bob\n"
    assert response.headers["vary"] == "Accept"


def test_an_accept_matching_nothing_is_answered_json_without_strictness():
    response = get(csv_app(), "/rows", "image/png")
    assert response.status_code == 200
    assert response.headers["content-type"] == JSON and response.json() == ROWS


def test_a_range_with_parameters_matches_only_those_parameters_as_werkzeug_compares_them():
    response = get(csv_app(), "/rows", "text/csv;charset=utf-8")
    assert response.headers["content-type"] == JSON


def test_an_unreadable_or_huge_accept_is_answered_json_not_500():
    app = csv_app()
    for accept in ["text/csv;q=abc", ";;;,,,", "x" * 8000, "text/csv;q=0.5," * 500]:
        response = get(app, "/rows", accept)
        assert response.status_code == 200, accept[:40]
        assert response.headers["content-type"] in (JSON, CSV)


def test_the_remembered_choices_do_not_grow_with_request_data():
    app = csv_app()
    for index in range(300):
        assert get(app, "/rows", f"application/x-{index}, text/csv").headers["content-type"] == CSV
    get(app, "/rows", "text/csv;" + "p" * 300)
    assert len(negotiation._choices) <= negotiation._CACHE_SIZE
    assert all(len(accept) <= 200 for _, accept in negotiation._choices)


def test_a_serializer_returning_bytes_is_sent_with_the_bare_media_type():
    app = Framework()
    app.add_response_serializer("application/x-lines", lambda rows: b"".join(b"%d\n" % row["id"] for row in rows))
    app.get("/rows", lambda request, reply: ROWS)
    response = get(app, "/rows", "application/x-lines")
    assert response.headers["content-type"] == "application/x-lines"
    assert response.body == b"1\n2\n"


def test_head_gets_the_negotiated_headers_without_a_body():
    response = get(csv_app(), "/rows", "text/csv", method="HEAD")
    assert response.status_code == 200
    assert response.headers["content-type"] == CSV and response.body == b""


# What is not negotiated.
def test_a_route_that_answers_only_json_has_no_vary_and_no_negotiation_in_its_entry():
    app = Framework()
    app.get("/plain", lambda request, reply: ROWS)
    response = get(app, "/plain", "text/csv")
    assert response.headers["content-type"] == JSON and "vary" not in response.headers
    entry = app.explain("GET", "/plain")["entry"]
    assert "Negotiation" not in entry and "the JSON answer" in entry


def test_a_negotiating_route_leaves_the_inlined_json_answer_for_the_reply():
    app = csv_app()
    entry = app.explain("GET", "/rows")["entry"]
    assert "the JSON answer" not in entry and "Negotiation" not in entry  # only strict routes have a step
    strict = csv_app()
    strict.get("/strict", lambda request, reply: ROWS, strict_accept=True)
    assert "Negotiation" in strict.explain("GET", "/strict")["entry"]


def test_a_content_type_set_by_the_handler_is_kept_and_nothing_varies():
    app = csv_app()

    @app.get("/mine")
    def mine(request, reply):
        reply.type("application/vnd.mine+json")
        return {"a": 1}

    response = get(app, "/mine", "text/csv")
    assert response.headers["content-type"] == "application/vnd.mine+json"
    assert response.json() == {"a": 1} and "vary" not in response.headers


def test_text_and_bytes_a_handler_returns_are_not_negotiated():
    app = csv_app()
    app.get("/text", lambda request, reply: "hello")
    response = get(app, "/text", "text/csv")
    assert response.headers["content-type"] == "text/plain; charset=utf-8" and response.text == "hello"


def test_reply_serializer_wins_over_negotiation():
    app = csv_app()

    @app.get("/own")
    def own(request, reply):
        reply.serializer(lambda payload: "own")
        return ROWS

    response = get(app, "/own", "text/csv")
    assert response.text == "own" and response.headers["content-type"] == JSON


def test_an_error_on_a_negotiating_route_is_answered_as_json():
    app = csv_app()
    app.get("/checked", {"schema": {"querystring": {"type": "object", "properties": {"n": {"type": "integer"}}}}},
            lambda request, reply: ROWS)
    response = get(app, "/checked?n=x", "text/csv")
    assert response.status_code == 400
    assert response.headers["content-type"] == JSON and response.json()["code"] == "FST_ERR_VALIDATION"


def test_a_failing_serializer_is_a_500_without_its_text():
    app = Framework()

    def broken(payload):
        raise ValueError("secret internals")

    app.add_response_serializer("text/csv", broken)
    app.get("/rows", lambda request, reply: ROWS)
    response = get(app, "/rows", "text/csv")
    assert response.status_code == 500 and "secret" not in response.text
    assert response.headers["content-type"] == JSON


def test_vary_accept_joins_a_vary_already_set():
    app = csv_app()
    app.add_hook("on_request", lambda request, reply: reply.header("vary", "Origin"))
    assert get(app, "/rows", "text/csv").headers["vary"] == "Origin, Accept"
    app2 = csv_app()
    app2.add_hook("on_request", lambda request, reply: reply.header("vary", "accept"))
    assert get(app2, "/rows", "text/csv").headers["vary"] == "accept"


# Response content maps.
ITEM = {"type": "object", "properties": {"id": {"type": "integer"}}}
API_ITEM = {"type": "object", "properties": {"data": {"type": "object", "properties": {"id": {"type": "integer"}}}}}


def content_app():
    app = Framework()
    schema = {"response": {200: {"content": {"application/json": {"schema": ITEM},
                                             "application/vnd.api+json": {"schema": API_ITEM}}}}}
    app.get("/item", {"schema": schema}, lambda request, reply: {"id": 1, "data": {"id": 1, "x": 2}, "secret": 3})
    return app


def test_a_content_map_media_type_is_chosen_by_accept_with_its_schema():
    app = content_app()
    as_json = get(app, "/item")
    assert as_json.headers["content-type"] == JSON and as_json.json() == {"id": 1}
    api = get(app, "/item", "application/vnd.api+json")
    assert api.headers["content-type"].startswith("application/vnd.api+json")
    assert api.json() == {"data": {"id": 1}}
    assert api.headers["vary"] == "Accept"


def test_a_content_map_entry_beats_a_registered_serializer_of_the_same_type():
    app = Framework()
    app.add_response_serializer("application/vnd.api+json", lambda payload: "registered")
    schema = {"response": {200: {"content": {"application/vnd.api+json": {"schema": ITEM}}}}}
    app.get("/item", {"schema": schema}, lambda request, reply: {"id": 1, "secret": 3})
    app.get("/other", lambda request, reply: {"id": 1})
    assert get(app, "/item", "application/vnd.api+json").json() == {"id": 1}
    assert get(app, "/other", "application/vnd.api+json").text == "registered"


def test_a_media_type_only_an_error_status_declares_is_no_candidate():
    app = Framework()
    schema = {"response": {200: ITEM, 404: {"content": {"application/problem+json": {"schema": ITEM}}}}}
    app.get("/item", {"schema": schema}, lambda request, reply: {"id": 1})
    response = get(app, "/item", "application/problem+json")
    assert response.headers["content-type"] == JSON and "vary" not in response.headers


# Strictness.
def strict_app(**options):
    app = csv_app(**options)
    calls = []

    @app.get("/strict", strict_accept=True)
    def strict(request, reply):
        calls.append(1)
        return ROWS

    return app, calls


def test_strict_accept_answers_406_before_the_handler_listing_the_media_types():
    app, calls = strict_app()
    response = get(app, "/strict", "image/png, text/html")
    assert response.status_code == 406
    assert response.headers["content-type"] == JSON
    assert response.headers["vary"] == "Accept"
    assert response.json() == {"statusCode": 406, "code": "FST_ERR_NOT_ACCEPTABLE", "error": "Not Acceptable",
                               "message": "Not Acceptable: this route answers application/json, text/csv"}
    assert calls == []


@pytest.mark.parametrize("accept", [None, "*/*", "text/csv", "text/html, application/json;q=0.1"])
def test_strict_accept_answers_an_accept_it_can_meet(accept):
    app, calls = strict_app()
    assert get(app, "/strict", accept).status_code == 200
    assert calls == [1]


def test_strict_accept_406_is_a_problem_document_in_problem_json_style():
    app, _ = strict_app(errors="problem+json")
    response = get(app, "/strict", "image/png")
    assert response.status_code == 406
    assert response.headers["content-type"] == "application/problem+json; charset=utf-8"
    document = response.json()
    assert document["status"] == 406 and document["title"] == "Not Acceptable"
    assert document["code"] == "FST_ERR_NOT_ACCEPTABLE" and document["instance"] == "/strict"
    assert "application/json, text/csv" in document["detail"]


def test_strict_accept_on_a_json_only_route():
    app = Framework()
    app.get("/json", lambda request, reply: {"a": 1}, strict_accept=True)
    assert get(app, "/json", "text/html").status_code == 406
    response = get(app, "/json", "application/json")
    assert response.status_code == 200 and response.json() == {"a": 1}


def test_strict_accept_must_be_a_bool():
    app = Framework()
    with pytest.raises(TypeError, match="strict_accept option of route GET:/x must be True or False"):
        app.get("/x", lambda request, reply: {}, strict_accept="yes")


def test_strict_accept_is_refused_on_a_mount_and_a_mount_is_not_negotiated():
    def wsgi(environ, start_response):
        start_response("200 OK", [("content-type", "text/plain")])
        return [b"mounted"]

    app = csv_app()
    with pytest.raises(ValueError, match="strict_accept does not apply to a mounted application"):
        app.mount("/legacy", wsgi, strict_accept=True)
    app.mount("/old", wsgi)
    response = get(app, "/old/x", "text/csv")
    assert response.text == "mounted" and "vary" not in response.headers


# Encapsulation.
def test_a_child_sees_its_ancestors_serializers_and_siblings_do_not_see_each_others():
    app = Framework()
    app.add_response_serializer("text/csv", to_csv)

    def yaml_plugin(instance, opts):
        instance.add_response_serializer("application/yaml", lambda rows: "- yaml\n")
        instance.get("/rows", lambda request, reply: ROWS)

    def sibling(instance, opts):
        instance.get("/rows", lambda request, reply: ROWS)

    app.register(yaml_plugin, prefix="/yaml")
    app.register(sibling, prefix="/sibling")
    assert get(app, "/yaml/rows", "application/yaml").text == "- yaml\n"
    assert get(app, "/yaml/rows", "text/csv").text == "1,ada\n2,bob\n"
    assert get(app, "/sibling/rows", "text/csv").text == "1,ada\n2,bob\n"
    assert get(app, "/sibling/rows", "application/yaml").headers["content-type"] == JSON


def test_a_child_may_replace_an_ancestors_serializer_and_the_parent_keeps_its_own():
    app = csv_app()

    def plugin(instance, opts):
        instance.add_response_serializer("text/csv", lambda rows: "child\n")
        instance.get("/rows", lambda request, reply: ROWS)

    app.register(plugin, prefix="/child")
    assert get(app, "/child/rows", "text/csv").text == "child\n"
    assert get(app, "/rows", "text/csv").text == "1,ada\n2,bob\n"


# Registration.
@pytest.mark.parametrize("media_type", ["text/*", "*/*", "csv", "", None, "text/csv extra"])
def test_a_media_type_that_is_no_concrete_type_is_refused(media_type):
    with pytest.raises(ResponseSerializerInvalidError, match="a media type is type/subtype"):
        Framework().add_response_serializer(media_type, to_csv)


def test_json_and_non_callables_and_duplicates_and_late_registrations_are_refused():
    app = Framework()
    with pytest.raises(ResponseSerializerInvalidError, match="JSON is the built-in serialization"):
        app.add_response_serializer("application/json; charset=utf-8", to_csv)
    with pytest.raises(ResponseSerializerInvalidError, match="must be a function"):
        app.add_response_serializer("text/csv", "csv")
    app.add_response_serializer("text/csv", to_csv)
    with pytest.raises(ResponseSerializerAlreadyPresentError, match="'text/csv' already present"):
        app.add_response_serializer("Text/CSV; charset=utf-8", to_csv)
    app.ready()
    with pytest.raises(InstanceAlreadyStartedError):
        app.add_response_serializer("application/yaml", to_csv)


# OpenAPI.
def test_openapi_lists_registered_media_types_as_response_content_and_406_for_strict_routes():
    from openapi_spec_validator import validate

    from framework.plugins.openapi import ERROR_SCHEMA, openapi
    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"})

    def reports(instance, opts):
        instance.add_response_serializer("text/csv", to_csv)
        instance.get("/rows", {"schema": {"response": {200: {"type": "array", "items": ITEM}}}},
                     lambda request, reply: ROWS)
        instance.get("/bare", lambda request, reply: ROWS, strict_accept=True)

    app.register(reports)
    app.get("/plain", lambda request, reply: ROWS)
    app.ready()
    document = app.openapi()
    validate(document)
    rows = document["paths"]["/rows"]["get"]["responses"]
    assert list(rows["200"]["content"]) == ["application/json", "text/csv"]
    assert rows["200"]["content"]["text/csv"] == {}
    bare = document["paths"]["/bare"]["get"]["responses"]
    assert list(bare["default"]["content"]) == ["application/json", "text/csv"]
    assert bare["406"]["content"]["application/json"]["schema"] == {"$ref": f"#/components/schemas/{ERROR_SCHEMA}"}
    assert "content" not in document["paths"]["/plain"]["get"]["responses"]["default"]
