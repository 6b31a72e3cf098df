"""trust_proxy: X-Forwarded-For/-Host/-Proto followed only from trusted hops."""
import pytest

from framework import Framework


def resolved(trust_proxy, remote="10.0.0.1", forwarded_for=None, host=None, proto=None):
    app = Framework(trust_proxy=trust_proxy)
    app.get("/", lambda request, reply: {"ip": request.ip, "ips": request.ips, "hostname": request.hostname,
                                         "protocol": request.protocol})
    environ = {"REMOTE_ADDR": remote, "HTTP_HOST": "internal:8000"}
    if forwarded_for is not None:
        environ["HTTP_X_FORWARDED_FOR"] = forwarded_for
    if host is not None:
        environ["HTTP_X_FORWARDED_HOST"] = host
    if proto is not None:
        environ["HTTP_X_FORWARDED_PROTO"] = proto
    return app.inject(url="/", **environ).json()


def test_untrusted_by_default():
    data = resolved(False, forwarded_for="1.2.3.4", host="example.com", proto="https")
    assert data == {"ip": "10.0.0.1", "ips": ["10.0.0.1"], "hostname": "internal:8000", "protocol": "http"}


def test_true_trusts_every_hop():
    data = resolved(True, forwarded_for="1.2.3.4, 5.6.7.8", host="example.com", proto="https")
    assert data == {"ip": "1.2.3.4", "ips": ["10.0.0.1", "5.6.7.8", "1.2.3.4"], "hostname": "example.com",
                    "protocol": "https"}
    assert resolved(True)["ip"] == "10.0.0.1"


def test_hop_count_takes_the_value_that_many_hops_from_the_right():
    # One proxy: the client may have sent a forged X-Forwarded-For; the proxy appended the real one.
    data = resolved(1, forwarded_for="6.6.6.6, 1.2.3.4", host="example.com", proto="https")
    assert data == {"ip": "1.2.3.4", "ips": ["10.0.0.1", "1.2.3.4"], "hostname": "example.com", "protocol": "https"}
    data = resolved(2, forwarded_for="6.6.6.6, 1.2.3.4, 172.16.0.9")
    assert (data["ip"], data["ips"]) == ("1.2.3.4", ["10.0.0.1", "172.16.0.9", "1.2.3.4"])


def test_hop_count_refuses_headers_with_fewer_values_than_hops():
    # Two proxies are configured but only one value arrived: nothing is trusted (werkzeug's ProxyFix).
    data = resolved(2, forwarded_for="1.2.3.4", host="example.com", proto="https")
    assert data == {"ip": "10.0.0.1", "ips": ["10.0.0.1"], "hostname": "internal:8000", "protocol": "http"}


def test_networks_trust_only_listed_hops():
    trusted = ["10.0.0.0/8", "192.168.1.1"]
    data = resolved(trusted, forwarded_for="6.6.6.6, 1.2.3.4, 192.168.1.1", host="example.com", proto="https")
    assert data == {"ip": "1.2.3.4", "ips": ["10.0.0.1", "192.168.1.1", "1.2.3.4"], "hostname": "example.com",
                    "protocol": "https"}
    # The socket's peer is not a trusted proxy: its headers are ignored entirely.
    data = resolved(trusted, remote="8.8.8.8", forwarded_for="1.2.3.4", host="example.com", proto="https")
    assert data == {"ip": "8.8.8.8", "ips": ["8.8.8.8"], "hostname": "internal:8000", "protocol": "http"}
    # Every hop trusted: the left-most address.
    assert resolved(trusted, forwarded_for="10.9.9.9, 10.1.1.1")["ip"] == "10.9.9.9"
    # A garbage entry is not trusted, so the walk stops there.
    assert resolved(trusted, forwarded_for="1.2.3.4, not-an-ip")["ip"] == "not-an-ip"
    assert resolved(["::1/128"], remote="::1", forwarded_for="2001:db8::1")["ip"] == "2001:db8::1"


def test_callable_decides_per_hop():
    seen = []

    def trust(address, hop):
        seen.append((address, hop))
        return hop < 2
    assert resolved(trust, forwarded_for="9.9.9.9, 1.2.3.4, 10.0.0.2")["ip"] == "1.2.3.4"
    assert seen == [("10.0.0.1", 0), ("10.0.0.2", 1), ("1.2.3.4", 2)]


@pytest.mark.parametrize("bad", [0, -1, ["not a network"], 1.5, object()])
def test_bad_trust_proxy_is_refused(bad):
    with pytest.raises((TypeError, ValueError)):
        Framework(trust_proxy=bad)


def test_request_logging_records_the_resolved_address(caplog):
    import logging
    app = Framework(trust_proxy=1, request_logging=True)
    app.get("/", lambda request, reply: {})
    with caplog.at_level(logging.INFO, logger="framework"):
        app.inject(url="/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4")
    [incoming] = [r for r in caplog.records if r.getMessage() == "incoming request"]
    assert incoming.remote_address == "1.2.3.4"
