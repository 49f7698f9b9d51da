"""Every setting is documented in the README, and the README's commands are the ones CI runs."""

from __future__ import annotations

from pathlib import Path

from masthead.config import LanguageSettings, Settings

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_documented():
    for name in Settings.model_fields:
        assert f"| `{name}` |" in README, name
    for name in LanguageSettings.model_fields:
        assert f"{name} =" in README or f"`{name}`" in README, name


def test_ci_runs_the_readme_test_command():
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [line for line in quick.splitlines() if line.startswith("python3 -m venv")]
    assert len(commands) == 2
    assert commands[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace(" -q", "")
