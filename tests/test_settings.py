"""``framework.settings.load_settings``: the environment (and a ``.env`` file) checked at start-up."""
from __future__ import annotations

import dataclasses
import logging
import os
import socket
import subprocess
import sys
from typing import Optional

import pytest
from typing_extensions import NotRequired, TypedDict

from conftest import SUPPORT_PATH
from framework.errors import FrameworkError, SettingsError
from framework.settings import load_settings

SCHEMA = {
    "type": "object",
    "required": ["database_url"],
    "properties": {
        "database_url": {"type": "string"},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535, "default": 8000},
        "ratio": {"type": "number", "default": 0.5},
        "debug": {"type": "boolean", "default": False},
        "api_keys": {"type": "array", "items": {"type": "string"}, "default": []},
        "ports": {"type": "array", "items": {"type": "integer"}, "default": []},
        "limits": {"type": "object", "properties": {"max": {"type": "integer"}},
                   "additionalProperties": {"type": "integer"}, "default": {}},
    },
}


def problems(error: pytest.ExceptionInfo[SettingsError]) -> list[str]:
    """The message's problem lines (the first line says what the error is)."""
    return str(error.value).splitlines()[1:]


# ---------------------------------------------------------------- coercion and defaults
def test_values_are_coerced_to_their_schema_types():
    settings = load_settings(SCHEMA, env={"APP_DATABASE_URL": "postgresql://db/x", "APP_PORT": "8080",
                                          "APP_RATIO": "0.25", "APP_DEBUG": "true"})
    assert settings == {"database_url": "postgresql://db/x", "port": 8080, "ratio": 0.25, "debug": True,
                        "api_keys": [], "ports": [], "limits": {}}
    assert type(settings["port"]) is int


def test_defaults_fill_unset_variables():
    settings = load_settings(SCHEMA, env={"APP_DATABASE_URL": "sqlite://"})
    assert settings == {"database_url": "sqlite://", "port": 8000, "ratio": 0.5, "debug": False,
                        "api_keys": [], "ports": [], "limits": {}}


@pytest.mark.parametrize(("text", "value"), [
    ("true", True), ("True", True), ("1", True), ("yes", True), ("on", True),
    ("false", False), ("FALSE", False), ("0", False), ("no", False), ("off", False)])
def test_booleans_take_the_usual_environment_spellings(text, value):
    assert load_settings(SCHEMA, env={"APP_DATABASE_URL": "x", "APP_DEBUG": text})["debug"] is value


@pytest.mark.parametrize(("text", "value"), [
    ('["a", "b"]', ["a", "b"]),          # JSON when the text starts with "["
    ("a,b", ["a", "b"]),                  # otherwise comma-separated
    (" a, b ,,c ", ["a", "b", "c"]),      # items stripped, blank items dropped
    ("", []),
    ("single", ["single"]),
])
def test_arrays_are_json_or_comma_separated(text, value):
    assert load_settings(SCHEMA, env={"APP_DATABASE_URL": "x", "APP_API_KEYS": text})["api_keys"] == value


def test_array_items_are_coerced():
    env = {"APP_DATABASE_URL": "x", "APP_PORTS": "80, 443"}
    assert load_settings(SCHEMA, env=env)["ports"] == [80, 443]
    env["APP_PORTS"] = "[80, 443]"
    assert load_settings(SCHEMA, env=env)["ports"] == [80, 443]


def test_objects_are_json():
    env = {"APP_DATABASE_URL": "x", "APP_LIMITS": '{"max": "10", "burst": 3}'}
    assert load_settings(SCHEMA, env=env)["limits"] == {"max": 10, "burst": 3}


def test_only_the_prefixed_upper_case_names_are_read():
    env = {"DATABASE_URL": "no", "app_database_url": "no", "APP_database_url": "no", "APP_DATABASE_URL": "yes"}
    assert load_settings(SCHEMA, env=env)["database_url"] == "yes"
    assert load_settings({"properties": {"database_url": {"type": "string"}}}, env=env, prefix="") == \
        {"database_url": "no"}


