"""Record the limit fixtures of tests/adapters/test_limit_readers.py from the real CLIs.

    PATH=$HOME/.cache/idea-ci-clis/node_modules/.bin:$PATH \\
        .venv/bin/python -m tests.agents_cli.record_limit_fixtures

Each CLI runs twice against the scripted model server, offline, in a scratch HOME: once while
the account is at its usage limit (a `LimitWindow` resetting at RESET), then, the window
lifted, resuming the same conversation, which the model answers. What the CLI wrote (Claude
Code's transcript, Codex's session file) is copied to tests/adapters/fixtures/limits/, without
the lines over MAX_LINE bytes (system prompts and request snapshots, which no reader looks at)
and with the scratch folder's path replaced by `/work/proj`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from tests.agents_cli.clis import find_cli
from tests.agents_cli.homes import base_env, prepare_claude, prepare_codex
from tests.agents_cli.model_server import Script, Text, model_server

RESET = 1_796_151_420
"""2026-12-01T18:57:00Z, the reset the fixtures carry."""
MAX_LINE = 3000
OUT = Path(__file__).resolve().parents[1] / "adapters" / "fixtures" / "limits"


def keep(path: Path, scratch: Path, name: str) -> None:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and len(line) <= MAX_LINE]
    text = "\n".join(lines).replace(os.path.realpath(scratch), "/work")
    text = text.replace(json.dumps(os.path.realpath(scratch))[1:-1], "/work")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / name).write_text(text + "\n", encoding="utf-8")
    print(f"{OUT / name}: {len(lines)} lines")


def run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)
    print("$", " ".join(argv[:3]), "→", done.returncode, (done.stdout + done.stderr)[-300:])
    return done


def main() -> int:
    claude, codex = find_cli("claude"), find_cli("codex")
    if claude is None or codex is None:
        print("needs both claude and codex on PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        project = scratch / "proj"
        project.mkdir()
        script = Script()
        script.add("again", [Text("Back after the reset.")], times=None)
        with model_server(script) as server:
            home = scratch / "home"
            session = str(uuid.uuid4())
            env = {**base_env(home), "TZ": "UTC",
                   **prepare_claude(home, server.url, [project], subscription=True)}
            window = script.limit_until(RESET, "LIMIT-BODY-MESSAGE")
            run([str(claude), "-p", "--session-id", session, "hello"], env, project)
            window.lift()
            run([str(claude), "-p", "--resume", session, "again"], env, project)
            [transcript] = (home / ".claude" / "projects").glob(f"*/{session}.jsonl")
            keep(transcript, scratch, "claude-limit-then-answer.jsonl")

            env = {**base_env(home), "TZ": "UTC",
                   **prepare_codex(home / ".codex", server.url, [project])}
            window = script.limit_until(RESET, "LIMIT-BODY-MESSAGE")
            run([str(codex), "exec", "--skip-git-repo-check", "hello"], env, project)
            window.lift()
            [rollout] = (home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl")
            codex_id = rollout.stem[-36:]
            run([str(codex), "exec", "--skip-git-repo-check", "resume", codex_id, "again"],
                env, project)
            rollouts = sorted((home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))
            print("codex session files:", [p.name for p in rollouts])
            keep(rollout, scratch, "codex-limit-then-answer.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
