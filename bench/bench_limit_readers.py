"""Level-1 limit checks on a big Claude Code transcript: idea's tailed reader beside reading
the whole file each time (what a naive reader would do).

Run: `.venv/bin/python bench/bench_limit_readers.py [--mb 100] [--runs 9]`.
Not part of the test command; figures depend on the machine (compare ratios).

The transcript is built from the real lines of tests/adapters/fixtures/limits/ (Claude Code
2.1.332 against the scripted model server), repeated up to `--mb` MiB, in a temporary
folder laid out as `~/.claude/projects/<cwd>/<id>.jsonl`. Each run appends one real
exchange (a user line and an assistant answer, about 2 KB) and times:

- `whole file`: read the file and `json.loads` every line (a check that re-reads);
- `idea/tail`: `ClaudeTranscriptReader.read` (only the bytes added since the last check,
  needles before parsing).

The reader's first look is a warm-up, not timed (it reads only the last 4 MiB). Medians,
min and max of `--runs` runs are printed, with the ratio of the medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.agents.catalogue import builtin_profiles
from adapters.limits.claude import ClaudeTranscriptReader, project_folder_name
from adapters.store.profiles_codec import decode_profile
from core.session_limits import LimitQuery

FIXTURE = (Path(__file__).resolve().parent.parent / "tests" / "adapters" / "fixtures"
           / "limits" / "claude-limit-then-answer.jsonl")
SESSION = "0f8fad5b-d9cb-469f-a165-70867728950e"


def whole_file(path: Path) -> int:
    found = 0
    with path.open("rb") as file:
        for line in file:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            found += isinstance(record, dict) and record.get("apiError") is not None
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    lines = FIXTURE.read_text(encoding="utf-8").splitlines(keepends=True)
    exchange = "".join(line for line in lines if '"type":"user"' in line
                       or ('"type":"assistant"' in line and "isApiErrorMessage" not in line))
    profile = next(decode_profile(p, "bench") for p in builtin_profiles()
                   if p["id"] == "claude-code")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        project = root / "proj"
        project.mkdir()
        name = project_folder_name(str(project.resolve()))
        assert name is not None
        path = root / "home" / ".claude" / "projects" / name / f"{SESSION}.jsonl"
        path.parent.mkdir(parents=True)
        block = "".join(lines)
        with path.open("w", encoding="utf-8") as file:
            for _ in range(args.mb * (1 << 20) // len(block.encode()) + 1):
                file.write(block)
        now = datetime.now(UTC)
        query = LimitQuery(agent_id="a1", profile=profile, project_root=project,
                           run_dir=root / "run", conversation_id=SESSION,
                           since=now - timedelta(days=1), now=now,
                           env={"HOME": str(root / "home")})
        reader = ClaudeTranscriptReader()
        reader.read(query)  # the first look
        timings: dict[str, list[float]] = {"whole file": [], "idea/tail": []}
        for _ in range(args.runs):
            with path.open("a", encoding="utf-8") as file:
                file.write(exchange)
            started = time.perf_counter()
            whole_file(path)
            timings["whole file"].append(time.perf_counter() - started)
            started = time.perf_counter()
            reader.read(query)
            timings["idea/tail"].append(time.perf_counter() - started)
        size = path.stat().st_size / (1 << 20)
    print(f"one check after a {len(exchange.encode())}-byte append to a {size:.0f} MiB "
          f"transcript, {args.runs} runs")
    base = statistics.median(timings["whole file"])
    for label, values in timings.items():
        median = statistics.median(values)
        print(f"  {label:<11} median {median * 1e3:9.3f} ms  min {min(values) * 1e3:9.3f}  "
              f"max {max(values) * 1e3:9.3f}  ×{base / median:,.0f} faster than whole file"
              if label != "whole file" else
              f"  {label:<11} median {median * 1e3:9.3f} ms  min {min(values) * 1e3:9.3f}  "
              f"max {max(values) * 1e3:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