def test_the_process_environment_is_the_default(monkeypatch):
    monkeypatch.setenv("APP_DATABASE_URL", "from-environ")
    monkeypatch.setenv("APP_PORT", "9")
    assert load_settings(SCHEMA)["port"] == 9


# ---------------------------------------------------------------- errors
def test_a_missing_required_setting_fails_naming_the_variable():
    with pytest.raises(SettingsError) as error:
        load_settings(SCHEMA, env={})
    assert problems(error) == ["APP_DATABASE_URL: is required and not set"]
    assert isinstance(error.value, FrameworkError) and error.value.code == "FST_ERR_SETTINGS"
    assert error.value.problems == problems(error)


def test_every_problem_is_listed_at_once():
    env = {"APP_PORT": "eighty", "APP_DEBUG": "maybe", "APP_RATIO": "half", "APP_PORTS": "1,x"}
    with pytest.raises(SettingsError) as error:
        load_settings(SCHEMA, env=env)
    assert problems(error) == [
        "APP_DATABASE_URL: is required and not set",
        "APP_PORT: should be integer",
        "APP_RATIO: should be number",
        "APP_DEBUG: should be boolean (true/false, 1/0, yes/no, on/off)",
        "APP_PORTS/1: should be integer",
    ]


def test_three_bad_variables_give_three_lines():
    env = {"APP_DATABASE_URL": "x", "APP_PORT": "0", "APP_DEBUG": "2", "APP_API_KEYS": "[not json"}
    with pytest.raises(SettingsError) as error:
        load_settings(SCHEMA, env=env)
    assert problems(error) == ["APP_PORT: should be >= 1",
                               "APP_DEBUG: should be boolean (true/false, 1/0, yes/no, on/off)",
                               "APP_API_KEYS: should be a JSON array (the text starts with '[')"]


def test_an_object_setting_must_be_a_json_object():
    for text in ("max=3", "[1]", "{"):
        with pytest.raises(SettingsError) as error:
            load_settings(SCHEMA, env={"APP_DATABASE_URL": "x", "APP_LIMITS": text})
        assert problems(error) == ["APP_LIMITS: should be a JSON object"], text


SECRET = "s3cr3t-Value-42"


@pytest.mark.parametrize("env", [
    {"APP_PORT": SECRET},
    {"APP_DEBUG": SECRET},
    {"APP_PORTS": f"{SECRET},2"},
    {"APP_API_KEYS": f"[\"{SECRET}\""},
    {"APP_LIMITS": f'{{"{SECRET}": "x"}}'},     # a key of an object setting is part of its value too
    {"APP_LIMITS": f'{{"max": "{SECRET}"}}'},
])
def test_no_value_is_ever_shown(env, caplog):
    caplog.set_level(logging.DEBUG)
    with pytest.raises(SettingsError) as error:
        load_settings(SCHEMA, env={"APP_DATABASE_URL": SECRET, **env})
    shown = str(error.value) + repr(error.value) + repr(error.value.__dict__) + caplog.text
    assert SECRET not in shown
    assert error.value.__cause__ is None and error.value.__suppress_context__
    assert problems(error)  # and yet the variable is named
    assert all(line.startswith(tuple(env)) for line in problems(error)), problems(error)


def test_the_inner_path_of_an_object_setting_shows_declared_names_only():
    with pytest.raises(SettingsError) as error:
        load_settings(SCHEMA, env={"APP_DATABASE_URL": "x", "APP_LIMITS": '{"max": "a", "other": "b"}'})
    assert sorted(problems(error)) == ["APP_LIMITS/*: should be integer", "APP_LIMITS/max: should be integer"]


def test_a_schema_that_names_no_variables_is_refused():
    with pytest.raises(TypeError, match="object schema with 'properties'"):
        load_settings({"type": "string"}, env={})
    with pytest.raises(TypeError, match="'api-keys' cannot name an environment variable"):
        load_settings({"properties": {"api-keys": {"type": "string"}}}, env={})


