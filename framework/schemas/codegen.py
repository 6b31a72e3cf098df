"""Code emission shared by the two schema compilers (validator and serializer).

Both engines turn a schema into Python source at start-up, then ``compile()`` and
``exec()`` it. The pieces they share live here, so both generate code the same way:

- :class:`Emitter`: lines of source with indentation (``with emitter.line("if x:"):``
  indents what is emitted inside and adds ``pass`` to an empty block), and an optional
  comment per line, usually the schema path the line checks;
- :class:`Constants`: the constants table. A schema value reaches generated code as a
  named global (:meth:`Constants.name`), or, where the engine writes it out,
  through :func:`literal`: the ``repr()`` of its plain type, always a valid literal of
  the same value whatever its text (quotes, newlines, ``\"\"\"``, backslashes,
  ``__import__``). The validator binds every schema value (names, limits, patterns,
  defaults) as a constant, so that its code depends only on the schema's shape and
  schemas of one shape share one compiled code object (1,000 routes with distinct
  names and limits readied in 2.3 s this way against 3.2 s with the values written out,
  same machine and run: ``python -m benchmarks --runners startup``). The serializer
  writes property names out (they are the JSON text it emits, a ``LOAD_CONST`` on the
  hot path) and binds the rest (sets, defaults, compiled patterns) as constants;
- string literals written out (:meth:`Emitter.literal`) do not make a new shape either:
  the code is compiled once with a placeholder constant in each literal's place, and each
  schema gets that code object with its own strings put in its constants
  (``code.replace(co_consts=...)``, see :class:`CodeCache`). The serializer's code stays a
  ``LOAD_CONST`` per property name, and 1,000 distinct response schemas of one shape
  compile once instead of 1,000 times;
- :func:`comment`: schema text in a comment, ``repr()``-quoted after ``#`` so that no
  character of it (a newline in a property name) can end the comment;
- :class:`CodeCache`, :func:`load`, :func:`load_lazy`: compile once per distinct shape
  (thread-safe) and ``exec`` the module in its namespace, under a file name of its own.

Generated source is kept only on demand. A generated module's namespace is given a
``__loader__`` (:class:`GeneratedSource`) whose ``get_source()`` renders the module's
source when something asks: :mod:`linecache` asks it (``linecache.lazycache``, which
:mod:`traceback` calls with the frame's globals) when a traceback goes through generated
code, so tracebacks show the real lines; :func:`generated_source` asks it for a compiled
function. :func:`load_lazy` keeps no text at all: its ``render`` regenerates the source
from the schema (generation is deterministic). Keeping every source registered in
``linecache`` cost 25-40 MB of RSS at 1,000 distinct routes.

The file name of a generated module is ``<validator 12>.py``: ``linecache`` consults a
``__loader__`` only for names that are not of the ``<...>`` form.

An opt-in on-disk compile cache (:class:`CompileCache`, :func:`use_compile_cache`, or the
``FRAMEWORK_COMPILE_CACHE`` environment variable naming a directory) keeps each generated
module's compiled code and its constants, keyed by what generation depends on (the
schema, the shared schemas it reaches, the engine's options, the framework's generator
code and the Python version): a restart finds them and skips generation and
``compile()``. See :class:`CompileCache`.
"""
from __future__ import annotations

import hashlib
import importlib.util
import itertools
import linecache
import logging
import marshal
import os
import re
import sys
import tempfile
import threading
from pathlib import Path
from collections.abc import Callable, Sequence
from types import CodeType
from typing import Any, cast

__all__ = ["Emitter", "Constants", "CodeCache", "CompileCache", "GeneratedSource", "Module", "comment",
           "compile_cache", "generated_source", "literal", "load", "load_lazy", "load_stored", "run",
           "use_compile_cache"]

_log = logging.getLogger("framework.compile_cache")

# repr() of an int longer than this many digits raises (sys.int_info.str_digits_check_threshold).
_LONGEST_INT_LITERAL = 10 ** 600
# A string literal in an emitter's lines is this token (NUL never reaches a line otherwise:
# schema text arrives through repr(), which escapes it); the code compiled for the shape
# holds the placeholder constant _PLACEHOLDER + index in its place.
_TOKEN = re.compile("\x00([0-9]+)\x00")
_PLACEHOLDER = "\x00#"


