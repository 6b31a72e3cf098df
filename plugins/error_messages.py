"""The ``errorMessage`` keyword: your own validation messages (the ajv-errors plugin).

A validator plugin. It needs ``all_errors``, because it replaces the errors collected
under a schema node, and with ``all_errors`` off validation stops at the first one::

    from framework import Framework
    from framework.plugins.error_messages import error_messages

    app = Framework(validator={"custom_options": {"all_errors": True},
                               "plugins": [error_messages]})

    @app.post("/users", schema={"body": {
        "type": "object",
        "required": ["name", "age"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "errorMessage": "name must be a non-empty string"},
            "age": {"type": "integer", "minimum": 0,
                    "errorMessage": {"type": "age must be a whole number",
                                     "minimum": "age cannot be negative"}},
        },
        "additionalProperties": False,
        "errorMessage": {"required": {"name": "name is required", "age": "age is required"}},
    }})
    def create(request, reply):
        return request.body

    # POST /users {"name": ""}  -> 400, message "body/name name must be a non-empty string, body age is required"
    # POST /users {"name": "a", "age": -1} -> 400, message "body/age age cannot be negative"

Forms of ``errorMessage`` on a schema node (ajv-errors 3 semantics):

- a **string**: every error of that node and of the schemas below it, for that part of
  the data, is replaced by one error with that message;
- an **object keyed by keyword** (``type``, ``minimum``, ``maxLength``, ``pattern``,
  ``additionalProperties``, ...): the errors of that keyword on that node are replaced,
  one error per keyword; ``required`` (and ``dependencies``) may be a string for all of
  them or an object mapping each property name to its message; ``properties`` maps a
  property name, and ``items`` an index, to a message for everything wrong below that
  property or item; ``_`` is the message for whatever errors of the node remain.

Matching, as ajv-errors 3: keyword messages take the node's own errors (same instance
path, schema path one step below the node); ``properties``/``items`` messages take every
error under that property or item, by instance path, wherever it came from (a ``$ref``, an
``anyOf`` branch, a shared schema); a string or ``_`` takes the remaining errors of the
node and below. Inner messages win: a node's message never replaces an ``errorMessage``
error of a node below it. The new error is a normal record: ``keyword``
``"errorMessage"``, ``instance_path`` of the node (or of the property/item for
``properties``/``items``), ``schema_path`` ``<node>/errorMessage`` (for a node reached
through ``$ref``, the target's path, as Ajv writes it), ``params`` ``{"errors": [the
replaced records]}``. Order, as ajv-errors: each new error follows the errors present when
its node finished (inner nodes first); the errors it replaced are removed.

Templates: ``${/json/pointer}`` (from the validated data's root) and relative JSON
pointers ``${0}``, ``${1/name}``, ``${0#}`` (from the ``errorMessage`` node's data; ``#``
gives its property name or index) are replaced by the JSON text of the value they point
at (``JSON.stringify``: ``"x"`` with quotes, ``1.5``, ``{"a":true}``; ``undefined`` when
there is none). They are looked up, never evaluated. Absolute pointers read the data of
the outermost schema document that holds an ``errorMessage`` template.

Options (``(error_messages, {...})`` in ``validator["plugins"]``): ``keep_errors``
(``False``; ``True`` keeps the replaced errors, each marked ``"emUsed": True``) and
``single_error`` (``False``; ``True`` or a separator string joins the keyword messages of
one node into one error, separated by ``";"`` (as ajv-errors 3.0.0 does) or that string, its ``params["errors"]``
the records of those keywords).

Without ``all_errors`` the plugin fails ``ready()``: collecting every error is what turns
a crafted large payload into a denial-of-service risk, so it must be asked for.
"""
from __future__ import annotations

import contextvars
import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Union

from framework.schemas.store import (JSONData, RefIndex, Schema, base_inside, escape_token, iter_subschemas, pointer_tokens,
                               to_pointer, unescape_token, value_at)

if TYPE_CHECKING:
    from framework.validation import ValidatorEngine

__all__ = ["error_messages", "apply_error_messages", "check_error_message_schema"]

