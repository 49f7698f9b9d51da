"""How many workers `masthead serve` starts by default: one per CPU the process may use, its
affinity (`taskset`, `--cpuset-cpus`) and its cgroup's CPU quota (`docker --cpus 1`,
Kubernetes' limit), never the host's CPU count (issue 33, item 6)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from masthead.cli.server import cgroup_quota, usable_cpus

V2 = "0::/system.slice/masthead.service\n"
V1 = "12:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n"


def cgroup(root: Path, rel: str, **files: str) -> None:
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text)


def test_cgroup_v2_cpu_max_is_the_quota(tmp_path):
    proc = tmp_path / "cgroup"
    proc.write_text(V2)
    root = tmp_path / "fs"
    cgroup(root, "system.slice/masthead.service", cpu_max="100000 100000\n")
    assert cgroup_quota(root, proc) == 1.0
    assert usable_cpus(root, proc) == 1


def test_the_smallest_quota_of_the_cgroup_and_its_parents_wins(tmp_path):
    proc = tmp_path / "cgroup"
    proc.write_text(V2)
    root = tmp_path / "fs"
    cgroup(root, "system.slice/masthead.service", cpu_max="max 100000\n")
    cgroup(root, "system.slice", cpu_max="150000 100000\n")
    assert cgroup_quota(root, proc) == 1.5
    assert usable_cpus(root, proc) == 1  # 1.5 CPUs: one worker, not two sharing 1.5


def test_a_container_sees_its_own_cgroup_at_the_mount(tmp_path):
    proc = tmp_path / "cgroup"
    proc.write_text("0::/\n")
    root = tmp_path / "fs"
    cgroup(root, "", cpu_max="50000 100000\n")
    assert cgroup_quota(root, proc) == 0.5
    assert usable_cpus(root, proc) == 1  # never fewer than one


def test_cgroup_v1_cfs_quota(tmp_path):
    proc = tmp_path / "cgroup"
    proc.write_text(V1)
    root = tmp_path / "fs"
    cgroup(
        root, "cpu,cpuacct/docker/abc", cpu_cfs_quota_us="100000\n", cpu_cfs_period_us="100000\n"
    )
    assert cgroup_quota(root, proc) == 1.0
    cgroup(root, "cpu,cpuacct/docker/abc", cpu_cfs_quota_us="-1\n")
    assert cgroup_quota(root, proc) is None


def test_no_quota_leaves_the_cpus_the_process_may_run_on(tmp_path):
    proc = tmp_path / "cgroup"
    proc.write_text(V2)
    root = tmp_path / "fs"
    cgroup(root, "system.slice/masthead.service", cpu_max="max 100000\n")
    assert cgroup_quota(root, proc) is None
    assert usable_cpus(root, proc) == len(os.sched_getaffinity(0))
    assert cgroup_quota(root, tmp_path / "missing") is None


def test_serve_pinned_to_one_cpu_starts_one_worker(tmp_path):
    taskset = shutil.which("taskset")
    assert taskset, "taskset (util-linux) is needed"
    (tmp_path / "content").mkdir()
    (tmp_path / "masthead.toml").write_text('title = "T"\n')
    proc = subprocess.Popen(
        [taskset, "-c", "0", sys.executable, "-m", "masthead", "serve", str(tmp_path),
         "--port", "0", "--no-watch"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline(), proc.stdout.readline()]
    finally:
        proc.terminate()
        proc.wait(120)
    said = re.search(r"(\d+) worker\(s\)", "".join(lines))
    assert said and said.group(1) == "1", lines
