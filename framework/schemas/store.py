"""Shared schemas and the schema helpers both engines and the schema plugins use.

One concern here: reading JSON Schema documents. The validator
(:mod:`framework.validation`), the serializer (:mod:`framework.serialization`) and the
schema plugins (``plugins/merge_patch.py``, ``plugins/error_messages.py``) all go
through these, so they agree on what a schema means:

- :class:`SchemaStore`: the shared schemas of one context (``add_schema``);
- :func:`normalize_input_schema`: a route's input schema as the engines get it;
- :class:`RefIndex`: the one ``$ref`` resolver (draft-07 ``$id`` scopes, relative and
  nested ``$id``, ``#anchor``, JSON pointers, shared schemas). Resolution never touches
  the network: a reference that is neither in the schema nor in the shared store raises
  :class:`framework.errors.UnresolvableRefError`, reported at ``ready()``;
- :func:`base_inside`, :func:`join`, :func:`absolutize`: base URIs;
- :func:`iter_subschemas` (it walks the keywords :mod:`framework.schemas.keywords` says hold subschemas);
- JSON pointers (:func:`escape_token`, :func:`pointer_tokens`, :func:`to_pointer`);
- :func:`json_equal`: JSON's equality (``1 == 1.0``, ``True != 1``);
- the type aliases :data:`Schema` and :data:`JSONValue`.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Iterable, Iterator, TypeAlias, Union

from urllib.parse import unquote, urljoin, urlsplit

from ..errors import SchemaAlreadyPresentError, SchemaMissingIdError
# The keyword sets the walkers follow (re-exported, for code that reads them from here).
from .keywords import DATA_KEYWORDS as DATA_KEYWORDS
from .keywords import SCHEMA_LISTS as SCHEMA_LISTS
from .keywords import SCHEMA_MAPS as SCHEMA_MAPS
from .keywords import SCHEMA_SINGLES as SCHEMA_SINGLES
from .keywords import is_array as is_array
from .keywords import is_object as is_object
from .keywords import subschemas
# Re-exported: the resolver's error, importable from here as well.
from ..errors import UnresolvableRefError as UnresolvableRefError

#: A JSON Schema object (a boolean schema is a plain ``bool``).
Schema: TypeAlias = dict[str, Any]
#: A JSON value as :func:`json.loads` gives it. The helpers here annotate the nodes they
#: narrow with it (``isinstance(node, dict)`` then gives ``dict[str, JSONValue]``); JSON
#: data is otherwise typed ``Any``.
JSONValue: TypeAlias = Union[dict[str, "JSONValue"], list["JSONValue"], str, int, float, bool, None]
#: A JSON value one level deep (an object's values and an array's items stay ``Any``): the
#: type of JSON data a function hands on without walking it.
JSONData: TypeAlias = Union[dict[str, Any], list[Any], str, int, float, bool, None]
#: ``(node, base URI in effect around it)``: where a ``$id`` or ``$ref`` leads.
_Located: TypeAlias = tuple[Any, str]



class SchemaStore:
    """The shared schemas of one context; a child store sees its ancestors' schemas."""

    __slots__ = ("parent", "own")

    def __init__(self, parent: "SchemaStore | None" = None) -> None:
        self.parent = parent
        self.own: dict[str, Schema] = {}

    def add(self, schema: JSONValue) -> None:
        """Add a deep copy of ``schema`` under its ``$id``.

        Raises :class:`~framework.errors.SchemaMissingIdError` when ``schema`` is not an
        object with an ``$id``, :class:`~framework.errors.SchemaAlreadyPresentError` when
        this store or an ancestor already has that ``$id``.
        """
        if not isinstance(schema, dict):
            raise SchemaMissingIdError()
        schema_id: Any = schema.get("$id")  # a string, unless the document is wrong
        if not schema_id:
            raise SchemaMissingIdError()
        if self.get(schema_id) is not None:
            raise SchemaAlreadyPresentError(schema_id)
        self.own[schema_id] = copy.deepcopy(schema)

    def get(self, schema_id: str) -> Schema | None:
        """The schema whose ``$id`` is ``schema_id`` here or in an ancestor, or ``None``."""
        store: SchemaStore | None = self
        while store is not None:
            if schema_id in store.own:
                return store.own[schema_id]
            store = store.parent
        return None

    def all(self) -> dict[str, Schema]:
        """Every schema visible here, ancestors' first."""
        chain: list[dict[str, Schema]] = []
        store: SchemaStore | None = self
        while store is not None:
            chain.append(store.own)
            store = store.parent
        visible: dict[str, Schema] = {}
        for own in reversed(chain):
            visible.update(own)
        return visible


