"""The ``errorMessage`` keyword: your own validation messages (the ajv-errors plugin).

A validator plugin. It needs ``all_errors``, because it replaces the errors collected
under a schema node, and with ``all_errors`` off validation stops at the first one::

    from framework import Framework
    from plugins.error_messages import error_messages

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

    # POST /users {"name": ""}  -> 400, message "body age is required, body/name name must be a non-empty string"
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

Inner messages win: a node's message never replaces an ``errorMessage`` error of a node
below it. The new error is a normal record: ``keyword`` ``"errorMessage"``,
``instance_path`` of the node (or of the property/item for ``properties``/``items``),
``schema_path`` ``<node>/errorMessage``, ``params`` ``{"errors": [the replaced records]}``.
ajv-errors' ``${/json/pointer}`` templates are not supported (the text is used as is).
Errors reached through a ``$ref`` carry the referenced schema's path (Ajv does the same),
so an ``errorMessage`` written next to a ``$ref`` does not see them: write it inside the
referenced schema (a definition, or a shared schema added with ``add_schema``). Shared
schemas are looked up by ``$id`` among those the application compiled; two sibling
contexts that add different schemas under one ``$id`` share the messages of the one
compiled last.

Options (``(error_messages, {...})`` in ``validator["plugins"]``): ``keep_errors``
(``False``; ``True`` keeps the replaced errors after the new one) and ``single_error``
(``False``; ``True`` or a separator string joins all the messages of the request into one
error, separated by ``"; "`` or that string).

Without ``all_errors`` the plugin fails ``ready()``: collecting every error is what turns
a crafted large payload into a denial-of-service risk, so it must be asked for.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.schemas import RefIndex, base_inside, iter_subschemas, pointer_tokens, to_pointer

__all__ = ["error_messages", "apply_error_messages", "check_error_message_schema"]

KEYWORD = "errorMessage"
_CHILD_KEYS = ("properties", "items")
_PER_PROPERTY_KEYS = ("required", "dependencies")
_SINGLE_STEP = {
    # keyword: instance tokens consumed when the schema path goes through it
    "additionalProperties": 1, "additionalItems": 1, "contains": 1,
    "not": 0, "if": 0, "then": 0, "else": 0, "propertyNames": 0,
}
_NAMED_STEP = {"properties": 1, "patternProperties": 1, "definitions": 0, "$defs": 0,
               "dependencies": 0, "allOf": 0, "anyOf": 0, "oneOf": 0}


class _Node:
    __slots__ = ("schema", "path", "depth", "instance", "direct", "child")

    def __init__(self, schema: dict, path: str, depth: int, instance: list[str],
                 direct: bool, child: str | None) -> None:
        self.schema = schema
        self.path = path          # schema path of the node, "#" or "#/properties/a"
        self.depth = depth        # number of schema-path tokens
        self.instance = instance  # instance-path tokens of the data the node checked
        self.direct = direct      # the error's keyword sits on this node
        self.child = child        # instance token of the child the error lies under


def _ancestors(error: Mapping[str, Any], root: Any,
               documents: Mapping[str, Any] | None = None) -> list[_Node]:
    """The schema nodes an error's schema path goes through that carry ``errorMessage``.

    A path ``#/...`` starts at ``root``; ``<id>#/...`` (an error inside a shared schema)
    starts at ``documents[<id>]``.
    """
    schema_path = error.get("schema_path")
    if not isinstance(schema_path, str) or "#" not in schema_path:
        return []
    document_id, _, fragment = schema_path.partition("#")
    if document_id:
        root = (documents or {}).get(document_id)
    if not isinstance(root, dict):
        return []
    prefix = document_id + "#"
    tokens = pointer_tokens(fragment, url_encoded=True)
    if not tokens:
        return []
    walk: list[tuple[Any, int, int]] = [(root, 0, 0)]  # (node, tokens used, instance consumed)
    node, i, consumed = root, 0, 0
    last = len(tokens) - 1  # the error's own keyword
    while i < last and isinstance(node, dict):
        token = tokens[i]
        if token in _NAMED_STEP and i + 1 < last:
            container = node.get(token)
            key = tokens[i + 1]
            if isinstance(container, dict):
                node = container.get(key)
            elif isinstance(container, list) and key.isdigit() and int(key) < len(container):
                node = container[int(key)]
            else:
                break
            consumed += _NAMED_STEP[token]
            i += 2
        elif token == "items":
            items = node.get("items")
            if isinstance(items, list) and i + 1 < last and tokens[i + 1].isdigit():
                node = items[int(tokens[i + 1])] if int(tokens[i + 1]) < len(items) else None
                i += 2
            else:
                node = items
                i += 1
            consumed += 1
        elif token in _SINGLE_STEP:
            node = node.get(token)
            consumed += _SINGLE_STEP[token]
            i += 1
        elif token == "$ref" and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
            try:
                node, _ = RefIndex(root, documents).resolve(node["$ref"], base_inside(root, ""))
            except LookupError:
                break
            i += 1
        else:
            break
        if node is None:
            break
        walk.append((node, i, consumed))
    instance = pointer_tokens(str(error.get("instance_path") or ""))
    total = walk[-1][2]
    # A walk that reached the error's keyword places each node from the end of the
    # instance path (right even when the path restarts at a $ref target, as Ajv's does).
    # One that stopped early (a step it does not know) places them from the start, which
    # is right only when the path starts at the root schema.
    complete = walk[-1][1] == last
    if not complete and tokens[0] in ("definitions", "$defs"):
        return []
    found = []
    for index, (schema, used, consumed_here) in enumerate(walk):
        if not isinstance(schema, dict) or KEYWORD not in schema:
            continue
        cut = len(instance) - (total - consumed_here) if complete else consumed_here
        if cut < 0 or cut > len(instance):
            continue
        path = prefix + to_pointer(tokens[:used])
        direct = complete and index == len(walk) - 1
        child = instance[cut] if cut < len(instance) else None
        found.append(_Node(schema, path, used, instance[:cut], direct, child))
    return found


def _new_error(message: str, instance: list[str], node_path: str, replaced: list[dict]) -> dict:
    return {"keyword": KEYWORD, "instance_path": to_pointer(instance),
            "schema_path": node_path + "/" + KEYWORD, "params": {"errors": replaced},
            "message": message}


def apply_error_messages(errors: list[dict[str, Any]], schema: Any, *, keep_errors: bool = False,
                         single_error: bool | str = False,
                         documents: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The error list with ``errorMessage`` applied for the compiled root ``schema``.

    ``documents`` maps ``$id`` to the shared schemas, for errors whose schema path lies in
    one (``item#/properties/name/maxLength``). A pure function: the records given are not
    modified (the new records hold them in ``params["errors"]``).
    """
    infos = [{n.path: n for n in _ancestors(e, schema, documents)} for e in errors]
    targets: dict[tuple[str, tuple[str, ...]], _Node] = {}
    for info in infos:
        for node in info.values():
            targets.setdefault((node.path, tuple(node.instance)), node)
    if not targets:
        return list(errors)

    used = [False] * len(errors)
    # position -> new records placed there (at the first error each one replaces)
    inserted: dict[int, list[dict]] = {}

    def place(message: Any, members: list[int], instance: list[str], node: _Node) -> None:
        if not members or not isinstance(message, str):
            return
        for m in members:
            used[m] = True
        inserted.setdefault(min(members), []).append(
            _new_error(message, instance, node.path, [errors[m] for m in members]))

    for (path, instance_key), node in sorted(targets.items(), key=lambda kv: -kv[1].depth):
        instance = list(instance_key)
        members = [i for i, info in enumerate(infos)
                   if not used[i] and errors[i].get("keyword") != KEYWORD
                   and path in info and info[path].instance == instance]
        if not members:
            continue
        message = node.schema[KEYWORD]
        if isinstance(message, str):
            place(message, members, instance, node)
            continue
        if not isinstance(message, Mapping):
            continue
        for key, text in message.items():
            if key in _CHILD_KEYS or key == "_":
                continue
            direct = [i for i in members if not used[i] and infos[i][path].direct
                      and errors[i].get("keyword") == key]
            if key in _PER_PROPERTY_KEYS and isinstance(text, Mapping):
                param = "missingProperty" if key == "required" else "property"
                for name, name_text in text.items():
                    place(name_text, [i for i in direct if (errors[i].get("params") or {}).get(param) == name],
                          instance, node)
            else:
                place(text, direct, instance, node)
        for key in _CHILD_KEYS:
            children = message.get(key)
            if isinstance(children, list):
                children = {str(n): t for n, t in enumerate(children)}
            if not isinstance(children, Mapping):
                continue
            for child, text in children.items():
                place(text, [i for i in members if not used[i] and not infos[i][path].direct
                             and infos[i][path].child == str(child)], instance + [str(child)], node)
        if "_" in message:
            place(message["_"], [i for i in members if not used[i]], instance, node)

    result: list[dict[str, Any]] = []
    for index, error in enumerate(errors):
        result.extend(inserted.get(index, ()))
        if not used[index] or keep_errors:
            result.append(error)
    if single_error and result:
        separator = single_error if isinstance(single_error, str) else "; "
        result = [{"keyword": KEYWORD, "instance_path": "", "schema_path": "#/" + KEYWORD,
                   "params": {"errors": result},
                   "message": separator.join(str(e.get("message", "")) for e in result)}]
    return result


