"""Schemas more than one test folder checks: the validator and serializer resolve them
(tests/schemas/test_schema_refs.py), and typegen must resolve them the same way
(tests/devtools/test_typegen.py)."""

#: A shared schema whose definition has a relative ``$id`` (``item.json``) and a local
#: ``$ref`` inside it: the ``$ref`` resolves against ``http://example.com/item.json``.
NESTED_RELATIVE_IDS = {
    "$id": "http://example.com/root.json",
    "definitions": {
        "item": {
            "$id": "item.json",
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/x"}, "b": {"type": "string"}},
            "required": ["a"],
            "definitions": {"x": {"type": "integer"}},
        },
    },
}
