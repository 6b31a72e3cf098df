"""``multipart/form-data`` uploads (the @fastify/multipart plugin), on werkzeug's parser.

::

    from framework import Framework
    from framework.plugins.multipart import multipart

    app = Framework()
    app.register(multipart, file_size=50 * 1024 * 1024, files=2)

    @app.post("/upload", schema={"body": {"content": {"multipart/form-data": {"schema": {
        "type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}}}}})
    def upload(request, reply):
        upload = request.files["document"]          # a werkzeug FileStorage
        upload.save(f"/srv/uploads/{request.params...}")   # or read upload.stream
        return {"title": request.body["title"], "name": upload.filename, "type": upload.content_type}

``multipart`` is wrapped with ``plugin(...)``: it adds the ``multipart/form-data`` parser
to the registering context (and its descendants). The body is read from ``wsgi.input``
as it arrives (``add_content_type_parser(..., stream=True)``) by
``werkzeug.formparser.MultiPartParser``; it is never held in memory whole. Each file is
spooled to a temporary file (in memory up to ``spool_size`` bytes, then on disk) and
closed (deleted) once the response has gone out.

``request.body`` holds the text fields (a repeated name gives a list, as in the query
string), validated by the route's ``multipart/form-data`` content schema; a route whose
body schema is a plain (JSON) schema refuses multipart bodies with 415, as it does
``text/plain``. ``request.files`` is a werkzeug ``MultiDict`` of ``FileStorage``
(``filename``, ``content_type``, ``stream``, ``save(path)``; ``getlist(name)`` for
several files under one name); it is empty for other requests.

Limits (each exceeded limit is a 413, raised while the body is being read, so the rest
of an oversized upload is never read): ``file_size`` (bytes per file, default 1 MiB),
``files`` (number of files, default 10), ``fields`` (number of text fields, default
1000), ``field_size`` (bytes per text field, default 1 MiB), ``parts`` (files and fields
together, default 1000). ``spool_size`` (default 1 MiB) is how much of a file stays in
memory before it goes to disk. The route's ``body_limit`` does not apply to multipart
bodies (their limits are these), unless the route sets one itself.
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Callable

from framework import Context, Reply, Request, plugin
from framework.body import BoundedStream
from framework.errors import create_error

if TYPE_CHECKING:
    from werkzeug.datastructures import FileStorage, Headers, ImmutableMultiDict, MultiDict
    from werkzeug.formparser import MultiPartParser

    class _MultipartRequest(Request):
        """A request where the plugin applies: ``request.files`` is decorated."""

        files: MultiDict[str, FileStorage]

__all__ = ["multipart", "MultipartOptionsError", "MultipartLimitError", "MultipartBoundaryError"]

#: A multipart body past one of its limits (``file_size``, ``files``, ``fields``, ``parts``...): 413.
MultipartLimitError = create_error("FST_MULTIPART_LIMIT", "multipart body over its limit: %s", 413)
#: A multipart body that cannot be parsed (no boundary in the ``Content-Type``, a malformed part): 400.
MultipartBoundaryError = create_error("FST_MULTIPART_INVALID", "invalid multipart body: %s", 400)

_LIMITS = {"file_size": 1_048_576, "files": 10, "fields": 1000, "field_size": 1_048_576, "parts": 1000,
           "spool_size": 1_048_576}


class MultipartOptionsError(ValueError):
    """Options the multipart plugin cannot work with; raised when it loads (``ready()``)."""


class _SizedSpool:
    """A spooled temporary file that refuses to grow past ``file_size`` (a 413, mid-stream)."""

    def __init__(self, limit: int, spool_size: int) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=spool_size)
        self._limit = limit
        self._size = 0

    def write(self, data: bytes) -> int:
        self._size += len(data)
        if self._size > self._limit:
            raise MultipartLimitError(f"a file is larger than file_size ({self._limit} bytes)")
        return self._file.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._file)


def _parser_class() -> Callable[[dict[str, int]], MultiPartParser]:
    from werkzeug.formparser import MultiPartParser

    class Parser(MultiPartParser):
        """werkzeug's parser, counting text fields as they complete (``get_part_charset``
        is called once per completed field)."""

        def __init__(self, limits: dict[str, int]) -> None:
            self.limits = limits
            self.file_count = 0
            self.field_count = 0
            # werkzeug calls the factory with keywords only; the spool is a duck-typed IO.
            super().__init__(stream_factory=self.new_file,  # type: ignore[arg-type]
                             max_form_memory_size=limits["field_size"], max_form_parts=limits["parts"])

        def new_file(self, **_: Any) -> _SizedSpool:
            self.file_count += 1
            if self.file_count > self.limits["files"]:
                raise MultipartLimitError(f"more than {self.limits['files']} files")
            return _SizedSpool(self.limits["file_size"], self.limits["spool_size"])

        def get_part_charset(self, headers: Headers) -> str:
            self.field_count += 1
            if self.field_count > self.limits["fields"]:
                raise MultipartLimitError(f"more than {self.limits['fields']} fields")
            return super().get_part_charset(headers)

    return Parser


def _check(options: Mapping[str, Any]) -> dict[str, int]:
    unknown = sorted(set(options) - set(_LIMITS) - {"prefix"})
    if unknown:
        raise MultipartOptionsError(f"multipart: unknown option(s) {', '.join(unknown)}; "
                                    f"known: {', '.join(_LIMITS)}")
    limits: dict[str, int] = {}
    for name, default in _LIMITS.items():
        value = options.get(name, default)
        if type(value) is not int or value <= 0:
            raise MultipartOptionsError(f"multipart: {name} has to be a positive integer, got {value!r}")
        limits[name] = value
    return limits


def _multipart(instance: Context, opts: Mapping[str, Any]) -> None:
    from werkzeug.datastructures import MultiDict
    from werkzeug.exceptions import RequestEntityTooLarge

    limits = _check(dict(opts or {}))
    parser_class = _parser_class()
    # Every file and field at its largest, each part with room for its headers: the most a
    # body within the limits can be (the limits themselves stop it earlier, mid-stream).
    body_limit = (limits["files"] * limits["file_size"] + min(limits["fields"], limits["parts"]) * limits["field_size"]
                  + limits["parts"] * 16384)

    def parse(request: _MultipartRequest, stream: BoundedStream) -> dict[str, Any]:
        boundary = request.media_type.parameters.get("boundary") if request.media_type else None
        if not boundary:
            raise MultipartBoundaryError("no boundary in the Content-Type")
        length = request.environ.get("CONTENT_LENGTH")
        parser = parser_class(limits)
        try:
            # (a BoundedStream is a binary file-like object, but not nominally a typing.IO)
            fields, files = parser.parse(stream, boundary.encode("latin-1"),  # type: ignore[arg-type]
                                         int(length) if length else None)
        except RequestEntityTooLarge:
            raise MultipartLimitError(f"more than {limits['parts']} parts, or a field over "
                                      f"field_size ({limits['field_size']} bytes)") from None
        except ValueError as error:
            raise MultipartBoundaryError(str(error)) from None
        request.files = files
        body: dict[str, Any] = {}
        for name, values in fields.lists():
            body[name] = values[0] if len(values) == 1 else values
        return body

    parse.needs_content_schema = True  # type: ignore[attr-defined]  # read by the framework with getattr
    instance.add_content_type_parser("multipart/form-data", parse, stream=True, body_limit=body_limit)
    if not instance.has_request_decorator("files"):
        instance.decorate_request("files", _EmptyFiles())

    def close_files(request: _MultipartRequest, reply: Reply) -> None:
        files = request.files
        # (necessary: an application's own "files" request decorator may be anything)
        if isinstance(files, MultiDict):  # pyright: ignore[reportUnnecessaryIsInstance]
            for upload in files.values():
                upload.close()

    instance.add_hook("on_response", close_files)


class _EmptyFiles:
    """``request.files`` of a request without a multipart body: an empty, read-only MultiDict."""

    def __get__(self, instance: object, owner: type | None = None) -> ImmutableMultiDict[str, FileStorage]:
        from werkzeug.datastructures import ImmutableMultiDict
        return ImmutableMultiDict()


_multipart.__doc__ = __doc__
#: The plugin: ``register(multipart, file_size=..., files=...)``. Runs in the registering context.
multipart = plugin(_multipart, name="multipart")
