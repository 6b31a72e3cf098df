"""Silent misconfiguration, caught: unknown route options and schema keys, shadowing
parametric routes, plugin forms, coroutines returned at run time, a busy port, handler
signatures and foreign path syntax, schema build errors naming their place, picklable
errors, and bodies of another media type past a JSON body schema."""
import functools
import importlib
import inspect
import os
import pickle
import socket
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest

import framework.errors as errors
import framework.errors as errors_module
from framework import Framework, plugin
from framework.errors import (DuplicatedRouteError, FrameworkError, HookNotSupportedError, InvalidMediaTypeError,
                              PluginTimeoutError, SchemaSerializationBuildError, SchemaValidationBuildError)

ROOT = Path(__file__).resolve().parent.parent


def secret(request, reply):
    return {"secret": 42}


def deny(request, reply):
    reply.code(403).send({"denied": True})


# 7. Errors pickle and name an importable class.
def _error_classes():
    return [value for value in vars(errors_module).values()
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == errors_module.__name__]


def _instance(cls):
    parameters = [p for p in inspect.signature(cls).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    if cls is errors_module.SchemaValidationFailure:
        return cls([{"message": "should be integer", "instance_path": "/a"}])
    if parameters:
        return cls(*[f"arg{i}" for i in range(len(parameters))])
    template = getattr(cls, "message_template", "")
    return cls(*[f"arg{i}" for i in range(template.count("%s") - template.count("%%s"))])


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_class_round_trips_through_pickle(cls):
    error = _instance(cls)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is cls
    assert str(copy) == str(error)
    for attribute in ("code", "status_code", "message", "errno", "validation", "validation_context", "errors"):
        assert getattr(copy, attribute, None) == getattr(error, attribute, None), attribute


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_class_names_an_importable_class(cls):
    module_name, _, qualname = f"{cls.__module__}.{cls.__qualname__}".rpartition(".")
    assert getattr(importlib.import_module(module_name), qualname) is cls


def test_framework_errors_with_a_status_keep_it_through_pickle():
    error = InvalidMediaTypeError("text/plain", headers={"x-a": "1"})
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.status_code, copy.code, copy.headers, copy.message) == \
        (415, "FST_ERR_CTP_INVALID_MEDIA_TYPE", {"x-a": "1"}, "Unsupported Media Type: text/plain")
    assert isinstance(copy, FrameworkError)