def literal(value: Any) -> str | None:
    """The Python source of ``value`` as a literal, or ``None`` when it has none.

    The ``repr()`` of the value's plain type: a ``str`` or ``int`` subclass (a ``str`` enum
    member) may have a ``__repr__`` that is not a literal; ``inf``/``nan`` and huge ints
    have none either.
    """
    if value is None or value is True or value is False:
        return repr(value)
    if isinstance(value, str):
        return str.__repr__(value)
    if isinstance(value, int) and not isinstance(value, bool) and -_LONGEST_INT_LITERAL < value < _LONGEST_INT_LITERAL:
        return int.__repr__(value)
    if isinstance(value, float) and value - value == 0:  # finite
        return float.__repr__(value)
    return None


def comment(text: Any) -> str:
    """``# 'text'``: schema text as a comment that cannot escape its line."""
    return "# " + repr(str(text))


class _Block:
    """``with emitter.line("if x:"):`` indents the lines emitted inside; ``pass`` if none were."""

    __slots__ = ("emitter", "start")

    def __init__(self, emitter: "Emitter") -> None:
        self.emitter = emitter
        self.start = len(emitter.lines)

    def __enter__(self) -> None:
        self.emitter.indent += 1

    def __exit__(self, *exc: Any) -> None:
        emitter = self.emitter
        if len(emitter.lines) == self.start:
            emitter.line("pass")
        emitter.indent -= 1


class Emitter:
    """Source lines, each with its indentation and an optional trailing comment."""

    INDENT = "    "

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.comments: list[str | None] = []
        self.indent = 0
        #: a comment for the next line emitted (e.g. the schema path a block starts).
        self.pending_comment: str | None = None
        #: the strings written out as literals (:meth:`literal`), in token order.
        self.literals: list[str] = []
        self._tokens: dict[str, str] = {}

    def literal(self, value: Any) -> str | None:
        """Source text for ``value`` as a literal (:func:`literal`), or ``None`` when it has none.

        A string comes back as a token that :meth:`source` writes as its ``repr()`` and
        :meth:`code` as a placeholder: the compiled code depends on where strings are, not
        on what they say (see :class:`CodeCache`).
        """
        text = literal(value)
        if text is None or not isinstance(value, str):
            return text
        token = self._tokens.get(text)
        if token is None:
            token = self._tokens[text] = f"\x00{len(self.literals)}\x00"
            self.literals.append(str.__str__(value))  # the plain str, as the literal reads
        return token

    def line(self, code: str, note: str | None = None) -> _Block:
        """Append ``code`` (never ``str.format``-ed); usable as ``with`` to indent a block.

        ``note`` is a comment written after the line (pass it through :func:`comment`
        when it holds schema text).
        """
        self.lines.append(self.INDENT * self.indent + code)
        if note is None:
            note = self.pending_comment
        self.pending_comment = None
        self.comments.append(note)
        return _Block(self)

    def __len__(self) -> int:
        return len(self.lines)

    def truncate(self, length: int) -> None:
        """Drop the lines emitted since ``len(emitter)`` was ``length``."""
        del self.lines[length:]
        del self.comments[length:]

    def code(self) -> str:
        """The source without comments, string literals as placeholders: what the compiled
        code depends on (its shape)."""
        text = "\n".join(self.lines) + "\n"
        if self.literals:
            text = _TOKEN.sub(lambda match: repr(_PLACEHOLDER + match[1]), text)
        return text

    def source(self, header: str = "") -> str:
        """The readable source: ``header`` (comment lines), then each line with its comment."""
        body = "\n".join(line if note is None else f"{line}  {note}"
                         for line, note in zip(self.lines, self.comments))
        if self.literals:
            literals = self.literals
            body = _TOKEN.sub(lambda match: str.__repr__(literals[int(match[1])]), body)
        return header + body + "\n"


