"""``Client``: a test client as ``requests.Session`` and ``httpx.Client`` users know one,
built on :func:`~framework.testing.inject` (no socket, no server, no thread).

A client keeps cookies between requests (the standard library's
``http.cookiejar.CookieJar``, which applies their domain, path, expiry and ``Secure``
rules), sends ``json=``, forms (``data=``) and multipart uploads (``files=``, encoded by
werkzeug), joins URLs to its base URL (whose path is the application's ``SCRIPT_NAME``),
and follows redirects when asked.
"""
from __future__ import annotations

import email.message
import io
import json as jsonlib
import urllib.request
from http.cookiejar import Cookie, CookieJar
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Union, cast
from urllib.parse import urlencode, urljoin, urlsplit

from typing_extensions import Self
from werkzeug.datastructures import FileStorage, MultiDict
from werkzeug.test import encode_multipart

from ..errors import TooManyRedirectsError
from ..http.injected import InjectResponse
from .client import inject

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

#: ``params=``, ``data=``: a mapping (a list value repeats the key) or ``(name, value)`` pairs.
Fields = Union[Mapping[str, Any], Iterable[tuple[str, Any]]]
#: One ``files=`` value: the content (bytes, str or a binary file object), or a tuple
#: ``(filename, content)``, ``(filename, content, content_type)``.
FileValue = Union[bytes, str, Any, tuple[Any, ...]]

#: Statuses whose redirect turns the request into a ``GET`` without a body (as browsers,
#: ``requests`` and ``httpx`` do): 302 and 303 any method but ``HEAD``, 301 a ``POST``
#: only; 307 and 308 keep the method and the body.
_TO_GET = frozenset((302, 303))
_REDIRECTS = frozenset((301, 302, 303, 307, 308))


class ClientResponse(InjectResponse):
    """What a :class:`Client` returns: an :class:`~framework.testing.InjectResponse` with
    the ``url`` it answered and, when redirects were followed, the ``history`` of the
    redirect responses before it (oldest first)."""

    #: The absolute URL this response answered.
    url: str
    #: The redirect responses that led here (empty unless redirects were followed).
    history: "list[ClientResponse]"

    def __init__(self, response: InjectResponse, url: str, history: "list[ClientResponse]") -> None:
        super().__init__(response.status, list(response.headers.items()), response.body)
        self.url = url
        self.history = history

    @property
    def is_redirect(self) -> bool:
        """Whether this is a redirect with a ``Location`` to follow."""
        return self.status_code in _REDIRECTS and "location" in self.headers

    def __repr__(self) -> str:
        return f"<ClientResponse {self.status} {self.url}>"


