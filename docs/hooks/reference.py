"""The generated reference pages of the documentation site.

`settings_reference()` writes the settings reference from the pydantic models of
`masthead.config` (every field of `Settings` and of every model nested in it: name, type, default,
its `MASTHEAD_*` variable, its description); `cli_reference()` writes the command reference from
the Typer app, `masthead.cli.app`, walking its Click command tree (usage, help, every argument and
option). Both are Markdown, made from the code at build time, so the pages cannot drift from it.

`mkdocs.yml` loads this file as a hook: a page that holds `SETTINGS_MARKER` or `CLI_MARKER` gets
the reference in its place (`on_page_markdown`). tests/test_docs.py imports it to check that every
field and every command and option is in the output.
"""

from __future__ import annotations

import html
import re
import types
import typing
from collections.abc import Iterator
from typing import Any

SETTINGS_MARKER = "<!-- reference: settings -->"
CLI_MARKER = "<!-- reference: cli -->"

# where each model's fields are set in masthead.toml, and the anchor of its section
TABLES = {
    "Settings": ("Plain settings", "plain", ""),
    "PermalinkSettings": ("[permalinks]", "permalinks-table", "permalinks."),
    "SecuritySettings": ("[security]", "security-table", "security."),
    "ShareCardSettings": ("[share_cards]", "share-cards-table", "share_cards."),
    "LanguageSettings": ("[languages.CODE]", "languages-table", "languages.CODE."),
    "MenuItem": ("[[menu.CODE]]", "menu-table", "menu.CODE."),
    "ReplicaSettings": ("[replica]", "replica-table", "replica."),
    "WordPressSettings": ("[wordpress]", "wordpress-table", "wordpress."),
}


def _text(value: str) -> str:
    """Plain text (a description, a help text) as Markdown that shows it as written."""
    value = html.escape(" ".join(value.split()), quote=False)
    return re.sub(r"([\\*_\[\]|])", r"\\\1", value)  # `code` spans stay code


def _cell(value: str) -> str:
    return _text(value) or " "


def _code(value: str) -> str:
    """`value` as inline code, whatever backticks it holds."""
    fence = "``" if "`" in value else "`"
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}".replace("|", "\\|")


# ---------------------------------------------------------------------------------------------
# settings


def models() -> list[type[Any]]:
    """`Settings` and every pydantic model its fields hold, at any depth, in the order met."""
    from pydantic import BaseModel

    from masthead.config import Settings

    found: list[type[Any]] = []

    def visit(annotation: Any) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in found:
                found.append(annotation)
                for field in annotation.model_fields.values():
                    visit(field.annotation)
            return
        for arg in typing.get_args(annotation):
            visit(arg)

    visit(Settings)
    return found


def _type_name(annotation: Any) -> str:
    """A field's type in TOML's words (string, integer, array of strings, a table)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        title, anchor, _ = TABLES.get(annotation.__name__, (annotation.__name__, "", ""))
        return f"table ([{title}](#{anchor}))" if anchor else "table"
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:  # StrictInt and the like: the type they constrain
        return _type_name(args[0])
    if origin in (typing.Union, types.UnionType):
        kinds = [_type_name(a) for a in args if a is not type(None)]
        return " or ".join(kinds) + (", or unset" if type(None) in args else "")
    if origin is list:
        inner = _type_name(args[0])
        return "array of " + (inner + "s" if inner in ("string", "integer") else inner)
    if origin is dict:
        inner = _type_name(args[1])
        return "table of " + re.sub(r"^(array|table)\b", r"\1s", inner)
    names = {str: "string", int: "integer", bool: "boolean", float: "number"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _constraints(field: Any) -> str:
    """The bounds and choices a field's declaration puts on its values, in words."""
    low = high = None
    choices = ""
    for item in field.metadata:
        low = getattr(item, "ge", low)
        high = getattr(item, "le", high)
        pattern = getattr(item, "pattern", None)
        alternatives = re.fullmatch(r"\^\(([\w|-]+)\)\$", pattern or "")
        if alternatives:
            choices = "one of " + ", ".join(_code(f'"{c}"') for c in alternatives[1].split("|"))
        if getattr(item, "min_length", None):
            choices = "not empty"
    if low is not None and high is not None:
        return f"{low:,} to {high:,}"
    if low is not None:
        return f"at least {low:,}"
    if high is not None:
        return f"at most {high:,}"
    return choices


