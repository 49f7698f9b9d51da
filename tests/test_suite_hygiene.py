"""The suite's own rule, checked on its source: no wall-clock budget hides in a default.

A request or a browser wait that gives up after a few seconds is a budget: on a busy machine
(two cores under `stress-ng`) a first request that indexes a site or a page's first paint can
take longer, and the test fails for the machine, not for the product. httpx gives up after 5 s
unless told otherwise, Playwright after 30 s; every wait in the suite is for a condition, with
support.wait's CEILING only ending a hang (docs/contributing.md).
"""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
HTTPX_CALLS = {"get", "post", "put", "patch", "delete", "head", "options", "request", "stream"}
HTTPX_CLIENTS = {"Client", "AsyncClient"}
# Playwright waits: a number here is a budget (support.browser gives every context the ceiling)
PLAYWRIGHT_WAITS = {
    "set_default_timeout",
    "set_default_navigation_timeout",
    "wait_for_selector",
    "wait_for_function",
    "wait_for_url",
    "wait_for_load_state",
    "wait_for_event",
}


# the checks reading the suite's source run on one worker, which parses it once (`_sources`)
SOURCES = pytest.mark.xdist_group("suite-source")


@functools.cache
def _sources() -> tuple[tuple[Path, ast.AST], ...]:
    """The suite's test modules and their support (not tests/data, not the screenshot scripts),
    parsed once for every check of this module."""
    return tuple(_parsed())


def _parsed() -> Iterator[tuple[Path, ast.AST]]:
    for path in sorted(TESTS.rglob("*.py")):
        parts = path.relative_to(TESTS).parts
        if "data" in parts or not (
            parts[0] in ("support", "conftest.py") or path.name.startswith("test_")
        ):
            continue
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _calls(tree: ast.AST) -> Iterator[tuple[ast.Call, str, str]]:
    """Every call `OBJ.NAME(...)` with its object's source and NAME."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            yield node, ast.unparse(node.func.value), node.func.attr


def _keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def _in_process(call: ast.Call) -> bool:
    """An httpx client on an ASGI transport: the app in this process, no network to wait on."""
    transport = _keyword(call, "transport")
    return transport is not None and "ASGITransport" in ast.unparse(transport.value)


def httpx_without_timeout(tree: ast.AST) -> list[int]:
    lines = []
    for call, owner, name in _calls(tree):
        if owner != "httpx" or name not in HTTPX_CALLS | HTTPX_CLIENTS:
            continue
        if any(k.arg is None for k in call.keywords):  # **options: cannot tell
            continue
        if _keyword(call, "timeout") is None and not _in_process(call):
            lines.append(call.lineno)
    return lines


def playwright_budgets(tree: ast.AST) -> list[int]:
    lines = []
    for call, _owner, name in _calls(tree):
        if name not in PLAYWRIGHT_WAITS:
            continue
        given = [*call.args[:1]] if name.startswith("set_default") else []
        timeout = _keyword(call, "timeout")
        given += [timeout.value] if timeout else []
        if any(isinstance(v, ast.Constant) for v in given):
            lines.append(call.lineno)
    return lines


def imports_of_test_modules(tree: ast.AST) -> list[int]:
    """Lines importing a test module or conftest: shared code lives in tests/support (issue 28),
    and importing a test module runs its module-level code and registers its fixtures twice."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if any(n.split(".")[0].startswith("test_") or n == "conftest" for n in names):
            lines.append(node.lineno)
    return lines


def _places(check: Callable[[ast.AST], list[int]]) -> str:
    """`FILE:LINE` of every place in the suite's sources that `check` finds."""
    return ", ".join(
        f"{path.relative_to(TESTS)}:{line}" for path, tree in _sources() for line in check(tree)
    )


@SOURCES
def test_every_http_request_of_the_suite_waits_up_to_the_ceiling():
    found = _places(httpx_without_timeout)
    assert not found, f"httpx calls with its 5 s default (pass timeout=CEILING): {found}"


@SOURCES
def test_no_browser_wait_of_the_suite_is_a_fixed_number():
    found = _places(playwright_budgets)
    assert not found, f"Playwright waits with a number of their own: {found}"


@SOURCES
def test_no_test_module_imports_another_or_conftest():
    found = _places(imports_of_test_modules)
    assert not found, f"imports of test modules (move what they share to tests/support): {found}"


def test_the_checks_find_what_they_look_for():
    """Each check fails on the code it forbids (a check that cannot fail proves nothing)."""
    bad = ast.parse(
        "httpx.get(url)\n"
        "with httpx.Client(base_url=base) as c: pass\n"
        "httpx.get(url, timeout=CEILING)\n"
        "httpx.AsyncClient(transport=httpx.ASGITransport(app=app))\n"
        "page.set_default_timeout(5000)\n"
        "page.wait_for_selector('.hit', timeout=10_000)\n"
        "page.wait_for_selector('.hit')\n"
    )
    assert httpx_without_timeout(bad) == [1, 2]
    assert playwright_budgets(bad) == [5, 6]
    imports = ast.parse(
        "from test_comments_mail import smtp\n"
        "import test_html_valid\n"
        "from conftest import serve\n"
        "from support.mail import smtp_server\n"
        "import masthead.testing\n"
    )
    assert imports_of_test_modules(imports) == [1, 2, 3]


GROUPED = """
import os
from pathlib import Path

import pytest


@pytest.mark.xdist_group("shared")
@pytest.mark.parametrize("n", range(8))
def test_grouped(n):
    Path(os.environ["SEEN"], f"{n}-{os.environ['PYTEST_XDIST_WORKER']}").touch()
"""


@pytest.mark.slow  # over 1.5 s of CPU (contributing.md: the everyday loop)
def test_tests_marked_with_one_xdist_group_run_on_one_worker(tmp_path):
    """The suite's `--dist loadgroup` keeps a group's tests on one worker (tests sharing a costly
    module fixture, the kill -9 tests that must not overlap). pytest 9.2 with pytest-xdist 3.8
    broke this without a word (xdist issue #1386): run a grouped module on 2 workers and see."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_grouped.py").write_text(GROUPED, encoding="utf-8")
    seen = tmp_path / "seen"
    seen.mkdir()
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup"]
    cmd += ["-p", "no:cacheprovider", "-p", "no:cov", "test_grouped.py"]
    env = {**os.environ, "SEEN": str(seen)}
    env.pop("MASTHEAD_TEST_CPU", None)
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {name.split("-", 1)[1] for name in os.listdir(seen)}
    assert len(os.listdir(seen)) == 8 and len(workers) == 1, sorted(os.listdir(seen))
