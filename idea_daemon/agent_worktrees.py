"""Per-agent worktrees (D28): made on launch, recorded in `.ideai/worktrees.json` so they
survive daemon restarts, finished by merging, keeping or discarding.

- `ensure` makes the agent's worktree (outside the project, on `idea/<slug>`) or checks the
  recorded one still exists: a removed or moved worktree is reported, never silently made
  again (the agent's work might be elsewhere).
- `path_of` is what a launch (and a resume after a restart) runs the agent in.
- `finish`: `merge` the branch into the base branch (fast-forward or a merge commit; a
  conflict stops with the files named and the merge in progress), `keep` the branch
  (the worktree goes, the commits stay), or `discard` (asks; uncommitted files are copied to
  `.ideai/backups/` first, and the branch's last commit is named there so it can be
  restored). Nothing uncommitted is ever deleted without that copy.
- `changes`: what the agent changed since its worktree was made (commits and uncommitted).

agents.json and worktrees.json are committed files: in a cloned project someone else wrote
them. So a path from them is checked before any I/O there (issue 7): it must be in the default
`<project>-worktrees/` folder or under the user's `worktree_root` (config.toml), and before
idea reads, backs up, merges or removes it must be a worktree of this repository as `git
worktree list` says, on the recorded branch. A bad record is refused with the file and key
named; the file is left as it is and the other agents' worktrees keep working.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from adapters.ipc.answers_git import AgentFinished, RecordedWorktree
from adapters.store.atomic import read_json, write_json_atomic
from core.agents.agent import Agent
from core.agents.naming import slugify
from core.git import worktrees as wt
from core.git.errors import GitError
from core.git.model import DiffTarget, EntryKind, FileDiff, LogEntry
from core.git.port import GitPort
from idea_daemon.errors import CommandError
from idea_daemon.runtime import ProjectRuntime

FILE = Path(".ideai") / "worktrees.json"
BACKUPS = Path(".ideai") / "backups"


@dataclass(frozen=True, slots=True)
class Changes:
    """What an agent changed in its worktree (`agent_changes`)."""

    record: wt.WorktreeRecord
    commits: tuple[LogEntry, ...]
    """Its commits since the worktree was made, newest first."""
    committed: tuple[FileDiff, ...]
    """What those commits changed, as one diff."""
    staged: tuple[FileDiff, ...]
    unstaged: tuple[FileDiff, ...]


class AgentWorktrees:
    def __init__(self, port: GitPort, user_root: str | None = None) -> None:
        self.port = port
        # config.toml's worktree_root: the user's own setting, the one place besides the
        # default folder a committed file may send a worktree to.
        self.user_root = user_root or None

    # ─── checking what the committed files say ──────────────────────────────────────

    def _refusal(self, root: str, path: str) -> str | None:
        """Why `path` cannot be a worktree of the project at `root` (None: it can), on the
        path as written and with symlinks resolved (a link in the folder leads elsewhere)."""
        why = wt.refusal(path, root, self.user_root)
        if why is None and posixpath.isabs(path):
            real_user = os.path.realpath(self.user_root) if self.user_root else None
            why = wt.refusal(os.path.realpath(path), os.path.realpath(root), real_user)
        return why

    def _checked(self, runtime: ProjectRuntime, record: wt.WorktreeRecord) -> wt.WorktreeRecord:
        why = self._refusal(runtime.root, record.path)
        if why is not None:
            raise CommandError(
                f"{FILE}: worktrees.{record.agent_id}.path {record.path!r} {why}, so idea "
                "does not use it (the file is left as it is; fix or remove that entry)",
                "worktree_refused")
        return record

    async def _verified(self, runtime: ProjectRuntime, record: wt.WorktreeRecord) -> None:
        """The record's folder is a linked worktree of this repository on its branch."""
        self._checked(runtime, record)
        real = os.path.realpath(record.path)
        listed = (await self.port.worktrees(runtime.root))[1:]  # the first is the project
        tree = next((t for t in listed if os.path.realpath(t.path) == real), None)
        if tree is None:
            raise CommandError(
                f"{FILE}: worktrees.{record.agent_id}.path {record.path!r} is not a worktree "
                "of this repository (`git worktree list`), so idea does not touch it",
                "worktree_refused")
        if tree.branch != record.branch:
            raise CommandError(
                f"{FILE}: worktrees.{record.agent_id}.branch is {record.branch!r} but the "
                f"worktree {record.path} is on {tree.branch or 'no branch'}: switch it back "
                "(or fix the entry) first", "worktree_refused")

    async def check_for_launch(self, runtime: ProjectRuntime, agent_id: str) -> None:
        """Before a launch, restart or resume runs the agent in its recorded worktree: the
        folder must be a linked worktree of this repository, on the recorded branch (a
        clone's worktrees.json may name any folder). No record: nothing to check; a folder
        that is gone is said by the launch itself (`worktree_of`).

        Raises:
            CommandError: code `worktree_refused`, naming the file and the key.
        """
        record = (await asyncio.to_thread(self.records, runtime.root)).get(agent_id)
        if record is None:
            return
        self._checked(runtime, record)
        if await asyncio.to_thread(os.path.isdir, record.path):
            await self._verified(runtime, record)

    # ─── the record ──────────────────────────────────────────────────────────────────

    def records(self, root: str) -> dict[str, wt.WorktreeRecord]:
        """The recorded worktrees of the project (a small file, read when needed)."""
        path = Path(root) / FILE
        try:
            return wt.decode(read_json(path), str(path))
        except FileNotFoundError:
            return {}

    def _save(self, root: str, records: dict[str, wt.WorktreeRecord]) -> None:
        write_json_atomic(Path(root) / FILE, wt.encode(records))

    def path_of(self, runtime: ProjectRuntime, agent_id: str) -> str | None:
        """The folder the agent runs in when it has a worktree; CommandError when its
        recorded worktree is gone."""
        found = self.worktree_of(runtime, agent_id)
        return found[0] if found else None

    def worktree_of(self, runtime: ProjectRuntime, agent_id: str) -> tuple[str, str] | None:
        """(folder, branch) of the agent's worktree, as a launch needs them."""
        record = self.records(runtime.root).get(agent_id)
        if record is None:
            return None
        self._checked(runtime, record)
        if not os.path.isdir(record.path):
            raise CommandError(
                f"the agent's worktree {record.path} (branch {record.branch}) is gone: it was "
                "removed or moved. idea does not make it again on its own; "
                "`idea agent worktree NAME --forget` forgets it, then launch with --worktree.",
                "worktree_missing",
            )
        return record.path, record.branch

    def describe(self, runtime: ProjectRuntime) -> list[RecordedWorktree]:
        """For `idea ls`: each recorded worktree, and whether it is still there."""
        try:
            records = self.records(runtime.root)
        except GitError:
            return []
        except Exception as error:  # a corrupt record file: say so, change nothing
            return [RecordedWorktree(problem=str(error))]
        found: list[RecordedWorktree] = []
        for r in records.values():
            why = self._refusal(runtime.root, r.path)
            item = RecordedWorktree(agent=r.agent_id, path=r.path, branch=r.branch,
                                    base=r.base_branch,
                                    missing=why is None and not os.path.isdir(r.path))
            if why:
                item.problem = f"{FILE}: worktrees.{r.agent_id}.path {why}"
            found.append(item)
        return found

    # ─── making ──────────────────────────────────────────────────────────────────────

    def location(self, runtime: ProjectRuntime, agent: Agent) -> str:
        folder = agent.extra.get("worktreeDir")
        path = wt.worktree_path(runtime.root, slugify(agent.name),
                                folder if isinstance(folder, str) and folder else None)
        why = self._refusal(runtime.root, path)
        if why is not None:
            raise CommandError(
                f".ideai/agents.json: {agent.name}'s worktreeDir {folder!r} gives {path}, "
                f"which {why}; set worktree_root in config.toml to allow a folder of yours",
                "worktree_refused")
        return path

    async def ensure(
        self, runtime: ProjectRuntime, agent: Agent, branch: str | None = None
    ) -> wt.WorktreeRecord:
        records = await asyncio.to_thread(self.records, runtime.root)
        existing = records.get(agent.id)
        if existing is not None:
            self.path_of(runtime, agent.id)  # reports a vanished (or refused) one
            await self._verified(runtime, existing)
            return existing
        status = await self.port.status(runtime.root)
        if status.head is None:
            raise CommandError("the project has no commit yet: commit once, then launch the "
                               "agent in its own worktree")
        path = self.location(runtime, agent)
        name = branch or wt.branch_for(slugify(agent.name))
        await asyncio.to_thread(os.makedirs, os.path.dirname(path), exist_ok=True)
        await self.port.worktree_add(runtime.root, path, name)
        record = wt.WorktreeRecord(agent.id, path, name, status.branch, status.head)
        records = await asyncio.to_thread(self.records, runtime.root)
        records[agent.id] = record
        await asyncio.to_thread(self._save, runtime.root, records)
        return record

    async def forget(self, runtime: ProjectRuntime, agent: Agent) -> None:
        records = await asyncio.to_thread(self.records, runtime.root)
        if records.pop(agent.id, None) is None:
            raise CommandError(f"{agent.name} has no worktree")
        await asyncio.to_thread(self._save, runtime.root, records)

    # ─── finishing ───────────────────────────────────────────────────────────────────

    def _record(self, runtime: ProjectRuntime, agent: Agent) -> wt.WorktreeRecord:
        record = self.records(runtime.root).get(agent.id)
        if record is None:
            raise CommandError(f"{agent.name} has no worktree")
        return record

    async def finish(self, runtime: ProjectRuntime, agent: Agent, how: str,
                     force: bool = False) -> AgentFinished:
        record = self._checked(runtime, await asyncio.to_thread(self._record, runtime, agent))
        present = await asyncio.to_thread(os.path.isdir, record.path)
        if present:  # before reading, copying, merging or removing anything there
            await self._verified(runtime, record)
        dirty = (await self.port.status(record.path)).entries if present else ()
        if how == "merge":
            if dirty:
                raise CommandError(
                    f"{agent.name}'s worktree has {len(dirty)} uncommitted file(s): commit "
                    "them there (or discard) before merging", "worktree_dirty")
            main = await self.port.status(runtime.root)
            if record.base_branch and main.branch != record.base_branch:
                raise CommandError(f"the project is on {main.branch}, not "
                                   f"{record.base_branch}: switch back to merge into it")
            oid = await self.port.merge(runtime.root, record.branch)  # MergeConflict stops
            if present:
                await self.port.worktree_remove(runtime.root, record.path)
            await self.forget(runtime, agent)
            return AgentFinished(merged=record.branch, into=record.base_branch, oid=oid)
        if how == "keep":
            if dirty:
                raise CommandError(
                    f"{agent.name}'s worktree has {len(dirty)} uncommitted file(s): commit "
                    "them on its branch first (or discard)", "worktree_dirty")
            if present:
                await self.port.worktree_remove(runtime.root, record.path)
            await self.forget(runtime, agent)
            return AgentFinished(kept=record.branch)
        if how != "discard":
            raise CommandError("finish with merge, keep or discard")
        if not force:
            raise CommandError(
                f"Discarding removes {agent.name}'s worktree and its branch {record.branch}"
                + (f" ({len(dirty)} uncommitted file(s) are copied to .ideai/backups/ first)"
                   if dirty else "") + ".", "confirm")
        backup = await asyncio.to_thread(self._backup, runtime, agent, record,
                                         [e.path for e in dirty
                                          if e.kind is not EntryKind.TRACKED or e.unstaged
                                          is None or e.unstaged.value != "D"])
        if present:
            await self.port.worktree_remove(runtime.root, record.path, force=True)
        tip = await self.port.branch_delete(runtime.root, record.branch)
        await asyncio.to_thread(self._note, backup, record, tip)
        await self.forget(runtime, agent)
        return AgentFinished(discarded=record.branch, backup=str(backup), tip=tip)

    def _backup(self, runtime: ProjectRuntime, agent: Agent, record: wt.WorktreeRecord,
                paths: list[str]) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = Path(runtime.root) / BACKUPS / f"worktree-{slugify(agent.name)}-{stamp}"
        folder.mkdir(parents=True, exist_ok=True)
        for rel in paths:
            source = Path(record.path) / rel
            if source.is_file() and not source.is_symlink():
                target = folder / "files" / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        return folder

    def _note(self, folder: Path, record: wt.WorktreeRecord, tip: str) -> None:
        (folder / "README.txt").write_text(
            f"The worktree {record.path} of branch {record.branch} was discarded.\n"
            f"Its uncommitted files, if any, are under files/.\n"
            f"Its last commit was {tip}: `git branch {record.branch} {tip}` brings the\n"
            "branch back (until git's garbage collection prunes it, two weeks at least).\n",
            encoding="utf-8",
        )

    # ─── what changed ────────────────────────────────────────────────────────────────

    async def changes(self, runtime: ProjectRuntime, agent: Agent) -> Changes:
        """The agent's commits since its worktree was made, and its uncommitted changes."""
        record = await asyncio.to_thread(self._record, runtime, agent)
        self.path_of(runtime, agent.id)
        await self._verified(runtime, record)
        head = (await self.port.status(record.path)).head
        committed: tuple[FileDiff, ...] = ()
        if head and record.base_oid and head != record.base_oid:
            committed = await self.port.diff(record.path,
                                             DiffTarget.commits(record.base_oid, head))
        staged = await self.port.diff(record.path, DiffTarget.staged())
        unstaged = await self.port.diff(record.path, DiffTarget.worktree())
        log = await self.port.log(record.path, limit=50)
        commits = []
        for entry in log:
            if entry.oid == record.base_oid:
                break
            commits.append(entry)
        return Changes(record, tuple(commits), committed, staged, unstaged)
