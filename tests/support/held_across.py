"""Concurrent requests to several servers at once (``held_requests`` of servers.py, across
ports): the rate-limit tests send one burst to two gunicorn instances sharing a Redis."""
import http.client
import socket


def held_requests_across(ports, path, count_per_port, headers=None, timeout=20):
    """``count_per_port`` requests for ``path`` to each of ``ports``, one connection each,
    all sent but the last CRLF of the head, then completed together; the answers as
    ``(port, status, headers)``."""
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}".encode()
    sockets = [(port, socket.create_connection(("127.0.0.1", port), timeout=timeout))
               for _ in range(count_per_port) for port in ports]
    try:
        for _, sock in sockets:
            sock.sendall(head)
        for _, sock in sockets:
            sock.sendall(b"\r\n")
        answers = []
        for port, sock in sockets:
            response = http.client.HTTPResponse(sock)
            response.begin()
            response.read()
            answers.append((port, response.status, {k.lower(): v for k, v in response.getheaders()}))
        return answers
    finally:
        for _, sock in sockets:
            sock.close()
