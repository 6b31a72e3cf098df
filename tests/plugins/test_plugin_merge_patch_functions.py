"""framework.plugins.merge_patch: the pure functions (RFC 7396 merge, RFC 6902 patch, schema expansion)."""
from __future__ import annotations

import copy

import pytest

from framework.plugins.merge_patch import JsonPatchError, MergePatchError, apply_patch, expand, merge

# RFC 7396 appendix A, every example.
RFC7396 = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize("target,patch,expected", RFC7396)
def test_merge_rfc7396_examples(target, patch, expected):
    before = copy.deepcopy((target, patch))
    assert merge(target, patch) == expected
    assert (target, patch) == before


def test_merge_result_shares_nothing_with_inputs():
    target, patch = {"a": {"b": [1]}}, {"c": {"d": [2]}}
    out = merge(target, patch)
    out["a"]["b"].append(9)
    out["c"]["d"].append(9)
    assert target == {"a": {"b": [1]}} and patch == {"c": {"d": [2]}}


# RFC 6902 appendix A (A.1-A.16, the JSON-representable ones).
RFC6902 = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"}),
    ({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}],
     {"foo": ["bar", "qux", "baz"]}),
    ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    ({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}],
     {"baz": "boo", "foo": "bar"}),
    ({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
     [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
     {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
    ({"foo": ["all", "grass", "cows", "eat"]}, [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
     {"foo": ["all", "cows", "eat", "grass"]}),
    ({"baz": "qux", "foo": ["a", 2, "c"]},
     [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
     {"baz": "qux", "foo": ["a", 2, "c"]}),
    ({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
     {"foo": "bar", "child": {"grandchild": {}}}),
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}],
     {"foo": "bar", "baz": "qux"}),
    ({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
     {"foo": ["bar", ["abc", "def"]]}),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}], {"/": 9, "~1": 10}),
    ({"a": {"b": 1}}, [{"op": "copy", "from": "/a", "path": "/c"}], {"a": {"b": 1}, "c": {"b": 1}}),
    ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
    ({"a": 1}, [{"op": "test", "path": "/a", "value": 1.0}], {"a": 1}),
]


@pytest.mark.parametrize("document,patch,expected", RFC6902)
def test_apply_patch_rfc6902_examples(document, patch, expected):
    before = copy.deepcopy((document, patch))
    assert apply_patch(document, patch) == expected
    assert (document, patch) == before


def test_copy_makes_an_independent_value():
    out = apply_patch({"a": {"b": [1]}}, [{"op": "copy", "from": "/a", "path": "/c"},
                                          {"op": "add", "path": "/c/b/-", "value": 2}])
    assert out == {"a": {"b": [1]}, "c": {"b": [1, 2]}}


@pytest.mark.parametrize("document,patch,match", [
    ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}], "test failed at '/baz'"),
    ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}], "does not exist"),
    ({"foo": "bar"}, [{"op": "remove", "path": "/nope"}], "does not exist"),
    ({"foo": "bar"}, [{"op": "replace", "path": "/nope", "value": 1}], "does not exist"),
    ({"foo": [1]}, [{"op": "add", "path": "/foo/5", "value": 1}], "out of range"),
    ({"foo": [1]}, [{"op": "add", "path": "/foo/01", "value": 1}], "not an array index"),
    ({"foo": [1]}, [{"op": "remove", "path": "/foo/-"}], "not an array index"),
    ({"foo": 1}, [{"op": "frobnicate", "path": "/foo"}], "unknown op 'frobnicate'"),
    ({"foo": 1}, [{"op": "add", "path": "/x"}], "needs 'value'"),
    ({"foo": 1}, [{"op": "move", "path": "/x"}], "needs 'from'"),
    ({"foo": 1}, [{"path": "/x"}], "needs 'op' and 'path'"),
    ({"foo": 1}, [{"op": "add", "path": "x", "value": 1}], "must be empty or start with '/'"),
    ({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}], "own child"),
    ({"a": True}, [{"op": "test", "path": "/a", "value": 1}], "test failed"),
    ({"foo": 1}, {"op": "add"}, "list of operations"),
])
def test_apply_patch_errors(document, patch, match):
    before = copy.deepcopy(document)
    with pytest.raises(JsonPatchError, match=match):
        apply_patch(document, patch)
    assert document == before  # all or nothing


