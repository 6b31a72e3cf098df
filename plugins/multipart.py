"""``multipart/form-data`` uploads (the @fastify/multipart plugin), on werkzeug's decoder.

::

    from framework import Framework
    from framework.plugins.multipart import multipart

    app = Framework()
    app.register(multipart, file_size=50 * 1024 * 1024, files=2)

    @app.post("/upload", schema={"body": {"content": {"multipart/form-data": {"schema": {
        "type": "object", "required": ["title", "document"],
        "properties": {"title": {"type": "string"},
                       "document": {"type": "string", "format": "binary"}}}}}}})
    def upload(request, reply):
        upload = request.body["document"]           # a werkzeug FileStorage
        upload.save(f"/srv/uploads/{request.params...}")   # or read upload.stream
        return {"title": request.body["title"], "name": upload.filename, "type": upload.content_type}

``multipart`` is wrapped with ``plugin(...)``: it adds the ``multipart/form-data`` parser
to the registering context (and its descendants). The body is read from ``wsgi.input``
as it arrives (``add_content_type_parser(..., stream=True)``) through werkzeug's sans-IO
``MultipartDecoder``; it is never held in memory whole. Each file is spooled to a
temporary file (in memory up to ``spool_size`` bytes, then on disk) and closed (deleted)
once the response has gone out.

``request.body`` holds the text fields (a repeated name gives a list, as in the query
string), validated by the route's ``multipart/form-data`` content schema; a route whose
body schema is a plain (JSON) schema refuses multipart bodies with 415, as it does
``text/plain``. ``request.files`` is a werkzeug ``MultiDict`` of ``FileStorage``
(``filename``, ``content_type``, ``stream``, ``save(path)``; ``getlist(name)`` for
several files under one name); it is empty for other requests.

File parts are declared in the content schema the OpenAPI way: a property
``{"type": "string", "format": "binary"}`` is one file, ``{"type": "array", "items":
{"type": "string", "format": "binary"}}`` several under one name. Such a property is
validated as a file part (``required`` applies to it; a text field under its name, or
several files for a one-file property, is a 400) and ``request.body`` holds its
``FileStorage`` (a list for an array). Only the property's presence (and an array's
``minItems``/``maxItems``) is checked; its other keywords speak of strings, not files.

Limits (each exceeded limit is a 413, raised while the body is being read, so the rest
of an oversized upload is never read): ``file_size`` (bytes per file, default 1 MiB),
``files`` (number of files, default 10), ``fields`` (number of text fields, default
1000), ``form_memory_size`` (bytes of all the text fields together, which are held in
memory, default 500 KiB, as werkzeug's ``max_form_memory_size``), ``field_size`` (bytes
per text field, default ``form_memory_size``; no larger than it), ``parts`` (files and
fields together, default 1000). ``spool_size`` (default 1 MiB) is how much of a file
stays in memory before it goes to disk. A part's headers may take 16 KiB. The route's
``body_limit`` does not apply to multipart bodies (their limits are these), unless the
route sets one itself.
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Callable

from werkzeug.datastructures import FileStorage, Headers, ImmutableMultiDict, MultiDict
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.http import parse_options_header
from werkzeug.sansio.multipart import Data, Epilogue, Event, Field, File, MultipartDecoder, NeedData

from framework import Context, Reply, Request, plugin
from framework.http.body import BoundedStream
from framework.errors import SchemaValidationFailure, create_error
from framework.schemas.store import escape_token, is_object, normalize_input_schema

if TYPE_CHECKING:
    class _MultipartRequest(Request):
        """A request where the plugin applies: ``request.files`` is decorated."""

        files: MultiDict[str, FileStorage]

__all__ = ["multipart", "MultipartOptionsError", "MultipartLimitError", "MultipartBoundaryError"]

#: A multipart body past one of its limits (``file_size``, ``files``, ``fields``, ``parts``...): 413.
MultipartLimitError = create_error("FST_MULTIPART_LIMIT", "multipart body over its limit: %s", 413)
#: A multipart body that cannot be parsed (no boundary in the ``Content-Type``, a malformed part): 400.
MultipartBoundaryError = create_error("FST_MULTIPART_INVALID", "invalid multipart body: %s", 400)

#: Option defaults (``field_size``'s is ``form_memory_size``).
_LIMITS = {"file_size": 1_048_576, "files": 10, "fields": 1000, "form_memory_size": 512_000, "parts": 1000,
           "spool_size": 1_048_576}
#: Bytes read from the body at a time.
_CHUNK = 65536
#: The most a part's headers may take (the decoder buffers them whole).
_HEADERS_SIZE = 16384


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


def _charset(headers: Headers) -> str:
    """A text field's charset: its ``Content-Type``'s if it is one of werkzeug's safe list, else UTF-8."""
    charset = parse_options_header(headers.get("content-type"))[1].get("charset", "").lower()
    return charset if charset in {"ascii", "us-ascii", "utf-8", "iso-8859-1"} else "utf-8"