KEYWORD = "errorMessage"
#: A marker keyword the plugin adds to each schema document holding ``errorMessage``: it
#: records the validated data, which ``${...}`` templates read.
DATA_KEYWORD = "x-error-messages-data"
_PROPERTY_PARAMS = {"required": "missingProperty", "dependencies": "property"}
_PER_PROPERTY_KEYS = tuple(_PROPERTY_PARAMS)
_CHILD_KEYS = ("properties", "items")
_WILD = object()  # a template token matching any instance token
_TEMPLATE = re.compile(r"\$\{([^}]+)\}")
_RELATIVE = re.compile(r"(0|[1-9][0-9]*)(#|/.*)?\Z", re.S)
_DATA: contextvars.ContextVar[Any] = contextvars.ContextVar("error_messages_data")
_NO_DATA = object()
_NO_PARAMS: Mapping[str, Any] = MappingProxyType({})  # a record without params (read only)
_MAX_DEPTH = 24

#: An error record, as the validator writes it (``keyword``, ``instance_path``...).
_Record = dict[str, Any]
#: Under which branch condition a site's errors survive: ``("comb", anyOf/oneOf path,
#: template length, None)`` or ``("if", if path, template length, "then"/"else")``.
_Condition = tuple[str, str, int, Union[str, None]]


class _Site:
    """One place where an ``errorMessage`` node is evaluated: the node, its schema path
    (as validation errors spell it: a ``$ref`` target restarts it), the instance-path
    template leading to it, its position in evaluation order, and the branch conditions
    (``anyOf``/``oneOf`` failed, the ``if`` chose this branch) under which its errors survive."""

    __slots__ = ("node", "path", "template", "steps", "conditions")

    def __init__(self, node: Schema, path: str, template: tuple[object, ...], steps: tuple[tuple[int, int], ...],
                 conditions: tuple[_Condition, ...]) -> None:
        self.node = node
        self.path = path
        self.template = template
        self.steps = steps
        self.conditions = conditions


def _ref_path(ref: str) -> str:
    return ref if "#" in ref else ref + "#"


def _sites(root: Any, documents: Mapping[str, Any]) -> list[_Site]:
    """Every evaluation site of an ``errorMessage`` node, walking ``root`` and following ``$ref``."""
    sites: list[_Site] = []
    index = RefIndex(root, documents)

    def walk(node: JSONData, path: str, template: tuple[object, ...], steps: tuple[tuple[int, int], ...],
             conditions: tuple[_Condition, ...], base: str, depth: int) -> None:
        if not isinstance(node, dict) or depth > _MAX_DEPTH:
            return
        base = base_inside(node, base)
        if KEYWORD in node:
            sites.append(_Site(node, path, template, steps, conditions))
        order = 0

        def child(sub: JSONData, sub_path: str, token: object = None, condition: _Condition | None = None) -> None:
            nonlocal order
            order += 1
            kind = 0 if token is None else (2 if token is _WILD else 1)
            walk(sub, sub_path, template + ((token,) if token is not None else ()),
                 steps + ((order, kind),), conditions + ((condition,) if condition else ()), base, depth + 1)

        ref: JSONData = node.get("$ref")
        if isinstance(ref, str):
            try:
                target, outer = index.resolve(ref, base)
            except LookupError:
                pass
            else:
                if target is not None:
                    order += 1
                    walk(target, _ref_path(ref), template, steps + ((order, 0),), conditions, outer, depth + 1)
        value: JSONData
        for keyword in ("anyOf", "oneOf"):
            value = node.get(keyword)
            if isinstance(value, list):
                for i, sub in enumerate(value):
                    child(sub, f"{path}/{keyword}/{i}", None, ("comb", f"{path}/{keyword}", len(template), None))
        value = node.get("allOf")
        for i, sub in enumerate(value if isinstance(value, list) else ()):
            child(sub, f"{path}/allOf/{i}")
        if "if" in node:
            for keyword in ("then", "else"):
                child(node.get(keyword), f"{path}/{keyword}", None, ("if", f"{path}/if", len(template), keyword))
        value = node.get("items")
        if isinstance(value, list):
            for i, sub in enumerate(value):
                child(sub, f"{path}/items/{i}", str(i))
            child(node.get("additionalItems"), f"{path}/additionalItems", _WILD)
        else:
            child(value, f"{path}/items", _WILD)
        value = node.get("properties")
        for name, sub in (value.items() if isinstance(value, dict) else ()):
            child(sub, f"{path}/properties/{escape_token(name)}", name)
        value = node.get("patternProperties")
        for name, sub in (value.items() if isinstance(value, dict) else ()):
            child(sub, f"{path}/patternProperties/{escape_token(name)}", _WILD)
        child(node.get("additionalProperties"), f"{path}/additionalProperties", _WILD)
        value = node.get("dependencies")
        for name, sub in (value.items() if isinstance(value, dict) else ()):
            child(sub, f"{path}/dependencies/{escape_token(name)}")

    walk(root, "#", (), (), (), "", 0)
    return sites


