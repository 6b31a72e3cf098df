"""What the typegen tests share: generated source executed as a module, its classes' resolved
annotations, and a schema other schemas refer to."""
from __future__ import annotations

import itertools
import sys
import types
from typing import Any

import typing_extensions

from framework.devtools.typegen import typegen

_modules = itertools.count(1)


def load(source: str) -> types.ModuleType:
    """Execute generated source as a module (registered, so get_type_hints finds its globals)."""
    module = types.ModuleType(f"typegen_generated_{next(_modules)}")
    sys.modules[module.__name__] = module
    # dont_inherit: this file's ``from __future__ import annotations`` must not apply.
    exec(compile(source, module.__name__, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
    return module


def generate(*schemas: dict[str, Any]) -> types.ModuleType:
    return load(typegen(list(schemas)))


def hints(cls: Any) -> dict[str, Any]:
    return typing_extensions.get_type_hints(cls)


COMMON = {"$id": "http://example.com/common.json", "definitions": {
    "address": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
    "id": {"type": "integer", "minimum": 1},
}}
