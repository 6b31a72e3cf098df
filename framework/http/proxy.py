"""``Framework(trust_proxy=...)``: the client's address, host and scheme behind proxies.

``X-Forwarded-For``, ``X-Forwarded-Host`` and ``X-Forwarded-Proto`` are read only from
trusted hops; with ``trust_proxy=False`` (the default) they are ignored and
``request.ip`` is the socket's peer. The forms (Fastify's):

- ``True``: every hop is trusted: ``ip`` is the left-most ``X-Forwarded-For`` entry,
  ``hostname``/``protocol`` the last ``X-Forwarded-Host``/``-Proto`` entry.
- an ``int`` ``n``: ``n`` proxies in front of the app, each appending to the headers:
  werkzeug's ``ProxyFix(x_for=n, x_proto=n, x_host=n)`` decides, so a header with fewer
  than ``n`` values is ignored (a client cannot forge the value one of the proxies wrote).
- a list of addresses or networks (``["10.0.0.0/8", "127.0.0.1"]``, ``ipaddress``
  notation): a hop is trusted when its address is in one of them; ``ip`` is the first
  untrusted address walking from the socket's peer back through ``X-Forwarded-For``.
- a callable ``trust(address, hop_index) -> bool``, walked the same way (hop 0 is the
  socket's peer).

For the list and callable forms ``hostname``/``protocol`` follow the last
``X-Forwarded-Host``/``-Proto`` entry when the socket's peer is trusted. Headers are
split as werkzeug's ``ProxyFix`` splits them (``werkzeug.http.parse_list_header``).
``request.ips`` is the chain walked: the peer first, then ``X-Forwarded-For`` from right
to left, up to and including the first untrusted address.
"""
from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple, Sequence, cast

from werkzeug.http import parse_list_header
from werkzeug.middleware.proxy_fix import ProxyFix

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

#: ``trust(address, hop_index) -> bool``: whether a hop is trusted (hop 0 is the socket's peer).
Trust = Callable[[str, int], bool]


class Forwarded(NamedTuple):
    """The client as the trusted hops describe it (``request.forwarded``)."""

    #: The client's address (``None`` when the server gave no ``REMOTE_ADDR``).
    ip: str | None
    #: The addresses walked: the socket's peer first.
    ips: list[str]
    hostname: str
    protocol: str


def direct_forwarded(environ: dict[str, Any]) -> Forwarded:
    """The client as the socket shows it: no X-Forwarded-* header trusted."""
    remote = environ.get("REMOTE_ADDR")
    return Forwarded(remote, [remote] if remote else [],
                     environ.get("HTTP_HOST") or environ.get("SERVER_NAME", ""),
                     environ.get("wsgi.url_scheme", "http"))


def _last(value: str | None) -> str | None:
    if not value:
        return None
    values = parse_list_header(value)
    return values[-1] if values else None


class ProxyTrust:
    """How one application resolves forwarded headers (built once, from ``trust_proxy``)."""

    def __init__(self, trust_proxy: object) -> None:
        self.hops: int | None = None
        self.trust: Trust
        # ``trust_proxy`` comes from application code: every form is checked here, at start-up.
        if trust_proxy is True:
            self.trust = lambda address, index: True
        elif isinstance(trust_proxy, int) and not isinstance(trust_proxy, bool):
            if trust_proxy < 1:
                raise ValueError(f"trust_proxy as a hop count must be at least 1, got {trust_proxy!r}")
            self.hops = trust_proxy
            self.trust = lambda address, index: index < trust_proxy
        elif callable(trust_proxy):
            self.trust = cast(Trust, trust_proxy)
        elif isinstance(trust_proxy, (str, list, tuple, set, frozenset)):
            # Entries that are not text fail in the ``try`` below.
            entries: Sequence[str] = ([trust_proxy] if isinstance(trust_proxy, str)
                                      else list(cast("Iterable[str]", trust_proxy)))
            try:
                networks = tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries)
            except (ValueError, AttributeError, TypeError) as error:
                raise ValueError(f"trust_proxy: {error}") from None
            self.trust = lambda address, index: _in_networks(address, networks)
        else:
            raise TypeError("trust_proxy must be False, True, a hop count, a list of addresses/networks "
                            f"or a callable, got {trust_proxy!r}")

    def resolve(self, environ: dict[str, Any]) -> Forwarded:
        """The client's address chain, host and scheme for this request's environ."""
        direct = direct_forwarded(environ)
        hops = self.hops
        if hops is not None:
            return self._resolve_hops(environ, direct, hops)
        remote = direct.ip
        if remote is None or not self.trust(remote, 0):
            return direct
        forwarded_for = environ.get("HTTP_X_FORWARDED_FOR")
        chain = [remote] + list(reversed(parse_list_header(forwarded_for))) if forwarded_for else [remote]
        ips = [remote]
        for index in range(1, len(chain)):
            ips.append(chain[index])
            if not self.trust(chain[index], index):
                break
        return Forwarded(ips[-1], ips, _last(environ.get("HTTP_X_FORWARDED_HOST")) or direct.hostname,
                         _last(environ.get("HTTP_X_FORWARDED_PROTO")) or direct.protocol)

    def _resolve_hops(self, environ: dict[str, Any], direct: Forwarded, hops: int) -> Forwarded:
        seen: dict[str, Any] = {}
        keys = ("REMOTE_ADDR", "HTTP_HOST", "SERVER_NAME", "SERVER_PORT", "SCRIPT_NAME", "wsgi.url_scheme",
                "HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PROTO")
        copy = {key: environ[key] for key in keys if key in environ}

        def record(env: WSGIEnvironment, start: StartResponse) -> Iterable[bytes]:
            seen.update(env)
            return ()

        ProxyFix(record, x_for=hops, x_proto=hops, x_host=hops)(copy, _never_started)
        ip = seen.get("REMOTE_ADDR")
        ips: list[str]
        if ip != direct.ip:  # ProxyFix took X-Forwarded-For's value ``hops`` from the right
            values = parse_list_header(environ["HTTP_X_FORWARDED_FOR"])
            ips = [*direct.ips, *reversed(values[-hops:])]  # (no peer address: none listed)
        else:
            ips = direct.ips
        return Forwarded(ip, ips, seen.get("HTTP_HOST") or seen.get("SERVER_NAME", ""),
                         seen.get("wsgi.url_scheme", "http"))


def _never_started(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], object]:
    """The ``start_response`` handed to ``ProxyFix``, whose application (``record``) never calls it."""
    raise AssertionError("unreachable: the recording application starts no response")


def _in_networks(address: str, networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]) -> bool:
    try:
        parsed = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return False
    return any(parsed in network for network in networks if network.version == parsed.version)


def proxy_trust(trust_proxy: object) -> ProxyTrust | None:
    """``None`` when nothing is trusted (the request reads the environ directly)."""
    if trust_proxy is False or trust_proxy is None:
        return None
    return ProxyTrust(trust_proxy)
