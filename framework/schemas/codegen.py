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
- :func:`comment`: schema text in a comment, ``repr()``-quoted after ``#`` so that no
  character of it (a newline in a property name) can end the comment;
- :class:`CodeCache`, :func:`run`, :func:`load`: compile once per distinct source (thread-safe),
  register the source with :mod:`linecache` so tracebacks through generated code show
  its real lines, and ``exec`` it in its namespace.

Comments do not change a code object, so :func:`load` compiles the *code* of a source
(its lines without comments) once and gives each full source (comments included) its
own file name: schemas whose code differs only in constants share the compiled code,
and each traceback still shows its own schema's paths.
"""
from __future__ import annotations

import itertools
import linecache
import threading
from types import CodeType
from typing import Any

__all__ = ["Emitter", "Constants", "CodeCache", "comment", "literal", "load", "run"]

# repr() of an int longer than this many digits raises (sys.int_info.str_digits_check_threshold).
_LONGEST_INT_LITERAL = 10 ** 600


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
        """The source without comments: what the compiled code depends on."""
        return "\n".join(self.lines) + "\n"

    def source(self, header: str = "") -> str:
        """The readable source: ``header`` (comment lines), then each line with its comment."""
        body = "\n".join(line if note is None else f"{line}  {note}"
                         for line, note in zip(self.lines, self.comments))
        return header + body + "\n"


class Constants:
    """The constants table: values bound as globals of the generated module.

    ``name(value, kind)`` gives ``_<kind><n>``; one value (by identity) gets one name.
    The table keeps every value alive, so identities stay unique while generating.
    """

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self._names: dict[int, str] = {}
        self._keep: list[Any] = []
        self._count = 0

    def source(self, value: Any, kind: str = "c") -> str:
        """Source text for ``value``: its :func:`literal`, else the name of a constant."""
        written = literal(value)
        return written if written is not None else self.name(value, kind)

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


def _renamed(code: CodeType, filename: str) -> CodeType:
    """``code`` (and the functions defined in it) as if compiled from ``filename``."""
    consts = tuple(_renamed(const, filename) if isinstance(const, CodeType) else const
                   for const in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


class CodeCache:
    """Compiled module code by comment-free source, bounded; safe to share between threads."""

    def __init__(self, kind: str, size: int = 4096) -> None:
        self.kind = kind
        self.size = size
        self._code: dict[str, CodeType] = {}
        self._files: dict[str, str] = {}  # full source -> its registered file name
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)

    def code_for(self, code_text: str, source: str) -> CodeType:
        """The code object of ``source`` (whose comment-free text is ``code_text``)."""
        with self._lock:
            filename = self._files.get(source)
            code = self._code.get(code_text)
            if filename is not None and code is not None and code.co_filename == filename:
                return code
            if len(self._code) >= self.size or len(self._files) >= self.size:
                self._clear()
            if filename is None:
                filename = f"<{self.kind} {next(self._numbers)}>"
                self._files[source] = filename
                # Tracebacks through generated code show its lines (mtime None: kept by
                # linecache.checkcache()).
                linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            if code is None:
                code = self._code[code_text] = compile(code_text, filename, "exec")
            if code.co_filename != filename:
                code = _renamed(code, filename)
            return code

    def _clear(self) -> None:
        for filename in self._files.values():
            linecache.cache.pop(filename, None)
        self._files.clear()
        self._code.clear()


def run(cache: CodeCache, namespace: dict[str, Any], source: str, code_text: str | None = None) -> None:
    """``exec`` ``source`` in ``namespace``, compiled through ``cache``.

    ``code_text``: the same source without its comments (:meth:`Emitter.code`), which
    lets sources that differ only in comments share one compilation.
    """
    exec(cache.code_for(source if code_text is None else code_text, source), namespace)  # noqa: S102


def load(cache: CodeCache, emitter: Emitter, namespace: dict[str, Any], header: str = "") -> str:
    """Compile (through ``cache``) and ``exec`` the emitted module in ``namespace``; return its source."""
    source = emitter.source(header)
    # The header adds lines above the code: compile the code at the same line numbers.
    run(cache, namespace, source, "\n" * header.count("\n") + emitter.code())
    return source
