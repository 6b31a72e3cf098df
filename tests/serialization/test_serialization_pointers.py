"""A value that does not fit its schema raises ``SerializationError`` whose ``pointer`` is
the JSON pointer of that value in the response (issue 20: the reply logs it, the client
gets the fixed 500); a string field takes only what JSON can say as a string."""
import pytest

from framework.serialization import SerializationError, compile_serializer

S, I = {"type": "string"}, {"type": "integer"}


def pointer_of(schema, data):
    with pytest.raises(SerializationError) as info:
        compile_serializer(schema)(data)
    return info.value.pointer


def obj(**properties):
    return {"type": "object", "properties": properties}


class Opaque:
    pass


@pytest.mark.parametrize("schema, data, pointer", [
    (I, "x", ""),
    (obj(a=I), {"a": "x"}, "/a"),
    (obj(a=I, b=S), {"a": 1, "b": Opaque()}, "/b"),  # the object's fast path reached b
    (obj(o=obj(i=I)), {"o": {"i": "x"}}, "/o/i"),  # a nested object on the fast path
    (obj(o=obj(i=I)), {"o": {"i": "x"}, "extra": 1}, "/o/i"),
    ({"type": "array", "items": obj(i=I)}, [{"i": 1}, {"i": 2}, {"i": "x"}], "/2/i"),
    ({"type": "array", "items": I}, (n for n in [1, "x"]), "/1"),  # an iterator: listed once
    ({"type": "array", "items": [I, S], "additionalItems": I}, [1, "a", 2, 3, "x"], "/4"),
    ({"type": "array", "items": [I, S]}, [1, Opaque()], "/1"),
    ({"type": "object", "additionalProperties": I}, {"a": 1, "b/c~": "x"}, "/b~1c~0"),
    ({"type": "object", "patternProperties": {"^n": I}}, {"n1": "x"}, "/n1"),
    ({"type": "object", "required": ["name"], "properties": {"o": {"type": "object", "required": ["name"]}}},
     {"name": 1, "o": {}}, "/o"),
    ({"anyOf": [obj(a=I), {"type": "string"}]}, {"a": "x"}, "/a"),
    ({"type": ["object", "null"], "properties": {"a": I}}, {"a": "x"}, "/a"),
])
def test_the_pointer_names_the_value(schema, data, pointer):
    assert pointer_of(schema, data) == pointer


@pytest.mark.parametrize("value", [Opaque(), object(), {1, 2}, [1], {"a": 1}, 1j, b"\xff", ...])
def test_a_string_takes_nothing_json_cannot_say_as_a_string(value):
    with pytest.raises(SerializationError) as info:
        compile_serializer(S)(value)
    assert " at 0x" not in str(info.value)  # names the type (the message goes to the log)


def test_keys_that_are_not_json_scalars_fail_too():
    serialize = compile_serializer({"type": "object", "additionalProperties": True})
    assert serialize({2: "a", True: "b", None: "c"}) == b'{"2":"a","true":"b","null":"c"}'
    with pytest.raises(SerializationError):
        serialize({object(): 1})


def test_the_fast_path_still_takes_exact_strings_and_fitting_values():
    serialize = compile_serializer(obj(a=S, i=I, o=obj(b=S)))
    assert serialize({"a": "x", "i": 1, "o": {"b": "y"}}) == b'{"a":"x","i":1,"o":{"b":"y"}}'
    assert serialize({"a": 5, "i": "2", "o": {"b": True}}) == b'{"a":"5","i":2,"o":{"b":"true"}}'
