"""The scenarios every contender implements: data, schemas and expected answers.

Everything a contender needs to answer a scenario (schemas, the rows of S4, the
field lists) lives here so that every contender serves the same bytes and the
checks compare against one definition.
"""

from __future__ import annotations

import json

# --------------------------------------------------------------------------- S1
HELLO = {"hello": "world"}

# --------------------------------------------------------------------------- S2
USER_PARAMS_SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer"}},
    "required": ["id"],
}
USER_QUERY_SCHEMA = {
    "type": "object",
    "properties": {"fields": {"type": "array", "items": {"type": "string"}}},
}

# --------------------------------------------------------------------------- S3
CATEGORIES = ["tools", "garden", "kitchen", "toys"]

DIMENSIONS_SCHEMA = {
    "type": "object",
    "required": ["width", "height", "depth"],
    "additionalProperties": False,
    "properties": {
        "width": {"type": "integer", "minimum": 0},
        "height": {"type": "integer", "minimum": 0},
        "depth": {"type": "integer", "minimum": 0},
    },
}

# Draft 7; ten fields: five strings, three integers, a nested object, an array
# of (up to) five strings.
ITEM_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["name", "sku", "category", "price", "quantity", "tags", "dimensions"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "maxLength": 100},
        "sku": {"type": "string", "maxLength": 32},
        "description": {"type": "string", "maxLength": 1000},
        "category": {"type": "string", "enum": CATEGORIES},
        "color": {"type": "string", "maxLength": 20},
        "price": {"type": "integer", "minimum": 0},
        "quantity": {"type": "integer", "minimum": 0},
        "weight": {"type": "integer", "minimum": 1},
        "tags": {
            "type": "array",
            "maxItems": 5,
            "items": {"type": "string", "maxLength": 20},
        },
        "dimensions": DIMENSIONS_SCHEMA,
    },
}

# What a 201 answer carries: the item plus its id.
ITEM_RESPONSE_SCHEMA = {
    "type": "object",
    "required": ["id"],
    "properties": {"id": {"type": "integer"}, **ITEM_SCHEMA["properties"]},
}

ITEM = {
    "name": "Cordless drill",
    "sku": "DRL-18V-0042",
    "description": "18 V cordless drill with two batteries and a carry case.",
    "category": "tools",
    "color": "teal",
    "price": 12999,
    "quantity": 7,
    "weight": 1450,
    "tags": ["power", "cordless", "drill", "18v", "diy"],
    "dimensions": {"width": 80, "height": 240, "depth": 220},
}
ITEM_BODY = json.dumps(ITEM).encode()

# Invalid: a negative price (``minimum``) - every contender must answer 400.
INVALID_ITEM = dict(ITEM, price=-5)
INVALID_ITEM_BODY = json.dumps(INVALID_ITEM).encode()

# --------------------------------------------------------------------------- S4
ROW_FIELDS = ("id", "name", "email", "role", "team", "score", "active", "created")

ROW_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "email": {"type": "string"},
        "role": {"type": "string"},
        "team": {"type": "string"},
        "score": {"type": "integer"},
        "active": {"type": "boolean"},
        "created": {"type": "string"},
    },
}
REPORT_SCHEMA = {"type": "array", "items": ROW_SCHEMA}

_ROLES = ("admin", "editor", "viewer", "owner")
_TEAMS = ("core", "web", "data", "infra", "support")

ROWS = [
    {
        "id": i,
        "name": f"User {i:03d}",
        "email": f"user{i:03d}@example.com",
        "role": _ROLES[i % len(_ROLES)],
        "team": _TEAMS[i % len(_TEAMS)],
        "score": (i * 37) % 1000,
        "active": i % 3 != 0,
        "created": f"2024-{(i % 12) + 1:02d}-{(i % 28) + 1:02d}T12:00:00Z",
        "secret": f"s3cr3t-token-{i:04d}",
    }
    for i in range(1, 51)
]
EXPECTED_REPORT = [{k: row[k] for k in ROW_FIELDS} for row in ROWS]


# ------------------------------------------------------------ request table
class Scenario:
    """One request shape: what to send and how to judge the answer."""

    def __init__(self, key, title, method, path, query="", body=None, status=200,
                 expected=None, check=None):
        self.key = key
        self.title = title
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.status = status
        self.expected = expected
        self._check = check

    @property
    def url(self):
        return self.path + ("?" + self.query if self.query else "")

    def judge_body(self, status, data):
        """:meth:`judge` for a raw body: None when it is right, else a reason."""
        try:
            payload = json.loads(data) if data else None
        except ValueError:
            if self.status >= 400:
                payload = None
            else:
                return f"status {status}, body is not JSON: {data[:120]!r}"
        return self.judge(status, payload)

    def judge(self, status, payload):
        """Return None when (status, parsed JSON payload) is right, else a reason."""
        if status != self.status:
            return f"status {status}, expected {self.status}"
        if self._check is not None:
            return self._check(payload)
        if payload != self.expected:
            return f"body {str(payload)[:200]!r} != expected {str(self.expected)[:200]!r}"
        return None


def _check_item(payload):
    if not isinstance(payload, dict):
        return f"body is not an object: {payload!r:.200}"
    if not isinstance(payload.get("id"), int) or isinstance(payload.get("id"), bool):
        return f"missing integer id in {payload!r:.200}"
    rest = {k: v for k, v in payload.items() if k != "id"}
    if rest != ITEM:
        return f"item differs: {rest!r:.200}"
    return None


def _check_report(payload):
    if not isinstance(payload, list):
        return f"body is not an array: {payload!r:.200}"
    if any("secret" in row for row in payload if isinstance(row, dict)):
        return "'secret' leaked into the response"
    if payload != EXPECTED_REPORT:
        return f"rows differ: {str(payload)[:200]!r}"
    return None


S1 = Scenario("S1", "GET /hello", "GET", "/hello", expected=HELLO)
S2 = Scenario("S2", "GET /users/42?fields=a&fields=b", "GET", "/users/42",
              query="fields=a&fields=b", expected={"id": 42, "fields": ["a", "b"]})
S3 = Scenario("S3", "POST /items (valid, 201)", "POST", "/items", body=ITEM_BODY,
              status=201, check=_check_item)
S3_INVALID = Scenario("S3!", "POST /items (invalid, 400)", "POST", "/items",
                      body=INVALID_ITEM_BODY, status=400, check=lambda payload: None)
S4 = Scenario("S4", "GET /report (50 rows, secret dropped)", "GET", "/report",
              check=_check_report)

TIMED = {"S1": S1, "S2": S2, "S3": S3, "S4": S4}
# Checked before timing, never timed.
CHECKS = [S1, S2, S3, S3_INVALID, S4]
