"""A stdio MCP server with one tool, `echo`, built on the mcp SDK: a known-good server for
checking what the real CLIs do with MCP before idea's own server is involved.

Run as `python -m tests.agents_cli.echo_mcp [LOG]`; each call is appended to LOG (one JSON
line) so a test can see that the CLI really called it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("echo")
LOG = Path(sys.argv[1]) if len(sys.argv) > 1 else None


@server.tool(description="Echo `text` back, prefixed with ECHO:.")
def echo(text: str) -> str:
    if LOG is not None:
        with LOG.open("a", encoding="utf-8") as file:
            file.write(json.dumps({"text": text}) + "\n")
    return f"ECHO:{text}"


if __name__ == "__main__":
    server.run("stdio")