# ---------------------------------------------------------------- .env files
def test_dotenv_fills_what_the_environment_does_not_set(tmp_path):
    path = tmp_path / ".env"
    path.write_text("APP_DATABASE_URL=from-file\nAPP_PORT=1000\nAPP_DEBUG=yes\n")
    settings = load_settings(SCHEMA, env={"APP_PORT": "2000"}, dotenv=path)
    assert (settings["database_url"], settings["port"], settings["debug"]) == ("from-file", 2000, True)
    assert load_settings(SCHEMA, env={"APP_PORT": "2000"}, dotenv=str(path))["port"] == 2000


def test_dotenv_does_not_change_the_environment(tmp_path, monkeypatch):
    path = tmp_path / ".env"
    path.write_text("APP_DATABASE_URL=from-file\n")
    monkeypatch.delenv("APP_DATABASE_URL", raising=False)
    assert load_settings(SCHEMA, dotenv=path)["database_url"] == "from-file"
    assert "APP_DATABASE_URL" not in os.environ


def test_a_missing_dotenv_file_is_ignored(tmp_path):
    assert load_settings(SCHEMA, env={"APP_DATABASE_URL": "x"}, dotenv=tmp_path / "absent.env")["port"] == 8000


DOTENV = r"""
# a comment line
   # an indented comment

APP_A=plain
APP_B = spaced around the equals sign
export APP_C=exported
APP_D=value # a comment after a space
APP_E=value#not-a-comment
APP_F='single # quoted \n kept'
APP_G="double # quoted\nwith \"escapes\" and \\ \t"
APP_H=""
APP_I=
APP_J="a multi-line
value"
APP_L=ends with spaces   
APP_M=$HOME and ${HOME} are not expanded
APP_A=the last one wins
"""


def test_dotenv_parsing(tmp_path):
    path = tmp_path / ".env"
    path.write_text(DOTENV)
    names = "abcdefghijlm"
    schema = {"properties": {name: {"type": "string"} for name in names}}
    assert load_settings(schema, env={}, dotenv=path) == {
        "a": "the last one wins",
        "b": "spaced around the equals sign",
        "c": "exported",
        "d": "value",
        "e": "value#not-a-comment",
        "f": "single # quoted \\n kept",
        "g": 'double # quoted\nwith "escapes" and \\ \t',
        "h": "",
        "i": "",
        "j": "a multi-line\nvalue",
        "l": "ends with spaces",
        "m": "$HOME and ${HOME} are not expanded",
    }


@pytest.mark.parametrize(("text", "line"), [
    (f"APP_A=ok\nnot a setting {SECRET}\n", 2),
    (f"APP_A=ok\n\nAPP_B='{SECRET}\n", 3),          # an unclosed quote
    (f'APP_B="{SECRET}" trailing\n', 1),            # text after the closing quote
    (f"1APP={SECRET}\n", 1),                        # not a variable name
    (f"export APP_{SECRET}\n", 1),                 # no "="
    (f"={SECRET}\n", 1),
])
def test_a_malformed_dotenv_line_is_a_problem_naming_the_file_and_line(tmp_path, text, line):
    path = tmp_path / "app.env"
    path.write_text(text)
    with pytest.raises(SettingsError) as error:
        load_settings({"properties": {"a": {"type": "string"}, "port": {"type": "integer"}}},
                      env={"APP_PORT": "x"}, dotenv=path)
    assert problems(error) == [f"{path} line {line}: should be KEY=value (a name, =, a value, optionally quoted)",
                               "APP_PORT: should be integer"]
    assert SECRET not in str(error.value)


# ---------------------------------------------------------------- Python types
class TypedSettings(TypedDict):
    database_url: str
    port: NotRequired[int]
    api_keys: NotRequired[list[str]]


@dataclasses.dataclass
class DataSettings:
    database_url: str
    port: int = 8000
    debug: bool = False
    api_keys: list[str] = dataclasses.field(default_factory=lambda: ["demo"])
    replica_url: Optional[str] = None


