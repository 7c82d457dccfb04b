"""The project context `.ideai/CONTEXT.md` (CTX-1) and the proposals to change it,
`.ideai/proposals/<id>.json` (CTX-2), on disk.

CONTEXT.md is the user's file: it is never created by a read, only by a write the user (or
the orchestrator) made, atomically. A proposal is one JSON file written once and deleted
when it is accepted or rejected. Reads are bounded; a file that cannot be parsed is reported
and left alone (a broken proposal is listed with its problem, never deleted by a listing).
Paths never follow a symbolic link out of `.ideai/`.

Blocking: the daemon calls these from a worker thread under the FileGuard.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from adapters.store.atomic import (
    ensure_directory,
    read_bytes_bounded,
    read_json,
    write_json_atomic,
    write_text_atomic,
)
from core.agents.errors import UnsafePath
from core.errors import CorruptFile, FileAccessError
from core.knowledge.errors import ProposalNotFound
from core.knowledge.limits import CONTEXT_FILE_MAX_BYTES
from core.knowledge.proposals import (
    Proposal,
    ProposalFormatError,
    is_proposal_id,
    proposal_from_json,
)

IDEAI = ".ideai"
CONTEXT_NAME = "CONTEXT.md"
PROPOSALS = "proposals"


@dataclass(frozen=True, slots=True)
class BrokenProposal:
    name: str
    problem: str


class FsContextStore:
    def _inside(self, root: str | os.PathLike[str], relative: str, what: str) -> Path:
        base = Path(root) / IDEAI
        path = base / relative
        if not path.resolve().is_relative_to(base.resolve()):
            raise UnsafePath(str(path), what, "a symbolic link leads it outside .ideai/")
        return path

    def context_path(self, root: str | os.PathLike[str]) -> Path:
        return self._inside(root, CONTEXT_NAME, "project context")

    def read_context(self, root: str | os.PathLike[str]) -> str | None:
        """The project context, or None when there is none.

        Raises:
            CorruptFile (not UTF-8, too large), FileAccessError (a folder, not allowed),
            UnsafePath.
        """
        path = self.context_path(root)
        try:
            raw = read_bytes_bounded(path, CONTEXT_FILE_MAX_BYTES)
        except FileNotFoundError:
            return None
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise CorruptFile(path, f"not UTF-8 text (bad byte at offset {error.start})") from error

    def write_context(self, root: str | os.PathLike[str], text: str) -> None:
        path = self.context_path(root)
        ensure_directory(Path(root) / IDEAI, parents=False)
        write_text_atomic(path, text)

    # ─── proposals ───────────────────────────────────────────────────────────────────

    def proposals_folder(self, root: str | os.PathLike[str]) -> Path:
        return self._inside(root, PROPOSALS, "proposals folder")

    def _proposal_path(self, root: str | os.PathLike[str], proposal_id: str) -> Path:
        if not is_proposal_id(proposal_id):
            raise ProposalNotFound(proposal_id[:40])
        return self.proposals_folder(root) / f"{proposal_id}.json"

    def proposals(self, root: str | os.PathLike[str]) -> tuple[list[Proposal],
                                                                 list[BrokenProposal]]:
        """Pending proposals, oldest first, and the files that could not be read."""
        folder = self.proposals_folder(root)
        try:
            names = sorted(os.listdir(folder))
        except FileNotFoundError:
            return [], []
        except OSError as error:
            raise FileAccessError(folder, "list", error.strerror or str(error)) from error
        found: list[Proposal] = []
        broken: list[BrokenProposal] = []
        for name in names:
            if not name.endswith(".json") or name.startswith("."):
                continue
            try:
                proposal = self._load(folder / name)
            except (CorruptFile, FileAccessError) as error:
                broken.append(BrokenProposal(name, error.message))
                continue
            if f"{proposal.id}.json" != name:
                broken.append(BrokenProposal(name, f"its id {proposal.id} is not its name"))
                continue
            found.append(proposal)
        found.sort(key=lambda p: (p.at_ms, p.id))
        return found, broken

    def _load(self, path: Path) -> Proposal:
        try:
            return proposal_from_json(read_json(path))
        except ProposalFormatError as error:
            raise CorruptFile(path, str(error)) from error

    def proposal(self, root: str | os.PathLike[str], proposal_id: str) -> Proposal:
        path = self._proposal_path(root, proposal_id)
        try:
            return self._load(path)
        except FileNotFoundError:
            raise ProposalNotFound(proposal_id) from None

    def write_proposal(self, root: str | os.PathLike[str], proposal: Proposal) -> Path:
        folder = self.proposals_folder(root)
        ensure_directory(Path(root) / IDEAI, parents=False)
        ensure_directory(folder, parents=False)
        path = self._proposal_path(root, proposal.id)
        write_json_atomic(path, proposal.to_json())
        return path

    def delete_proposal(self, root: str | os.PathLike[str], proposal_id: str) -> None:
        path = self._proposal_path(root, proposal_id)
        try:
            os.unlink(path)
        except FileNotFoundError:
            raise ProposalNotFound(proposal_id) from None
        except OSError as error:
            raise FileAccessError(path, "delete", error.strerror or str(error)) from error