class Constants:
    """The constants table: values bound as globals of the generated module.

    ``name(value, kind)`` gives ``_<kind><n>``; one value (by identity) gets one name.
    The table keeps every value alive, so identities stay unique while generating.
    """

    def __init__(self, namespace: dict[str, Any], emitter: Emitter | None = None) -> None:
        self.namespace = namespace
        # Strings go through the emitter's literals (shape-shared code) when there is one.
        self._literal: Callable[[Any], str | None] = emitter.literal if emitter is not None else literal
        self._names: dict[int, str] = {}
        self._keep: list[Any] = []
        self._count = 0

    def source(self, value: Any, kind: str = "c") -> str:
        """Source text for ``value``: its :func:`literal`, else the name of a constant."""
        written = self._literal(value)
        return written if written is not None else self.name(value, kind)

    def table(self) -> dict[str, Any]:
        """``{name: value}``: every constant bound so far."""
        return {name: self.namespace[name] for name in self._names.values()}

    def name(self, value: Any, kind: str = "c") -> str:
        """The global bound to ``value``: ``_<kind><n>``."""
        found = self._names.get(id(value))
        if found is not None and self.namespace.get(found) is value:
            return found
        self._count += 1
        found = f"_{kind}{self._count}"
        self.namespace[found] = value
        self._names[id(value)] = found
        self._keep.append(value)
        return found


def _instantiated(code: CodeType, filename: str, strings: dict[str, str]) -> CodeType:
    """``code`` (and the functions defined in it) as if compiled from ``filename``, each
    placeholder constant replaced by its string (also inside the tuples and frozensets
    the compiler folds constants into: a dict literal's keys, ``x in ("a", "b")``)."""
    consts = tuple(_constant(const, filename, strings) for const in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _constant(const: object, filename: str, strings: dict[str, str]) -> object:
    if isinstance(const, str):
        return strings.get(const, const)
    if isinstance(const, CodeType):
        return _instantiated(const, filename, strings)
    if isinstance(const, tuple):
        return tuple(_constant(item, filename, strings) for item in cast("tuple[object, ...]", const))
    if isinstance(const, frozenset):
        return frozenset(_constant(item, filename, strings) for item in cast("frozenset[object]", const))
    return const


class CodeCache:
    """Compiled module code by shape (comment-free source, string literals as placeholders),
    bounded; safe to share between threads."""

    def __init__(self, kind: str, size: int = 4096) -> None:
        self.kind = kind
        self.size = size
        self._code: dict[str, CodeType] = {}
        self._files: list[str] = []  # the file names registered in linecache (lazily)
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)

    def register(self, loader: "GeneratedSource") -> str:
        """A new module file name, ``<kind n>.py``, registered in :mod:`linecache` as a lazy
        entry (``(get_lines,)``: a function, not the text) so that readers that do not pass
        the frame's globals (``inspect.getsource``, pytest's tracebacks) find its lines too.
        The oldest entries are dropped past ``size`` (a traceback registers one again)."""
        filename = f"<{self.kind} {next(self._numbers)}>.py"
        with self._lock:
            if len(self._files) >= self.size:
                for old in self._files:
                    linecache.cache.pop(old, None)
                self._files.clear()
            self._files.append(filename)
            linecache.cache[filename] = (loader.get_source,)
        return filename

    def shape(self, code_text: str) -> CodeType:
        """The code compiled from ``code_text`` (a shape: placeholders for its strings), once."""
        with self._lock:
            code = self._code.get(code_text)
            if code is None:
                if len(self._code) >= self.size:
                    self._code.clear()
                code = self._code[code_text] = compile(code_text, f"<{self.kind}>", "exec")
        return code


def _instance(shape: CodeType, filename: str, literals: Sequence[str]) -> CodeType:
    return _instantiated(shape, filename, {_PLACEHOLDER + str(index): text for index, text in enumerate(literals)})


class GeneratedSource:
    """The ``__loader__`` of a generated module: ``get_source()`` renders its source when
    asked (by :mod:`linecache` for a traceback, by :func:`generated_source`)."""

    __slots__ = ("render",)

    def __init__(self, render: Callable[[], str]) -> None:
        self.render = render

    def get_source(self, name: str | None = None) -> str:
        """The module's source (``name``, the module's ``__name__``, is not needed)."""
        return self.render()


def generated_source(function: Callable[..., Any]) -> str:
    """The source of the generated module that defines ``function`` (a serializer, a
    validator's ``generated`` function), rendered now."""
    loader = getattr(function, "__globals__", {}).get("__loader__")
    if not isinstance(loader, GeneratedSource):
        raise TypeError(f"{function!r} is not a generated function")
    return loader.get_source()


