"""`masthead --help` and every command's `--help` read as prose (session 6's fresh-user trial saw
docstring lines cut mid-sentence, "…with / SQLite's online backup…", and `<bool>` beside every
flag): the real program (CliRunner) at a fixed width."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from masthead.cli import app

WIDTH = 100
runner = CliRunner()


def _help(*args: str) -> str:
    result = runner.invoke(app, [*args, "--help"], prog_name="masthead", terminal_width=WIDTH)
    assert result.exit_code == 0, result.output
    return result.stdout


def _commands() -> list[tuple[str, ...]]:
    root = typer.main.get_command(app)
    out: list[tuple[str, ...]] = [()]
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        out.append((name,))
        out += [(name, sub) for sub in getattr(command, "commands", {})]  # a group's
    return out


def _words(text: str) -> list[str]:
    return " ".join(text.split()).split(" ")


def _prose(paragraph_lines: list[str]) -> None:
    """Lines of one wrapped paragraph: each but the last is full (its next word did not fit)."""
    for line, after in itertools.pairwise(paragraph_lines):
        nxt = after.split()[0]
        assert len(line.rstrip()) + 1 + len(nxt) > WIDTH - 12, (line, after)


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "masthead")
def test_help_text_is_wrapped_prose_without_type_noise(command):
    text = _help(*command)
    assert "<bool>" not in text
    root = typer.main.get_command(app)
    cmd = root
    for name in command:
        cmd = cmd.commands[name]  # type: ignore[attr-defined]
    paragraphs = (cmd.help or "").split("\n\n")
    shown = text.split("\n\n")[1 : 1 + len(paragraphs)]  # after the usage line
    for said, written in zip(shown, paragraphs, strict=True):
        assert _words(said) == _words(written), text
        _prose(said.splitlines())


def test_the_command_list_shows_each_first_paragraph_whole():
    text = _help()
    flat = " ".join(text.split())
    root = typer.main.get_command(app)
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        first = (command.help or "").split("\n\n")[0]
        assert " ".join(first.split()) in flat, name
    assert "..." not in text.partition("Commands:")[2]  # none cut short


@pytest.mark.parametrize("group", [(), ("comments",), ("admin",), ("mail",)])
def test_a_group_without_a_command_prints_its_help(group):
    """As before the plain formatter: the help on stdout, exit 2, no `error:` line."""
    result = subprocess.run(
        [str(Path(sys.executable).with_name("masthead")), *group],  # the installed program
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": str(WIDTH)},
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == ""
    assert result.stdout.startswith(f"Usage: masthead {' '.join(group)}".rstrip() + " [OPTIONS]")
    assert "Commands:" in result.stdout