def _check_texts(value: Any, where: str, what: str) -> None:
    if isinstance(value, Mapping):
        for name, text in value.items():
            if not isinstance(text, str):
                raise ValueError(f"errorMessage at {where}: {what}[{name!r}] must be a string, got {text!r}")
    elif not isinstance(value, str):
        raise ValueError(f"errorMessage at {where}: {what} must be a string or an object of strings, got {value!r}")


def check_error_message_schema(schema: Any) -> None:
    """Raise :class:`ValueError` for an ``errorMessage`` value of the wrong shape."""
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
    "plugins.error_messages needs the validator option all_errors: pass "
    "Framework(validator={'custom_options': {'all_errors': True}, 'plugins': [error_messages]}). "
    "errorMessage replaces the errors collected under a schema node, and without all_errors "
    "validation stops at the first one. Know the trade-off: with all_errors every request is "
    "checked in full, so a large crafted payload costs far more to reject, a denial-of-service "
    "risk; keep maxLength/maxItems/maxProperties bounds and a body size limit when you enable it."
)


def error_messages(engine: Any, opts: Mapping[str, Any] | None = None) -> None:
    """Validator plugin adding the ``errorMessage`` keyword; needs ``all_errors``.

    ``Framework(validator={"custom_options": {"all_errors": True}, "plugins": [error_messages]})``,
    or ``(error_messages, {"keep_errors": True})`` for options. Fails ``ready()`` with a
    ``ValueError`` when ``all_errors`` is off or an ``errorMessage`` value has the wrong shape.
    """
    opts = dict(opts or {})
    keep_errors = bool(opts.pop("keep_errors", False))
    single_error = opts.pop("single_error", False)
    if opts:
        raise ValueError(f"plugins.error_messages: unknown option(s) {', '.join(sorted(opts))}")
    if not engine.options.get("all_errors"):
        raise ValueError(ALL_ERRORS_REQUIRED)
    engine.add_keyword(KEYWORD)
    # Shared schemas by $id, for errors inside them: the processor only gets the root.
    documents: dict[str, Any] = {}

    def check(schema: Any, shared: Mapping[str, Any]) -> Any:
        check_error_message_schema(schema)
        schema_id = schema.get("$id") if isinstance(schema, dict) else None
        if isinstance(schema_id, str) and schema_id in shared:
            documents[schema_id] = schema  # the shared schema as compiled
        return schema

    engine.add_transform(check)
    engine.add_error_processor(
        lambda errors, schema: apply_error_messages(errors, schema, keep_errors=keep_errors,
                                                    single_error=single_error, documents=documents))
