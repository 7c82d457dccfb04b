"""`idea mcp-server --config FILE`: the stdio bridge a CLI spawns (FEATURES.md MCP-3).

A transparent, full-duplex pipe between the CLI (JSON-RPC lines on stdin/stdout) and the
daemon's MCP socket: two pumps, so a notification that gets no answer never stalls the other
direction (Bug 1). Standard library only, and nothing else of idea is imported: it starts in
a few tens of milliseconds. It reads the socket and the agent's secret from FILE, the
0600 MCP config idea wrote into the agent's run dir (`mcpServers.idea.env`), so the secret
never shows in a process list.

Exit codes: 0 when either side closes; 1 no daemon at the socket (never a hang); 2 the daemon
refused the secret; 3 the config cannot be read.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from pathlib import Path

SOCKET_ENV = "IDEA_MCP_SOCKET"
SECRET_ENV = "IDEA_MCP_SECRET"
CONNECT_TIMEOUT = 5.0
HANDSHAKE_TIMEOUT = 10.0
DRAIN_GRACE = 2.0
"""After stdin closes, how long answers still in flight may take to come back."""
CHUNK = 65536


def read_config(path: str) -> tuple[str, str]:
    """(socket path, secret) from an MCP config idea wrote; the environment may override.

    Raises:
        ValueError: The file is unreadable or lacks them.
    """
    env: dict[str, str] = {}
    if path:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            server = data["mcpServers"]["idea"]
            env = {str(k): str(v) for k, v in (server.get("env") or {}).items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"cannot read the MCP config {path}: {exc}") from exc
    socket_path = os.environ.get(SOCKET_ENV) or env.get(SOCKET_ENV)
    secret = os.environ.get(SECRET_ENV) or env.get(SECRET_ENV)
    if not socket_path or not secret:
        raise ValueError(f"the MCP config {path or '(none)'} names no idea socket and secret")
    return socket_path, secret


def _read_line(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n") and len(data) < 4096:
        chunk = sock.recv(1)
        if not chunk:
            break
        data += chunk
    return data


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def run_bridge(config: str) -> int:
    try:
        socket_path, secret = read_config(config)
    except ValueError as exc:
        print(f"idea mcp-server: {exc}", file=sys.stderr)
        return 3
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(CONNECT_TIMEOUT)
    try:
        sock.connect(socket_path)
    except OSError as exc:
        print(
            f"idea mcp-server: no idea daemon answers at {socket_path} ({exc.strerror or exc}); "
            "is idea running?",
            file=sys.stderr,
        )
        return 1
    try:
        sock.settimeout(HANDSHAKE_TIMEOUT)
        sock.sendall(json.dumps({"idea": "mcp-bridge", "secret": secret}).encode() + b"\n")
        answer = json.loads(_read_line(sock) or b"{}")
    except (OSError, ValueError) as exc:
        print(f"idea mcp-server: the daemon did not answer the handshake ({exc})", file=sys.stderr)
        return 1
    if not isinstance(answer, dict) or answer.get("ok") is not True:
        error = answer.get("error") if isinstance(answer, dict) else None
        print(f"idea mcp-server: refused: {error or 'no answer'}", file=sys.stderr)
        return 2
    sock.settimeout(None)

    def end_drain() -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)  # wakes the recv below
        except OSError:
            pass

    def pump_stdin() -> None:
        try:
            while True:
                data = os.read(0, CHUNK)
                if not data:
                    break
                sock.sendall(data)
        except OSError:
            pass
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        # A bounded drain: answers in flight may still come back, then we go.
        timer = threading.Timer(DRAIN_GRACE, end_drain)
        timer.daemon = True
        timer.start()

    threading.Thread(target=pump_stdin, name="stdin", daemon=True).start()
    try:
        while data := sock.recv(CHUNK):
            _write_all(1, data)
    except OSError:
        pass
    finally:
        sock.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="idea mcp-server")
    parser.add_argument("--config", default="", help="the MCP config idea wrote for the agent")
    args = parser.parse_args(argv)
    return run_bridge(args.config)


if __name__ == "__main__":
    sys.exit(main())
