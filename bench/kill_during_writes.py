"""`kill -9` of the daemon during layout writes, many rounds (issue 7).

Each round starts a daemon with `idea open` (which must restore the workspace the files
describe, with no file reported unreadable), drives a storm of layout edits through the
socket and kills the daemon with SIGKILL after a random delay; every committed file must
then parse and decode. Prints the rounds, the edits sent, how many kills landed inside a
write (a temp file left behind) and how many rounds changed layouts.json. Exits 1 at the
first round that fails, saying why.

    .venv/bin/python bench/kill_during_writes.py --rounds 200 --seed 1

The suite runs a few rounds (`tests/e2e/test_kill_during_writes.py`).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import format_table

from tests.helpers.idea import IdeaEnv, write_shell
from tests.helpers.kill_rounds import RoundStats, build, check_files, check_restored, one_round


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=0.5,
                        help="longest wait, in seconds, between the storm starting and the kill")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    stats = RoundStats()
    failure = ""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="idea-kill-") as tmp:
        root = Path(tmp)
        idea = IdeaEnv(root, write_shell(root / "shell"))
        try:
            roots = build(idea)
            for number in range(1, args.rounds + 1):
                try:
                    one_round(idea, roots, rng, stats, args.max_delay)
                except AssertionError as exc:
                    failure = f"round {number}: {exc}"
                    break
                if number % 20 == 0:
                    print(f"  {number} rounds, {time.monotonic() - started:.0f} s", flush=True)
            if not failure:
                check_files(idea, roots)
                idea.run("open", str(roots[0]))
                check_restored(idea, roots)
        finally:
            idea.stop()
    print(format_table(["figure", "value"], [
        ["rounds (kill -9 each)", str(stats.rounds)],
        ["layout edits sent", str(sum(stats.edits.values()))],
        ["kills inside a write (temp file left)", str(stats.temp_files_left)],
        ["rounds that changed layouts.json", str(stats.layout_changed)],
        ["most temp files present at once (stale ones go at the next write)",
         str(stats.most_temp_files)],
        ["files unreadable / restores wrong", "0 / 0" if not failure else "see FAIL"],
        ["elapsed (s)", f"{time.monotonic() - started:.0f}"],
    ]))
    if failure:
        print(f"FAIL: {failure}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