# --------------------------------------------------------------------------- walking

def iter_subschemas(schema: Any) -> Iterator[Schema]:
    """Yield ``schema`` and every subschema below it (depth first)."""
    stack: list[JSONValue] = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node
        stack.extend(subschemas(node))


# --------------------------------------------------------------------------- JSON pointers

def escape_token(token: Any) -> str:
    """One JSON-pointer token, RFC 6901 escaped (``a/b`` -> ``a~1b``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """The inverse of :func:`escape_token` (``a~1b`` -> ``a/b``)."""
    return token.replace("~1", "/").replace("~0", "~")


def pointer_tokens(pointer: str, *, url_encoded: bool = False) -> list[str]:
    """The unescaped tokens of ``/a/b~1c`` (``url_encoded``: a URI fragment, %-decoded first)."""
    if not pointer:
        return []
    return [unescape_token(unquote(t) if url_encoded else t) for t in pointer.split("/")[1:]]


def to_pointer(tokens: Iterable[Any]) -> str:
    """The JSON pointer of ``tokens`` (``["a", "b/c"]`` -> ``/a/b~1c``)."""
    return "".join("/" + escape_token(t) for t in tokens)


def value_at(document: Any, tokens: list[str], missing: Any = None) -> Any:
    """The value ``tokens`` point at in ``document`` (dicts by key, lists by index), or ``missing``."""
    node: JSONValue = document
    for token in tokens:
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return missing
    return node


# --------------------------------------------------------------------------- equality

def json_equal(a: JSONValue, b: JSONValue) -> bool:
    """JSON equality: ``1 == 1.0`` but ``True != 1``; deep for arrays and objects."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for key, item in a.items():
            if key not in b or not json_equal(item, b[key]):
                return False
        return True
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        return all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(b, (dict, list)):
        return False
    if isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    if a is None or b is None:
        return a is b
    return a == b


# --------------------------------------------------------------------------- base URIs

def join(base: str, ref: str) -> str:
    """RFC 3986 reference resolution that also works for ``urn:`` bases."""
    if not base:
        return ref
    if ref.startswith("#"):
        return base.partition("#")[0] + ref
    if urlsplit(ref).scheme:
        return ref
    return urljoin(base, ref)


def strip_fragment(uri: str) -> str:
    """``uri`` without its fragment (``a.json#/x`` -> ``a.json``)."""
    return uri.partition("#")[0]


def base_inside(node: Any, outer: str) -> str:
    """The base URI in effect inside ``node`` when ``outer`` applies around it.

    Draft 7: a node's ``$id`` changes the base, except next to ``$ref`` (which makes
    every sibling keyword ignored).
    """
    schema: JSONValue = node  # (typed for the narrowing below; callers pass any JSON data)
    if isinstance(schema, dict):
        node_id = schema.get("$id")
        if isinstance(node_id, str) and "$ref" not in schema:
            return strip_fragment(join(outer, node_id))
    return outer


def absolutize(schema: Any, base: str) -> Any:
    """A deep copy of ``schema`` whose every ``$ref`` names an absolute location, so that
    it keeps its meaning when it is moved into another document (``allOf`` merging,
    ``$merge``/``$patch``).

    ``base`` is the base URI in effect inside ``schema`` (its own ``$id`` applied, see
    :func:`base_inside`); nested ``$id`` change the base below them, as they do for
    resolution. Data keywords (``enum``, ``const``, ``default``, ``examples``) are
    copied as they are.
    """
    if not base:
        return copy.deepcopy(schema)

    def walk(node: JSONValue, base: str) -> JSONValue:
        if isinstance(node, list):
            return [walk(item, base) for item in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, JSONValue] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = join(base, value)
            elif key in DATA_KEYWORDS:
                out[key] = copy.deepcopy(value)
            else:
                out[key] = walk(value, base_inside(value, base))
        return out

    return walk(schema, base)


# --------------------------------------------------------------------------- $ref

def _walk_into(node: JSONValue, outer: str, resources: dict[str, _Located],
               anchors: dict[str, _Located], refs: list[tuple[str, str]]) -> None:
    """Record the ``$id`` resources and anchors below ``node`` and every ``$ref`` met."""
    stack: list[tuple[JSONValue, str]] = [(node, outer)]
    while stack:
        node, outer = stack.pop()
        if not isinstance(node, dict):
            continue
        base = outer
        ref = node.get("$ref")
        if isinstance(ref, str):
            refs.append((ref, outer))
        node_id = node.get("$id")
        if isinstance(node_id, str) and "$ref" not in node:
            full = join(outer, node_id)
            uri, _, fragment = full.partition("#")
            if fragment:
                anchors.setdefault(uri + "#" + fragment, (node, outer))
            else:
                resources.setdefault(uri, (node, outer))
            base = uri
        stack.extend((sub, base) for sub in subschemas(node))