class _Reader:
    """One multipart body read through werkzeug's sans-IO ``MultipartDecoder``: text fields
    gathered in memory, files spooled, and every limit checked as the bytes arrive, so the
    rest of an oversized body is never read."""

    def __init__(self, limits: dict[str, int]) -> None:
        self.limits = limits
        self.fields: MultiDict[str, str] = MultiDict()
        self.files: MultiDict[str, FileStorage] = MultiDict()
        self.parts = self.field_count = 0
        #: Every spool opened, kept to close them if the body is refused halfway.
        self.spools: list[_SizedSpool] = []
        #: Bytes of text held so far, every field together (``form_memory_size``).
        self.form_memory = 0
        # The part being read: its headers event, and its spool (a file) or its text so far (a field).
        self.part: Field | File | None = None
        self.spool: _SizedSpool | None = None
        self.text: list[bytes] = []
        self.field_size = 0

    def read(self, stream: BoundedStream, boundary: bytes) -> None:

        # The decoder's own bound is on its buffer: what one read adds, plus a part's headers.
        decoder = MultipartDecoder(boundary, _CHUNK + _HEADERS_SIZE)
        while True:
            data = stream.read(_CHUNK)
            try:
                decoder.receive_data(data or None)
            except RequestEntityTooLarge:
                raise MultipartLimitError(f"more than {_HEADERS_SIZE} bytes of a part's headers, "
                                          "or before the first part or after the last") from None
            event = decoder.next_event()
            while not isinstance(event, (NeedData, Epilogue)):
                if isinstance(event, Data):
                    self._data(event)
                else:
                    self._start(event)
                event = decoder.next_event()
            if not data:
                return

    def _start(self, event: Event) -> None:
        if not isinstance(event, (Field, File)):
            return  # the preamble: ignored
        self.part, self.spool, self.text, self.field_size = event, None, [], 0
        self.parts += 1
        if self.parts > self.limits["parts"]:
            raise MultipartLimitError(f"more than {self.limits['parts']} parts")
        if isinstance(event, File):
            self.spool = self._new_file()
            return
        self.field_count += 1
        if self.field_count > self.limits["fields"]:
            raise MultipartLimitError(f"more than {self.limits['fields']} fields")

    def _data(self, event: Data) -> None:
        part, spool = self.part, self.spool
        if part is None:
            return
        if spool is not None:
            spool.write(event.data)
        else:
            self.field_size += len(event.data)
            self.form_memory += len(event.data)
            self._check_text()
            self.text.append(event.data)
        if event.more_data:
            return
        if isinstance(part, File) and spool is not None:
            spool.seek(0)
            # (a _SizedSpool is a duck-typed binary file)
            self.files.add(part.name, FileStorage(spool, part.filename, part.name,  # type: ignore[arg-type]
                                                  headers=part.headers))
        else:
            self.fields.add(part.name, b"".join(self.text).decode(_charset(part.headers), "replace"))

    def _new_file(self) -> _SizedSpool:
        if len(self.spools) >= self.limits["files"]:
            raise MultipartLimitError(f"more than {self.limits['files']} files")
        spool = _SizedSpool(self.limits["file_size"], self.limits["spool_size"])
        self.spools.append(spool)
        return spool

    def _check_text(self) -> None:
        if self.field_size > self.limits["field_size"]:
            raise MultipartLimitError(f"a field is larger than field_size ({self.limits['field_size']} bytes)")
        if self.form_memory > self.limits["form_memory_size"]:
            raise MultipartLimitError(f"the text fields are larger than form_memory_size "
                                      f"({self.limits['form_memory_size']} bytes)")

    def close(self) -> None:
        for spool in self.spools:
            spool.close()


class _Fields(dict[str, Any]):
    """The text fields of a multipart body (``request.body``), carrying the body's files for
    the validator of a schema that declares file parts (:func:`_content_validator`)."""

    __slots__ = ("files",)
    files: MultiDict[str, FileStorage]


def _is_binary(schema: object) -> bool:
    return is_object(schema) and schema.get("format") == "binary" and schema.get("type", "string") == "string"


def _file_part(schema: object) -> bool | None:
    """Whether a property's schema declares a file part: ``False`` one file
    (``{"type": "string", "format": "binary"}``), ``True`` several (an array of those),
    ``None`` not a file part."""
    if _is_binary(schema):
        return False
    if is_object(schema) and schema.get("type") == "array" and _is_binary(schema.get("items")):
        return True
    return None


def _not_a_file(name: str, message: str) -> SchemaValidationFailure:
    return SchemaValidationFailure([{
        "keyword": "format", "instance_path": "/" + escape_token(name), "params": {"format": "binary"},
        "schema_path": f"#/properties/{escape_token(name)}/format", "message": message}])


