"""``app.explain(method, url, headers=None)``: the compiled path of one request, without sending it.

What :class:`~framework.lifecycle.compiled_route.CompiledRoute` decided at ``ready()`` for the route
that would answer ``method url`` (or the not-found / 405 answer when no route matches),
laid out as plain data, every hook and decorator with the plugin and the context that
added it (a plugin wrapped with ``plugin(...)`` adds to the context that registered it):

``request``
    ``{"method", "url", "path", "query", "headers"}`` as asked.
``outcome``
    ``"route"``, ``"not_found"``, ``"method_not_allowed"`` (with ``allow``) or
    ``"bad_url"`` (the path is not UTF-8: a 400). The route and its parameters are
    what the request would get: ``framework.routing.dispatch`` decides both.
``route``
    ``{"method", "url", "params", "context", "prefix", "contexts"}``: the declared route,
    the matched parameters (decoded, as the handler receives them), the context that declared it and its ancestry (root first).
``steps``
    What runs before the handler, in order (``request_id``, ``log_incoming``, each hook
    phase with its hooks, ``body`` with its limit and the parser the content type picks,
    ``validation``), then ``handler``.
``validation``
    Per part (``params``, ``body``, ``querystring``, ``headers``): the normalized schema,
    its ``$id`` and the ``$ref``s it uses; plus the coercion options of the validator (or
    the custom compiler) and ``attach_validation``.
``serializers``
    Each ``schema["response"]`` key, what kind it is (``exact``, ``class``, ``default``),
    which statuses it applies to, and its media types.
``reply``
    ``pre_serialization``, ``on_send``, ``on_response`` hooks.
``errors``
    ``on_error`` hooks, then the error-handler chain (route option, contexts outwards,
    the default handler last).
``not_found``
    The not-found handler for this path and the context that set it.
``decorators``
    The instance, request and reply decorators visible to the route, outermost first.
``entry``
    The Python source of the route's entry, the one function ``ready()`` emitted for its
    requests (``framework.lifecycle.entry``): only the steps the route has, commented.
    (Not part of the text form.)

A hook or handler is shown by its qualified name (``<locals>`` left out). No handler and
no hook runs. :class:`Explanation` is that dict; ``str()`` (or :meth:`Explanation.render`)
is its text form, which ``python -m framework explain module:app GET /url`` prints.
"""
# This module is the readable view of what Framework, Context and AppState keep in their
# underscore attributes (hooks with their owners, error handlers, decorators, compiled
# routes): it reads them by design, so pyright's private-usage check is off here only.
# pyright: reportPrivateUsage=false
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol
from urllib.parse import parse_qsl, unquote_to_bytes, urlsplit

from ..errors import BadUrlError
from ..lifecycle.body_parsing import BodyParsing
from ..http.media_types import parse_media_type
from ..lifecycle.hooks import HookPhase
from ..lifecycle.inputs import INPUT_PARTS, BODY_SCHEMA_METHODS, InputValidation, is_content_map
from ..lifecycle.responses import is_response_content_map
from ..lifecycle.request_log import EchoRequestId, LogIncoming
from ..routing.dispatch import dispatch
from ..schemas.store import is_array, is_object, normalize_input_schema

if TYPE_CHECKING:
    from ..context import Context
    from ..lifecycle.compiled_route import CompiledRoute
    from ..route import Route
    from ..state import AppState

REPLY_HOOKS = ("pre_serialization", "on_send", "on_response")


class ExplainedApp(Protocol):
    """What ``explain`` reads of the application (``Framework`` is one): its state, the
    compiled form of a route, and the answers to a request no route takes (a path that is
    not UTF-8; not found or 405). Typed structurally so that the devtools sit below the
    application and never import it."""

    _state: "AppState"
    _bad_url_route: "CompiledRoute"

    def ready(self) -> object: ...

    def _compiled(self, route: "Route") -> "CompiledRoute": ...

    def _unrouted(self, environ: Mapping[str, Any], path: str) -> "tuple[CompiledRoute, list[str]]": ...


class Explanation(dict[str, Any]):
    """What ``app.explain`` returns: a plain dict (the keys the module describes:
    ``request``, ``outcome``, ``route``, ``steps``, ``validation``, ``serializers``,
    ``reply``, ``errors``, ``not_found``, ``decorators``, ``entry``; JSON-ready values); ``str()``
    renders it as text."""

    def render(self) -> str:
        """The text form (what ``python -m framework explain`` prints)."""
        return render(self)

    def __str__(self) -> str:
        return render(self)


