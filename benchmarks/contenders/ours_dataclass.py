"""``ours_typed`` with S3's body and 201 answer as dataclasses: the body is validated as
its derived schema, then built into ``ItemData`` (nested ``DimensionsData``), and the
``ItemDataOut`` the handler returns is serialized through the 201 schema."""

from __future__ import annotations

from typing import Any

from benchmarks.contenders import ours_typed

NAME = "ours_dataclass"
LABEL = "framework (ours), dataclass body and answer"
KIND = "wsgi"
REQUIRES = ("framework",)
DIST = "framework"


def create_app() -> Any:
    return ours_typed.create_app(variant="dataclass")