class Client:
    """A test client for a WSGI application (a framework application is readied first).

    ``base_url`` (default ``http://localhost``) gives the scheme, host and port every
    request is made to, and its path is the ``SCRIPT_NAME`` the application is mounted
    under: ``Client(app, base_url="https://api.test/v1").get("/items")`` asks
    ``/v1/items`` with ``SCRIPT_NAME=/v1`` and ``PATH_INFO=/items``, over ``https``.
    ``headers`` go with every request (a request's own win); ``cookies`` (a mapping)
    start the jar; ``follow_redirects`` (``False`` by default, as in ``httpx``) is each
    request's default. ``with Client(app) as client:`` closes the application at the end
    of the block.

    >>> from framework import Framework
    >>> app = Framework()
    >>> @app.post("/login")
    ... def login(request, reply):
    ...     return reply.set_cookie("session", request.body["user"]).redirect("/me", 303)
    >>> @app.get("/me")
    ... def me(request, reply):
    ...     return {"user": request.cookies.get("session")}
    >>> client = Client(app, follow_redirects=True)
    >>> response = client.post("/login", data={"user": "ada"})
    >>> response.json(), response.url, [r.status_code for r in response.history]
    ({'user': 'ada'}, 'http://localhost/me', [303])
    >>> client.get_cookie("session")
    'ada'
    """

    def __init__(self, app: "WSGIApplication", base_url: str = "http://localhost",
                 headers: Mapping[str, str] | None = None, cookies: Mapping[str, str] | None = None,
                 follow_redirects: bool = False, max_redirects: int = 20) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            raise ValueError(f"base_url must be an http(s) URL without a query or fragment, got {base_url!r}")
        if type(max_redirects) is not int or max_redirects < 0:
            raise ValueError(f"max_redirects must be a non-negative integer, got {max_redirects!r}")
        self.app = app
        #: The base URL, its path without a trailing slash (the ``SCRIPT_NAME``).
        self.base_url = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"
        #: Headers sent with every request.
        self.headers: dict[str, str] = dict(headers or {})
        #: The cookie jar (``http.cookiejar.CookieJar``): what responses set, sent back as they allow.
        self.cookies = CookieJar()
        self.follow_redirects = follow_redirects
        self.max_redirects = max_redirects
        for name, value in (cookies or {}).items():
            self.set_cookie(name, value)

    # Cookies.
    def get_cookie(self, name: str, domain: str | None = None, path: str | None = None) -> str | None:
        """The value of the cookie ``name`` in the jar (the first match, if several domains or paths hold one)."""
        for cookie in self.cookies:
            if cookie.name == name and (domain is None or cookie.domain.lstrip(".") == domain.lstrip(".")) \
                    and (path is None or cookie.path == path):
                return cookie.value
        return None

    def set_cookie(self, name: str, value: str, domain: str | None = None, path: str = "/") -> None:
        """Put a cookie in the jar, for the base URL's host (or ``domain``) and ``path``."""
        host = domain or self._host()
        self.cookies.set_cookie(Cookie(
            version=0, name=name, value=value, port=None, port_specified=False, domain=host,
            domain_specified=domain is not None, domain_initial_dot=host.startswith("."), path=path,
            path_specified=True, secure=False, expires=None, discard=True, comment=None, comment_url=None,
            rest={}, rfc2109=False))

    def _host(self) -> str:
        host = urlsplit(self.base_url).hostname or "localhost"
        return host if "." in host else host + ".local"  # how CookieJar names a dotless host

    # Requests.
    def request(self, method: str, url: str, *, params: Fields | None = None,
                headers: Mapping[str, str] | None = None, cookies: Mapping[str, str] | None = None,
                json: Any = None, data: "Fields | str | bytes | None" = None,
                files: "Mapping[str, FileValue] | Iterable[tuple[str, FileValue]] | None" = None,
                content: bytes | str | None = None, follow_redirects: bool | None = None) -> ClientResponse:
        """Make one request (and follow its redirects when asked); the response is a
        :class:`ClientResponse`. ``url`` is joined to the base URL unless absolute;
        ``params`` are added to its query string. The body is one of ``json`` (JSON,
        ``Content-Type: application/json``), ``data`` (a mapping or pairs: an
        ``application/x-www-form-urlencoded`` form; str or bytes: sent as is), ``files``
        (with ``data`` as its text fields: ``multipart/form-data``; each file is its
        content, or ``(filename, content[, content_type])``), or ``content`` (raw bytes or
        text). ``cookies`` are sent with this request only."""
        if sum(part is not None for part in (json, files, content)) + (data is not None and files is None) > 1:
            raise TypeError("give one body: json=, data=, files= (with data= as its fields) or content=")
        if files is not None and isinstance(data, (str, bytes)):
            raise TypeError("with files=, data= gives the form's text fields: a mapping or (name, value) pairs")
        body, content_type = _body(json, data, files, content)
        merged = {**self.headers, **(headers or {})}
        if content_type is not None and not any(name.lower() == "content-type" for name in merged):
            merged["Content-Type"] = content_type
        target = self._absolute(url, params)
        follow = self.follow_redirects if follow_redirects is None else follow_redirects
        history: list[ClientResponse] = []
        while True:
            response = self._send(method, target, merged, body, cookies)
            if not (follow and response.is_redirect):
                response.history = history
                return response
            location = urljoin(target, response.headers["location"])
            if not self._serves(location):
                response.history = history
                return response  # another origin, or outside SCRIPT_NAME: not this application's to answer
            if len(history) >= self.max_redirects:
                raise TooManyRedirectsError(f"more than {self.max_redirects} redirects, the last to {location}")
            history.append(response)
            if (response.status_code in _TO_GET and method != "HEAD") or \
                    (response.status_code == 301 and method == "POST"):
                method, body = "GET", None
                merged = {name: value for name, value in merged.items()
                          if name.lower() not in ("content-type", "content-length")}
            target = location

    def get(self, url: str, **options: Any) -> ClientResponse:
        """``request("GET", url, **options)``."""
        return self.request("GET", url, **options)

    def head(self, url: str, **options: Any) -> ClientResponse:
        """``request("HEAD", url, **options)``."""
        return self.request("HEAD", url, **options)

    def options(self, url: str, **options: Any) -> ClientResponse:
        """``request("OPTIONS", url, **options)``."""
        return self.request("OPTIONS", url, **options)

    def post(self, url: str, **options: Any) -> ClientResponse:
        """``request("POST", url, **options)``."""
        return self.request("POST", url, **options)

    def put(self, url: str, **options: Any) -> ClientResponse:
        """``request("PUT", url, **options)``."""
        return self.request("PUT", url, **options)

    def patch(self, url: str, **options: Any) -> ClientResponse:
        """``request("PATCH", url, **options)``."""
        return self.request("PATCH", url, **options)

    def delete(self, url: str, **options: Any) -> ClientResponse:
        """``request("DELETE", url, **options)``."""
        return self.request("DELETE", url, **options)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        close = getattr(self.app, "close", None)
        if close is not None:
            close()

    # One request.
    def _absolute(self, url: str, params: Fields | None) -> str:
        url = url.partition("#")[0]  # before params are added: they go in the query, not after the fragment
        if urlsplit(url).scheme:
            absolute = url
        else:  # httpx's join: the URL's path goes under the base URL's
            absolute = f"{self.base_url}/{url.lstrip('/')}" if url else self.base_url + "/"
        if params:
            absolute += ("&" if "?" in absolute else "?") + urlencode(_pairs(params))
        return absolute

    def _serves(self, url: str) -> bool:
        """Whether ``url`` is this application's: the base URL's origin, under its path."""
        base, parts = urlsplit(self.base_url), urlsplit(url)
        return (parts.scheme, parts.netloc) == (base.scheme, base.netloc) and \
            (parts.path == base.path or parts.path.startswith(base.path + "/"))

    def _send(self, method: str, url: str, headers: dict[str, str], body: bytes | None,
              cookies: Mapping[str, str] | None) -> ClientResponse:
        parts = urlsplit(url)
        script_name = urlsplit(self.base_url).path
        # The jar decides which cookies go (domain, path, expiry, Secure), as urllib would.
        carrier = urllib.request.Request(url, method=method, headers=headers)
        self.cookies.add_cookie_header(carrier)
        sent = dict(carrier.header_items())
        if cookies:
            extra = "; ".join(f"{name}={value}" for name, value in cookies.items())
            sent["Cookie"] = f"{sent['Cookie']}; {extra}" if sent.get("Cookie") else extra
        path_info = parts.path[len(script_name):] or "/"
        target = path_info + (f"?{parts.query}" if parts.query else "")
        environ: dict[str, Any] = {
            "SCRIPT_NAME": script_name, "RAW_URI": parts.path + (f"?{parts.query}" if parts.query else ""),
            "HTTP_HOST": parts.netloc, "SERVER_NAME": parts.hostname or "localhost",
            "SERVER_PORT": str(parts.port or (443 if parts.scheme == "https" else 80)), "wsgi.url_scheme": parts.scheme}
        response = inject(self.app, method=method, url=target, headers=sent, body=body, **environ)
        # _CookieSource has what extract_cookies reads of a response (info()), as requests' MockResponse has.
        self.cookies.extract_cookies(_CookieSource(response), carrier)  # type: ignore[arg-type]
        return ClientResponse(response, url, [])


