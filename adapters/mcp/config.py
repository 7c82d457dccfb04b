"""The MCP config idea writes for one agent (FEATURES.md MCP-2, §3.12): `mcp.json` in the
agent's run dir, 0600, in the `mcpServers` shape Claude Code reads with `--mcp-config`.

- stdio (the default): the CLI spawns `<abs idea> mcp-server --config <this file>`; the
  bridge finds the daemon's socket and the agent's secret under `env` of the same entry.
  Codex points its `-c mcp_servers.idea.args` at the same file.
- http: the CLI talks to `http://127.0.0.1:PORT/mcp` with `Authorization: Bearer <secret>`.

`timeout` raises Claude Code's per-call limit (ms) above idea's long-poll bound (AGENT-CLIS.md):
a blocking ask returns within ~100 s, the CLI must not cut it first.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters.mcp.bridge_client import SECRET_ENV, SOCKET_ENV
from adapters.store.atomic import write_json_atomic

CONFIG_FILE = "mcp.json"
SERVER_KEY = "idea"
TOOL_TIMEOUT_MS = 600_000


def idea_executable() -> str:
    """The absolute path of the `idea` command of this installation (MCP-2)."""
    beside = Path(sys.executable).with_name("idea")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("idea")
    return os.path.abspath(found) if found else "idea"


def stdio_entry(config_path: Path, socket_path: str, secret: str) -> dict[str, Any]:
    return {
        "type": "stdio",
        "command": idea_executable(),
        "args": ["mcp-server", "--config", str(config_path)],
        "env": {SOCKET_ENV: socket_path, SECRET_ENV: secret},
        "timeout": TOOL_TIMEOUT_MS,
    }


def http_entry(url: str, secret: str) -> dict[str, Any]:
    return {
        "type": "http",
        "url": url,
        "headers": {"Authorization": f"Bearer {secret}"},
        "timeout": TOOL_TIMEOUT_MS,
    }


def write_config(
    run_dir: Path, entry_for: Callable[[Path], dict[str, Any]], name: str = CONFIG_FILE
) -> Path:
    """Write `mcp.json` (0600) with the entry `entry_for(path)` returns; returns its path."""
    path = run_dir / name
    data = {"mcpServers": {SERVER_KEY: entry_for(path)}}
    write_json_atomic(path, data, mode=0o600)
    os.chmod(path, 0o600)  # a file left by an older launch keeps its mode otherwise
    return path