def test_a_typeddict_gives_a_dict():
    settings = load_settings(TypedSettings, env={"APP_DATABASE_URL": "x", "APP_PORT": "1", "APP_API_KEYS": "a,b"})
    assert settings == {"database_url": "x", "port": 1, "api_keys": ["a", "b"]}
    with pytest.raises(SettingsError) as error:
        load_settings(TypedSettings, env={"APP_PORT": "one"})
    assert problems(error) == ["APP_DATABASE_URL: is required and not set", "APP_PORT: should be integer"]


def test_a_dataclass_gives_an_instance():
    settings = load_settings(DataSettings, env={"APP_DATABASE_URL": "x", "APP_DEBUG": "1"})
    assert settings == DataSettings(database_url="x", port=8000, debug=True, api_keys=["demo"], replica_url=None)
    assert load_settings(DataSettings, env={"APP_DATABASE_URL": "x", "APP_REPLICA_URL": "r"}).replica_url == "r"
    with pytest.raises(SettingsError) as error:
        load_settings(DataSettings, env={"APP_PORT": "1.5"})
    assert problems(error) == ["APP_DATABASE_URL: is required and not set", "APP_PORT: should be integer"]


# ---------------------------------------------------------------- the example application
def test_the_example_application_fails_to_start_with_a_bad_setting(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("API_KEYS", "DATABASE_URL", "EXAMPLE_WRAP_GRANDCHILD")}
    env.update({"ITEMS_DB": str(tmp_path / "items.sqlite3"), "EXAMPLE_WRAP_GRANDCHILD": SECRET,
                "API_KEYS": f'["{SECRET}"', "PORT": SECRET})
    result = subprocess.run([sys.executable, "-c", "import examples.app"], cwd=SUPPORT_PATH, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert "framework.errors.SettingsError: invalid settings (values are not shown):\n" \
           "API_KEYS: should be a JSON array (the text starts with '[')\n" \
           "EXAMPLE_WRAP_GRANDCHILD: should be boolean (true/false, 1/0, yes/no, on/off)\n" \
           "PORT: should be integer\n" in result.stderr, result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert not (tmp_path / "items.sqlite3").exists()  # it failed before opening its store


def test_the_example_application_reads_its_settings_through_load_settings():
    from examples.app import DEFAULT_DATABASE, DEMO_JWT_SECRET, DEMO_KEY, settings_from_env

    assert settings_from_env({}) == {"api_keys": [DEMO_KEY], "items_db": DEFAULT_DATABASE, "database_url": "",
                                     "example_wrap_grandchild": False, "port": 3000,
                                     "jwt_secret": DEMO_JWT_SECRET}
    assert settings_from_env({"EXAMPLE_WRAP_GRANDCHILD": "1", "PORT": "8080"})["example_wrap_grandchild"] is True
    with pytest.raises(SettingsError) as error:
        settings_from_env({"PORT": "http"})
    assert problems(error) == ["PORT: should be integer"]


def test_the_module_docstring_example_runs():
    import doctest

    import framework.settings

    result = doctest.testmod(framework.settings)
    assert result.attempted and not result.failed


def test_gunicorn_stops_when_the_example_application_has_a_bad_setting(tmp_path):
    """A worker whose import fails stops gunicorn ("Worker failed to boot"): loudly, at
    start, with the problems in its log and no value."""
    env = {k: v for k, v in os.environ.items() if k not in ("API_KEYS", "DATABASE_URL", "EXAMPLE_WRAP_GRANDCHILD")}
    env.update({"ITEMS_DB": str(tmp_path / "items.sqlite3"), "EXAMPLE_WRAP_GRANDCHILD": SECRET})
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "examples.app:app", "--bind", f"127.0.0.1:{port}",
                                "--workers", "2"], cwd=SUPPORT_PATH, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        output, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode != 0, output
    assert "EXAMPLE_WRAP_GRANDCHILD: should be boolean" in output and "Worker failed to boot" in output, output
    assert SECRET not in output