def test_apply_patch_is_all_or_nothing():
    doc = {"a": 1}
    with pytest.raises(JsonPatchError):
        apply_patch(doc, [{"op": "add", "path": "/b", "value": 2}, {"op": "remove", "path": "/zz"}])
    assert doc == {"a": 1}


# --------------------------------------------------------------------- expand()

SHARED = {
    "item": {
        "$id": "item", "type": "object", "required": ["name"],
        "properties": {"name": {"type": "string"}, "pos": {"$ref": "#/definitions/pos"}},
        "definitions": {"pos": {"type": "integer", "minimum": 0}},
        "additionalProperties": False,
    },
}


def test_merge_inline_source():
    schema = {"$merge": {"source": {"type": "object", "properties": {"p": {"type": "string"}}},
                         "with": {"properties": {"q": {"type": "number"}}}}}
    assert expand(schema) == {"type": "object",
                              "properties": {"p": {"type": "string"}, "q": {"type": "number"}}}


def test_merge_shared_source_drops_id_and_absolutizes_local_refs():
    shared = copy.deepcopy(SHARED)
    out = expand({"$merge": {"source": {"$ref": "item#"},
                             "with": {"properties": {"price": {"type": "number"}},
                                      "required": ["name", "price"]}}}, shared)
    assert out == {
        "type": "object", "required": ["name", "price"],
        "properties": {"name": {"type": "string"}, "pos": {"$ref": "item#/definitions/pos"},
                       "price": {"type": "number"}},
        "definitions": {"pos": {"type": "integer", "minimum": 0}},
        "additionalProperties": False,
    }
    assert shared == SHARED  # the shared schema is not modified


def test_merge_with_a_list_applies_in_order_and_null_removes():
    out = expand({"$merge": {"source": {"type": "object", "required": ["a"], "maxProperties": 3},
                             "with": [{"required": ["a", "b"]}, {"maxProperties": None},
                                      {"required": ["c"]}]}})
    assert out == {"type": "object", "required": ["c"]}


def test_merge_source_pointer_into_shared_schema_and_local_definitions():
    out = expand({"definitions": {"base": {"type": "string"}},
                  "properties": {
                      "a": {"$merge": {"source": {"$ref": "item#/definitions/pos"}, "with": {"maximum": 9}}},
                      "b": {"$merge": {"source": {"$ref": "#/definitions/base"}, "with": {"maxLength": 2}}},
                  }}, SHARED)
    assert out["properties"] == {"a": {"type": "integer", "minimum": 0, "maximum": 9},
                                 "b": {"type": "string", "maxLength": 2}}


def test_with_may_be_a_ref():
    shared = {"extra": {"$id": "extra", "properties": {"z": {"type": "boolean"}}}}
    out = expand({"$merge": {"source": {"type": "object"}, "with": {"$ref": "extra#"}}}, shared)
    assert out == {"type": "object", "properties": {"z": {"type": "boolean"}}}


def test_patch_ops_on_shared_source():
    out = expand({"$patch": {"source": {"$ref": "item#"}, "with": [
        {"op": "add", "path": "/properties/tags", "value": {"type": "array"}},
        {"op": "remove", "path": "/required"},
        {"op": "replace", "path": "/additionalProperties", "value": True},
        {"op": "move", "from": "/properties/name", "path": "/properties/title"},
        {"op": "copy", "from": "/properties/title", "path": "/properties/subtitle"},
        {"op": "test", "path": "/type", "value": "object"},
    ]}}, SHARED)
    assert out == {
        "type": "object", "additionalProperties": True,
        "properties": {"pos": {"$ref": "item#/definitions/pos"}, "tags": {"type": "array"},
                       "title": {"type": "string"}, "subtitle": {"type": "string"}},
        "definitions": {"pos": {"type": "integer", "minimum": 0}},
    }


def test_nested_anywhere_and_inside_results():
    inner = {"$merge": {"source": {"type": "string"}, "with": {"maxLength": 3}}}
    schema = {"type": "object", "properties": {
        "list": {"type": "array", "items": inner},
        "deep": {"anyOf": [{"$patch": {"source": {"type": "object", "properties": {"x": inner}},
                                       "with": [{"op": "add", "path": "/required", "value": ["x"]}]}}]},
    }}
    expected_inner = {"type": "string", "maxLength": 3}
    assert expand(schema) == {"type": "object", "properties": {
        "list": {"type": "array", "items": expected_inner},
        "deep": {"anyOf": [{"type": "object", "properties": {"x": expected_inner}, "required": ["x"]}]},
    }}