class Module:
    """A generated module as the on-disk cache keeps it: its shape's code (with placeholders
    for its strings) and that code's text's hash, its strings and its constants."""

    __slots__ = ("shape", "shape_id", "literals", "constants")

    def __init__(self, shape: CodeType, shape_id: str, literals: Sequence[str], constants: dict[str, Any]) -> None:
        self.shape = shape
        self.shape_id = shape_id
        self.literals = tuple(literals)
        self.constants = constants


def _execute(cache: CodeCache, namespace: dict[str, Any], shape: CodeType, literals: Sequence[str],
             render: Callable[[], str]) -> None:
    loader = GeneratedSource(render)
    filename = cache.register(loader)
    # linecache.lazycache() (which traceback calls with the frame's globals) asks the
    # module's __loader__ for the source of a file name that is not on disk: tracebacks
    # find the lines even once the lazy entry is gone (linecache.clearcache()).
    namespace["__name__"] = filename
    namespace["__loader__"] = loader
    exec(_instance(shape, filename, literals), namespace)  # noqa: S102


def run(cache: CodeCache, namespace: dict[str, Any], source: str, code_text: str | None = None) -> None:
    """``exec`` ``source`` in ``namespace``, compiled through ``cache``.

    ``code_text``: the same source without its comments (:meth:`Emitter.code`), which
    lets sources that differ only in comments share one compilation.
    """
    _execute(cache, namespace, cache.shape(source if code_text is None else code_text), (), lambda: source)


def load(cache: CodeCache, emitter: Emitter, namespace: dict[str, Any], header: str = "") -> str:
    """Compile (through ``cache``) and ``exec`` the emitted module in ``namespace``; return its
    source (kept, for tracebacks: :func:`load_lazy` keeps none)."""
    source = emitter.source(header)
    # The header adds lines above the code: compile the code at the same line numbers.
    _execute(cache, namespace, cache.shape("\n" * header.count("\n") + emitter.code()), emitter.literals,
             lambda: source)
    return source


def load_lazy(cache: CodeCache, emitter: Emitter, namespace: dict[str, Any], header: str,
              render: Callable[[], str], constants: dict[str, Any] | None = None,
              stored_key: str | None = None) -> None:
    """As :func:`load`, keeping no source: ``render()`` (which regenerates it, the same text
    as ``emitter.source(header)``) is called when a traceback or a reader needs it.

    ``stored_key``: with an on-disk cache in use (:func:`compile_cache`), the module
    (its code and ``constants``, the table of :class:`Constants`) is stored under this key
    when every constant is a plain value ``marshal`` can write.
    """
    code_text = "\n" * header.count("\n") + emitter.code()
    shape = cache.shape(code_text)
    _execute(cache, namespace, shape, emitter.literals, render)
    disk = _compile_cache
    if stored_key is not None and disk is not None:
        shape_id = hashlib.sha256(code_text.encode("utf-8", "surrogatepass")).hexdigest()
        disk.store(cache.kind, stored_key, Module(shape, shape_id, emitter.literals, constants or {}))


def load_stored(cache: CodeCache, namespace: dict[str, Any], render: Callable[[], str],
                stored_key: str) -> bool:
    """Run the module stored under ``stored_key`` in ``namespace`` (its constants added to
    it) when the on-disk cache has it; ``False`` when there is no cache or no such module."""
    disk = _compile_cache
    module = disk.load(cache.kind, stored_key) if disk is not None else None
    if module is None:
        return False
    namespace.update(module.constants)
    _execute(cache, namespace, module.shape, module.literals, render)
    return True