def _js_keys(mapping: Mapping[str, Any]) -> list[str]:
    """A JS object's key order: array-index keys ascending first, then the others as inserted."""
    keys = [str(k) for k in mapping]
    indexes = sorted((k for k in keys if k.isdigit() and (k == "0" or not k.startswith("0"))), key=int)
    return indexes + [k for k in keys if k not in indexes]


def _js_json(value: Any) -> str:
    """``JSON.stringify(value)`` as ajv-errors interpolates it (``undefined`` for missing)."""
    if value is _NO_DATA:
        return "undefined"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        value = int(value)
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError:
        return "null"


def _data_at(data: Any, tokens: list[str]) -> Any:
    return value_at(data, tokens, _NO_DATA)


def render_template(message: str, data: Any, instance: list[str]) -> str:
    """``message`` with each ``${pointer}`` replaced by the JSON of the data it points at.

    ``/a/b`` (or ``""``) is absolute, from the validated data; ``0``, ``1/a``, ``0#`` are
    relative JSON pointers from the data of the ``errorMessage`` node (``#``: its key).
    The pointer is looked up, never evaluated: request data never becomes code.
    """
    if "${" not in message:
        return message

    def replace(match: "re.Match[str]") -> str:
        pointer = match.group(1)
        if data is _NO_DATA:
            return "undefined"
        relative = _RELATIVE.match(pointer)
        if relative:
            up = int(relative.group(1))
            if up > len(instance):
                return "undefined"
            tokens = instance[:len(instance) - up]
            rest = relative.group(2) or ""
            if rest == "#":
                if not tokens:
                    return "undefined"
                parent = _data_at(data, tokens[:-1])
                key: Any = tokens[-1]
                return _js_json(int(key) if isinstance(parent, list) else key)
            return _js_json(_data_at(data, tokens + pointer_tokens(rest)))
        if pointer.startswith("/"):
            try:
                return _js_json(_data_at(data, pointer_tokens(pointer)))
            except (ValueError, LookupError):
                return "undefined"
        return match.group(0)

    return _TEMPLATE.sub(replace, message)


def _new_error(message: str, instance: list[str], node_path: str, replaced: list[_Record]) -> _Record:
    return {"keyword": KEYWORD, "instance_path": to_pointer(instance),
            "schema_path": node_path + "/" + KEYWORD, "params": {"errors": replaced},
            "message": message}


def _conditions_hold(site: _Site, instance: list[str], seen: set[tuple[str, str, object]]) -> bool:
    """``seen``: ``(schema path, instance path, failingKeyword)`` of every error."""
    for condition in site.conditions:
        where = to_pointer(instance[:condition[2]])
        failing = condition[3] if condition[0] == "if" else None
        if (condition[1], where, failing) not in seen:
            return False
    return True


def _concrete(sites: list[_Site], errors: list[_Record]) -> list[tuple[_Site, list[str]]]:
    """The sites at each instance path the errors show they were evaluated at, in the
    order their ``errorMessage`` ran: post-order (inner nodes first), siblings in
    evaluation order, array items by index."""
    paths = {tuple(pointer_tokens(str(e.get("instance_path") or ""))) for e in errors}
    seen: set[tuple[str, str, object]] = set()
    for e in errors:
        where = (str(e.get("schema_path")), str(e.get("instance_path") or ""))
        seen.add(where + (None,))
        if e.get("keyword") == "if":
            seen.add(where + ((e.get("params") or _NO_PARAMS).get("failingKeyword"),))
    found: dict[tuple[int, tuple[str, ...]], tuple[_Site, list[str]]] = {}
    for number, site in enumerate(sites):
        size = len(site.template)
        for tokens in paths:
            if len(tokens) < size:
                continue
            if any(t is not _WILD and t != tokens[i] for i, t in enumerate(site.template)):
                continue
            instance = list(tokens[:size])
            key = (number, tuple(instance))
            if key not in found and _conditions_hold(site, instance, seen):
                found[key] = (site, instance)
    return sorted(found.values(), key=lambda item: _post_order_key(*item))