# A shared schema is indexed by every route that reaches it: walk it once. Keyed by
# identity (the store keeps its schemas and never changes them), holding the document
# so that its id cannot be reused while the entry lives.
_Walk: TypeAlias = tuple[dict[str, _Located], dict[str, _Located], list[tuple[str, str]]]
_SHARED_WALKS: dict[tuple[int, str], tuple[Schema, _Walk]] = {}
_SHARED_WALKS_SIZE = 4096


def _shared_walk(document: Schema, base: str) -> _Walk:
    entry = _SHARED_WALKS.get((id(document), base))
    if entry is not None and entry[0] is document:
        return entry[1]
    resources: dict[str, _Located] = {}
    anchors: dict[str, _Located] = {}
    refs: list[tuple[str, str]] = []
    _walk_into({k: v for k, v in document.items() if k != "$id"}, base, resources, anchors, refs)
    if len(_SHARED_WALKS) >= _SHARED_WALKS_SIZE:
        _SHARED_WALKS.clear()
    _SHARED_WALKS[(id(document), base)] = (document, (resources, anchors, refs))
    return resources, anchors, refs


#: The draft-07 meta-schema's id; ``$ref`` to it resolves to the copy shipped in the package.
DRAFT07_META_URI = "http://json-schema.org/draft-07/schema"
_DRAFT07_META: list[Any] = []


def draft07_meta_schema() -> Any:
    """The draft-07 meta-schema (``framework/schemas/draft-07-schema.json``), loaded once."""
    if not _DRAFT07_META:
        import json
        import pathlib
        path = pathlib.Path(__file__).with_name("draft-07-schema.json")
        _DRAFT07_META.append(json.loads(path.read_text(encoding="utf-8")))
    return _DRAFT07_META[0]


