"""scripts/test.py, the test command of a fresh machine: where it cannot install Chromium or the
Chinese font itself (not root), it stops at once, before creating anything, with one line on
stderr naming the command to run, and exit code 2; as root it plans the installs instead."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import subprocess  # nosec B404: runs the script under test
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent.parent / "scripts" / "test.py"
APT_LINE = (
    "error: the browser tests need Chromium and a Chinese font: run  sudo apt-get install "
    "chromium-headless-shell fonts-wqy-zenhei  (or set MASTHEAD_CHROMIUM to a Chromium binary)\n"
)


def load():
    spec = importlib.util.spec_from_file_location("masthead_test_script", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def env_without_chromium(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MASTHEAD_CHROMIUM"}
    return {**env, **extra}


def test_a_missing_chromium_env_stops_at_once_with_one_line(tmp_path):
    # a copy of the script in an empty folder: the stop comes before any venv or npm install
    (tmp_path / "scripts").mkdir()
    shutil.copy(SCRIPT, tmp_path / "scripts" / "test.py")
    gone = tmp_path / "no-chromium"
    done = subprocess.run(
        [sys.executable, str(tmp_path / "scripts" / "test.py"), "--setup-only"],
        env=env_without_chromium(MASTHEAD_CHROMIUM=str(gone)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: the browser tests need Chromium"), done.stderr
    assert f"MASTHEAD_CHROMIUM is {gone}, no executable file;" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["scripts"]  # no .venv, no node_modules


def test_not_root_without_chromium_and_font_the_check_names_the_apt_command(tmp_path):
    # the prerequisite check in a process of its own, as a non-root user on Debian would run it:
    # no MASTHEAD_CHROMIUM, the default Chromium path absent, no Chinese font
    check = f"""
import dataclasses, importlib.util, os, sys
spec = importlib.util.spec_from_file_location("masthead_test_script", {str(SCRIPT)!r})
script = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = script
spec.loader.exec_module(script)
found = script.survey(os.environ, default_chromium={str(tmp_path / "chromium")!r})
assert found.chromium is None, found
machine = dataclasses.replace(
    found, root=False, distro="debian", zh_font=False, venv_module=True, nginx=True
)
sys.exit(script.preflight(machine))
"""
    done = subprocess.run(
        [sys.executable, "-c", check],
        env=env_without_chromium(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", APT_LINE)


def test_as_root_the_check_plans_the_installs_instead():
    script = load()
    none = script.Machine(
        root=True,
        distro="debian",
        chromium_env=None,
        chromium=None,
        zh_font=False,
        venv_module=True,
    )
    assert script.plan(none) == ["chromium-headless-shell", "fonts-wqy-zenhei"]
    assert script.preflight(none) == 0
    # Ubuntu's chromium is a snap stub: Playwright's Chromium instead
    ubuntu = dataclasses.replace(none, distro="ubuntu")
    assert script.plan(ubuntu) == ["fonts-wqy-zenhei", "playwright-chromium"]
    ready = dataclasses.replace(none, chromium="/usr/bin/chromium", zh_font=True)
    assert script.plan(ready) == []
    assert script.plan(dataclasses.replace(ready, root=False)) == []


def test_nginx_is_installed_with_apt_as_root_and_named_otherwise():
    script = load()
    ready = script.Machine(
        root=True,
        distro="debian",
        chromium_env=None,
        chromium="/usr/bin/chromium",
        zh_font=True,
        venv_module=True,
        nginx=False,
    )
    assert script.plan(ready) == ["nginx"]
    assert script.plan(dataclasses.replace(ready, distro="ubuntu")) == ["nginx"]
    bare = dataclasses.replace(ready, chromium=None, zh_font=False)
    assert script.plan(bare) == ["chromium-headless-shell", "fonts-wqy-zenhei", "nginx"]
    assert script.plan(dataclasses.replace(bare, distro="ubuntu")) == [
        "fonts-wqy-zenhei",
        "nginx",
        "playwright-chromium",
    ]
    with pytest.raises(script.Missing) as missing:
        script.plan(dataclasses.replace(ready, root=False))
    assert str(missing.value) == "error: the tests need nginx: run  sudo apt-get install nginx"
    found = script.survey({})
    assert found.nginx == (script.nginx_path() is not None)


def test_a_chromium_env_names_the_browser(tmp_path):
    browser = tmp_path / "chrome"
    browser.write_text("")
    browser.chmod(0o755)
    found = load().survey({"MASTHEAD_CHROMIUM": str(browser)}, default_chromium="/nonexistent")
    assert found.chromium == str(browser)