def test_shared_source_holding_merge_is_expanded():
    shared = {"base": {"$id": "base", "type": "object", "properties": {"a": {"type": "string"}}},
              "mid": {"$id": "mid", "$merge": {"source": {"$ref": "base#"},
                                                "with": {"properties": {"b": {"type": "string"}}}}}}
    out = expand({"$merge": {"source": {"$ref": "mid#"}, "with": {"required": ["a", "b"]}}}, shared)
    assert out == {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                   "required": ["a", "b"]}


def test_property_called_merge_is_not_a_merge():
    schema = {"type": "object", "properties": {"$merge": {"type": "string"}},
              "enum": [{"$merge": 1}], "default": {"$patch": 2}}
    assert expand(schema) == schema


def test_an_openapi_example_is_data_not_a_merge():
    # ``example`` is data in the keyword table, as ``examples`` is: what it holds is a value.
    schema = {"type": "object", "example": {"$merge": {"source": {"type": "string"}, "with": {"maxLength": 3}}}}
    assert expand(schema) == schema


def test_annotations_stay_on_the_merged_result():
    out = expand({"deprecated": True, "example": "x",
                  "$merge": {"source": {"type": "string"}, "with": {"maxLength": 3}}})
    assert out == {"type": "string", "maxLength": 3, "deprecated": True, "example": "x"}


def test_siblings_are_kept():
    out = expand({"description": "d", "$merge": {"source": {"type": "string"}, "with": {"maxLength": 3}}})
    assert out == {"type": "string", "maxLength": 3, "description": "d"}
    out = expand({"minLength": 1, "$merge": {"source": {"type": "string"}, "with": {"maxLength": 3}}})
    assert out == {"minLength": 1, "allOf": [{"type": "string", "maxLength": 3}]}


def test_input_schema_untouched():
    schema = {"properties": {"a": {"$merge": {"source": {"type": "object"}, "with": {"x": 1}}}}}
    before = copy.deepcopy(schema)
    expand(schema)
    assert schema == before


@pytest.mark.parametrize("schema,match", [
    ({"$merge": {"source": {"$ref": "nope#"}, "with": {}}}, "can't resolve the source reference 'nope#'"),
    ({"$merge": {"source": {}}}, "needs an object with 'source' and 'with'"),
    ({"$merge": {"source": {}, "with": 3}}, "'with' must be an object"),
    ({"$merge": {"source": {}, "with": {}}, "$patch": {}}, "both"),
    ({"$patch": {"source": {}, "with": [{"op": "remove", "path": "/a"}]}}, r"\$patch: .*does not exist"),
])
def test_expand_errors(schema, match):
    with pytest.raises(MergePatchError, match=match):
        expand(schema, SHARED)


def test_reference_cycle_is_an_error_not_a_recursion_error():
    shared = {"loop": {"$id": "loop", "$merge": {"source": {"$ref": "loop#"}, "with": {}}}}
    with pytest.raises(MergePatchError, match="cycle"):
        expand({"$ref": "x", "properties": {"a": {"$merge": {"source": {"$ref": "loop#"}, "with": {}}}}},
               shared)


# --------------------------------------------------------------------- properties

from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

json_scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text("abc", max_size=2), inner, max_size=3), max_leaves=10)
json_objects = st.dictionaries(st.text("abc", max_size=2), json_values, max_size=4)


@settings(max_examples=100, deadline=None)
@given(json_objects, json_objects)
def test_merge_is_idempotent_and_drops_nulls(target, patch):
    once = merge(target, patch)
    assert merge(once, patch) == once
    for key, value in patch.items():
        if value is None:
            assert key not in once
        elif not isinstance(value, dict):
            assert once[key] == value


@settings(max_examples=100, deadline=None)
@given(json_objects, st.text("xyz", min_size=1, max_size=3), json_values)
def test_add_then_remove_restores_the_document(document, key, value):
    assume(key not in document)
    added = apply_patch(document, [{"op": "add", "path": "/" + key, "value": value}])
    assert added[key] == value
    assert apply_patch(added, [{"op": "remove", "path": "/" + key}]) == document
