"""JSON Schemas as data, shared by both engines: the shared-schema store and the one
``$ref`` resolver, the keyword table, code generation helpers, and Python types turned
into schemas."""
