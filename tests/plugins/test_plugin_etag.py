"""framework.plugins.etag through inject: tags, 304 on If-None-Match (weak comparison, *),
If-Modified-Since, per-route config, request.precondition's 412s, 428, scoping, OpenAPI."""
from __future__ import annotations

import datetime
import hashlib

import pytest

from framework import Framework
from framework.plugins.etag import ETagOptionsError, body_tag, etag

ITEM = {"id": 1, "name": "lamp"}


def make(**options):
    app = Framework()
    app.register(etag, **options)
    app.get("/item", lambda request, reply: ITEM)
    return app


def test_a_200_json_answer_gets_the_strong_hash_of_its_body():
    answer = make().inject(url="/item")
    assert answer.status_code == 200
    expected = '"' + hashlib.blake2b(answer.body, digest_size=16).hexdigest() + '"'
    assert answer.headers["etag"] == expected == body_tag(answer.body)


def test_sha256_and_weak_tags():
    answer = make(algorithm="sha256", weak=True).inject(url="/item")
    assert answer.headers["etag"] == 'W/"' + hashlib.sha256(answer.body).hexdigest()[:32] + '"'


@pytest.mark.parametrize("header", ["{tag}", "W/{tag}", '"other", {tag}', "*"])
def test_if_none_match_naming_the_tag_is_a_304_without_body_keeping_the_etag(header):
    app = make()
    tag = app.inject(url="/item").headers["etag"]
    answer = app.inject(url="/item", headers={"if-none-match": header.format(tag=tag)})
    assert answer.status_code == 304
    assert answer.body == b""
    assert answer.headers["etag"] == tag
    assert "content-type" not in answer.headers and "content-length" not in answer.headers


def test_head_is_answered_304_too():
    app = make()
    tag = app.inject(url="/item").headers["etag"]
    assert app.inject(method="HEAD", url="/item", headers={"if-none-match": tag}).status_code == 304


def test_an_other_tag_gets_the_full_answer():
    answer = make().inject(url="/item", headers={"if-none-match": '"nope", W/"neither"'})
    assert answer.status_code == 200 and answer.json() == ITEM


def test_other_statuses_are_not_tagged():
    app = Framework()
    app.register(etag)
    app.get("/created", lambda request, reply: reply.code(201).send(ITEM))
    app.get("/missing", lambda request, reply: reply.code(404).send({"error": "no"}))
    assert "etag" not in app.inject(url="/created").headers
    answer = app.inject(url="/missing", headers={"if-none-match": "*"})
    assert answer.status_code == 404 and "etag" not in answer.headers


def test_a_tag_the_handler_set_is_kept_and_compared():
    app = Framework()
    app.register(etag)
    app.get("/v", lambda request, reply: reply.header("etag", '"v7"').send(ITEM))
    assert app.inject(url="/v").headers["etag"] == '"v7"'
    assert app.inject(url="/v", headers={"if-none-match": '"v7"'}).status_code == 304


def test_if_modified_since_against_the_handlers_last_modified():
    app = Framework()
    app.register(etag)
    stamp = "Wed, 21 Oct 2015 07:28:00 GMT"
    app.get("/lm", lambda request, reply: reply.header("last-modified", stamp).send(ITEM))
    assert app.inject(url="/lm", headers={"if-modified-since": stamp}).status_code == 304
    assert app.inject(url="/lm", headers={"if-modified-since": "Tue, 20 Oct 2015 07:28:00 GMT"}).status_code == 200
    assert app.inject(url="/lm", headers={"if-modified-since": "garbage"}).status_code == 200
    # If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2)
    answer = app.inject(url="/lm", headers={"if-modified-since": stamp, "if-none-match": '"x"'})
    assert answer.status_code == 200


def test_route_config_turns_it_off_or_on_or_computes_it():
    app = Framework()
    app.register(etag, routes="config")
    app.get("/plain", lambda request, reply: ITEM)
    app.get("/on", {"config": {"etag": True}}, lambda request, reply: ITEM)
    app.get("/versioned", {"config": {"etag": lambda request, payload: f"v{payload['id']}"}},
            lambda request, reply: ITEM)
    assert "etag" not in app.inject(url="/plain").headers
    assert app.inject(url="/on").headers["etag"].startswith('"')
    assert app.inject(url="/versioned").headers["etag"] == '"v1"'
    assert app.inject(url="/versioned", headers={"if-none-match": 'W/"v1"'}).status_code == 304

    other = make()
    other.get("/off", {"config": {"etag": False}}, lambda request, reply: ITEM)
    assert "etag" not in other.inject(url="/off").headers


def test_scoped_to_the_registering_context():
    app = Framework()

    def tagged(instance, opts):
        instance.register(etag)
        instance.get("/in", lambda request, reply: ITEM)

    app.register(tagged, prefix="/t")
    app.get("/out", lambda request, reply: ITEM)
    assert "etag" in app.inject(url="/t/in").headers
    assert "etag" not in app.inject(url="/out").headers