def function_name(fn: Any) -> str:
    """``fn``'s qualified name without ``<locals>`` (``build.first_child.<lambda>``)."""
    fn = getattr(fn, "__wrapped__", fn)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return str(name).replace(".<locals>", "")


def context_chain(context: "Context") -> list["Context"]:
    """``context`` and its ancestors, root first."""
    chain: list[Context] = []
    current: Context | None = context
    while current is not None:
        chain.append(current)
        current = current._parent
    return list(reversed(chain))


def hooks_with_owners(route: "CompiledRoute", name: str) -> list[dict[str, str]]:
    """The ``name`` hooks of ``route`` in run order: ``{"name", "plugin", "context"}``."""
    found: list[dict[str, str]] = []
    for context in context_chain(route.context):
        hooks = context._hooks
        for owner, fn in zip(hooks.owners.get(name, ()), hooks.own.get(name, ())):
            found.append({"name": function_name(fn), "plugin": owner or context.name, "context": context.name})
    for fn in route.route.own_hooks(name):
        found.append({"name": function_name(fn), "plugin": "route option", "context": route.context.name})
    if name == "on_response" and route.context._state.request_logging:
        found.append({"name": "log_completed", "plugin": "request_logging", "context": "root"})
    return found


def explain(app: ExplainedApp, method: str, url: str, headers: dict[str, str] | None = None) -> Explanation:
    """See the module's documentation."""
    app.ready()
    state = app._state
    method = method.upper()
    parts = urlsplit(url)
    path = parts.path or "/"
    headers = {name.lower(): value for name, value in (headers or {}).items()}
    result = Explanation(request={"method": method, "url": url, "path": path,
                                  "query": dict(parse_qsl(parts.query, keep_blank_values=True)),
                                  "headers": headers})
    not_found_routes = state.not_found
    assert not_found_routes is not None, "not-found routes are built at ready()"
    # The environ a WSGI server would give for this URL: routed as __call__ routes it.
    environ = {"PATH_INFO": unquote_to_bytes(path).decode("latin-1"), "RAW_URI": url}
    params: dict[str, str] = {}
    compiled: CompiledRoute
    try:
        found = dispatch(state.router, method, environ)
    except BadUrlError:
        compiled = app._bad_url_route
        result["outcome"] = "bad_url"
    else:
        declared, params, decoded = found
        path = decoded or environ["PATH_INFO"]
        if declared is not None:
            compiled = declared.compiled or app._compiled(declared)
            result["outcome"] = "route"
        else:
            compiled, allow = app._unrouted(environ, path)
            result["outcome"] = "method_not_allowed" if allow else "not_found"
            if allow:
                result["allow"] = allow
    context = compiled.context
    result["route"] = {"method": compiled.method, "url": compiled.url, "params": params, "context": context.name,
                       "prefix": context.prefix, "contexts": [c.name for c in context_chain(context)]}
    result["steps"] = _steps(compiled, headers)
    result["validation"] = _validation(compiled, state)
    result["serializers"] = _serializers(compiled)
    result["reply"] = {name: hooks_with_owners(compiled, name) for name in REPLY_HOOKS}
    result["errors"] = {"on_error": hooks_with_owners(compiled, "on_error"), "handlers": _error_handlers(compiled)}
    not_found = not_found_routes.find(path)
    result["not_found"] = {"handler": function_name(not_found.handler), "context": not_found.context.name,
                           "prefix": not_found.context.prefix}
    result["decorators"] = _decorators(context)
    result["entry"] = compiled.compile_source()
    return result


