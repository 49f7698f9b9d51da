"""Loading a site's settings: `masthead.toml` plus `MASTHEAD_*` variables, with one clear error
(`ConfigError`, naming the key and where it came from) for anything wrong. A `MASTHEAD_*` variable
is text, so there one of `ENV_TRUE` or `ENV_FALSE` (any case) stands for a boolean, and decimal
digits (`ENV_INT`) for a number."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import (
    ValidationError,
)

from masthead.config.settings import Settings
from masthead.config.site import Site
from masthead.errors import ConfigError

CONFIG_FILE = "masthead.toml"
ENV_PREFIX = "MASTHEAD_"
ENV_TRUE = ("true", "1", "yes", "on")  # MASTHEAD_* spellings of a boolean, compared lower-cased
ENV_FALSE = ("false", "0", "no", "off")
ENV_INT = re.compile(r"[+-]?[0-9]+")  # a MASTHEAD_* number, spaces around it stripped


SCALARS = (str, int, bool, str | None)  # fields a MASTHEAD_* variable gives as plain text
# list settings whose items never hold a comma, so `a,b` is unambiguous beside a JSON array
ENV_COMMA_LISTS = frozenset({"allowed_origins", "editor_emails", "trusted_proxies", "toc_levels"})
# tables whose every key has a variable of its own: MASTHEAD_REPLICA_URL is `[replica] url`
ENV_TABLES = frozenset({"replica"})
ENV_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")  # a MASTHEAD_* decimal number


def _env_overrides() -> dict[str, Any]:
    """The settings given as `MASTHEAD_*` variables, as raw values for `Settings`.

    A string, number or boolean is text (see `_env_bool`, `ENV_INT`); a list or a table is a
    JSON array or object (RFC 8259), and a list in `ENV_COMMA_LISTS` may be comma-separated.
    Raises `ConfigError` naming the variable for a value that cannot be read, never skips it.
    """
    out: dict[str, Any] = {}
    for name, field in Settings.model_fields.items():
        if name in ENV_TABLES:
            table = _env_table(name)
            if table:
                out[name] = table
            continue
        raw = os.environ.get(ENV_PREFIX + name.upper())
        if raw is None:
            continue
        if field.annotation not in SCALARS:
            out[name] = _env_structured(name, raw)
        elif field.annotation is bool:
            out[name] = _env_bool(raw)
        elif field.annotation is int and ENV_INT.fullmatch(raw.strip()):
            out[name] = int(raw.strip())
        else:
            out[name] = raw  # a number that is no digits: the strict field refuses it, named
    return out


def _env_table(name: str) -> dict[str, Any]:
    """The keys of table `name` given as `MASTHEAD_NAME_KEY` variables: text, or a number for a
    numeric key when the text is a decimal number (else the text, refused by the field, named)."""
    out: dict[str, Any] = {}
    model = Settings.model_fields[name].annotation
    for key, field in getattr(model, "model_fields", {}).items():
        raw = os.environ.get(f"{ENV_PREFIX}{name.upper()}_{key.upper()}")
        if raw is None:
            continue
        text = raw.strip()
        if field.annotation is int and ENV_INT.fullmatch(text):
            out[key] = int(text)
        elif field.annotation is float and ENV_NUMBER.fullmatch(text):
            out[key] = float(text)
        else:
            out[key] = raw
    return out


def _env_structured(name: str, raw: str) -> Any:
    """A list or table setting from its `MASTHEAD_*` text: JSON, or for `ENV_COMMA_LISTS`
    comma-separated items (spaces around each stripped); an empty text is an empty list or
    table."""
    var = f"{ENV_PREFIX}{name.upper()} (environment)"
    text = raw.strip()
    if not text:  # `MASTHEAD_X=` (as compose passes an unset `${X:-}`): empty, as a string's ""
        return [] if _is_list(name) else {}
    if text.startswith(("[", "{")):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{var}: not valid JSON ({exc})") from None
    if name in ENV_COMMA_LISTS:
        items = [item.strip() for item in text.split(",") if item.strip()]
        return [int(i) if name == "toc_levels" and ENV_INT.fullmatch(i) else i for i in items]
    kind = "a JSON array" if _is_list(name) else "a JSON object"
    sample = '["one", "two"]' if _is_list(name) else '{"key": "value"}'
    raise ConfigError(f"{var}: must be {kind}, e.g. {sample}, not {raw!r}")


def _is_list(name: str) -> bool:
    return getattr(Settings.model_fields[name].annotation, "__origin__", None) is list


def _env_bool(raw: str) -> bool | str:
    """A `MASTHEAD_*` boolean: True or False for a spelling of `ENV_TRUE` or `ENV_FALSE`, else
    the text itself (which the strict field then refuses, naming the variable)."""
    word = raw.strip().lower()
    if word in ENV_TRUE:
        return True
    if word in ENV_FALSE:
        return False
    return raw


def _where(loc: tuple[Any, ...], from_env: dict[str, Any], overrides: dict[str, Any]) -> str:
    """The key a validation error is about, as `key: `, or `MASTHEAD_KEY (environment): `
    when the value came from the environment (not the file the message names)."""
    key = ".".join(str(p) for p in loc)
    if loc and loc[0] in ENV_TABLES:
        if len(loc) > 1 and loc[1] in from_env.get(loc[0], {}) and loc[0] not in overrides:
            return f"{ENV_PREFIX}{str(loc[0]).upper()}_{str(loc[1]).upper()} (environment): "
        return f"{key}: "
    if _from_env(loc, from_env, overrides):
        item = "".join(f"[{p}]" for p in loc[1:])  # e.g. the second item of a list: [1]
        return f"{ENV_PREFIX}{str(loc[0]).upper()}{item} (environment): "
    return f"{key}: "


def _table_hint(err: Any) -> str:
    """A hint for an unknown key inside a `[languages.X]` or `[[menu.X]]` table: TOML puts
    every key after a table's header into it, so a plain setting appended at the end of the
    file lands in the last table (https://toml.io/en/v1.0.0#table)."""
    loc = err["loc"]
    if err["type"] != "extra_forbidden" or len(loc) < 3 or loc[0] not in ("languages", "menu"):
        return ""
    table = f"[[menu.{loc[1]}]]" if loc[0] == "menu" else f"[languages.{loc[1]}]"
    key = loc[-1]
    what = "is a plain setting" if key in Settings.model_fields else "is meant as a plain setting"
    return (
        f" (TOML puts every key after a {table} line into that table: if {key} {what}, "
        "move it above the first table)"
    )


def _from_env(loc: tuple[Any, ...], from_env: dict[str, Any], overrides: dict[str, Any]) -> bool:
    return bool(loc) and loc[0] in from_env and loc[0] not in overrides


def _message(err: Any, from_env: dict[str, Any], overrides: dict[str, Any]) -> str:
    """Pydantic's message, or for a boolean or a number what is accepted where the value came
    from."""
    if err["type"] in ("float_type", "float_parsing"):
        return f"must be a number of seconds, such as 1 or 0.5, not {err['input']!r}"
    if err["type"] == "int_type":
        if _from_env(err["loc"], from_env, overrides):
            return f"must be a whole number (decimal digits), not {err['input']!r}"
        return f"must be a whole number (a TOML integer, unquoted), not {err['input']!r}"
    if err["type"] != "bool_type":
        return str(err["msg"])
    if _from_env(err["loc"], from_env, overrides):
        spellings = f"{', '.join(ENV_TRUE)} or {', '.join(ENV_FALSE)}"
        return f"must be one of {spellings}, not {err['input']!r}"
    return f"must be true or false (a TOML boolean, unquoted), not {err['input']!r}"


def load_site(root: str | Path, overrides: dict[str, Any] | None = None) -> Site:
    """Read `ROOT/masthead.toml` (optional) and `MASTHEAD_*` variables into a `Site`.

    Raises `ConfigError` naming the file and key for unreadable TOML, unknown keys, bad types,
    or a default language missing from `[languages]`.
    """
    root = Path(root).resolve()
    data: dict[str, Any] = {}
    path = root / CONFIG_FILE
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from exc
    try:
        from_env = _env_overrides()
    except ConfigError as exc:  # named like the file's errors: the site's settings, then the key
        raise ConfigError(f"{path}: {exc}") from None
    for name in ENV_TABLES & set(from_env):  # a variable overrides its key, not the table
        table = data.get(name)
        data[name] = {**(table if isinstance(table, dict) else {}), **from_env[name]}
    data.update({k: v for k, v in from_env.items() if k not in ENV_TABLES})
    data.update(overrides or {})
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        lines = [
            _where(err["loc"], from_env, overrides or {})
            + _message(err, from_env, overrides or {})
            + _table_hint(err)
            for err in exc.errors()
        ]
        raise ConfigError(f"{path}: " + "; ".join(lines)) from None
    if settings.default_language not in settings.languages:
        raise ConfigError(
            f"{path}: default_language {settings.default_language!r} has no [languages] table"
        )
    unknown = sorted(set(settings.menu) - set(settings.languages))
    if unknown:
        raise ConfigError(f"{path}: menu.{unknown[0]}: no such language in [languages]")
    prefixes = [lang.prefix for lang in Site(root, settings).languages.values()]
    if len(set(prefixes)) != len(prefixes):
        raise ConfigError(f"{path}: two languages share one URL prefix")
    return Site(root, settings)


def setting_source(root: Path, name: str) -> str:
    """Where setting `name` of the site at `root` comes from: `MASTHEAD_NAME` (the
    environment), `masthead.toml`, or `default` (what the dashboard shows beside each value)."""
    env = ENV_PREFIX + name.upper()
    if os.environ.get(env) is not None:
        return env
    path = Path(root) / CONFIG_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        data = {}
    return CONFIG_FILE if name in data else "default"
