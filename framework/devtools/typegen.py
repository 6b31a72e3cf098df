"""Python ``TypedDict``\\ s from JSON Schemas: ``python -m framework typegen SOURCE...``.

What json-schema-to-ts does for Fastify: :func:`typegen` turns JSON Schemas (an
application's shared schemas, or files) into the source of a Python module of
``TypedDict`` classes and type aliases, for editors and type checkers::

    python -m framework typegen schemas/ > types.py
    python -m framework typegen examples.app:app -o types.py

A ``SOURCE`` is a JSON file, a directory (its ``*.json`` files, sorted by name; not its
subdirectories) or ``module:attribute`` naming an application (or a factory): the
application is readied, as ``routes`` does, and the shared schemas of every one of its
contexts are used (an ``$id`` declared with two different schemas is an error). See
:func:`load_sources`.

How a schema maps to a type:

==============================================  ===========================================
schema                                          type
==============================================  ===========================================
object with ``properties``                      ``class Name(TypedDict)``: keys in
                                                ``required`` plain, the others
                                                ``NotRequired[...]``; a ``required`` key
                                                without a property is ``Any``
the same, a key that is not a plain             ``Name = TypedDict("Name", {...})`` (the
identifier (``"a-b"``, ``"class"``,             functional form)
``"__x"``, non-ASCII, or a name the module
uses, such as ``int``)
object without ``properties``                   ``dict[str, T]``, ``T`` from
                                                ``additionalProperties`` and
                                                ``patternProperties`` (else ``Any``)
``string``, ``integer``, ``number``,            ``str``, ``int``, ``float``, ``bool``,
``boolean``, ``null``                           ``None``
``enum``, ``const``                             ``Literal[...]`` (strings, integers,
                                                booleans; ``None`` as ``| None``; other
                                                values as their type)
``type`` lists, ``anyOf``, ``oneOf``            unions (``anyOf``/``oneOf`` win over the
                                                node's own type when every branch is typed)
``nullable: true``                              ``| None``
``array`` with ``items``                        ``list[T]``
``items`` list with ``additionalItems: false``  ``tuple[T1, T2]`` (so with ``maxItems`` no
                                                more than the items; else ``list[T1 | T2 |
                                                ...]``); JSON arrays are lists at run time
``$ref`` (``$id``, ``id#/definitions/x``,       the referenced definition's name
``#/definitions/x``, JSON pointers)
``allOf`` of objects                            one class, the members' properties merged
                                                (the node's own declaration of a key wins,
                                                then the first typed one); ``required``
                                                is the union
anything else (``not``, ``if``, ...)            ``Any``
==============================================  ===========================================

Every source schema gets a definition, and so does each of its ``definitions`` /
``$defs`` (a schema holding nothing but definitions, or a ``$ref`` to one of its own as
:func:`framework.typeschema.schema_of` writes them, only when something refers to it),
every ``$ref`` target and every nested object with properties. Definitions come out
dependencies first; a recursive reference is quoted (``'list[Node]'``). ``$ref`` is
resolved by :class:`framework.schemas.store.RefIndex`, as the validator resolves it; its
sibling keywords are ignored, except ``nullable``.

Names: the schema's ``title``, else its ``$id`` (the last path segment, ``.json``
dropped), else where it was found (the file name, the definition's key, or the
enclosing class's name followed by the property's), CamelCased to ASCII letters and
digits, then made unique (``Item2``). ``title`` and ``description`` become the class
docstring (a property's ``description`` a comment above it).

``NotRequired`` comes from :mod:`typing` on Python 3.11+ and from ``typing_extensions``
on 3.10 (a ``sys.version_info`` check, which mypy and pyright understand): the module
runs on every supported version and needs ``typing_extensions`` (a dependency of the
framework) on 3.10 only, and only when some key is not required.

Generated code never holds schema text as source: names are reduced to identifiers,
and every string (keys, ``Literal`` values, docstrings, comments, the sources named in
the header) is written through :func:`repr`, as :mod:`framework.schemas.codegen` does for the
compilers, after schemas written in Python are reduced to plain JSON values (a
``str`` enum member becomes its string). The module holds imports, classes,
assignments and docstrings only.
"""
from __future__ import annotations

import json
import keyword
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, Union, cast

from ..schemas.codegen import comment
from ..errors import TypegenError, UnresolvableRefError
from ..schemas.keywords import ANNOTATION_KEYWORDS, CORE_KEYWORDS, DEFINITION_KEYWORDS
from ..schemas.store import RefIndex, base_inside, pointer_tokens, strip_fragment

