"""`.ideai/run/background.json`: the agents that run with no cell, so that a restarted
daemon can offer to resume them.

    {"version": 1, "agents": {"<agent id>": {"conversationId": "…" | null, "running": true}}}

The file is idea's own runtime state (never committed): the daemon sets a damaged one aside
(`idea_daemon.runtime_files.recover`) rather than stopping. `save` never writes over a file
it could not decode (`replace_json`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adapters.store._reader import JsonReader, key_at
from adapters.store.atomic import ensure_directory, read_json, replace_json

RUN_DIR = Path(".ideai") / "run"
BACKGROUND_FILE = "background.json"


@dataclass(frozen=True, slots=True)
class BackgroundRecord:
    """One agent running in the background when the file was written."""

    conversation_id: str | None = None
    running: bool = True


class BackgroundStore:
    """Reads and writes a project's `background.json` (the port:
    `adapters.store.ports.BackgroundStorePort`)."""

    @staticmethod
    def path(project_root: Path) -> Path:
        return Path(project_root) / RUN_DIR / BACKGROUND_FILE

    def load(self, project_root: Path) -> dict[str, BackgroundRecord]:
        """The records by agent id; none when the file does not exist.

        Raises:
            CorruptFile: Another shape; NewerVersion: a newer idea wrote it;
            FileAccessError: the system refused the read.
        """
        path = self.path(project_root)
        try:
            data = read_json(path)
        except FileNotFoundError:
            return {}
        return decode_background(data, str(path))

    def save(self, project_root: Path, records: dict[str, BackgroundRecord]) -> None:
        """Write the records atomically (the `run/` folder made when needed).

        Raises:
            CorruptFile, NewerVersion: The file on disk cannot be decoded (left untouched).
            FileAccessError: The system refused the write.
        """
        path = self.path(project_root)
        ensure_directory(path.parent)
        replace_json(path, encode_background(records),
                     lambda data: decode_background(data, str(path)))


def decode_background(data: object, source: str) -> dict[str, BackgroundRecord]:
    """The records of a decoded file.

    Raises:
        CorruptFile: Another shape; NewerVersion: a newer idea wrote it.
    """
    read = JsonReader(source)
    top = read.mapping(data, "")
    read.version(top, 1)
    agents = read.mapping(top.get("agents", {}), "agents")
    records: dict[str, BackgroundRecord] = {}
    for agent_id, entry in agents.items():
        at = key_at("agents", agent_id)
        fields = read.mapping(entry, at)
        conversation = read.optional_text(fields, "conversationId", at)
        running = read.flag(fields, "running", at)
        records[agent_id] = BackgroundRecord(conversation, running)
    return records


def encode_background(records: dict[str, BackgroundRecord]) -> dict[str, object]:
    return {"version": 1, "agents": {
        agent_id: {"conversationId": record.conversation_id, "running": record.running}
        for agent_id, record in records.items()}}