def _post_order_key(site: _Site, instance: list[str]) -> tuple[_Ordered, ...]:
    key: list[tuple[int, int, str]] = []
    tokens = iter(instance)
    for step, kind in site.steps:
        token = next(tokens, "") if kind else ""
        # items of one wildcard: array indexes numerically, keys by name
        key.append((step, int(token) if kind == 2 and token.isdigit() else (1 << 62 if kind == 2 else -1), token))
    return tuple(_Ordered(k) for k in key) + (_Ordered(None),)


class _Ordered:
    """A key element where ``None`` (the end of a key) sorts after everything:
    a descendant site (a longer key) comes before its ancestor, as in post-order."""

    __slots__ = ("value",)

    def __init__(self, value: tuple[int, int, str] | None) -> None:
        self.value = value

    def __lt__(self, other: "_Ordered") -> bool:
        if self.value is None:
            return False
        if other.value is None:
            return True
        return self.value < other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Ordered) and self.value == other.value


def apply_error_messages(errors: list[dict[str, Any]], schema: Any, *, keep_errors: bool = False,
                         single_error: bool | str = False,
                         documents: Mapping[str, Any] | None = None, data: Any = _NO_DATA,
                         sites: list[_Site] | None = None) -> list[dict[str, Any]]:
    """The error list with ``errorMessage`` applied for the compiled root ``schema``, as ajv-errors 3.

    ``documents`` maps ``$id`` to the shared schemas ``$ref`` reaches; ``data`` is the
    validated value (for ``${...}`` templates). The records given are not modified: the
    result holds copies (marked ``emUsed`` when ``keep_errors`` keeps a replaced one).
    """
    if sites is None:
        sites = _sites(schema, documents or {})
    if not sites:
        return list(errors)
    records = [dict(e) for e in errors]
    used = [False] * len(records)
    created: list[tuple[float, int, _Record]] = []  # (position, sequence, record)
    schema_paths = [str(e.get("schema_path", "")) for e in records]
    instance_paths = [str(e.get("instance_path") or "") for e in records]
    # instance pointer -> the records at it or below it, in order (each query is then
    # linear in the errors it concerns: thousands of errors stay cheap)
    under: dict[str, list[int]] = {}
    created_under: dict[str, list[tuple[int, str]]] = {}

    def prefixes(pointer: str) -> list[str]:
        found = [""]
        at = pointer.find("/", 1)
        while at != -1:
            found.append(pointer[:at])
            at = pointer.find("/", at + 1)
        if pointer:
            found.append(pointer)
        return found

    for i, pointer in enumerate(instance_paths):
        for prefix in prefixes(pointer):
            under.setdefault(prefix, []).append(i)

    def owned_end(site: _Site, pointer: str) -> int:
        last = -1
        for i in under.get(pointer, ()):
            sp = schema_paths[i]
            if sp == site.path or sp.startswith(site.path + "/"):
                last = i
        return last

    def emit(text: str, instance: list[str], site: _Site, members: list[int], anchor: list[int]) -> None:
        """A new record for ``text`` (already rendered), replacing ``members``."""
        for m in members:
            used[m] = True
            records[m]["emUsed"] = True  # ajv-errors marks the replaced error objects
        anchor.extend(members)
        position = max(anchor) if anchor else len(records)
        record = _new_error(text, instance, site.path, [records[m] for m in members])
        created.append((position, len(created), record))
        for prefix in prefixes(record["instance_path"]):
            created_under.setdefault(prefix, []).append((position, record["schema_path"]))

    message: JSONData
    properties: JSONData
    items: JSONData
    remaining: JSONData
    for site, instance in _concrete(sites, records):
        # templates are relative to the errorMessage node's data, rendered once
        def render(text: str, instance: list[str] = instance) -> str:
            return render_template(text, data, instance)
        message = site.node[KEYWORD]
        pointer = to_pointer(instance)
        end = owned_end(site, pointer)
        anchor = [end] if end >= 0 else []
        anchor += [position for position, path in created_under.get(pointer, ())
                   if path.startswith(site.path + "/")]
        below = under.get(pointer, [])

        def free(i: int) -> bool:
            return not used[i] and records[i].get("keyword") != KEYWORD

        def direct(i: int) -> bool:
            sp = schema_paths[i]
            return (free(i) and instance_paths[i] == pointer
                    and sp.startswith(site.path + "/") and "/" not in sp[len(site.path) + 1:])

        if isinstance(message, Mapping):
            # keyword messages (one per keyword, or one for all with single_error)
            plain_keys = [k for k in message if k not in _CHILD_KEYS and k != "_" and isinstance(message[k], str)]
            matched: dict[str, list[int]] = {k: [] for k in plain_keys}
            for i in below:
                if direct(i) and records[i].get("keyword") in matched:
                    matched[records[i]["keyword"]].append(i)
            keys = [k for k in _js_keys({k: 0 for k in plain_keys}) if matched[k]]
            if single_error and keys:
                separator = single_error if isinstance(single_error, str) else ";"
                members: list[int] = [i for k in keys for i in matched[k]]
                text = separator.join(render(message[k]) for k in keys)
                emit(text, instance, site, members, anchor)
            else:
                for k in keys:
                    emit(render(message[k]), instance, site, matched[k], anchor)
            # per-property messages of required / dependencies
            prop_keys = [k for k in message if k not in _CHILD_KEYS and isinstance(message[k], Mapping)]
            by_prop: dict[str, dict[str, list[int]]] = {k: {p: [] for p in message[k]} for k in prop_keys}
            for i in below:
                keyword = records[i].get("keyword")
                if direct(i) and keyword in by_prop:
                    name = (records[i].get("params") or _NO_PARAMS).get(_PROPERTY_PARAMS.get(keyword, ""))
                    if name in by_prop[keyword]:
                        by_prop[keyword][name].append(i)
            for k in _js_keys({k: 0 for k in prop_keys}):
                for name in _js_keys(message[k]):
                    if by_prop[k][name]:
                        emit(render(message[k][name]), instance, site, by_prop[k][name], anchor)
            # properties / items: by instance path, wherever the error came from
            children: dict[str, Any] = {}
            properties, items = message.get("properties"), message.get("items")
            if isinstance(properties, Mapping):
                children.update({str(k): v for k, v in properties.items()})
            if isinstance(items, list):
                children.update({str(n): v for n, v in enumerate(items)})
            elif isinstance(items, Mapping):
                children.update({str(k): v for k, v in items.items()})
            if children:
                grouped: dict[str, list[int]] = {k: [] for k in children}
                for i in below:
                    ip = instance_paths[i]
                    if free(i) and ip.startswith(pointer + "/"):
                        token = unescape_token(ip[len(pointer) + 1:].split("/", 1)[0])
                        if token in grouped:
                            grouped[token].append(i)
                for k in _js_keys(grouped):
                    if grouped[k]:
                        emit(render(children[k]), instance + [k], site, grouped[k], anchor)
            remaining = message.get("_")
        else:
            remaining = message
        if isinstance(remaining, str):
            members = []
            for i in below:
                if free(i) and schema_paths[i].startswith(site.path + "/"):
                    members.append(i)
            if members:
                emit(render(remaining), instance, site, members, anchor)

    out: list[tuple[float, int, _Record]] = []
    for i, record in enumerate(records):
        if used[i] and not keep_errors:
            continue
        out.append((i, -1, record))
    out.extend(created)
    out.sort(key=lambda item: (item[0], item[1]))
    return [record for _, _, record in out]