if TYPE_CHECKING:
    from ..context import Context

# TypegenError is imported from framework.errors, where it lives (and is documented).
__all__ = ["typegen", "load_sources", "app_schemas", "command"]

Schema: TypeAlias = "dict[str, Any]"


# --------------------------------------------------------------------------- type expressions

@dataclass(frozen=True)
class _Ref:
    """A generated definition, by name."""
    name: str


@dataclass(frozen=True)
class _Plain:
    """A name the module imports or a builtin: ``str``, ``Any``, ``None``..."""
    text: str


@dataclass(frozen=True)
class _Literal:
    """``Literal[...]``: each value already ``repr()``-ed."""
    values: tuple[str, ...]


@dataclass(frozen=True)
class _Generic:
    """``list[T]``, ``dict[str, T]``, ``tuple[T1, T2]``."""
    base: str
    args: tuple[_Type, ...]


@dataclass(frozen=True)
class _Union:
    members: tuple[_Type, ...]


_Type: TypeAlias = Union[_Ref, _Plain, _Literal, _Generic, _Union]

ANY = _Plain("Any")
NONE = _Plain("None")
_JSON_TYPES = {"string": _Plain("str"), "integer": _Plain("int"), "number": _Plain("float"),
               "boolean": _Plain("bool"), "null": NONE}


def _union(members: Iterable[_Type]) -> _Type:
    """``A | B``, flattened and deduplicated: literals merged into one ``Literal``, ``None``
    last, ``Any`` absorbing everything."""
    out: list[_Type | None] = []   # None: where the merged Literal goes
    literals: list[str] = []
    has_none = False
    pending = list(members)
    pending.reverse()
    while pending:
        member = pending.pop()
        if isinstance(member, _Union):
            pending.extend(reversed(member.members))
        elif member == ANY:
            return ANY
        elif member == NONE:
            has_none = True
        elif isinstance(member, _Literal):
            if not literals:
                out.append(None)
            literals.extend(value for value in member.values if value not in literals)
        elif member not in out:
            out.append(member)
    merged: list[_Type] = [_Literal(tuple(literals)) if item is None else item for item in out]
    if has_none:
        merged.append(NONE)
    if not merged:
        return ANY
    return merged[0] if len(merged) == 1 else _Union(tuple(merged))


def _render(expression: _Type) -> str:
    if isinstance(expression, _Ref):
        return expression.name
    if isinstance(expression, _Plain):
        return expression.text
    if isinstance(expression, _Literal):
        return "Literal[" + ", ".join(expression.values) + "]"
    if isinstance(expression, _Generic):
        return expression.base + "[" + ", ".join(_render(arg) for arg in expression.args) + "]"
    return " | ".join(_render(member) for member in expression.members)


def _names_in(expression: _Type) -> Iterable[str]:
    if isinstance(expression, _Ref):
        yield expression.name
    elif isinstance(expression, _Generic):
        for arg in expression.args:
            yield from _names_in(arg)
    elif isinstance(expression, _Union):
        for member in expression.members:
            yield from _names_in(member)


def _uses(expression: _Type, name: str) -> bool:
    if isinstance(expression, _Plain):
        return expression.text == name
    if isinstance(expression, _Literal):
        return name == "Literal"
    if isinstance(expression, _Generic):
        return any(_uses(arg, name) for arg in expression.args)
    if isinstance(expression, _Union):
        return any(_uses(member, name) for member in expression.members)
    return False


def _forward(expression: _Type, ready: set[str]) -> bool:
    """Whether the expression names a definition that is not a type at run time yet (a
    forward or recursive reference, or an alias whose value is a quoted expression)."""
    return any(name not in ready for name in _names_in(expression))


def _annotation(expression: _Type, ready: set[str]) -> str:
    """The expression as source, quoted whole (through ``repr``) when :func:`_forward`."""
    text = _render(expression)
    return repr(text) if _forward(expression, ready) else text


# --------------------------------------------------------------------------- definitions

@dataclass
class _Field:
    key: str
    type: _Type
    required: bool
    doc: str | None


@dataclass
class _Class:
    name: str
    doc: str | None
    fields: list[_Field]


@dataclass
class _Alias:
    name: str
    doc: str | None
    type: _Type