def _generator_fingerprint() -> str:
    """What generated code depends on besides the schema and the options: the generators'
    and their runtimes' source files, and the Python version (bytecode and marshal)."""
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER + sys.version.encode())
    package = Path(__file__).resolve().parent.parent
    for folder in ("schemas", "validation", "serialization"):
        for path in sorted((package / folder).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class CompileCache:
    """Generated modules kept in ``directory`` across restarts: one file per module.

    A file holds ``marshal`` data, as a ``.pyc`` does: the module's compiled code (with
    placeholders for its strings), its strings and its constants, and the full key it was
    stored under. The key is what generation depends on: the schema and the shared schemas
    it reaches (canonical JSON), the engine's options, and a fingerprint of the framework's
    generator code and of the Python version; the file name is its SHA-256. A module whose
    constants are not all plain values (a compiled pattern, a format or keyword function)
    is not stored: it is generated at each start.

    Only the application writes there, in the directory it names (created if missing),
    each file written whole under a temporary name then renamed. A file that is not one
    this version wrote for that key (truncated, corrupt, another version's, another
    program's) is ignored, and rewritten by the next store. Code loaded from it is trusted
    as a ``.pyc`` is: keep the directory as private as the application's code. A
    directory that cannot be written is reported once (a warning on the
    ``framework.compile_cache`` logger); compilation then goes on without storing.
    """

    _MAGIC = b"framework-compile-cache 1\n"

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._fingerprint: str | None = None
        self._warned = False
        self._lock = threading.Lock()
        # Shapes are shared by many modules: each is a file of its own, read once per process.
        self._shapes: dict[str, CodeType] = {}

    def _path(self, kind: str, what: str, key: str) -> tuple[str, Path]:
        if self._fingerprint is None:
            self._fingerprint = _generator_fingerprint()
        full = f"{self._fingerprint}\n{kind}\n{what}\n{key}"
        name = hashlib.sha256(full.encode("utf-8", "surrogatepass")).hexdigest()
        return full, self.directory / f"{kind}-{what}-{name}.marshal"

    def _read(self, kind: str, what: str, key: str) -> object:
        """What was stored for ``key``, or ``None`` (no file, or one this cache did not write for it)."""
        full, path = self._path(kind, what, key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if not data.startswith(self._MAGIC):
            return None
        try:
            stored: object = marshal.loads(data[len(self._MAGIC):])
        except (EOFError, ValueError, TypeError):
            return None
        if type(stored) is not tuple:
            return None
        pair = cast("tuple[object, ...]", stored)
        if len(pair) != 2 or pair[0] != full:
            return None
        return pair[1]

    def _encode(self, kind: str, what: str, key: str, value: Any) -> tuple[Path, bytes] | None:
        full, path = self._path(kind, what, key)
        try:
            return path, self._MAGIC + marshal.dumps((full, value))
        except ValueError:  # a constant that is not a plain value: not stored
            return None

    def _write(self, path: Path, data: bytes) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".marshal")
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(data)
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as error:
            with self._lock:
                if self._warned:
                    return
                self._warned = True
            _log.warning("compile cache: cannot write to %s (%s); compiling without storing", self.directory, error)

    def load(self, kind: str, key: str) -> Module | None:
        """The module stored for ``key``, or ``None`` (none stored, or a file not to use)."""
        stored = self._read(kind, "module", key)
        if type(stored) is not tuple:
            return None
        fields = cast("tuple[object, ...]", stored)
        if (len(fields) != 3 or type(fields[0]) is not str or type(fields[1]) is not tuple
                or type(fields[2]) is not dict):
            return None
        shape_id = fields[0]
        literals = cast("tuple[str, ...]", fields[1])
        constants = cast("dict[str, Any]", fields[2])
        shape = self._shapes.get(shape_id)
        if shape is None:
            read = self._read(kind, "shape", shape_id)
            if type(read) is not CodeType:
                return None
            shape = self._shapes[shape_id] = read
        return Module(shape, shape_id, literals, constants)

    def store(self, kind: str, key: str, module: Module) -> None:
        """Write ``module`` for ``key`` (each file atomically); one whose constants marshal
        cannot write is skipped."""
        encoded = self._encode(kind, "module", key, (module.shape_id, module.literals, module.constants))
        if encoded is None:
            return
        if module.shape_id not in self._shapes:  # neither read nor written by this process yet
            shape = self._encode(kind, "shape", module.shape_id, module.shape)
            if shape is None:
                return
            self._write(*shape)
            self._shapes[module.shape_id] = module.shape
        self._write(*encoded)


_compile_cache: CompileCache | None = (CompileCache(os.environ["FRAMEWORK_COMPILE_CACHE"])
                                       if os.environ.get("FRAMEWORK_COMPILE_CACHE") else None)


def use_compile_cache(directory: str | os.PathLike[str] | None) -> CompileCache | None:
    """Keep generated modules in ``directory`` from now on (``None``: no on-disk cache).

    Process-wide, as the in-memory code caches are; the ``FRAMEWORK_COMPILE_CACHE``
    environment variable sets it at import. Returns the cache now in use.
    """
    global _compile_cache
    _compile_cache = CompileCache(directory) if directory is not None else None
    return _compile_cache


def compile_cache() -> CompileCache | None:
    """The on-disk cache in use, if any."""
    return _compile_cache
