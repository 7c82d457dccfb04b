"""Discovering a CLI's own conversation id after launch (D20, Codex-style session files)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from idea_daemon.session_discovery import DiscoveryRule

ID_A = "0199a7c2-1111-7abc-8def-0123456789ab"
ID_B = "0199a7c2-2222-7abc-8def-0123456789ab"
RULE_EXTRA = {
    "discover": {
        "homeEnv": "CODEX_HOME",
        "defaultHome": "~/.codex",
        "glob": "sessions/*/*/*/rollout-*.jsonl",
        "idPattern": r"rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
        r"[0-9a-f]{12})\.jsonl$",
    }
}


def write_session(home: Path, session_id: str, mtime: float) -> Path:
    folder = home / "sessions" / "2026" / "12" / "01"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-12-01T10-00-00-{session_id}.jsonl"
    path.write_text("{}\n")
    os.utime(path, (mtime, mtime))
    return path


def test_the_newest_unclaimed_session_after_launch_is_found(tmp_path: Path) -> None:
    rule = DiscoveryRule.from_profile_extra(RULE_EXTRA)
    assert rule is not None
    launch = time.time()
    env = {"CODEX_HOME": str(tmp_path)}
    write_session(tmp_path, "0199a7c2-0000-7abc-8def-0123456789ab", launch - 60)  # older
    assert rule.find(env, launch, set()) is None
    write_session(tmp_path, ID_A, launch + 1)
    assert rule.find(env, launch, set()) == ID_A
    write_session(tmp_path, ID_B, launch + 2)
    assert rule.find(env, launch, set()) == ID_B
    # An id another agent already claimed is not taken twice.
    assert rule.find(env, launch, {ID_B}) == ID_A


def test_default_home_is_used_without_the_variable(tmp_path: Path) -> None:
    extra = {"discover": {**RULE_EXTRA["discover"], "defaultHome": str(tmp_path)}}
    rule = DiscoveryRule.from_profile_extra(extra)
    assert rule is not None
    write_session(tmp_path, ID_A, time.time() + 1)
    assert rule.find({}, time.time() - 5, set()) == ID_A


def test_absent_or_broken_blocks_mean_no_discovery() -> None:
    assert DiscoveryRule.from_profile_extra({}) is None
    assert DiscoveryRule.from_profile_extra({"discover": "yes"}) is None
    assert DiscoveryRule.from_profile_extra({"discover": {"glob": "*", "idPattern": "("}}) is None