#: Names the generated module binds or uses itself: a definition is never called so,
#: and a key called so makes its class use the functional form (in a class body the
#: key would shadow the name for the annotations after it).
_MODULE_NAMES = frozenset({"Any", "Literal", "NotRequired", "TypeAlias", "TypedDict", "sys",
                           "str", "int", "float", "bool", "list", "dict", "tuple", "None"})


def _camel(text: str) -> str:
    """``"item-input"`` -> ``"ItemInput"``: ASCII letters and digits (accents dropped), each
    word capitalised; ``""`` when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return "".join(word[0].upper() + word[1:] for word in re.findall(r"[A-Za-z0-9]+", ascii_text))


def _identifier(text: str) -> str:
    """A class name made of ``text`` (never a keyword nor one of :data:`_MODULE_NAMES`)."""
    name = _camel(text) or "Schema"
    if name[0].isdigit():
        name = "Schema" + name
    if keyword.iskeyword(name) or name in _MODULE_NAMES:
        name += "Type"
    return name


def _id_hint(schema_id: str) -> str:
    """The last path segment of an ``$id`` (``http://x/user.json`` -> ``user``)."""
    segments = [part for part in re.split(r"[/:]", strip_fragment(schema_id)) if part]
    last = segments[-1] if segments else ""
    return last[:-5] if last.lower().endswith(".json") and len(last) > 5 else last


def _ref_hint(ref: str) -> str:
    uri, _, fragment = ref.partition("#")
    if fragment.startswith("/"):
        tokens = pointer_tokens(fragment, url_encoded=True)
        if tokens:
            return tokens[-1]
    return _id_hint(uri) or fragment


def _plain_key(key: str, taken: Iterable[str]) -> bool:
    """Whether ``key`` can be written as a field of a ``class`` body as it is."""
    return (key.isascii() and key.isidentifier() and not keyword.iskeyword(key)
            and not key.startswith("__") and key not in _MODULE_NAMES and key not in taken)


def _as_schema(value: Any) -> Schema | None:
    return cast(Schema, value) if isinstance(value, dict) else None


def _as_list(value: Any) -> list[object]:
    """``value`` when it is a list, else ``[]``."""
    return cast("list[object]", value) if isinstance(value, list) else []


def _type_names(schema: Schema) -> list[str] | None:
    """The names in ``type`` (``None`` when the schema has no ``type``)."""
    types = schema.get("type")
    if isinstance(types, str):
        return [types]
    if isinstance(types, list):
        return [name for name in _as_list(types) if isinstance(name, str)]
    return None


#: typegen's own choice (not a kind of keyword, so not in the keyword table): the keywords
#: it turns into a Python type.
_TYPING_KEYWORDS = ("type", "properties", "items", "enum", "const", "$ref", "anyOf", "oneOf",
                    "additionalProperties", "patternProperties")


def _is_typed(value: Any) -> bool:
    """Whether a schema says something about the type of a value (``{"minLength": 1}`` does not)."""
    schema = _as_schema(value)
    if schema is None:
        return False
    return any(key in schema for key in _TYPING_KEYWORDS) or any(
        _is_typed(member) for member in _as_list(schema.get("allOf")))


def _union_branches(schema: Schema) -> list[Any] | None:
    """The ``anyOf`` (else ``oneOf``) branches when every one of them is typed."""
    for key in ("anyOf", "oneOf"):
        branches = _as_list(schema.get(key))
        if branches and all(_is_typed(branch) for branch in branches):
            return branches
    return None


def _doc(schema: Schema, name: str) -> str | None:
    parts: list[str] = []
    title = schema.get("title")
    if isinstance(title, str) and title.strip() and title.strip() != name:
        parts.append(title.strip())
    description = schema.get("description")
    if isinstance(description, str) and description.strip():
        parts.append(description.strip())
    return "\n\n".join(parts) or None


def _text(value: object) -> str:
    """``value`` as an exact ``str`` (a subclass's ``__str__``/``__repr__`` never applies)."""
    return str.__str__(value if isinstance(value, str) else str(value))


def _plain_json(value: Any) -> Any:
    """A copy made of dicts, lists and exact ``str``/``int``/``float``/``bool``/``None``.

    Schemas written in Python may hold mappings, tuples, enum members (``class
    Color(str, Enum)``) or other subclasses of the JSON types, whose ``repr()`` is not
    the value's literal: they become the plain value, so that every ``repr()`` written
    into the module is a builtin's. Other objects are kept (they are never written).
    """
    if isinstance(value, Mapping):
        mapping = cast("Mapping[object, object]", value)
        return {_text(key): _plain_json(item) for key, item in mapping.items()}
    if isinstance(value, (list, tuple)):
        items = cast("Sequence[object]", value)
        return [_plain_json(item) for item in items]
    if isinstance(value, bool):
        return value is True
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    return value


class _Generator:
    """Collects the definitions (dependencies first), then renders the module."""

    def __init__(self, documents: dict[str, Schema]) -> None:
        self.documents = documents
        # Each document by its key and by its $id (fragments dropped); all indexed up
        # front, so that an $id nested in any of them is known before a $ref needs it.
        shared: dict[str, Schema] = {}
        for key, document in documents.items():
            shared.setdefault(strip_fragment(key), document)
            schema_id = document.get("$id")
            if isinstance(schema_id, str) and strip_fragment(schema_id):
                shared.setdefault(strip_fragment(schema_id), document)
        self.index = RefIndex({}, shared)
        for key in shared:
            if key:
                self.index.resolve(key, "")
        self.definitions: list[_Class | _Alias] = []
        self.taken: set[str] = set()
        #: reserved names, by node identity (the source schemas, then their definitions).
        self.reserved: dict[int, str] = {}
        #: the type that stands for a named node where it is used, by node identity.
        self.usage: dict[int, _Type] = {}
        self.keep: list[Any] = []   # keeps every named node alive, so identities stay unique

    # ---------------------------------------------------------------- naming
    def _new_name(self, text: str) -> str:
        base = _identifier(text)
        name, number = base, 1
        while name in self.taken:
            number += 1
            name = f"{base}{number}"
        self.taken.add(name)
        return name

    def _name_for(self, schema: Schema, hint: str) -> str:
        reserved = self.reserved.get(id(schema))
        if reserved is not None:
            return reserved
        title = schema.get("title")
        schema_id = schema.get("$id")
        if isinstance(title, str) and _camel(title):
            text = title
        elif isinstance(schema_id, str) and _camel(_id_hint(schema_id)):
            text = _id_hint(schema_id)
        else:
            text = hint
        return self._new_name(text)

    def _reserve(self, schema: Schema, hint: str) -> None:
        if id(schema) not in self.reserved and id(schema) not in self.usage:
            self.reserved[id(schema)] = self._name_for(schema, hint)
            self.keep.append(schema)

    # ---------------------------------------------------------------- walking
    def run(self) -> None:
        roots: list[tuple[Schema, str, str]] = []
        for key, document in self.documents.items():
            has_id = isinstance(document.get("$id"), str) and "$ref" not in document
            roots.append((document, "" if has_id else key, _id_hint(key)))
        for document, _, hint in roots:
            if not _holds_only_definitions(document):
                self._reserve(document, hint)
        definitions = [found for document, outer, _ in roots for found in _definitions(document, outer)]
        for schema, _, hint in definitions:
            self._reserve(schema, hint)
        for document, outer, hint in roots:
            for schema, definition_outer, definition_hint in _definitions(document, outer):
                self._named(schema, definition_outer, definition_hint)
            if not _holds_only_definitions(document):
                self._named(document, outer, hint)
        self._break_alias_cycles()

    def _resolve(self, ref: str, base: str) -> tuple[Any, str]:
        try:
            return self.index.resolve(ref, base)
        except UnresolvableRefError:
            raise TypegenError(f"can't resolve $ref {ref!r} (base {base!r})") from None

    def _type(self, node: Any, outer: str, hint: str) -> _Type:
        """The type of a schema where it is used (``outer``: the base URI around it)."""
        schema = _as_schema(node)
        if schema is None:
            return ANY
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target, target_outer = self._resolve(ref, outer)
            used = self._named(target, target_outer, _ref_hint(ref) or hint)
            return _union([used, NONE]) if schema.get("nullable") is True else used
        if self._is_class(schema, outer):
            return self._named(schema, outer, hint)
        return self._structure(schema, outer, hint)

    def _named(self, node: Any, outer: str, hint: str) -> _Type:
        """The type standing for ``node``, defined under a name of its own (once)."""
        schema = _as_schema(node)
        if schema is None:
            return ANY
        found = self.usage.get(id(schema))
        if found is not None:
            return found
        name = self._name_for(schema, hint)
        self.reserved.pop(id(schema), None)
        self.keep.append(schema)
        reference = _Ref(name)
        self.usage[id(schema)] = reference   # what a recursive reference met below sees
        doc = _doc(schema, name)
        if self._is_class(schema, outer):
            extras = [self._json_type(type_name, schema, outer, name)
                      for type_name in _type_names(schema) or () if type_name != "object"]
            if schema.get("nullable") is True:
                extras.append(NONE)
            self.usage[id(schema)] = _union([reference, *extras])
            self.definitions.append(self._class(schema, outer, name, doc))
        else:
            self.definitions.append(_Alias(name, doc, self._type(schema, outer, name)))
        return self.usage[id(schema)]

    # ---------------------------------------------------------------- objects
    def _object_parts(self, node: Any, outer: str, seen: frozenset[int]) -> list[tuple[Schema, str]] | None:
        """The schemas an object's properties are merged from (``allOf`` members and ``$ref``
        targets followed, the node last), or ``None`` when one of them is not an object."""
        if node is True:
            return []
        schema = _as_schema(node)
        if schema is None:
            return None
        if id(schema) in seen:
            return []
        seen = seen | {id(schema)}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target, target_outer = self._resolve(ref, outer)
            return self._object_parts(target, target_outer, seen)
        types = _type_names(schema)
        if ("enum" in schema or "const" in schema or _union_branches(schema) is not None
                or (types is not None and "object" not in types)):
            return None
        parts: list[tuple[Schema, str]] = []
        inner = base_inside(schema, outer)
        for member in _as_list(schema.get("allOf")):
            member_parts = self._object_parts(member, inner, seen)
            if member_parts is None:
                return None
            parts.extend(member_parts)
        parts.append((schema, outer))
        return parts

    def _is_class(self, schema: Schema, outer: str) -> bool:
        if "$ref" in schema:
            return False
        parts = self._object_parts(schema, outer, frozenset())
        if parts is None:
            return False
        if any(_as_schema(part.get("properties")) for part, _ in parts):
            return True
        return bool(_type_names(schema) or ()) and any(
            _as_list(part.get("required")) for part, _ in parts)

    def _class(self, schema: Schema, outer: str, name: str, doc: str | None) -> _Class:
        parts = self._object_parts(schema, outer, frozenset()) or []
        declarations: dict[str, list[tuple[Any, str, bool]]] = {}
        required: list[str] = []
        for part, part_outer in parts:
            inner = base_inside(part, part_outer)
            for key, sub in (_as_schema(part.get("properties")) or {}).items():
                declarations.setdefault(key, []).append((sub, inner, part is schema))
            required.extend(key for key in _as_list(part.get("required"))
                            if isinstance(key, str) and key not in required)
        fields: list[_Field] = []
        for key, found in declarations.items():
            chosen = next((d for d in found if d[2] and _is_typed(d[0])), None) \
                or next((d for d in found if _is_typed(d[0])), found[0])
            sub, sub_outer, _ = chosen
            sub_schema = _as_schema(sub)
            description = sub_schema.get("description") if sub_schema is not None else None
            field_type = self._type(sub, sub_outer, name + _camel(key))
            if id(sub) in self.usage or not isinstance(description, str) or not description.strip():
                description = None   # none, or the docstring of the property's own class
            fields.append(_Field(key, field_type, key in required, description))
        fields.extend(_Field(key, ANY, True, None) for key in required if key not in declarations)
        return _Class(name, doc, fields)

    # ---------------------------------------------------------------- everything else
    def _structure(self, schema: Schema, outer: str, hint: str) -> _Type:
        """The type of a schema that is neither a ``$ref`` nor a class."""
        inner = base_inside(schema, outer)
        branches = _union_branches(schema)
        if branches is not None:
            result = _union(self._type(branch, inner, f"{hint}Option{number}")
                            for number, branch in enumerate(branches, 1))
        elif "const" in schema:
            result = _literal_type([schema["const"]])
        elif isinstance(schema.get("enum"), list):
            result = _literal_type(_as_list(schema["enum"]))
        else:
            names = _type_names(schema)
            if names is None:
                if "items" in schema or "additionalItems" in schema:
                    names = ["array"]
                elif "additionalProperties" in schema or "patternProperties" in schema:
                    names = ["object"]
                else:
                    names = []
            result = _union(self._json_type(name, schema, outer, hint) for name in names) if names else ANY
            if result == ANY:
                # allOf whose members are not all objects: the first typed member's type.
                typed = [member for member in _as_list(schema.get("allOf")) if _is_typed(member)]
                if typed:
                    result = self._type(typed[0], inner, hint)
        if schema.get("nullable") is True:
            result = _union([result, NONE])
        return result

    def _json_type(self, name: str, schema: Schema, outer: str, hint: str) -> _Type:
        """One name of ``type`` (``object`` here means a dict: classes are made elsewhere)."""
        inner = base_inside(schema, outer)
        if name in _JSON_TYPES:
            return _JSON_TYPES[name]
        if name == "array":
            items = schema.get("items")
            if isinstance(items, list):
                item_types = [self._type(item, inner, f"{hint}Item{number}")
                              for number, item in enumerate(_as_list(items), 1)]
                if not item_types:
                    return _Generic("list", (ANY,))
                max_items = schema.get("maxItems")
                if schema.get("additionalItems") is False or (
                        isinstance(max_items, int) and not isinstance(max_items, bool) and max_items <= len(item_types)):
                    return _Generic("tuple", tuple(item_types))
                extra = schema.get("additionalItems")
                extra_type = self._type(extra, inner, f"{hint}Item") if isinstance(extra, dict) else ANY
                return _Generic("list", (_union([*item_types, extra_type]),))
            return _Generic("list", (self._type(items, inner, f"{hint}Item"),))
        if name == "object":
            values: list[_Type] = [self._type(sub, inner, f"{hint}Value")
                                   for sub in (_as_schema(schema.get("patternProperties")) or {}).values()]
            additional = schema.get("additionalProperties")
            if isinstance(additional, dict):
                values.append(self._type(additional, inner, f"{hint}Value"))
            elif additional is not False and values:
                values.append(ANY)
            return _Generic("dict", (_Plain("str"), _union(values) if values else ANY))
        return ANY

    def _break_alias_cycles(self) -> None:
        """An alias that is only another name for itself (``A = B``, ``B = A``) becomes ``Any``."""
        aliases = {d.name: d for d in self.definitions if isinstance(d, _Alias)}
        for alias in aliases.values():
            seen = {alias.name}
            target = alias.type
            while isinstance(target, _Ref) and target.name in aliases:
                if target.name in seen:
                    alias.type = ANY
                    break
                seen.add(target.name)
                target = aliases[target.name].type

    # ---------------------------------------------------------------- rendering
    def render(self, sources: Sequence[str]) -> str:
        classes = [d for d in self.definitions if isinstance(d, _Class)]
        aliases = [d for d in self.definitions if isinstance(d, _Alias)]
        expressions = [f.type for c in classes for f in c.fields] + [a.type for a in aliases]
        not_required = any(not f.required for c in classes for f in c.fields)
        from_typing = [name for name in ("Any", "Literal")
                       if any(_uses(expression, name) for expression in expressions)]
        if aliases:
            from_typing.append("TypeAlias")
        if classes and not not_required:
            from_typing.append("TypedDict")
        lines = ["# Generated by framework.typegen (python -m framework typegen) from:" if sources
                 else "# Generated by framework.typegen (python -m framework typegen) from no schema."]
        lines.extend("#   " + repr(_text(source)) for source in sources)
        lines.append("# Do not edit: change the schemas and generate it again.")
        lines.append("")
        if not_required:
            lines.append("import sys")
        if from_typing:
            lines.append("from typing import " + ", ".join(from_typing))
        if not_required:
            lines.extend(["", "if sys.version_info >= (3, 11):",
                          "    from typing import NotRequired, TypedDict",
                          "else:",
                          "    from typing_extensions import NotRequired, TypedDict"])
        ready: set[str] = set()
        taken = {d.name for d in self.definitions}
        for definition in self.definitions:
            lines.extend(["", ""])
            if isinstance(definition, _Class):
                lines.extend(_render_class(definition, ready, taken))
                ready.add(definition.name)
            else:
                lines.append(f"{definition.name}: TypeAlias = {_annotation(definition.type, ready)}")
                if definition.doc is not None:
                    lines.append(repr(definition.doc))
                if not _forward(definition.type, ready):
                    ready.add(definition.name)
        return "\n".join(lines).rstrip("\n") + "\n"


def _render_class(definition: _Class, ready: set[str], taken: set[str]) -> list[str]:
    def annotation(field: _Field) -> str:
        text = _annotation(field.type, ready)
        return text if field.required else f"NotRequired[{text}]"

    name = definition.name
    if all(_plain_key(field.key, taken) for field in definition.fields):
        lines = [f"class {name}(TypedDict):"]
        if definition.doc is not None:
            lines.append("    " + repr(definition.doc))
        for field in definition.fields:
            if field.doc is not None:
                lines.append("    " + comment(field.doc))
            lines.append(f"    {field.key}: {annotation(field)}")
        if not definition.fields and definition.doc is None:
            lines.append("    pass")
        return lines
    lines = [f"{name} = TypedDict({name!r}, {{"]
    for field in definition.fields:
        if field.doc is not None:
            lines.append("    " + comment(field.doc))
        lines.append(f"    {field.key!r}: {annotation(field)},")
    lines.append("})")
    if definition.doc is not None:
        lines.append(repr(definition.doc))
    return lines


def _literal_type(values: list[Any]) -> _Type:
    """``Literal[...]`` of the values a Literal can hold; the others as their JSON type."""
    members: list[_Type] = []
    for value in values:
        if value is None:
            members.append(NONE)
        elif isinstance(value, (bool, int, str)):
            members.append(_Literal((repr(value),)))
        elif isinstance(value, float):
            members.append(_Plain("float"))
        elif isinstance(value, list):
            members.append(_Generic("list", (ANY,)))
        elif isinstance(value, dict):
            members.append(_Generic("dict", (_Plain("str"), ANY)))
        else:
            members.append(ANY)
    return _union(members)


def _holds_only_definitions(schema: Schema) -> bool:
    """A schema that only groups definitions (``{"$id": ..., "definitions": {...}}``), or
    only points at one of its own (``{"$ref": "#/definitions/User", "definitions": ...}``,
    as :func:`framework.typeschema.schema_of` and pydantic write them)."""
    ref = schema.get("$ref")
    if ref is not None and not (isinstance(ref, str) and ref.startswith("#/")):
        return False
    return any(key in schema for key in DEFINITION_KEYWORDS) and all(
        key in CORE_KEYWORDS or key in ANNOTATION_KEYWORDS for key in schema)


def _definitions(schema: Schema, outer: str) -> list[tuple[Schema, str, str]]:
    """``(definition, outer base, key)`` for the ``definitions``/``$defs`` below ``schema``, nested ones too."""
    found: list[tuple[Schema, str, str]] = []
    pending = [(schema, outer)]
    while pending:
        node, node_outer = pending.pop(0)
        inner = base_inside(node, node_outer)
        for keyword_name in DEFINITION_KEYWORDS:
            for key, sub in (_as_schema(node.get(keyword_name)) or {}).items():
                sub_schema = _as_schema(sub)
                if sub_schema is not None:
                    found.append((sub_schema, inner, key))
                    pending.append((sub_schema, inner))
    return found


# --------------------------------------------------------------------------- public API

def typegen(schemas: Mapping[str, Mapping[str, Any]] | Iterable[Mapping[str, Any]], *,
            sources: Sequence[str] | None = None) -> str:
    """The source of a Python module holding a ``TypedDict`` (or a type alias) per schema.

    :param schemas: a mapping of each schema's location to the schema (as
        ``app.get_schemas()`` returns them by ``$id``, or :func:`load_sources` by file
        URI: a ``$ref`` may name a schema by either its key or its ``$id``), or an
        iterable of schemas (each with an ``$id``, or named ``Schema1``, ``Schema2``...).
    :param sources: what the header says the module was generated from (default: the
        schemas' keys).
    :returns: the module's source, ending with a newline; the same schemas always give
        the same text.
    :raises TypegenError: for a schema that is not a JSON object, two schemas with one
        ``$id``, or a ``$ref`` that names nothing.

    >>> print(typegen([{"$id": "point", "type": "object", "required": ["x"],
    ...                 "properties": {"x": {"type": "number"}, "label": {"type": "string"}}}]))
    # Generated by framework.typegen (python -m framework typegen) from:
    #   'point'
    # Do not edit: change the schemas and generate it again.
    <BLANKLINE>
    import sys
    <BLANKLINE>
    if sys.version_info >= (3, 11):
        from typing import NotRequired, TypedDict
    else:
        from typing_extensions import NotRequired, TypedDict
    <BLANKLINE>
    <BLANKLINE>
    class Point(TypedDict):
        x: float
        label: NotRequired[str]
    <BLANKLINE>
    """
    documents: dict[str, Schema] = {}
    items: list[tuple[object, object]]
    if isinstance(schemas, Mapping):
        items = list(cast("Mapping[object, object]", schemas).items())
    else:
        items = []
        for number, value in enumerate(cast("Iterable[object]", schemas), 1):
            found = _as_schema(_plain_json(value))
            schema_id = found.get("$id") if found is not None else None
            items.append((schema_id if isinstance(schema_id, str) and schema_id else f"schema-{number}", value))
    ids: dict[str, str] = {}
    for key, value in items:
        if not isinstance(value, Mapping):
            raise TypegenError(f"the schema {_text(key)!r} is not a JSON object: {type(value).__name__}")
        document: Schema = _plain_json(value)
        key = _text(key)
        if key in documents:
            raise TypegenError(f"two schemas are named {key!r}")
        schema_id = document.get("$id")
        if isinstance(schema_id, str):
            if schema_id in ids and ids[schema_id] != key:
                raise TypegenError(f"{ids[schema_id]!r} and {key!r} have the same $id {schema_id!r}")
            ids[schema_id] = key
        documents[key] = document
    generator = _Generator(documents)
    generator.run()
    return generator.render(list(sources) if sources is not None else list(documents))


def app_schemas(app: Context) -> dict[str, Schema]:
    """The shared schemas of every context of a readied application, by ``$id``.

    Each context's shared schemas (``get_schemas()``: its own and its ancestors') are
    gathered, breadth first; an ``$id`` two encapsulated contexts declare with different
    schemas raises :class:`~framework.errors.TypegenError`.
    """
    found: dict[str, Schema] = {}
    for context in app.walk():
        for schema_id, schema in context.get_schemas().items():
            previous = found.setdefault(schema_id, schema)
            if previous is not schema and previous != schema:
                raise TypegenError(f"two contexts declare different schemas with the $id {schema_id!r}")
    return found


def load_sources(sources: Sequence[str],
                 load_app: Callable[[str], Context] | None = None) -> dict[str, Schema]:
    """The schemas ``SOURCE`` arguments name, in order, by location.

    - a file: its JSON, keyed by the file's ``file:`` URI (so that a relative ``$ref``
      such as ``"address.json"`` finds its neighbour);
    - a directory: each of its ``*.json`` files, sorted by name (subdirectories are not
      read);
    - anything else with a ``:``: ``module:attribute``, the application ``load_app``
      returns for it (the command line passes :func:`framework.serving.cli.load_app`, which
      also calls a factory), readied and closed again; its schemas as
      :func:`app_schemas` gives them, keyed by ``$id``. From Python, an application at
      hand is simpler: ``typegen(app_schemas(app))``.

    :raises TypegenError: for a missing source, an unreadable or invalid JSON file, a
        file whose JSON is not an object, or ``module:app`` without ``load_app``.
    """
    documents: dict[str, Schema] = {}
    for source in sources:
        path = Path(source)
        if path.is_dir():
            files = sorted(child for child in path.glob("*.json") if child.is_file())
            if not files:
                raise TypegenError(f"no *.json file in the directory {source!r}")
        elif path.is_file():
            files = [path]
        elif ":" in source:
            if load_app is None:
                raise TypegenError(f"{source!r}: reading an application needs load_app")
            documents.update(_app_source(load_app(source)))
            continue
        else:
            raise TypegenError(f"{source!r} is neither a file, a directory nor module:app")
        for file in files:
            try:
                document = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as error:
                raise TypegenError(f"{str(file)!r}: {error}") from None
            if not isinstance(document, dict):
                raise TypegenError(f"{str(file)!r} does not hold a JSON object")
            documents[file.resolve().as_uri()] = cast(Schema, document)
    return documents


def _app_source(app: Context) -> dict[str, Schema]:
    app.ready()
    try:
        return app_schemas(app)
    finally:
        app.close()


def command(sources: Sequence[str], output: str | None, load_app: Callable[[str], Context]) -> int:
    """``python -m framework typegen SOURCE... [--output FILE]``: write the module (UTF-8)
    to ``output`` or standard output; an error is printed to standard error (status 1).
    ``load_app``: see :func:`load_sources`."""
    try:
        text = typegen(load_sources(sources, load_app), sources=sources)
    except TypegenError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if output:
        with open(output, "w", encoding="utf-8") as file:
            file.write(text)
    else:
        # UTF-8 whatever the locale: the text is Python source (PEP 3120).
        binary = getattr(sys.stdout, "buffer", None)
        if binary is None:
            sys.stdout.write(text)
        else:
            sys.stdout.flush()
            binary.write(text.encode("utf-8"))
            binary.flush()
    return 0