class RefIndex:
    """Where every ``$id`` of a schema (and of the shared schemas it reaches) points.

    The one ``$ref`` resolver of the framework: the validator, the serializer and the
    schema plugins all resolve through it. Build it on the root schema, then call
    :meth:`resolve` with the base URI in effect where the ``$ref`` was met
    (:func:`base_inside` of the enclosing nodes; ``""`` around the root).

    A located node is ``(node, outer_base)``: ``outer_base`` is the base URI in effect
    around the node, so entering the node applies its own ``$id`` exactly once.
    """

    def __init__(self, root: Any, shared: Mapping[str, Any] | None) -> None:
        self.shared = shared or {}
        self.resources: dict[str, tuple[Any, str]] = {}
        self.anchors: dict[str, tuple[Any, str]] = {}
        self._shared_indexed: set[str] = set()
        self._all_shared_indexed = False
        #: the shared schemas a compilation reached (for the compile cache keys).
        self.reached: dict[str, Any] = {}
        #: every ``(ref, base)`` met while indexing, for :meth:`preload`.
        self.refs: list[tuple[str, str]] = []
        self.resources.setdefault("", (root, ""))
        self._walk(root, "")

    # ---------------------------------------------------------------- indexing
    def _walk(self, node: Any, outer: str) -> None:
        _walk_into(node, outer, self.resources, self.anchors, self.refs)

    def _index_shared(self, key: str) -> bool:
        if key in self._shared_indexed:
            return False
        document: JSONValue
        if key in self.shared:
            document = self.shared[key]
        elif strip_fragment(key) == DRAFT07_META_URI:
            document = draft07_meta_schema()   # shipped, as Ajv ships it: no network, no add_schema
        else:
            return False
        self._shared_indexed.add(key)
        self.reached[key] = document
        uri = strip_fragment(key)
        node_id = document.get("$id") if isinstance(document, dict) and "$ref" not in document else None
        base = strip_fragment(node_id) if isinstance(node_id, str) else ""
        # Entering the document applies its own $id: an empty outer base makes that give
        # the id itself (a relative id such as "folder/x.json" must not be applied twice).
        outer = "" if base else uri
        base = base or uri
        self.resources.setdefault(uri, (document, outer))
        self.resources.setdefault(base, (document, outer))
        if isinstance(document, dict):
            resources, anchors, refs = _shared_walk(document, base)
            for where, found in resources.items():
                self.resources.setdefault(where, found)
            for where, found in anchors.items():
                self.anchors.setdefault(where, found)
            self.refs.extend(refs)
        return True

    def _find_resource(self, uri: str, location: str) -> tuple[Any, str] | None:
        for candidate in (uri, location):
            if candidate in self.resources:
                return self.resources[candidate]
            for key in (candidate, candidate + "#"):
                if self._index_shared(key):
                    return self.resources.get(strip_fragment(key))
        if not self._all_shared_indexed:
            # An $id nested inside some shared schema: index them all once, then retry.
            self._all_shared_indexed = True
            for key in list(self.shared):
                self._index_shared(key)
            for candidate in (uri, location):
                if candidate in self.resources:
                    return self.resources[candidate]
        return None

    def preload(self) -> "RefIndex":
        """Resolve every ``$ref`` now (raising for an unresolvable one), indexing the shared
        schemas they reach, transitively; :attr:`reached` is then complete."""
        done = 0
        while done < len(self.refs):
            ref, base = self.refs[done]
            done += 1
            self.resolve(ref, base)
        return self

    # ---------------------------------------------------------------- resolving
    def resolve(self, ref: str, base: str) -> tuple[Any, str]:
        """``(target node, base URI around it)`` for ``ref`` met where ``base`` applies."""
        full = join(base, ref)
        uri, _, fragment = full.partition("#")
        location = strip_fragment(ref)
        if fragment and not fragment.startswith("/"):
            for candidate in (uri, location):
                if candidate + "#" + fragment in self.anchors:
                    return self.anchors[candidate + "#" + fragment]
            if self._find_resource(uri, location) is not None:
                for candidate in (uri, location):
                    if candidate + "#" + fragment in self.anchors:
                        return self.anchors[candidate + "#" + fragment]
            raise UnresolvableRefError(ref)
        found = self._find_resource(uri, location)
        if found is None:
            raise UnresolvableRefError(ref)
        node, outer = found
        if not fragment:
            return node, outer
        return self._follow(node, outer, fragment, ref)

    @staticmethod
    def _follow(node: JSONValue, outer: str, pointer: str, ref: str) -> tuple[Any, str]:
        # state: "schema" (node is a schema), "container" (its children are schemas), "other".
        state = "schema"
        for token in pointer_tokens(pointer, url_encoded=True):
            if state == "schema":
                outer = base_inside(node, outer)
            if isinstance(node, dict) and token in node:
                child = node[token]
                if state == "schema":
                    if token in SCHEMA_SINGLES and isinstance(child, (dict, bool)):
                        state = "schema"
                    elif ((token in SCHEMA_MAPS and isinstance(child, dict))
                          or (token in SCHEMA_LISTS and isinstance(child, list))):
                        state = "container"
                    else:
                        state = "other"
                else:
                    state = "schema" if state == "container" else "other"
                node = child
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
                # (pyright's loop analysis wrongly narrows state to "schema" on this line)
                state = "schema" if state == "container" else "other"  # pyright: ignore[reportUnnecessaryComparison]
            else:
                raise UnresolvableRefError(ref)
        return node, outer


_NOT_SHORTHAND = ("type", "properties", "$ref", "oneOf", "allOf", "anyOf", "$merge", "$patch")


def json_copy(value: JSONValue) -> JSONValue:
    """A deep copy of a JSON value's dicts and lists (anything else is shared: the engines
    never change it), 3-4x faster than ``copy.deepcopy``. A schema's ``default`` is copied
    with it per request; 1,000 routes' input schemas at start-up."""
    if type(value) is dict:
        return {key: json_copy(item) for key, item in value.items()}
    if type(value) is list:
        return [json_copy(item) for item in value]
    return value


def normalize_input_schema(schema: JSONValue, http_part: str) -> Any:
    """A route's input schema as the engines get it (a deep copy; the user's is untouched).

    The short form (parameters listed at the top level) becomes
    ``{"type": "object", "properties": ...}``; a headers schema gets its ``properties``
    names and ``required`` entries lower-cased, since request header names are.
    """
    try:
        schema = json_copy(schema)
    except RecursionError:  # a dict inside itself: no JSON, but deepcopy keeps the loop
        schema = copy.deepcopy(schema)
    if isinstance(schema, dict) and not any(key in schema for key in _NOT_SHORTHAND):
        schema = {"type": "object", "properties": schema}
    if http_part == "headers" and isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            schema["properties"] = {str(name).lower(): sub for name, sub in properties.items()}
        required = schema.get("required")
        if isinstance(required, list):
            schema["required"] = [str(name).lower() for name in required]
    return schema
