"""Decorators: what a context adds to its instance, its requests and its replies.

Each context owns a :class:`Decorators`. A child's is made by :meth:`Decorators.child`,
so visibility follows the context tree: a child sees its ancestors' decorators (added
before or after it was created), may shadow them, and a sibling never sees them.

- Request and reply decorators are attributes of per-context ``Request`` and ``Reply``
  subclasses, each deriving from the parent's: the request path pays nothing to find
  them, and one that is not visible is simply absent (``getattr(request, name,
  UNDEFINED)``).
- Instance decorators are kept in a dict per context and found by walking up the tree
  (:meth:`Decorators.instance_value`), which is how ``Context.__getattr__`` answers
  ``instance.name``: functions become methods of the instance they are read from, and a
  ``property`` stays a property.
"""
from __future__ import annotations

import collections.abc
import types
from typing import Any, Literal, cast

from .errors import (DecoratorAfterStartError, DecoratorAlreadyPresentError, DecoratorMissingDependencyError,
                     DecoratorReferenceTypeError, DecoratorReservedError)
from .lifecycle.reply import Reply
from .lifecycle.request import Request

Kind = Literal["instance", "request", "reply"]

# A mutable value on a request or reply class would be shared by every request.
_MUTABLE = (collections.abc.MutableMapping, collections.abc.MutableSequence, collections.abc.MutableSet, bytearray)
_NOT_FOUND = object()


class Decorators:
    """The decorators one context added, and the classes its requests and replies are made from."""

    __slots__ = ("parent", "instance", "request_class", "reply_class", "own", "reserved", "owners")

    def __init__(self, parent: "Decorators | None", reserved_instance_names: frozenset[str]) -> None:
        self.parent = parent
        self.instance: dict[str, Any] = {}
        base_request = parent.request_class if parent else Request
        base_reply = parent.reply_class if parent else Reply
        self.request_class: type[Request[Any]] = cast("type[Request[Any]]",
                                  type("Request", (base_request,), {"__module__": Request.__module__}))
        self.reply_class: type[Reply] = cast("type[Reply]", type("Reply", (base_reply,), {"__module__": Reply.__module__}))
        self.own: dict[str, set[str]] = {"instance": set(), "request": set(), "reply": set()}
        #: ``(kind, name)`` -> the plugin that added it, in the order added (for ``app.explain``).
        self.owners: dict[tuple[str, str], str] = {}
        self.reserved = {"instance": reserved_instance_names,
                         "request": frozenset(dir(Request)) | Request.RESERVED,
                         "reply": frozenset(dir(Reply)) | Reply.RESERVED}

    def child(self) -> "Decorators":
        """The decorators of a child context (which sees these)."""
        return Decorators(self, self.reserved["instance"])

    def add(self, kind: Kind, name: str, value: Any, dependencies: list[str] | None, started: bool,
            owner: str = "") -> None:
        """Add decorator ``name`` of ``kind`` (checked: not after start, not reserved, not
        twice in one context, no mutable request/reply value, dependencies present)."""
        if started:
            raise DecoratorAfterStartError(name)
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"A decorator name must be an identifier, got {name!r}")
        if name in self.reserved[kind]:
            raise DecoratorReservedError(name, kind)
        if name in self.own[kind]:
            raise DecoratorAlreadyPresentError(name)
        if kind != "instance" and isinstance(value, _MUTABLE):
            # (isinstance() narrows Any to MutableMapping[Unknown, Unknown]...: only the type's name is read.)
            raise DecoratorReferenceTypeError(name, type(value).__name__)  # pyright: ignore[reportUnknownArgumentType]
        for dependency in dependencies or ():
            if not self.has(kind, dependency):
                raise DecoratorMissingDependencyError(dependency)
        if kind == "instance":
            self.instance[name] = value
        else:
            setattr(self.request_class if kind == "request" else self.reply_class, name, value)
        self.own[kind].add(name)
        self.owners[(kind, name)] = owner

    def has(self, kind: Kind, name: str) -> bool:
        """Whether decorator ``name`` of ``kind`` is visible here (here or in an ancestor)."""
        decorators: Decorators | None = self
        while decorators is not None:
            if name in decorators.own[kind]:
                return True
            decorators = decorators.parent
        return False

    def instance_value(self, instance: object, name: str) -> Any:
        """``instance.name`` for an instance decorator visible here; ``AttributeError`` otherwise."""
        decorators: Decorators | None = self
        while decorators is not None:
            value = decorators.instance.get(name, _NOT_FOUND)
            if value is not _NOT_FOUND:
                return _bind(value, instance)
            decorators = decorators.parent
        raise AttributeError(f"'{type(instance).__name__}' object has no attribute or decorator '{name}'")


def _bind(value: Any, instance: object) -> Any:
    if isinstance(value, property):
        return value.__get__(instance, type(instance))
    if isinstance(value, types.FunctionType):  # as a function stored on a class would bind
        return types.MethodType(value, instance)
    return value


__all__ = ["Decorators", "Kind"]