def _content_validator(schema: Any, build: Callable[[Any], Callable[[Any], Any]]) -> Callable[[Any], Any]:
    """The validator of a route's ``multipart/form-data`` body schema (called at ``ready()``).

    A property declared ``{"type": "string", "format": "binary"}`` (OpenAPI's file part), or
    an array of those, is a file part: the validated body holds the part's ``FileStorage``
    (a list for an array), ``required`` applies to it as to text fields, and a text field
    under its name is refused. A schema without file parts is compiled as it is."""
    normalized = normalize_input_schema(schema, "body")
    properties = normalized.get("properties") if is_object(normalized) else None
    if not is_object(properties):
        return build(schema)
    file_parts: dict[str, bool] = {}
    for name, subschema in properties.items():
        several = _file_part(subschema)
        if several is not None:
            file_parts[name] = several
    if not file_parts:
        return build(schema)
    # A file is not JSON: the engine checks only that it is there (and an array's length).
    validate = build({**normalized, "properties": {
        **properties, **{name: {**properties[name], "items": {}} if several else {}
                         for name, several in file_parts.items()}}})

    def validate_with_files(fields: Any) -> Any:
        if not is_object(fields):
            return validate(fields)
        files: MultiDict[str, FileStorage] | None = getattr(fields, "files", None)  # (none when no body came)
        data = dict(fields)
        for name, several in file_parts.items():
            if name in data:
                raise _not_a_file(name, "should be a file")
            uploads = files.getlist(name) if files is not None else []
            if len(uploads) > 1 and not several:
                raise _not_a_file(name, "should be a single file")
            if uploads:
                data[name] = uploads if several else uploads[0]
        return validate(data)

    return validate_with_files


def _check(options: Mapping[str, Any]) -> dict[str, int]:
    unknown = sorted(set(options) - set(_LIMITS) - {"field_size", "prefix"})
    if unknown:
        raise MultipartOptionsError(f"multipart: unknown option(s) {', '.join(unknown)}; "
                                    f"known: {', '.join([*_LIMITS, 'field_size'])}")
    # field_size defaults to form_memory_size: one field may take all the text's memory.
    defaults = {**_LIMITS, "field_size": options.get("form_memory_size", _LIMITS["form_memory_size"])}
    limits: dict[str, int] = {}
    for name, default in defaults.items():
        value = options.get(name, default)
        if type(value) is not int or value <= 0:
            raise MultipartOptionsError(f"multipart: {name} has to be a positive integer, got {value!r}")
        limits[name] = value
    if limits["field_size"] > limits["form_memory_size"]:
        raise MultipartOptionsError(
            f"multipart: field_size ({limits['field_size']}) is larger than form_memory_size "
            f"({limits['form_memory_size']}), the text fields' total: raise form_memory_size too")
    return limits


def _multipart(instance: Context, opts: Mapping[str, Any]) -> None:

    limits = _check(dict(opts or {}))
    # Every file at its largest, the text at its largest, each part with room for its
    # headers: the most a body within the limits can be (the limits themselves stop it
    # earlier, mid-stream).
    body_limit = (limits["files"] * limits["file_size"] + limits["form_memory_size"]
                  + limits["parts"] * _HEADERS_SIZE)

    def parse(request: _MultipartRequest, stream: BoundedStream) -> _Fields:
        boundary = request.media_type.parameters.get("boundary") if request.media_type else None
        if not boundary:
            raise MultipartBoundaryError("no boundary in the Content-Type")
        reader = _Reader(limits)
        try:
            reader.read(stream, boundary.encode("latin-1"))
        except ValueError as error:  # werkzeug's decoder on a malformed body
            reader.close()
            raise MultipartBoundaryError(str(error)) from None
        except BaseException:
            reader.close()
            raise
        request.files = reader.files
        body = _Fields({name: values[0] if len(values) == 1 else values for name, values in reader.fields.lists()})
        body.files = reader.files
        return body

    parse.needs_content_schema = True  # type: ignore[attr-defined]  # read by the framework with getattr
    parse.content_validator = _content_validator  # type: ignore[attr-defined]  # read by the framework with getattr
    instance.add_content_type_parser("multipart/form-data", parse, stream=True, body_limit=body_limit)
    if not instance.has_request_decorator("files"):
        instance.decorate_request("files", _EmptyFiles())

    def close_files(request: _MultipartRequest, reply: Reply) -> None:
        files = request.files
        # (necessary: an application's own "files" request decorator may be anything)
        if isinstance(files, MultiDict):  # pyright: ignore[reportUnnecessaryIsInstance]
            for _, upload in files.items(multi=True):
                upload.close()

    instance.add_hook("on_response", close_files)


class _EmptyFiles:
    """``request.files`` of a request without a multipart body: an empty, read-only MultiDict."""

    def __get__(self, instance: object, owner: type | None = None) -> ImmutableMultiDict[str, FileStorage]:
        return ImmutableMultiDict()


_multipart.__doc__ = __doc__
#: The plugin: ``register(multipart, file_size=..., files=...)``. Runs in the registering context.
multipart = plugin(_multipart, name="multipart")
