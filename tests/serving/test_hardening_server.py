"""Hardening over real HTTP: gunicorn sync, gunicorn gthread and granian, raw sockets."""
import http.client
import json

import pytest

from servers import SERVERS, raw_get, serve, stop


@pytest.fixture(scope="module", params=SERVERS)
def server(request):
    port, process = serve(request.param, "hardening_app:app")
    yield request.param, port
    stop(process)


@pytest.mark.parametrize("path", ["/forge-value", "/forge-name"])
def test_no_forged_header_reaches_the_client(server, path):
    _, port = server
    head, body = raw_get(port, path)
    assert head.startswith(b"http/1.1 500")
    assert b"\r\nx-forged" not in head and b"\r\nx-a:" not in head
    assert b"content-type: application/json" in head
    assert json.loads(body)["code"] in ("FST_ERR_REP_INVALID_HEADER", "FST_ERR_REP_INVALID_HEADER_NAME")


def test_redirect_target_is_percent_encoded(server):
    _, port = server
    head, _ = raw_get(port, "/forge-redirect")
    assert head.startswith(b"http/1.1 302")
    assert b"\r\nlocation: /%e6%97%a5%e6%9c%ac%0d%0ax-forged:%201" in head
    assert b"\r\nx-forged" not in head


def test_set_cookie_lines_and_cookie_parsing(server):
    _, port = server
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/cookies", headers={"Cookie": "session=abc; theme=dark"})
    response = connection.getresponse()
    assert json.loads(response.read()) == {"cookies": {"session": "abc", "theme": "dark"}}
    cookies = response.msg.get_all("set-cookie")
    assert [cookie.split(";")[0] for cookie in cookies] == ["a=1", "b=2", "c="]
    assert "HttpOnly" in cookies[0] and "Max-Age=0" in cookies[2]
    assert response.msg.get_all("x-many") == ["1", "2"]
    connection.close()


def test_encoded_slash_is_not_a_separator(server):
    name, port = server
    if name == "granian":
        pytest.skip("granian gives no raw request URI (no RAW_URI/REQUEST_URI): it routes on the decoded PATH_INFO")
    head, body = raw_get(port, "/users%2F42")
    assert head.startswith(b"http/1.1 404")
    head, body = raw_get(port, "/users/a%2Fb")
    assert head.startswith(b"http/1.1 200") and json.loads(body) == {"id": "a/b"}


def test_werkzeug_response_runs_on_response(server):
    _, port = server
    head, body = raw_get(port, "/werkzeug")
    assert head.startswith(b"http/1.1 203") and body == b"from werkzeug"
    _, body = raw_get(port, "/answered")
    assert ["/werkzeug", 203] in json.loads(body)["answered"]


def test_over_limit_body_then_keep_alive(server):
    """A 413 (declared length over the limit, body sent) carries no hop-by-hop header from
    the app; the next request on the same connection is answered, or the server closed
    the connection and said so."""
    name, port = server
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/echo", body=json.dumps({"x": "y" * 2000}).encode(),
                       headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    assert response.status == 413
    assert json.loads(response.read())["code"] == "FST_ERR_CTP_BODY_TOO_LARGE"
    closes = (response.getheader("connection") or "").lower() == "close"
    if name == "gunicorn-gthread":
        assert not closes  # keep-alive survives the unread body
    sock = connection.sock
    try:
        connection.request("GET", "/hello")
        response = connection.getresponse()
    except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
        # granian (only) sometimes drops the connection after an answer that left the body
        # unread, without Connection: close (which the app may not send, PEP 3333); the
        # client then reconnects.
        assert name == "granian" and not closes
        connection.close()
        connection.request("GET", "/hello")
        response = connection.getresponse()
    assert response.status == 200 and json.loads(response.read()) == {"hello": "world"}
    if not closes and name != "granian":
        assert connection.sock is sock  # the same connection answered
    connection.close()
