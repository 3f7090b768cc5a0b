"""Where a benchmark's figures come from: the commit measured, the machine, the library versions.

Every benchmark script records these in its JSON so a figure in ``docs/benchmarks.md`` can be
traced to the code and the machine that produced it.
"""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("deltacore", "chromadb", "sqlalchemy", "numpy", "sentence-transformers", "torch")


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def command_line(script: str, arguments: list[str]) -> str:
    """The command as a reader of the repository would type it: absolute paths (the data folder,
    a cache) are written relative to the repository's root, so no machine's layout is recorded."""
    def portable(argument: str) -> str:
        path = Path(argument)
        if path.is_absolute():
            with contextlib.suppress(ValueError):
                return os.path.relpath(path, ROOT)
        return argument

    return " ".join(["python", script, *(portable(a) for a in arguments)])


def code_version(paths: tuple[str, ...] = ("core", "adapters", "benchmarks")) -> dict[str, Any]:
    """The commit measured, and whether ``paths`` differed from it (call it at the start of a
    run: on a shared checkout the tree may move while a long run goes on)."""
    import deltacore

    package = Path(deltacore.__file__).resolve().parent
    if package.is_relative_to(ROOT):
        return {
            "deltacore_path": str(package.relative_to(ROOT)),
            "commit": _git("rev-parse", "HEAD"),
            "commit_subject": _git("log", "-1", "--format=%s"),
            "dirty": bool(_git("status", "--porcelain", "--", *paths)),
        }
    # An exported copy (PYTHONPATH=<export>; `git archive <commit> core` renamed to deltacore/,
    # with the commit id in <export>/COMMIT): the working tree may be moving under us.
    marker = package.parent / "COMMIT"
    commit = marker.read_text().strip() if marker.exists() else ""
    return {
        "deltacore_path": str(package),
        "commit": commit,
        "commit_subject": _git("log", "-1", "--format=%s", commit) if commit else "",
        "dirty": None,
    }


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory_gb = None
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    return {"cpus": os.cpu_count(), "cpu": cpu, "memory_gb": memory_gb, "platform": platform.platform()}


def versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in packages:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    import sqlite3

    found["sqlite"] = sqlite3.sqlite_version
    return found
