"""framework.plugins.rate_limit on a real redis-server, through inject: counters shared by
two applications, each strategy, and the store stopped mid-test (fail open, fail closed:
logged once, never a 500) and started again (limits apply again, logged once)."""
from __future__ import annotations

import logging
import time
import uuid

import pytest
import redis

from framework import Framework
from framework.plugins.rate_limit import STRATEGY_NAMES, rate_limit
from redis_server import redis_server

OK = lambda request, reply: {"ok": True}  # noqa: E731 - a handler


@pytest.fixture
def redis_url():
    with redis_server() as url:
        yield url


def app_on(url: str, **options) -> Framework:
    app = Framework()
    app.register(rate_limit, storage=url, key=lambda request: request.headers.get("x-client"), **options)
    app.get("/", OK)
    return app


def stop(url: str, timeout: float = 10) -> None:
    """Stop the redis-server at ``url`` (SHUTDOWN: it exits; nothing is saved), and wait
    until its port refuses connections."""
    try:
        redis.from_url(url).shutdown(nosave=True)
    except redis.ConnectionError:  # (some redis-py versions report the connection it closes)
        pass
    deadline = time.monotonic() + timeout
    while answers(url):
        assert time.monotonic() < deadline, "redis-server still answers after SHUTDOWN"
        time.sleep(0.05)


def answers(url: str) -> bool:
    try:
        return bool(redis.from_url(url, socket_timeout=1, socket_connect_timeout=1).ping())
    except redis.ConnectionError:
        return False


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def store_records(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.getMessage().startswith("rate_limit: the store")]


@pytest.mark.parametrize("strategy", STRATEGY_NAMES)
def test_two_applications_on_one_redis_share_the_counters(redis_url, strategy):
    # Two "machines": each application counts in the same Redis keys.
    first, second = app_on(redis_url, limit="5/hour", strategy=strategy), \
        app_on(redis_url, limit="5/hour", strategy=strategy)
    client = {"x-client": uuid.uuid4().hex}
    statuses = [(first if n % 2 else second).inject(url="/", headers=client).status_code for n in range(8)]
    assert statuses == [200] * 5 + [429] * 3
    refused = first.inject(url="/", headers=client)
    assert refused.status_code == 429 and refused.headers["ratelimit-remaining"] == "0"
    assert int(refused.headers["retry-after"]) >= 1
    other = {"x-client": uuid.uuid4().hex}
    assert second.inject(url="/", headers=other).headers["ratelimit-remaining"] == "4"


def test_counters_live_under_the_namespace(redis_url):
    app = app_on(redis_url, limit="5/hour", namespace="shop-eu")
    assert app.inject(url="/", headers={"x-client": "c1"}).status_code == 200
    keys = [key.decode() for key in redis.from_url(redis_url).keys("*")]
    assert len(keys) == 1 and "shop-eu" in keys[0] and "c1" in keys[0]
    other = app_on(redis_url, limit="5/hour", namespace="shop-us")
    assert other.inject(url="/", headers={"x-client": "c1"}).headers["ratelimit-remaining"] == "4"


def test_store_down_fails_open_logged_once_then_limits_again_when_it_is_back(redis_url, caplog):
    caplog.set_level(logging.INFO, logger="framework")
    app = app_on(redis_url, limit="2/hour")
    client = {"x-client": "open"}
    assert [app.inject(url="/", headers=client).status_code for _ in range(3)] == [200, 200, 429]
    stop(redis_url)
    answers = [app.inject(url="/", headers=client) for _ in range(6)]
    assert {answer.status_code for answer in answers} == {200}  # served unlimited, never a 500
    assert not any(name.lower().startswith("ratelimit") for name, _ in answers[0].headers.items())
    records = store_records(caplog)
    assert len(records) == 1 and records[0].levelno == logging.WARNING
    assert "cannot be reached" in records[0].getMessage() and "serving requests unlimited" in records[0].getMessage()
    with redis_server(port=port_of(redis_url)):  # the same URL again, an empty store
        assert [app.inject(url="/", headers=client).status_code for _ in range(3)] == [200, 200, 429]
        assert [app.inject(url="/", headers={"x-client": "new"}).status_code for _ in range(3)] == [200, 200, 429]
    records = store_records(caplog)
    assert len(records) == 2 and records[1].levelno == logging.INFO and "answers again" in records[1].getMessage()


def test_store_down_fails_closed_with_503_when_asked(redis_url, caplog):
    caplog.set_level(logging.INFO, logger="framework")
    app = app_on(redis_url, limit="2/hour", on_store_error="closed")
    assert app.inject(url="/", headers={"x-client": "closed"}).status_code == 200
    stop(redis_url)
    answers = [app.inject(url="/", headers={"x-client": "closed"}) for _ in range(4)]
    assert {answer.status_code for answer in answers} == {503}
    body = answers[0].json()
    assert body == {"statusCode": 503, "code": "FST_RATE_LIMIT_STORE_UNAVAILABLE", "error": "Service Unavailable",
                    "message": "rate limit store unavailable, try again later"}
    assert "127.0.0.1" not in answers[0].text and "Connection" not in answers[0].text
    records = store_records(caplog)
    assert len(records) == 1 and "answering 503" in records[0].getMessage()
    with redis_server(port=port_of(redis_url)):
        assert [app.inject(url="/", headers={"x-client": "closed"}).status_code for _ in range(3)] == [200, 200, 429]
    assert len(store_records(caplog)) == 2


def test_a_store_never_reached_fails_open_from_the_first_request(caplog):
    from servers import free_port

    caplog.set_level(logging.INFO, logger="framework")
    app = app_on(f"redis://:s3cret@127.0.0.1:{free_port()}/0", limit="1/hour")  # nothing listens there
    assert [app.inject(url="/").status_code for _ in range(3)] == [200, 200, 200]
    records = store_records(caplog)
    assert len(records) == 1
    assert "s3cret" not in records[0].getMessage() and ":***@127.0.0.1" in records[0].getMessage()


def test_storage_options_reach_the_redis_client(redis_url):
    app = app_on(redis_url, limit="1/hour", storage_options={"socket_timeout": 0.5, "health_check_interval": 5})
    assert [app.inject(url="/", headers={"x-client": "o"}).status_code for _ in range(2)] == [200, 429]
    app.ready()
    client = app.rate_limiter.store.storage.storage
    assert client.connection_pool.connection_kwargs["socket_timeout"] == 0.5
    assert client.connection_pool.connection_kwargs["socket_connect_timeout"] == 1.0  # the plugin's default
