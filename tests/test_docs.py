"""The documentation matches the code: the README's Quick start is the two commands CI runs, and
the generated references (docs/hooks/reference.py, built into the MkDocs site) name every
setting of `masthead.config` and every command, argument and option of the `masthead` program."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from masthead.config import ENV_TABLES, Settings

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _reference():
    path = ROOT / "docs" / "hooks" / "reference.py"
    spec = importlib.util.spec_from_file_location("masthead_docs_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _reference()


def quick_start_commands() -> list[str]:
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```", quick, flags=re.DOTALL | re.MULTILINE)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_quick_start_is_two_one_line_commands():
    commands = quick_start_commands()
    assert commands == [
        "python3 -m venv .venv && .venv/bin/pip install -r requirements.lock -e . "
        "&& .venv/bin/masthead serve",
        "python3 scripts/test.py",
    ], commands


def test_ci_runs_the_readme_test_command():
    second = quick_start_commands()[1]
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert second in ci_run.splitlines(), f".ci/run does not run the test command {second!r}"


def test_the_readme_stays_short():
    assert len(README.splitlines()) <= 150


def test_every_setting_is_in_the_settings_reference():
    text = reference.settings_reference()
    models = reference.models()
    assert Settings in models
    names = {model.__name__ for model in models}
    assert {"LanguageSettings", "PermalinkSettings", "MenuItem", "SecuritySettings"} <= names
    for model in models:
        prefix = reference.TABLES[model.__name__][2]  # a nested model needs a place in TOML
        for name, field in model.model_fields.items():
            assert f"### `{prefix}{name}`" in text, prefix + name
            assert field.description, f"{prefix}{name} has no description in masthead.config"
    for name, field in Settings.model_fields.items():
        if name in ENV_TABLES:  # a variable per key: MASTHEAD_REPLICA_URL
            for key in field.annotation.model_fields:  # type: ignore[union-attr]
                assert f"`MASTHEAD_{name.upper()}_{key.upper()}`" in text, (name, key)
            continue
        assert f"`MASTHEAD_{name.upper()}`" in text, name


def _click_tree():
    """Every command of the program from its Click tree, walked here, not by the generator."""
    import typer

    from masthead.cli import app

    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            if not sub.hidden:
                yield from walk(sub, f"{path} {name}")

    yield from walk(typer.main.get_command(app), "masthead")


def test_every_command_and_option_is_in_the_cli_reference():
    text = reference.cli_reference()
    paths = [path for path, _ in _click_tree()]
    assert {"masthead serve", "masthead comments import", "masthead admin add-user"} <= set(paths)
    assert "masthead mail send" in paths
    for path, command in _click_tree():
        assert f" `{path}` {{#" in text, f"{path} is missing from the command reference"
        section = text.split(f" `{path}` {{#", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
        assert f"```text\n{path} " in section, f"{path}: no usage line"
        assert command.help, f"{path} has no help text"
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            names = param.opts + param.secondary_opts
            if param.param_type_name == "argument":
                names = [param.metavar or param.name]
            prose = re.sub(r"```.*?```", "", section, flags=re.DOTALL)  # the usage block
            spans = re.findall(r"`([^`]+)`", prose)
            for name in names:
                word = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
                assert any(word.search(span) for span in spans), f"{path}: {name} is missing"


def test_the_site_loads_nothing_from_other_hosts():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s+font: false", config, flags=re.MULTILINE)
    assert "extra_javascript" not in config and "extra_css" not in config
