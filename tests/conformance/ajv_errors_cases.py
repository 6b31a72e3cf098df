"""Running ajv-errors 3.0.0's recorded spec cases (``tests/data/conformance``) through routes."""
from __future__ import annotations

import json
import pathlib
from typing import Any

from framework import Framework
from framework.plugins.error_messages import error_messages

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "conformance" / "ajv-errors-3.0.0.json"
#: Plain Ajv, as the spec runs it: all errors, no coercion, defaults or removal.
OPTIONS = {"all_errors": True, "coerce_types": False, "use_defaults": False, "remove_additional": False}


def load_cases() -> list[dict]:
    return json.loads(DATA.read_text())["cases"]


def applicable(case: dict) -> bool:
    """A JSON ``null`` body is no body over HTTP: those cases are out of scope."""
    return case["data"] is not None


def _ours(error: dict) -> dict:
    return {"instancePath": error.get("instance_path", ""), "schemaPath": error.get("schema_path"),
            "keyword": error.get("keyword"), "message": error.get("message"), "params": error.get("params") or {},
            **({"emUsed": True} if error.get("emUsed") else {})}


def shape(errors: list[dict], ours: bool) -> list[Any]:
    """What must agree: keyword, paths, emUsed, errorMessage texts, replaced records (recursively).

    Messages of other keywords differ by design (this engine says "should", Ajv "must").
    """
    out = []
    for error in errors:
        if ours:
            error = _ours(error)
        item = [error["keyword"], error["instancePath"], error["schemaPath"], bool(error.get("emUsed"))]
        if error["keyword"] == "errorMessage":
            item.append(error["message"])
            item.append(shape(error["params"].get("errors") or [], ours))
        out.append(item)
    return out


def run(case: dict) -> tuple[bool, str]:
    options = {}
    if "keepErrors" in case["options"]:
        options["keep_errors"] = case["options"]["keepErrors"]
    if "singleError" in case["options"]:
        options["single_error"] = case["options"]["singleError"]
    app = Framework(validator={"custom_options": OPTIONS, "plugins": [(error_messages, options)]})

    def on_error(error, request, reply):
        return reply.code(400).send({"errors": getattr(error, "validation", None) or []})

    app.set_error_handler(on_error)
    app.post("/", {"schema": {"body": case["schema"]}}, lambda request, reply: {"ok": True})
    try:
        response = app.inject(method="POST", url="/", body=json.dumps(case["data"]),
                              headers={"content-type": "application/json"})
    except Exception as error:  # noqa: BLE001 - a build failure is the observation
        return False, f"{type(error).__name__}: {error}"[:300]
    if case["valid"]:
        return response.status_code == 200, response.text[:300]
    if response.status_code != 400:
        return False, f"status {response.status_code}: {response.text[:300]}"
    got = shape(response.json()["errors"], ours=True)
    want = shape(case["errors"], ours=False)
    return got == want, f"got {json.dumps(got)[:700]}\nwant {json.dumps(want)[:700]}"