def test_routes_declared_before_the_plugin_loaded_get_it():
    app = Framework()
    app.get("/early", lambda request, reply: ITEM)
    app.register(etag)
    assert "etag" in app.inject(url="/early").headers


@pytest.mark.parametrize("options", [{"algorithm": "md5"}, {"weak": "yes"}, {"routes": "some"}, {"colour": 1}])
def test_bad_options_fail_ready(options):
    app = Framework()
    app.register(etag, **options)
    with pytest.raises(ETagOptionsError):
        app.ready()


def test_bad_route_config_fails_ready():
    app = Framework()
    app.register(etag)
    app.get("/x", {"config": {"etag": "yes"}}, lambda request, reply: ITEM)
    with pytest.raises(ETagOptionsError):
        app.ready()


# Preconditions on unsafe methods.
STORE = {"tag": '"r1"', "modified": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)}


def preconditions_app(config=None):
    app = Framework()
    app.register(etag)

    def update(request, reply):
        exists = request.query.get("missing") is None
        request.precondition(STORE["tag"] if exists else None, last_modified=STORE["modified"])
        return {"updated": True}

    app.put("/doc", {"config": config or {"precondition": True}}, update)
    app.get("/doc", lambda request, reply: reply.header("etag", STORE["tag"]).send({"doc": 1}))
    return app


@pytest.mark.parametrize(("headers", "url", "status"), [
    ({}, "/doc", 200),
    ({"if-match": '"r1"'}, "/doc", 200),
    ({"if-match": '"r0", "r1"'}, "/doc", 200),
    ({"if-match": '"r0"'}, "/doc", 412),
    ({"if-match": 'W/"r1"'}, "/doc", 412),               # If-Match compares strongly
    ({"if-match": "*"}, "/doc", 200),
    ({"if-match": "*"}, "/doc?missing=1", 412),           # * needs the resource to exist
    ({"if-none-match": "*"}, "/doc", 412),                # do not overwrite an existing resource
    ({"if-none-match": "*"}, "/doc?missing=1", 200),      # create it
    ({"if-none-match": 'W/"r1"'}, "/doc", 412),
    ({"if-none-match": '"r0"'}, "/doc", 200),
    ({"if-unmodified-since": "Tue, 02 Jan 2024 03:04:05 GMT"}, "/doc", 200),
    ({"if-unmodified-since": "Mon, 01 Jan 2024 00:00:00 GMT"}, "/doc", 412),
    ({"if-unmodified-since": "not a date"}, "/doc", 200),
    ({"if-match": '"r1"', "if-unmodified-since": "Mon, 01 Jan 2024 00:00:00 GMT"}, "/doc", 200),  # If-Match wins
])
def test_precondition_on_put(headers, url, status):
    answer = preconditions_app().inject(method="PUT", url=url, headers=headers)
    assert answer.status_code == status, answer.body
    if status == 412:
        assert answer.json()["code"] == "FST_ETAG_PRECONDITION_FAILED"


def test_precondition_required_is_a_428_without_if_match():
    app = preconditions_app({"precondition": "required"})
    answer = app.inject(method="PUT", url="/doc")
    assert answer.status_code == 428 and answer.json()["code"] == "FST_ETAG_PRECONDITION_REQUIRED"
    assert app.inject(method="PUT", url="/doc", headers={"if-match": '"r1"'}).status_code == 200


def test_precondition_under_problem_json():
    app = Framework(errors="problem+json")
    app.register(etag)
    app.put("/doc", lambda request, reply: request.precondition('"a"') or {"ok": True})
    answer = app.inject(method="PUT", url="/doc", headers={"if-match": '"b"'})
    assert answer.status_code == 412
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["status"] == 412


def test_openapi_documents_304_and_412():
    pytest.importorskip("jsonschema")
    from framework.plugins.openapi import openapi
    app = preconditions_app({"precondition": "required"})
    app.register(openapi, route_prefix=None)
    app.ready()
    paths = app.openapi()["paths"]["/doc"]
    assert "304" in paths["get"]["responses"]
    assert {"412", "428"} <= set(paths["put"]["responses"])
    assert "304" not in paths["put"]["responses"]
    assert paths["put"]["responses"]["412"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/FrameworkError"}
    assert "FrameworkError" in app.openapi()["components"]["schemas"]


def test_openapi_documents_412_as_a_problem_under_problem_json():
    pytest.importorskip("jsonschema")
    from framework.plugins.openapi import openapi
    app = Framework(errors="problem+json")
    app.register(etag)
    app.put("/doc", {"config": {"precondition": True}}, lambda request, reply: {"ok": True})
    app.register(openapi, route_prefix=None)
    app.ready()
    response = app.openapi()["paths"]["/doc"]["put"]["responses"]["412"]
    assert list(response["content"]) == ["application/problem+json"]
