"""framework.plugins.rate_limit through inject, on the memory store: exact counts, the 429
and its headers, keys, strategies, exemptions, per-route config, scoping by context,
option errors at ready(), and the 429 in the OpenAPI document."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.plugins.openapi import openapi
from framework.plugins.rate_limit import STRATEGY_NAMES, RateLimitOptionsError, rate_limit

OK = lambda request, reply: {"ok": True}  # noqa: E731 - a handler


def statuses(app: Framework, url: str, times: int, **inject) -> list[int]:
    return [app.inject(url=url, **inject).status_code for _ in range(times)]


def limited_app(**options) -> Framework:
    app = Framework()
    app.register(rate_limit, **options)
    app.get("/", OK)
    return app


def test_exactly_limit_requests_are_accepted_then_429_with_headers_and_error_body():
    app = limited_app(limit="3/hour")
    answers = [app.inject(url="/") for _ in range(5)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
    assert [a.headers["ratelimit-remaining"] for a in answers] == ["2", "1", "0", "0", "0"]
    assert all(a.headers["ratelimit-limit"] == "3" for a in answers)
    for answer in answers:
        assert 3590 <= int(answer.headers["ratelimit-reset"]) <= 3600
    assert "retry-after" not in answers[0].headers
    refused = answers[3]
    assert int(refused.headers["retry-after"]) == int(refused.headers["ratelimit-reset"])
    assert refused.headers["content-type"] == "application/json; charset=utf-8"
    body = refused.json()
    assert body["statusCode"] == 429 and body["code"] == "FST_RATE_LIMIT_EXCEEDED"
    assert body["error"] == "Too Many Requests"
    assert body["message"].startswith("rate limit exceeded (3 per 1 hour), retry in ")


def test_headers_false_leaves_accepted_answers_alone_but_not_the_429():
    app = limited_app(limit="1/hour", headers=False)
    first, second = app.inject(url="/"), app.inject(url="/")
    assert first.status_code == 200 and not any(name.lower().startswith("ratelimit") for name, _ in first.headers.items())
    assert second.status_code == 429 and second.headers["ratelimit-limit"] == "1"
    assert "retry-after" in second.headers


def test_the_default_key_is_the_client_address_as_trust_proxy_sees_it():
    app = Framework(trust_proxy=True)
    app.register(rate_limit, limit="2/hour")
    app.get("/", OK)
    one = {"x-forwarded-for": "203.0.113.1"}
    two = {"x-forwarded-for": "203.0.113.2"}
    assert statuses(app, "/", 3, headers=one) == [200, 200, 429]
    assert statuses(app, "/", 3, headers=two) == [200, 200, 429]
    # Without trust_proxy the header is not believed: every request is the socket's peer.
    plain = limited_app(limit="2/hour")
    assert [plain.inject(url="/", headers=h).status_code for h in (one, two, one)] == [200, 200, 429]
    assert [plain.inject(url="/", REMOTE_ADDR="198.51.100.9").status_code for _ in range(3)] == [200, 200, 429]


def test_a_key_function_counts_by_what_it_returns_and_none_falls_back_to_the_address():
    app = limited_app(limit="2/hour", key=lambda request: request.headers.get("x-api-key"))
    assert statuses(app, "/", 3, headers={"x-api-key": "alpha"}) == [200, 200, 429]
    assert statuses(app, "/", 3, headers={"x-api-key": "beta"}) == [200, 200, 429]
    assert statuses(app, "/", 3) == [200, 200, 429]  # no key: by address
    long_key = "k" * 5000  # counted by its digest: no 5 kB store key
    assert statuses(app, "/", 3, headers={"x-api-key": long_key}) == [200, 200, 429]


def test_an_async_key_and_exempt_are_awaited():
    async def key(request):
        return request.headers.get("x-user")

    async def exempt(request):
        return request.headers.get("x-internal") == "yes"

    app = limited_app(limit="1/hour", key=key, exempt=exempt)
    assert statuses(app, "/", 2, headers={"x-user": "a"}) == [200, 429]
    assert statuses(app, "/", 2, headers={"x-user": "b"}) == [200, 429]
    internal = app.inject(url="/", headers={"x-user": "a", "x-internal": "yes"})
    assert internal.status_code == 200 and "ratelimit-limit" not in internal.headers


def test_a_key_function_returning_something_else_than_a_string_is_an_error_not_a_count():
    app = limited_app(limit="1/hour", key=lambda request: 42)
    answer = app.inject(url="/")
    assert answer.status_code == 500 and "42" not in answer.text


def test_exempt_requests_are_not_counted_and_carry_no_headers():
    app = limited_app(limit="2/hour", exempt=lambda request: request.headers.get("x-health") == "1")
    for _ in range(5):
        exempt = app.inject(url="/", headers={"x-health": "1"})
        assert exempt.status_code == 200 and "ratelimit-remaining" not in exempt.headers
    assert statuses(app, "/", 3) == [200, 200, 429]


@pytest.mark.parametrize("strategy", STRATEGY_NAMES)
def test_each_strategy_accepts_exactly_the_limit(strategy):
    app = limited_app(limit="4/hour", strategy=strategy)
    answers = [app.inject(url="/") for _ in range(6)]
    assert [a.status_code for a in answers] == [200] * 4 + [429] * 2
    assert [a.headers["ratelimit-remaining"] for a in answers[:4]] == ["3", "2", "1", "0"]
    assert int(answers[-1].headers["retry-after"]) >= 1


def test_the_installed_limits_has_the_three_strategies():
    assert set(STRATEGY_NAMES) >= {"fixed-window", "moving-window", "sliding-window-counter"}


def test_routes_of_a_registration_share_one_counter_and_a_route_config_has_its_own():
    app = Framework()
    app.register(rate_limit, limit="3/hour")
    app.get("/a", OK)
    app.get("/b", OK)
    app.post("/login", OK, config={"rate_limit": {"limit": "1/hour"}})
    app.get("/short", OK, config={"rate_limit": "2/hour"})
    app.get("/health", OK, config={"rate_limit": False})
    assert [app.inject(url=u).status_code for u in ("/a", "/b", "/a", "/b")] == [200, 200, 200, 429]
    assert [app.inject(method="POST", url="/login").status_code for _ in range(2)] == [200, 429]
    assert statuses(app, "/short", 3) == [200, 200, 429]
    health = [app.inject(url="/health") for _ in range(5)]
    assert {a.status_code for a in health} == {200} and "ratelimit-limit" not in health[0].headers


def test_a_route_config_may_change_the_key_strategy_and_exempt():
    app = Framework()
    app.register(rate_limit, limit="1/hour")
    app.get("/by-user", OK, config={"rate_limit": {
        "key": lambda request: request.headers["x-user"], "strategy": "moving-window",
        "exempt": lambda request: request.headers["x-user"] == "root"}})
    assert statuses(app, "/by-user", 2, headers={"x-user": "a"}) == [200, 429]
    assert statuses(app, "/by-user", 2, headers={"x-user": "b"}) == [200, 429]
    assert statuses(app, "/by-user", 3, headers={"x-user": "root"}) == [200, 200, 200]


def test_a_registration_without_limit_limits_only_the_routes_that_give_one():
    app = Framework()
    app.register(rate_limit)
    app.get("/open", OK)
    app.get("/login", OK, config={"rate_limit": {"limit": "1/hour"}})
    assert statuses(app, "/open", 5) == [200] * 5
    assert statuses(app, "/login", 2) == [200, 429]


def test_head_requests_count_with_their_get_route():
    app = limited_app(limit="2/hour")
    assert app.inject(method="HEAD", url="/").status_code == 200
    assert statuses(app, "/", 2) == [200, 429]


def test_scoped_to_the_registering_context_and_descendants_whenever_routes_are_declared():
    app = Framework()

    def api(instance, opts):
        instance.get("/before", OK)  # declared before the plugin loads

        def nested(inner, opts):
            inner.get("/nested", OK)

        instance.register(nested, prefix="/nested")  # loads before rate_limit
        instance.register(rate_limit, limit="2/hour")
        instance.get("/after", OK)

        def later(inner, opts):
            inner.get("/later", OK)

        instance.register(later, prefix="/later")  # loads after rate_limit

    app.register(api, prefix="/api")
    app.get("/public", OK)

    def sibling(instance, opts):
        instance.get("/x", OK)

    app.register(sibling, prefix="/sibling")
    for url in ("/api/before", "/api/nested/nested", "/api/after", "/api/later/later"):
        assert app.inject(url=url).headers["ratelimit-limit"] == "2", url
    assert app.inject(url="/api/after").status_code == 429  # one counter for the registration
    assert statuses(app, "/public", 4) == [200] * 4
    assert statuses(app, "/sibling/x", 4) == [200] * 4


def test_a_nested_registration_decides_alone_for_its_routes():
    app = Framework()

    def strict(instance, opts):
        instance.register(rate_limit, limit="1/hour")
        instance.get("/s", OK)

    app.register(strict, prefix="/strict")  # loads before the root's registration
    app.register(rate_limit, limit="3/hour")
    app.get("/r", OK)

    def loose(instance, opts):
        instance.get("/l", OK)
        instance.register(rate_limit, limit="5/hour")

    app.register(loose, prefix="/loose")
    assert statuses(app, "/strict/s", 2) == [200, 429]
    assert statuses(app, "/loose/l", 6) == [200] * 5 + [429]
    assert statuses(app, "/r", 4) == [200, 200, 200, 429]  # the root's counter saw none of them


def test_registering_twice_in_one_context_is_refused():
    app = Framework()
    app.register(rate_limit, limit="1/hour")
    app.register(rate_limit, limit="2/hour")
    with pytest.raises(RateLimitOptionsError, match="registered twice in one context"):
        app.ready()


def test_pre_handler_hook_sees_what_an_earlier_hook_set():
    app = Framework()
    app.decorate_request("user", None)

    def authenticate(request, reply):
        request.user = request.headers.get("x-user")

    app.add_hook("pre_validation", authenticate)
    app.register(rate_limit, limit="1/hour", hook="pre_handler", key=lambda request: request.user)
    app.get("/", OK)
    assert statuses(app, "/", 2, headers={"x-user": "ann"}) == [200, 429]
    assert statuses(app, "/", 2, headers={"x-user": "bob"}) == [200, 429]


@pytest.mark.parametrize("options, message", [
    ({"limit": "lots"}, "limit 'lots' is not a rate limit"),
    ({"limit": 100}, "limit has to be a string"),
    ({"limit": "0/minute"}, "lets no request through"),
    ({"limit": "1/second;10/minute"}, "gives 2 limits; give one"),
    ({"limit": "1/hour", "strategy": "leaky-bucket"}, "strategy 'leaky-bucket' is not one of"),
    ({"limit": "1/hour", "strategy": ["fixed-window"]}, r"strategy \['fixed-window'\] is not one of"),
    ({"limit": "1/hour", "storage": "nosuch://x"}, "storage 'nosuch://x'"),
    ({"limit": "1/hour", "storage": 6379}, "storage has to be a limits storage URI"),
    ({"limit": "1/hour", "storage": "async+memory://"}, "is an asyncio storage"),
    ({"limit": "1/hour", "storage_options": [1]}, "storage_options has to be a dict"),
    ({"limit": "1/hour", "on_store_error": "ignore"}, "on_store_error has to be 'open'"),
    ({"limit": "1/hour", "hook": "on_send"}, "hook has to be one of"),
    ({"limit": "1/hour", "key": "x-api-key"}, "key has to be a function"),
    ({"limit": "1/hour", "exempt": True}, "exempt has to be a function"),
    ({"limit": "1/hour", "headers": "yes"}, "headers has to be True or False"),
    ({"limit": "1/hour", "namespace": ""}, "namespace has to be a non-empty string"),
    ({"limit": "1/hour", "limt": "2/hour"}, "unknown option"),
])
def test_bad_options_fail_ready_clearly(options, message):
    app = limited_app(**options)
    with pytest.raises(RateLimitOptionsError, match=message):
        app.ready()


@pytest.mark.parametrize("config, message", [
    ({"limit": "soon"}, r"limit \(route GET /x\) 'soon' is not a rate limit"),
    ({"limti": "1/hour"}, r"unknown option\(s\) limti \(route GET /x\)"),
    ({"strategy": "token-bucket"}, "strategy .* 'token-bucket' is not one of"),
    ({"strategy": {}}, r"strategy .* \{\} is not one of"),
    ({"key": "ip"}, r"key \(route GET /x\) has to be a function"),
    ({}, "gives no limit, and the nearest registration of rate_limit has none"),
    (7, "has to be a dict of options, a limit string or False"),
])
@pytest.mark.parametrize("declared", ["before", "after"])
def test_bad_route_config_fails_ready_naming_the_route(config, message, declared):
    app = Framework()
    if declared == "before":
        app.get("/x", OK, config={"rate_limit": config})
    app.register(rate_limit)
    if declared == "after":
        app.get("/x", OK, config={"rate_limit": config})
    with pytest.raises(RateLimitOptionsError, match=message):
        app.ready()


def test_a_route_config_without_limit_takes_a_nearer_registrations_limit():
    app = Framework()
    app.register(rate_limit)  # no limit here...

    def child(instance, opts):
        instance.register(rate_limit, limit="1/hour")  # ...one here
        instance.get("/x", OK, config={"rate_limit": {"key": lambda request: "everyone"}})

    app.register(child, prefix="/c")
    assert statuses(app, "/c/x", 2) == [200, 429]


def test_openapi_documents_the_429_of_limited_routes_only():
    from openapi_spec_validator import validate

    app = Framework()
    app.register(openapi, info={"title": "t", "version": "1"})

    def api(instance, opts):
        instance.register(rate_limit, limit="10/minute", on_store_error="closed")
        instance.get("/items", OK)
        instance.get("/health", OK, config={"rate_limit": False})

    app.register(api, prefix="/api")
    app.get("/free", OK)
    app.ready()
    document = app.openapi()
    validate(document)
    limited = document["paths"]["/api/items"]["get"]["responses"]
    assert limited["429"]["description"] == "Too Many Requests (limit: 10 per 1 minute)"
    assert set(limited["429"]["headers"]) == {"Retry-After", "RateLimit-Limit", "RateLimit-Remaining",
                                              "RateLimit-Reset"}
    assert limited["429"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/FrameworkError"}
    assert "503" in limited  # on_store_error="closed"
    assert "FrameworkError" in document["components"]["schemas"]
    assert "429" not in document["paths"]["/api/health"]["get"]["responses"]
    assert "429" not in document["paths"]["/free"]["get"]["responses"]


def test_a_route_that_declares_its_own_429_keeps_it_in_the_document():
    app = Framework()
    app.register(openapi)
    app.register(rate_limit, limit="1/hour")
    app.get("/", OK, schema={"response": {"4xx": {"description": "client errors", "type": "object"}}})
    app.ready()
    responses = app.openapi()["paths"]["/"]["get"]["responses"]
    assert "429" not in responses and "4XX" in responses


def test_instance_rate_limiter_is_the_nearest_registration():
    app = Framework()
    app.register(rate_limit, limit="7/hour")
    seen = {}

    def child(instance, opts):
        seen["limiter"] = instance.rate_limiter

    app.register(child)
    app.ready()
    assert seen["limiter"] is app.rate_limiter and str(app.rate_limiter.item) == "7 per 1 hour"


def test_route_config_of_routes_declared_after_the_plugins_loaded_is_settled_by_the_nearest():
    app = Framework()
    app.register(rate_limit)  # no limit

    def child(instance, opts):
        instance.register(rate_limit, limit="1/hour")

        def grandchild(inner, opts):  # its routes are declared once both registrations loaded
            inner.get("/x", OK, config={"rate_limit": {"key": lambda request: "all"}})

        instance.register(grandchild)

    app.register(child, prefix="/c")
    assert statuses(app, "/c/x", 2) == [200, 429]

    lonely = Framework()
    lonely.register(rate_limit)

    def late(instance, opts):
        instance.get("/y", OK, config={"rate_limit": {"key": lambda request: "all"}})

    lonely.register(late)
    with pytest.raises(RateLimitOptionsError, match=r"\(route GET /y\) gives no limit"):
        lonely.ready()


def test_a_storage_instance_is_used_as_given():
    from limits.storage import MemoryStorage

    shared = MemoryStorage()
    first, second = limited_app(limit="2/hour", storage=shared), limited_app(limit="2/hour", storage=shared)
    assert [app.inject(url="/").status_code for app in (first, second, first)] == [200, 200, 429]
    refused = limited_app(limit="2/hour", storage=shared, storage_options={"socket_timeout": 1})
    with pytest.raises(RateLimitOptionsError, match="storage_options applies to a storage URI"):
        refused.ready()