class _CookieSource:
    """A response as ``http.cookiejar.CookieJar.extract_cookies`` reads one (``info()``)."""

    def __init__(self, response: InjectResponse) -> None:
        self.message = email.message.Message()
        for name, value in response.headers.items():
            self.message[name] = value

    def info(self) -> email.message.Message:
        return self.message


def _pairs(fields: Fields, repeat: bool = True) -> list[tuple[str, Any]]:
    """Fields as ``(name, value)`` pairs; with ``repeat``, a list or tuple value repeats the name."""
    items: Iterable[tuple[str, Any]] = cast("Mapping[str, Any]", fields).items() if isinstance(fields, Mapping) \
        else fields
    pairs: list[tuple[str, Any]] = []
    for name, value in items:
        if repeat and isinstance(value, (list, tuple)):
            pairs.extend((name, item) for item in cast("Iterable[Any]", value))
        else:
            pairs.append((name, value))
    return pairs


def _body(json: Any, data: "Fields | str | bytes | None", files: "Fields | None",
          content: bytes | str | None) -> tuple[bytes | None, str | None]:
    """The request body and its Content-Type."""
    if json is not None:
        return jsonlib.dumps(json).encode(), "application/json"
    if content is not None:
        return (content.encode() if isinstance(content, str) else content), None
    if files is not None:
        text = _pairs(data) if data is not None and not isinstance(data, (str, bytes)) else []
        fields: MultiDict[str, Any] = MultiDict([(name, str(value)) for name, value in text])
        for name, value in _pairs(files, repeat=False):
            fields.add(name, _file(name, value))
        boundary, encoded = encode_multipart(fields)
        return encoded, f"multipart/form-data; boundary={boundary}"
    if isinstance(data, (str, bytes)):
        return (data.encode() if isinstance(data, str) else data), None
    if data is not None:
        return urlencode(_pairs(data)).encode(), "application/x-www-form-urlencoded"
    return None, None


def _file(name: str, value: Any) -> FileStorage:
    """One ``files=`` value as a werkzeug ``FileStorage`` (what ``encode_multipart`` writes)."""
    filename: str | None = None
    content_type: str | None = None
    if isinstance(value, tuple):
        described: tuple[Any, ...] = value  # pyright: ignore[reportUnknownVariableType]  # a tuple of anything
        filename, value = described[0], described[1]
        content_type = described[2] if len(described) > 2 else None
    if isinstance(value, str):
        value = value.encode()
    stream: Any = io.BytesIO(value) if isinstance(value, (bytes, bytearray)) else value
    if filename is None:
        filename = str(getattr(value, "name", None) or name).rsplit("/", 1)[-1]
    return FileStorage(stream=stream, filename=filename, name=name, content_type=content_type)
