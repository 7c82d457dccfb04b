"""Git status on a 10,000-file repository: idea's two adapters beside plain `git status`.

Run: `.venv/bin/python bench/bench_git.py [--files 10000] [--runs 7]`.
Not part of the test command; figures depend on the machine (compare ratios).

The repository is made in a temporary folder: `--files` files over 100 folders, committed;
then 50 files modified, 10 deleted, 10 staged and 20 new untracked ones. Each run times:

- `git status`: the git program itself, `git status --porcelain=v2 -z --branch
  --untracked-files=all` as a subprocess (what the CLI adapter runs at its core);
- `idea/git`: `GitCliRepository.status` (the adapter used where git exists): locating the
  work tree (cached after the first call), the status process, parsing, the in-progress
  state check, on an asyncio loop;
- `idea/dulwich`: `DulwichRepository.status` (the fallback without git), in its worker
  thread.

The first call of each is a warm-up, not timed. Medians, min and max of `--runs` runs are
printed, with each median's ratio to `git status`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.git.cli_repo import GitCliRepository
from adapters.git.dulwich_repo import DulwichRepository


def make_repo(root: Path, files: int, env: dict[str, str]) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

    git("init", "-q")
    for index in range(files):
        folder = root / f"pkg{index % 100:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{index}.py").write_text(f"# module {index}\nVALUE = {index}\n")
    git("add", "-A")
    git("commit", "-q", "-m", "import")
    for index in range(0, 500, 10):
        (root / f"pkg{index % 100:02d}" / f"mod{index}.py").write_text("changed\n")
    for index in range(1, 101, 10):
        (root / f"pkg{index % 100:02d}" / f"mod{index}.py").unlink()
    for index in range(2, 102, 10):
        path = root / f"pkg{index % 100:02d}" / f"mod{index}.py"
        path.write_text("staged\n")
        git("add", str(path.relative_to(root)))
    for index in range(20):
        (root / "new" / f"n{index}").parent.mkdir(exist_ok=True)
        (root / "new" / f"n{index}.txt").write_text("new\n")


def timed(runs: int, work: Callable[[], object]) -> list[float]:
    work()  # warm-up: caches, the page cache, the index stat refresh
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    git = shutil.which("git")
    if git is None:
        print("git is not installed: nothing to compare with", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="idea-bench-git-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = b@example.com\n")
        env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
        root = Path(tmp) / "repo"
        root.mkdir()
        made = time.perf_counter()
        make_repo(root, args.files, env)
        print(f"repository: {args.files} files ({time.perf_counter() - made:.1f} s to make)")

        def plain() -> object:
            return subprocess.run(
                [git, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all"],
                cwd=root, env=env, check=True, capture_output=True,
            ).stdout

        loop = asyncio.new_event_loop()
        cli = GitCliRepository(git, env)
        dul = DulwichRepository(env)
        results = {
            "git status": timed(args.runs, plain),
            "idea/git": timed(args.runs, lambda: loop.run_until_complete(cli.status(str(root)))),
            "idea/dulwich": timed(
                max(1, args.runs // 2), lambda: loop.run_until_complete(dul.status(str(root)))
            ),
        }
        loop.close()
        counts = loop_free_counts(cli, root, env)
        print(f"status: {counts}")
    base = statistics.median(results["git status"])
    print(f"{'':14}{'median ms':>10}{'min':>9}{'max':>9}{'ratio':>8}")
    for name, values in results.items():
        median = statistics.median(values)
        print(f"{name:14}{median:10.1f}{min(values):9.1f}{max(values):9.1f}"
              f"{median / base:7.1f}×")
    return 0


def loop_free_counts(cli: GitCliRepository, root: Path, env: dict[str, str]) -> str:
    status = asyncio.run(cli.status(str(root)))
    return (f"{len(status.staged)} staged, {len(status.unstaged)} unstaged, "
            f"{len(status.untracked)} untracked")


if __name__ == "__main__":
    sys.exit(main())