def _check_texts(value: JSONData | Mapping[int, Any], where: str, what: str) -> None:
    if isinstance(value, Mapping):
        for name, text in value.items():
            if not isinstance(text, str):
                raise ValueError(f"errorMessage at {where}: {what}[{name!r}] must be a string, got {text!r}")
    elif not isinstance(value, str):
        raise ValueError(f"errorMessage at {where}: {what} must be a string or an object of strings, got {value!r}")


def check_error_message_schema(schema: Any) -> None:
    """Raise :class:`ValueError` for an ``errorMessage`` value of the wrong shape."""
    value: JSONData
    text: JSONData
    for node in iter_subschemas(schema):
        if KEYWORD not in node:
            continue
        value = node[KEYWORD]
        where = node.get("$id") or "a schema node with keys " + ", ".join(sorted(k for k in node if k != KEYWORD))
        if isinstance(value, str):
            continue
        if not isinstance(value, Mapping):
            raise ValueError(f"errorMessage at {where} must be a string or an object, got {value!r}")
        for key, text in value.items():
            if key in _PER_PROPERTY_KEYS:
                _check_texts(text, where, key)
            elif key == "items" and isinstance(text, list):
                _check_texts(dict(enumerate(text)), where, key)
            elif key in _CHILD_KEYS:
                if not isinstance(text, Mapping):
                    raise ValueError(f"errorMessage at {where}: {key} must map names to messages, got {text!r}")
                _check_texts(text, where, key)
            elif not isinstance(text, str):
                raise ValueError(f"errorMessage at {where}: the message for {key!r} must be a string, got {text!r}")


