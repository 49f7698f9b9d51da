"""The `masthead` command in tests: as a real process (`masthead`, `run`, `unprivileged`), in
this process through Typer's runner (`invoke`), and the one-line error it must print."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import typer.main
import typer.testing
from typer.testing import CliRunner

from masthead.cli import app

runner = CliRunner()


def make_commands_once() -> None:
    """Typer's runner makes the app's command (Click's objects, from every command's signature)
    again on every `invoke`: about 30 ms for masthead's, more than many a command takes. After
    this call (tests/conftest.py, as the test process starts), every runner of the process
    makes each app's command once."""
    typer.testing._get_command = functools.cache(typer.main.get_command)


def masthead(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "masthead", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )


def unprivileged(*args: str) -> list[str]:
    """The command, run so that file permission bits apply to it. Root ignores them (its
    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH capabilities), so as root (CI, containers) the
    process keeps uid 0 but loses those capabilities and CAP_FOWNER (setpriv, util-linux):
    a folder or file mode 0555/0444 owned by root is then read-only for it, exactly as for a
    service user writing into a folder it does not own. Any other user runs it as is."""
    cmd = [sys.executable, "-m", "masthead", *args]
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    assert setpriv, "setpriv (util-linux) is needed to drop root's file capabilities"
    caps = "--bounding-set=-dac_override,-dac_read_search,-fowner"
    return [setpriv, caps, "--inh-caps=-all", "--", *cmd]


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "60"}  # narrow: a wrapped message would show as two lines
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)


def one_line_error(result: subprocess.CompletedProcess[str], *expected: str) -> str:
    """Assert exit 2 and a single `error: ...` line on stderr containing every `expected`."""
    lines = result.stderr.splitlines()
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for text in expected:
        assert text in lines[0], (text, lines[0])
    return lines[0]


def in_process(
    *args: str | Path,
    input: str | None = None,
    env: Mapping[str, str | None] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """The command run in this process through Typer's runner, as `masthead` (above) runs it as
    a process: its exit status, stdout and stderr apart; COLUMNS=200 and the variables of `env`
    set while it runs (None unsets one), in the folder `cwd` if given. No Python start-up and
    no import of the app (about a second of CPU a process): for what a command does and says,
    not for what `masthead.cli.main` adds (usage errors as one line) nor for signals, terminals
    or streams. An exception the command did not turn into an exit status is raised here, where
    a process would have printed its traceback."""
    argv = [str(a) for a in args]
    with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
        result = runner.invoke(app, argv, input=input, env={"COLUMNS": "200", **(env or {})})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(argv, result.exit_code, result.stdout, result.stderr)


def invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output