def _steps(route: "CompiledRoute", headers: dict[str, str]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for bound in route.steps:
        step = getattr(bound, "__self__", bound)
        if isinstance(step, EchoRequestId):
            steps.append({"step": "request_id", "header": step.header})
        elif isinstance(step, LogIncoming):
            steps.append({"step": "log_incoming"})
        elif isinstance(step, HookPhase):
            steps.append({"step": step.name, "hooks": hooks_with_owners(route, step.name)})
        elif isinstance(step, BodyParsing):
            entry: dict[str, Any] = {"step": "body", "limit": step.limit, "optional": step.optional}
            content_type = headers.get("content-type")
            if content_type:
                media_type = parse_media_type(content_type)
                parser = step.parsers.find(media_type) if media_type is not None else None
                entry["parser"] = function_name(getattr(parser, "fn", parser)) if parser is not None else None
            steps.append(entry)
        elif isinstance(step, InputValidation):
            steps.append({"step": "validation", "parts": [part.part for part in step.parts],
                          "attach_validation": step.attach})
        else:
            steps.append({"step": function_name(step)})
    steps.append({"step": "handler", "name": function_name(route.handler)})
    return steps


def _refs(schema: Any) -> list[str]:
    refs: list[str] = []

    def walk(node: Any) -> None:
        if is_object(node):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in refs:
                refs.append(ref)
            for value in node.values():
                walk(value)
        elif is_array(node):
            for value in node:
                walk(value)

    walk(schema)
    return refs


def _part(schema: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"schema": schema, "refs": _refs(schema)}
    if is_object(schema) and "$id" in schema:
        entry["id"] = schema["$id"]
    return entry


def _validation(route: "CompiledRoute", state: "AppState") -> dict[str, Any]:
    schema = route.route.schema
    parts: dict[str, Any] = {}
    for part, _attribute in INPUT_PARTS:
        part_schema = schema.get(part)
        if part_schema is None or (part == "body" and route.method not in BODY_SCHEMA_METHODS):
            continue
        if part == "body" and is_content_map(part_schema):
            parts[part] = {"content": {media_type: _part(normalize_input_schema(entry["schema"], part))
                                       for media_type, entry in part_schema["content"].items()}}
        else:
            parts[part] = _part(normalize_input_schema(part_schema, part))
    result: dict[str, Any] = {"parts": parts}
    if parts:
        compiler = route.options.get("validator_compiler") or route.context._inherited("_validator_compiler")
        if compiler is not None:
            result["compiler"] = function_name(compiler)
        else:
            options = state.validator_engine().options
            result["compiler"] = "default"
            result["options"] = {name: options[name] for name in ("coerce_types", "use_defaults",
                                                                  "remove_additional") if name in options}
        result["attach_validation"] = bool(route.options.get("attach_validation"))
    return result


def _serializers(route: "CompiledRoute") -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    response: dict[str | int, Any] = route.route.schema.get("response") or {}
    exact = {str(key) for key in response if str(key).isdigit()}
    for key, entry in response.items():
        status = str(key).lower()
        if status == "default":
            kind, applies = "default", "any status without an exact or class key, errors excepted"
        elif status.endswith("xx"):
            shadowed = sorted(code for code in exact if code[0] == status[0])
            kind = "class"
            applies = f"{status}" + (f" except {', '.join(shadowed)}" if shadowed else "")
        else:
            kind, applies = "exact", status
        media_types = list(entry["content"]) if is_response_content_map(entry) else ["application/json"]
        entries.append({"status": status, "kind": kind, "applies": applies, "content_types": media_types})
    return entries


def _error_handlers(route: "CompiledRoute") -> list[dict[str, str]]:
    handlers: list[dict[str, str]] = []
    own = route.options.get("error_handler")
    if own is not None:
        handlers.append({"name": function_name(own), "context": "route option"})
    context: Context | None = route.context
    while context is not None:
        if context._error_handler is not None:
            handlers.append({"name": function_name(context._error_handler), "context": context.name})
        context = context._parent
    handlers.append({"name": function_name(route.error_handlers[-1]), "context": "framework"})
    return handlers


def _decorators(context: "Context") -> dict[str, list[dict[str, str]]]:
    visible: dict[str, dict[str, dict[str, str]]] = {"instance": {}, "request": {}, "reply": {}}
    for owner in context_chain(context):
        decorators = owner._decorators
        for (kind, name), plugin in decorators.owners.items():
            visible[kind][name] = {"name": name, "plugin": plugin or owner.name, "context": owner.name}
    return {kind: list(names.values()) for kind, names in visible.items()}


# Text.
def _who(entry: dict[str, str]) -> str:
    if entry["plugin"] == entry["context"]:
        return f"({entry['context']})"
    return f"({entry['plugin']} in {entry['context']})"


def _hook_lines(hooks: list[dict[str, str]], indent: str) -> list[str]:
    return [f"{indent}{hook['name']} {_who(hook)}" for hook in hooks] or [f"{indent}none"]


def render(explanation: dict[str, Any]) -> str:
    """The text form of an explanation (what ``python -m framework explain`` prints)."""
    request = explanation["request"]
    route = explanation["route"]
    lines = [f"{request['method']} {request['url']}"]
    outcome = explanation["outcome"]
    if outcome == "route":
        lines.append(f"route: {route['method']} {route['url']}")
        if route["params"]:
            lines.append("params: " + ", ".join(f"{k}={v!r}" for k, v in route["params"].items()))
    elif outcome == "not_found":
        lines.append(f"route: none, not found (prefix {route['prefix'] or '/'!s})")
    elif outcome == "bad_url":
        lines.append("route: none, 400 (the path is not UTF-8)")
    else:
        lines.append(f"route: none, 405 method not allowed (Allow: {', '.join(explanation['allow'])})")
    lines.append("context: " + " > ".join(route["contexts"]))
    lines.append("steps:")
    for step in explanation["steps"]:
        name = step["step"]
        if "hooks" in step:
            lines.append(f"  {name}:")
            lines.extend(_hook_lines(step["hooks"], "    "))
        elif name == "body":
            parser = f", parser {step['parser']}" if step.get("parser") else ""
            lines.append(f"  body: parse, limit {step['limit']} bytes{', optional' if step['optional'] else ''}{parser}")
        elif name == "validation":
            lines.append(f"  validation: {', '.join(step['parts'])}"
                         + (" (attach_validation)" if step["attach_validation"] else ""))
        elif name == "request_id":
            lines.append(f"  request id: echo in {step['header']}")
        elif name == "handler":
            lines.append(f"  handler: {step['name']}")
        else:
            lines.append(f"  {name}")
    validation = explanation["validation"]
    if validation["parts"]:
        lines.append("validation:")
        options = validation.get("options")
        if options is not None:
            lines.append("  validator: default (" + ", ".join(f"{k}={v!r}" for k, v in options.items()) + ")")
        else:
            lines.append(f"  validator: {validation['compiler']}")
        for part, entry in validation["parts"].items():
            for media_type, item in (entry["content"].items() if "content" in entry else [(None, entry)]):
                where = f"{part} [{media_type}]" if media_type else part
                extra = "".join([f" $id {item['id']}" if "id" in item else "",
                                 f" $ref {', '.join(item['refs'])}" if item["refs"] else ""])
                lines.append(f"  {where}: {_schema_summary(item['schema'])}{extra}")
    lines.append("serializers:")
    if explanation["serializers"]:
        for entry in explanation["serializers"]:
            lines.append(f"  {entry['status']} ({entry['kind']}): {entry['applies']}; "
                         f"{', '.join(entry['content_types'])}")
    else:
        lines.append("  none (plain JSON)")
    lines.append("reply hooks:")
    for name in REPLY_HOOKS:
        hooks = explanation["reply"][name]
        if hooks:
            lines.append(f"  {name}:")
            lines.extend(_hook_lines(hooks, "    "))
    if not any(explanation["reply"].values()):
        lines[-1] = "reply hooks: none"
    errors = explanation["errors"]
    lines.append("errors:")
    if errors["on_error"]:
        lines.append("  on_error:")
        lines.extend(_hook_lines(errors["on_error"], "    "))
    lines.append("  handlers: " + " -> ".join(f"{h['name']} ({h['context']})" for h in errors["handlers"]))
    not_found = explanation["not_found"]
    lines.append(f"not found: {not_found['handler']} ({not_found['context']})")
    lines.append("decorators:")
    for kind, entries in explanation["decorators"].items():
        lines.append(f"  {kind}: " + (", ".join(f"{e['name']} {_who(e)}" for e in entries) or "none"))
    return "\n".join(lines) + "\n"


def _schema_summary(schema: Any) -> str:
    if not is_object(schema):
        return repr(schema)
    kind = schema.get("type", "any" if "$ref" not in schema else "schema")
    properties = schema.get("properties")
    if is_object(properties) and properties:
        required: set[str] = set(schema.get("required") or ())
        names = ", ".join(name + ("*" if name in required else "") for name in properties)
        return f"{kind} {{{names}}}"
    return str(kind)


__all__ = ["Explanation", "explain", "render"]