ALL_ERRORS_REQUIRED = (
    "framework.plugins.error_messages needs the validator option all_errors: pass "
    "Framework(validator={'custom_options': {'all_errors': True}, 'plugins': [error_messages]}). "
    "errorMessage replaces the errors collected under a schema node, and without all_errors "
    "validation stops at the first one. Know the trade-off: with all_errors every request is "
    "checked in full, so a large crafted payload costs far more to reject, a denial-of-service "
    "risk; keep maxLength/maxItems/maxProperties bounds and a body size limit when you enable it."
)


def error_messages(engine: ValidatorEngine, opts: Mapping[str, Any] | None = None) -> None:
    """Validator plugin adding the ``errorMessage`` keyword; needs ``all_errors``.

    ``Framework(validator={"custom_options": {"all_errors": True}, "plugins": [error_messages]})``,
    or ``(error_messages, {"keep_errors": True})`` for options. Fails ``ready()`` with a
    ``ValueError`` when ``all_errors`` is off or an ``errorMessage`` value has the wrong shape.
    """
    opts = dict(opts or {})
    keep_errors = bool(opts.pop("keep_errors", False))
    single_error = opts.pop("single_error", False)
    if opts:
        raise ValueError(f"framework.plugins.error_messages: unknown option(s) {', '.join(sorted(opts))}")
    if not engine.options.get("all_errors"):
        raise ValueError(ALL_ERRORS_REQUIRED)
    engine.add_keyword(KEYWORD)
    engine.add_keyword(DATA_KEYWORD, _record_data)
    # Shared schemas by $id, for errors inside them: the processor only gets the root.
    documents: dict[str, Any] = {}
    cache: dict[int, tuple[Any, int, list[_Site]]] = {}

    def check(schema: JSONData, shared: Mapping[str, JSONData]) -> Any:  # the schema: an object or a boolean
        check_error_message_schema(schema)
        if isinstance(schema, dict) and _has_template(schema):
            schema[DATA_KEYWORD] = True  # records the data ${...} templates read
        schema_id = schema.get("$id") if isinstance(schema, dict) else None
        if isinstance(schema_id, str) and schema_id in shared:
            documents[schema_id] = schema  # the shared schema as compiled
        return schema

    def process(errors: list[_Record], schema: JSONData) -> list[_Record]:
        data = _DATA.get(_NO_DATA)
        _DATA.set(_NO_DATA)
        cached = cache.get(id(schema))
        if cached is None or cached[0] is not schema or cached[1] != len(documents):
            if len(cache) > 4096:
                cache.clear()
            cached = cache[id(schema)] = (schema, len(documents), _sites(schema, documents))
        return apply_error_messages(errors, schema, keep_errors=keep_errors, single_error=single_error,
                                    documents=documents, data=data, sites=cached[2])

    engine.add_transform(check)
    engine.add_error_processor(process)


def _record_data(data: Any, value: Any, parent: Any) -> bool:
    # Called at the end of each marked document's root node; the validated root's call
    # comes last (its node finishes last), so the processor reads the root's data.
    _DATA.set(data)
    return True


def _has_template(schema: Any) -> bool:
    for node in iter_subschemas(schema):
        message = node.get(KEYWORD)
        if message is not None and "${" in json.dumps(message, default=str):
            return True
    return False