def _toml(value: Any) -> str:
    """A default value as it would be written in masthead.toml."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        value = value.model_dump()
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            if isinstance(item, BaseModel):  # a table of tables: what differs from the defaults
                item = item.model_dump(exclude_defaults=True)
            name = key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml(key)
            items.append(f"{name} = {_toml(item)}")
        return "{" + ", ".join(items) + "}"
    return repr(value)


def _default(field: Any) -> str:
    if field.is_required():
        return "required"
    value = field.get_default(call_default_factory=True)
    return "unset" if value is None else _code(_toml(value))


def _env(name: str, field: Any) -> str:
    """How the top-level setting `name` is given as a `MASTHEAD_*` variable."""
    from masthead.config import ENV_COMMA_LISTS, ENV_PREFIX, ENV_TABLES, SCALARS

    var = _code(ENV_PREFIX + name.upper())
    if name in ENV_TABLES:
        return f"one variable per key, {_code(ENV_PREFIX + name.upper() + '_KEY')}"
    if field.annotation in SCALARS:
        return var
    if name in ENV_COMMA_LISTS:
        return f"{var} (a JSON array, or comma-separated items)"
    if typing.get_origin(field.annotation) is list:
        return f"{var} (a JSON array)"
    return f"{var} (a JSON object)"


def _env_tables() -> frozenset[str]:
    from masthead.config import ENV_TABLES

    return ENV_TABLES


def settings_reference() -> str:
    """Markdown: a section per table of masthead.toml, a subsection per setting."""
    from masthead.config import Settings

    out: list[str] = []
    for model in models():
        title, anchor, prefix = TABLES.get(model.__name__, (model.__name__, "", ""))
        heading = "Plain settings" if model is Settings else _code(title)
        out.append(f"## {heading} {{#{anchor or model.__name__.lower()}}}\n")
        doc = (model.__doc__ or "").strip()
        if model is not Settings and doc:
            out.append(_text(doc.replace("`", "")) + "\n")
        for name, field in model.model_fields.items():
            key = prefix + name
            ident = re.sub(r"[^a-z0-9_]+", "-", key.lower()).strip("-")
            out.append(f"### {_code(key)} {{#{ident}}}\n")
            out.append(_text(field.description or "") + "\n")
            facts = [f"type: {_type_name(field.annotation)}"]
            bounds = _constraints(field)
            if bounds:
                facts.append(bounds)
            if field.alias:
                facts.append(f"also spelled {_code(field.alias)}")
            facts.append(f"default: {_default(field)}")
            if model is Settings:
                facts.append(f"environment: {_env(name, field)}")
            elif prefix.rstrip(".") in _env_tables():
                facts.append(f"environment: {_code('MASTHEAD_' + key.replace('.', '_').upper())}")
            out.append("- " + "\n- ".join(facts) + "\n")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# commands


def commands() -> Iterator[tuple[Any, Any]]:
    """Every command of the `masthead` program, groups included, as (command, its context), the
    program first and each group before its subcommands; hidden ones left out."""
    import typer

    from masthead.cli import app

    def walk(command: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
        yield command, ctx
        for name, sub in getattr(command, "commands", {}).items():
            if not getattr(sub, "hidden", False):
                yield from walk(sub, typer.Context(sub, info_name=name, parent=ctx))

    root = typer.main.get_command(app)
    yield from walk(root, typer.Context(root, info_name="masthead"))


def parameters(command: Any) -> list[Any]:
    return [p for p in command.params if not getattr(p, "hidden", False)]


def cli_reference() -> str:
    """Markdown: a section per command (usage, help, arguments, options), the program first."""
    out: list[str] = []
    for command, ctx in commands():
        path = ctx.command_path
        level = "#" * min(2 + path.count(" ") - (1 if " " in path else 0), 4)
        ident = re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")
        out.append(f"{level} {_code(path)} {{#{ident}}}\n")
        usage = " ".join([path, *command.collect_usage_pieces(ctx)])
        out.append(f"```text\n{usage}\n```\n")
        for paragraph in (command.help or "").split("\n\n"):
            if paragraph.strip():
                out.append(_text(paragraph) + "\n")
        subs = {n: c for n, c in getattr(command, "commands", {}).items() if not c.hidden}
        if subs:
            rows = [
                f"| [{_code(path + ' ' + n)}](#{ident}-{n}) | {_cell(c.get_short_help_str(200))} |"
                for n, c in subs.items()
            ]
            out.append("| command | what it does |\n| --- | --- |\n" + "\n".join(rows) + "\n")
        for kind, title in (("argument", "argument"), ("option", "option")):
            rows = []
            for param in parameters(command):
                if param.param_type_name != kind:
                    continue
                record = param.get_help_record(ctx)
                shown, help_text = record if record else (param.name, "")
                rows.append(f"| {_code(shown)} | {_cell(help_text)} |")
            if rows:
                out.append(f"| {title} | meaning |\n| --- | --- |\n" + "\n".join(rows) + "\n")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# the MkDocs hook


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Put the references in place of their markers."""
    if SETTINGS_MARKER in markdown:
        markdown = markdown.replace(SETTINGS_MARKER, settings_reference())
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    return markdown
