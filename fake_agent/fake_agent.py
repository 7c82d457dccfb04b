#!/usr/bin/env python3
"""fake_agent: a stand-in for an AI agent CLI (Claude Code, Codex, ...) in end-to-end tests.

It behaves like an agent TUI on a PTY (raw input, bracketed paste, a prompt, replies) and
reports, on screen and in a JSON report file, exactly what it was given: the context by each
injection strategy (a convention file in its cwd, a flag, stdin, an env var), session flags,
MCP configs. Commands typed at its prompt make it hit a rate limit, stall or exit.

One file, standard library only, no `idea` import: tests copy it anywhere (a remote host
later) and it starts in a few tens of milliseconds. `python3 fake_agent.py --help` lists the
options; docs/profiles.md documents the screen lines and the report.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import signal
import sys
import termios
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NoReturn

VERSION = "1"
DEFAULT_PROMPT = "fake-agent> "
DEFAULT_RATE_LIMIT = "You've hit your limit · resets 3:40am"
DEFAULT_END_MARKER = "<<<END-CONTEXT>>>"
PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"
TASK_RE = re.compile(
    r"^\[idea · task from (?P<who>.+?) · ticket (?P<ticket>[^\]\s]+)\] ?(?P<task>.*)\Z", re.S
)
"""A task idea delivered (DECISIONS D8); the words of the task script the turn."""
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
# Variables worth showing in the report: idea's own (D22), this program's, and the CLIs'.
ENV_PREFIXES = ("IDEA_", "FAKE_AGENT_", "CODEX_", "CLAUDE_", "GEMINI_")
ENV_NAMES = ("TERM", "COLORTERM", "HOME", "LANG")


class Exit(Exception):
    """Leave the program with this status (the terminal is restored on the way out)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


# ─── Output ──────────────────────────────────────────────────────────────────────────────


def write(text: str | bytes) -> None:
    """Write to stdout unbuffered; the PTY may take it in pieces."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
    while data:
        try:
            data = data[os.write(1, data) :]
        except InterruptedError:
            continue


def title(text: str) -> None:
    write(f"\x1b]0;{text}\x07")


def say(line: str) -> None:
    write(line + "\n")


def digest(data: bytes) -> str:
    return f"sha256={hashlib.sha256(data).hexdigest()} bytes={len(data)}"


# ─── Context sources ─────────────────────────────────────────────────────────────────────


def context_entry(
    strategy: str, source: str, data: bytes | None, error: str = ""
) -> dict[str, Any]:
    """One received context, as the report and the CONTEXT line show it."""
    entry: dict[str, Any] = {"strategy": strategy, "source": source}
    if data is None:
        entry["error"] = error
    else:
        entry.update(
            content=data.decode("utf-8", "surrogateescape"),
            sha256=hashlib.sha256(data).hexdigest(),
            bytes=len(data),
        )
    return entry


def context_line(entry: dict[str, Any]) -> str:
    head = f"CONTEXT[{entry['strategy']}]"
    if "error" in entry:
        return f"{head} error={entry['error']} source={entry['source']}"
    return f"{head} sha256={entry['sha256']} bytes={entry['bytes']} source={entry['source']}"


def read_file(path: Path) -> tuple[bytes | None, str]:
    try:
        return path.read_bytes(), ""
    except FileNotFoundError:
        return None, "missing"
    except OSError as error:
        return None, error.strerror or "unreadable"


def startup_contexts(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The contexts available before any input: convention file, flags, env var."""
    found = []
    if args.context_file:
        data, _ = read_file(Path(args.context_file))
        if data is not None:  # no file is the normal case for a CLI, not an error
            found.append(context_entry("conventionFile", args.context_file, data))
    if args.append_system_prompt is not None:
        text = os.fsencode(args.append_system_prompt)
        found.append(context_entry("flag", "--append-system-prompt", text))
    for override in args.config:
        # Codex's way: -c developer_instructions=<text> (a TOML value, or the raw text).
        key, _, value = override.partition("=")
        if key.strip() == "developer_instructions":
            found.append(context_entry("flag", "-c developer_instructions", os.fsencode(value)))
    if args.context_path is not None:
        data, error = read_file(Path(args.context_path))
        found.append(context_entry("flag", args.context_path, data, error))
    if args.context_env is not None:
        value = os.environ.get(args.context_env)
        if not value:
            found.append(context_entry("env", args.context_env, None, "unset"))
        else:
            data, error = read_file(Path(value))
            found.append(context_entry("env", f"{args.context_env}={value}", data, error))
    return found


def mcp_entry(path: str) -> dict[str, Any]:
    """What an --mcp-config file declares (read only; this program speaks no MCP yet)."""
    try:
        servers = json.loads(Path(path).read_text(encoding="utf-8"))["mcpServers"]
        return {"path": path, "servers": sorted(servers)}
    except (OSError, ValueError, KeyError, TypeError) as error:
        return {"path": path, "error": type(error).__name__}


# ─── Sessions ────────────────────────────────────────────────────────────────────────────


class Sessions:
    """Conversations recorded under $FAKE_AGENT_HOME/sessions, laid out like Codex's rollouts:
    sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl, first line a `session_meta` record,
    then one `message` record per submitted line. The daemon's id discovery (D20) is tested
    against this layout.
    """

    def __init__(self) -> None:
        home = os.environ.get("FAKE_AGENT_HOME") or str(Path.home() / ".fake-agent")
        self.root = Path(home) / "sessions"

    def find(self, session_id: str) -> Path | None:
        pattern = f"*/*/*/rollout-*-{glob.escape(session_id)}.jsonl"
        return next(iter(sorted(self.root.glob(pattern))), None)

    def create(self, session_id: str) -> Path:
        now = datetime.now()
        folder = self.root / f"{now:%Y}" / f"{now:%m}" / f"{now:%d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rollout-{now:%Y-%m-%dT%H-%M-%S}-{session_id}.jsonl"
        meta = {"id": session_id, "cwd": os.getcwd(), "timestamp": _utc_now(), "pid": os.getpid()}
        self.append(path, {"type": "session_meta", "payload": meta})
        return path

    @staticmethod
    def append(path: Path, record: dict[str, Any]) -> None:
        with path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record) + "\n")

    @staticmethod
    def message_count(path: Path) -> int:
        lines = path.read_text(encoding="utf-8").splitlines()
        return sum(1 for line in lines if json.loads(line).get("type") == "message")


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")  # noqa: UP017


# ─── Input ───────────────────────────────────────────────────────────────────────────────


class LineEditor:
    """Turns input bytes into submitted lines, the way an agent TUI's input box does.

    Enter is CR (raw mode) or LF (canonical mode, a pipe); CR LF counts once. Backspace,
    Ctrl-U and Ctrl-D on an empty line work; other keys' escape sequences are dropped. A
    bracketed paste (ESC[200~ … ESC[201~) is inserted verbatim, newlines included, and does
    not submit. Events: ("echo", text), ("submit", text, pasted), ("eof",).

    `drop_submits`: that many Enters on a line with text are lost (the text stays in the
    box), as a loaded CLI sometimes drops the Enter that follows a paste.
    """

    def __init__(self, echo: bool, drop_submits: int = 0) -> None:
        self.echo = echo
        self.drop_submits = drop_submits
        self.line = bytearray()
        self.pending = b""
        self.in_paste = False
        self.pasted = False
        self.pasted_bytes = 0
        self.after_cr = False

    def feed(self, data: bytes) -> list[tuple[Any, ...]]:
        events: list[tuple[Any, ...]] = []
        self.pending += data
        while self.pending:
            if self.in_paste:
                if not self._paste(events):
                    break
            elif not self._key(events):
                break
        return events

    def _paste(self, events: list[tuple[Any, ...]]) -> bool:
        end = self.pending.find(PASTE_END)
        if end < 0:
            # Keep what could be the start of the end marker for the next read.
            keep = next((n for n in range(len(PASTE_END) - 1, 0, -1)
                         if self.pending.endswith(PASTE_END[:n])), 0)
            cut = len(self.pending) - keep
            self.line += self.pending[:cut]
            self.pasted_bytes += cut
            self.pending = self.pending[cut:]
            return False
        self.line += self.pending[:end]
        self.pasted_bytes += end
        self.pending = self.pending[end + len(PASTE_END) :]
        self.in_paste = False
        self.pasted = True
        self._echo(events, f"[pasted {self.pasted_bytes} bytes]".encode())
        return True

    def _key(self, events: list[tuple[Any, ...]]) -> bool:
        byte = self.pending[0]
        if byte == 0x1B:
            return self._escape()
        self.pending = self.pending[1:]
        after_cr, self.after_cr = self.after_cr, False
        if byte == 0x0D or (byte == 0x0A and not after_cr):
            self.after_cr = byte == 0x0D
            if self.drop_submits > 0 and self.line:
                self.drop_submits -= 1
                return True
            self._echo(events, b"\n")
            text = self.line.decode("utf-8", "surrogateescape")
            events.append(("submit", text, self.pasted))
            self.line.clear()
            self.pasted = False
        elif byte in (0x7F, 0x08):
            self._erase_char(events)
        elif byte == 0x15:  # Ctrl-U
            self._echo(events, b"\b \b" * len(self.line.decode("utf-8", "replace")))
            self.line.clear()
        elif byte == 0x04 and not self.line:  # Ctrl-D on an empty line
            events.append(("eof",))
        elif byte >= 0x20 or byte == 0x09:
            self.line.append(byte)
            self._echo(events, bytes([byte]))
        return True

    def _escape(self) -> bool:
        """Consume an escape sequence; False when more bytes are needed to tell."""
        if self.pending.startswith(PASTE_START):
            self.pending = self.pending[len(PASTE_START) :]
            self.in_paste = True
            self.pasted_bytes = 0
            return True
        if PASTE_START.startswith(self.pending):
            return False
        if self.pending.startswith(b"\x1b\x1b"):
            self.pending = self.pending[1:]  # a lone Esc key (an interrupt), then a sequence
            return True
        match = re.match(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|[^\[O])", self.pending)
        if match is None:
            return False  # an unfinished CSI sequence
        self.pending = self.pending[match.end() :]
        return True

    def _erase_char(self, events: list[tuple[Any, ...]]) -> None:
        if not self.line:
            return
        # A UTF-8 character: continuation bytes (10xxxxxx) from the end, then its lead byte.
        while len(self.line) > 1 and self.line[-1] & 0xC0 == 0x80:
            del self.line[-1]
        del self.line[-1]
        self._echo(events, b"\b \b")

    def _echo(self, events: list[tuple[Any, ...]], data: bytes) -> None:
        if self.echo:
            events.append(("echo", data))



# ─── The agent ───────────────────────────────────────────────────────────────────────────


class Agent:
    """The state of one run: contexts, session, messages, and the report that mirrors it."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.sessions = Sessions()
        self.contexts = startup_contexts(args)
        self.mcp = [mcp_entry(path) for path in args.mcp_config]
        self.messages: list[str] = []
        self.session_id = ""
        self.session_file: Path | None = None
        self.resumed = False
        self.state = "running"
        self.exit_code: int | None = None
        self.collecting: list[str] | None = [] if args.stdin_context else None
        self.stdin_seen = False
        self.link: Any = None
        self.tool_calls: list[dict[str, Any]] = []
        self.turns: list[dict[str, Any]] = []
        """Per task: when its turn started and when the reply call began (time.monotonic,
        shared by every process: benchmarks subtract the agent's own time)."""
        self.mcp_error: str | None = None
        self.input_at = 0.0
        """When the last input was read (time.monotonic)."""

    # Start ------------------------------------------------------------------------------

    def start(self) -> None:
        args = self.args
        say(f"fake-agent {VERSION} (pid {os.getpid()})")
        if args.print_cwd:
            say(f"CWD {os.getcwd()}")
        for entry in self.contexts:
            say(context_line(entry))
        if not self.contexts:
            say("CONTEXT[none]")
        for entry in self.mcp:
            detail = f"error={entry['error']}" if "error" in entry else (
                "servers=" + ",".join(entry["servers"]))
            say(f"MCP {entry['path']} {detail}")
        self._open_session()
        if args.mcp_connect:
            self._connect()
        self.report()
        write(args.prompt)
        if args.exit_after == 0:
            raise Exit(0)

    def _connect(self) -> None:
        """Connect to the MCP server of the first --mcp-config, as a real CLI does."""
        if not self.args.mcp_config:
            self.mcp_error = "no --mcp-config"
            say("MCP-ERROR no --mcp-config")
            return
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from mcp_link import McpLink  # the SDK: only when asked for

        link = McpLink(self.args.mcp_config[0])
        link.start()
        if link.error is not None:
            self.mcp_error = link.error
            say(f"MCP-ERROR {link.error}")
            return
        self.link = link
        say("MCP connected")

    # A turn scripted by the task: reply TEXT, ask NAME TEXT, stall S TEXT, never, crash,
    # twice TEXT, ask-cancel NAME TEXT, silent, call TOOL {JSON arguments} (replies with the
    # tool's text, "error: …" for an isError result), hold PATH TEXT (reply once PATH
    # exists: a test decides when), workstate STATUS [TASK] (idea_workstate_set, then reply
    # with its answer); anything else is answered "done: TASK".

    def turn(self, who: str, ticket: str, task: str) -> None:
        # "received": when the bytes that submitted the task were read (before this program
        # recorded the message); "start": when the turn began. The benchmark counts the
        # agent's own time from "received".
        self.turns.append({"ticket": ticket, "received": self.input_at,
                           "start": time.monotonic(), "replying": None})
        title(f"fake-agent: working {ticket}")
        say(f"TASK {ticket} from {who}: {task}")
        word, _, rest = task.strip().partition(" ")
        try:
            if word == "reply":
                self.reply(ticket, rest)
            elif word == "ask":
                name, _, sub = rest.partition(" ")
                self.reply(ticket, f"{name} said: {self.ask(name, sub)}")
            elif word == "stall":
                seconds, _, text = rest.partition(" ")
                time.sleep(float(seconds))
                self.reply(ticket, text or "done")
            elif word == "never":
                say(f"NOT-REPLYING {ticket}")
            elif word == "crash":
                say(f"CRASHING {ticket}")
                raise Exit(3)
            elif word == "twice":
                self.reply(ticket, rest)
                self.reply(ticket, rest + " (again)")
            elif word == "ask-cancel":
                name, _, sub = rest.partition(" ")
                self.ask_cancel(name, sub)
                self.reply(ticket, "cancelled my ask")
            elif word == "silent":
                say(f"plain text answer to {ticket}")
            elif word == "call":
                tool, _, raw = rest.partition(" ")
                is_error, text = self.tool(tool, json.loads(raw) if raw.strip() else {})
                self.reply(ticket, ("error: " if is_error else "") + text)
            elif word == "hold":
                path, _, text = rest.partition(" ")
                deadline = time.monotonic() + 600
                while not Path(path).exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.reply(ticket, text or "done")
            elif word == "workstate":
                status, _, task_text = rest.partition(" ")
                arguments = {"status": status, **({"task": task_text} if task_text else {})}
                is_error, text = self.tool("idea_workstate_set", arguments)
                self.reply(ticket, f"error: {text}" if is_error else text)
            else:
                self.reply(ticket, f"done: {task}")
        finally:
            title("fake-agent")

    def tool(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        if self.link is None:
            return True, self.mcp_error or "no MCP connection"
        is_error, text = self.link.call(name, arguments)
        self.tool_calls.append({"tool": name, "arguments": arguments, "isError": is_error,
                                "text": text})
        self.report()
        return is_error, text

    def reply(self, ticket: str, result: str) -> None:
        for turn in self.turns[-1:]:
            if turn["ticket"] == ticket and turn["replying"] is None:
                turn["replying"] = time.monotonic()
        is_error, text = self.tool("idea_reply", {"result": result, "ticket": ticket})
        say(f"REPLY-ERROR {ticket}: {text}" if is_error else f"REPLIED {ticket}")

    def ask(self, target: str, task: str) -> str:
        arguments: dict[str, Any] = {"target": target, "task": task}
        while True:
            is_error, text = self.tool("idea_ask_agent", arguments)
            if is_error:
                say(f"ASK-ERROR {target}: {text}")
                return f"error: {text}"
            pending = re.search(r'^No reply yet.*ticket="([^"]+)"', text)
            if pending is None:
                say(f"ASKED {target}: {text}")
                return text
            arguments = {"target": target, "ticket": pending.group(1)}

    def ask_cancel(self, target: str, task: str) -> None:
        """Start an ask and cancel the call at its first progress report (Esc in a CLI)."""
        import threading

        progressed = threading.Event()
        call = self.link.submit("idea_ask_agent", {"target": target, "task": task},
                                lambda _message: progressed.set())
        progressed.wait(60)
        call.cancel()
        say(f"ASK-CANCELLED {target}")

    def _open_session(self) -> None:
        args = self.args
        resume = args.resume
        if resume is not None:
            path = self.sessions.find(resume)
            if path is None:
                fail(f"ERROR: No saved session found with ID {resume}." if args.session_style
                     == "codex" else f"No conversation found with session ID: {resume}")
            self.session_id, self.session_file, self.resumed = resume, path, True
            say(f"RESUMED {resume} messages={Sessions.message_count(path)}")
            return
        if args.session_id is not None:
            if not UUID_RE.fullmatch(args.session_id):
                fail("Error: Invalid session ID. Must be a valid UUID.")
            if self.sessions.find(args.session_id) is not None:
                fail(f"Error: Session ID {args.session_id} is already in use.")
            self.session_id = args.session_id
        else:
            self.session_id = str(uuid.uuid4())
        if args.session_style == "claude":
            self.session_file = self.sessions.create(self.session_id)
            say(f"SESSION {self.session_id}")
        # Codex style: the id is shown nowhere; the file appears at the first message.

    # Input ------------------------------------------------------------------------------

    def submitted(self, text: str, pasted: bool) -> None:
        if self.collecting is not None:
            self._collect(text)
            return
        if pasted and not self.stdin_seen and not self.messages and self.args.paste_context:
            self._stdin_context(text.encode("utf-8", "surrogateescape"), "paste")
            write(self.args.prompt)
            return
        self._record(text)
        task = TASK_RE.match(text)
        if task is not None and self.args.mcp_connect:
            self.turn(task["who"], task["ticket"], task["task"])
        else:
            self.command(text)
        limit = self.args.exit_after
        if limit is not None and len(self.messages) >= limit:
            raise Exit(0)
        write(self.args.prompt)

    def _collect(self, text: str) -> None:
        assert self.collecting is not None
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if line == self.args.stdin_end_marker:
                self.end_of_stdin_context()
                rest = "\n".join(lines[i + 1 :])
                if rest:
                    self.submitted(rest, False)
                else:
                    write(self.args.prompt)
                return
            self.collecting.append(line)

    def end_of_stdin_context(self) -> None:
        """The marker (or the end of input) closes a --stdin-context block."""
        if self.collecting is None:
            return
        text = "".join(line + "\n" for line in self.collecting)
        self.collecting = None
        self._stdin_context(text.encode("utf-8", "surrogateescape"), "marker")

    def _stdin_context(self, data: bytes, source: str) -> None:
        self.stdin_seen = True
        entry = context_entry("stdin", source, data)
        self.contexts.append(entry)
        say(context_line(entry))
        self.report()

    def _record(self, text: str) -> None:
        self.messages.append(text)
        if self.session_file is None:  # Codex writes its rollout at the first message
            self.session_file = self.sessions.create(self.session_id)
        Sessions.append(self.session_file, {"type": "message", "payload": {"text": text}})
        self.report()

    def command(self, text: str) -> None:
        word, _, rest = text.strip().partition(" ")
        if word == "/rate-limit":
            say(rest or DEFAULT_RATE_LIMIT)
        elif word == "/stall":
            self.stall()
        elif word == "/exit":
            code = rest.strip() or "0"
            if not code.isdigit() or int(code) > 255:
                say("usage: /exit N (0..255)")
                return
            raise Exit(int(code))
        elif word == "/echo":
            say(rest)
        elif word == "/status":
            say(f"SESSION {self.session_id}")
        elif word == "/size":
            size = os.get_terminal_size(1)
            say(f"SIZE {size.columns} {size.lines}")
        elif "\n" in text:
            lines = text.count("\n") + 1
            say(f"reply[lines={lines}] {digest(text.encode('utf-8', 'surrogateescape'))}")
        else:
            say(f"reply: {text}")

    def stall(self) -> NoReturn:
        """Stop reading input for good, like a CLI stuck in a turn; only a signal ends it."""
        self.state = "stalled"
        self.report()
        say("STALLED")
        while True:
            signal.pause()

    # Report -----------------------------------------------------------------------------

    def report(self) -> None:
        """Rewrite the --report file atomically, so a reader never sees half of it."""
        if not self.args.report:
            return
        args = self.args
        env = {name: value for name, value in os.environ.items()
               if name.startswith(ENV_PREFIXES) or name in ENV_NAMES or name == args.context_env}
        data = {
            "pid": os.getpid(),
            "argv": sys.argv[1:],
            "cwd": os.getcwd(),
            "env": env,
            "contexts": self.contexts,
            "session": {
                "id": self.session_id,
                "resumed": self.resumed,
                "style": args.session_style,
                "file": str(self.session_file) if self.session_file else None,
            },
            "mcpConfigs": self.mcp,
            "strictMcpConfig": args.strict_mcp_config,
            "configOverrides": args.config,
            "addDirs": args.add_dir,
            "systemPromptSnapshot": args.system_prompt_snapshot,
            "messages": self.messages,
            "bracketedPaste": args.bracketed_paste,
            "state": self.state,
            "exitCode": self.exit_code,
            "mcp": {"connected": self.link is not None, "error": self.mcp_error,
                    "calls": self.tool_calls, "turns": self.turns},
        }
        path = Path(args.report)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(temporary, path)


def fail(message: str, code: int = 1) -> NoReturn:
    say(message)
    raise Exit(code)


# ─── Terminal ────────────────────────────────────────────────────────────────────────────


def raw_mode(fd: int) -> list[Any]:
    """Raw-ish input like an agent TUI: no line buffering, no echo, CR kept as CR. Output
    processing (LF → CR LF) and signal keys (Ctrl-C) stay on. Returns the attributes to
    restore."""
    saved = termios.tcgetattr(fd)
    attrs = termios.tcgetattr(fd)
    attrs[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR | termios.IXON)
    attrs[3] &= ~(termios.ICANON | termios.ECHO | termios.IEXTEN)
    attrs[6][termios.VMIN] = 1
    attrs[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    return saved


def run(agent: Agent) -> None:
    args = agent.args
    editor = LineEditor(echo=os.isatty(0) and not args.canonical,
                        drop_submits=args.drop_submits)
    agent.start()
    while True:
        try:
            data = os.read(0, 65536)
            agent.input_at = time.monotonic()
        except InterruptedError:
            continue
        except OSError:  # EIO: the terminal went away
            data = b""
        events = editor.feed(data) if data else [("eof",)]
        for event in events:
            if event[0] == "echo":
                write(event[1])
            elif event[0] == "submit":
                agent.submitted(event[1], event[2])
            else:
                agent.end_of_stdin_context()
                raise Exit(0)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    agent = Agent(args)

    def on_signal(signum: int, _frame: object) -> None:
        raise Exit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    # The real CLIs install their own Ctrl-C handling; Python would keep a SIGINT ignored
    # by whoever started it (a background job of a script ignores it), and Ctrl-C would
    # then do nothing.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    tty_in = os.isatty(0)
    saved = raw_mode(0) if tty_in and not args.canonical else None
    # Like a TUI, ask for bracketed paste only from a terminal; the report says what happened.
    paste = args.bracketed_paste = args.bracketed_paste and os.isatty(1)
    if paste:
        write("\x1b[?2004h")
    code = 0
    try:
        run(agent)
    except Exit as done:
        code = done.code
    except KeyboardInterrupt:
        code = 130
    finally:
        if paste:
            write("\x1b[?2004l")
        if saved is not None:
            termios.tcsetattr(0, termios.TCSADRAIN, saved)
    agent.exit_code = code
    agent.state = "exited"
    say(f"EXIT {code}")
    agent.report()
    return code


# ─── Command line ────────────────────────────────────────────────────────────────────────


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="fake_agent.py",
        description="A stand-in agent CLI for tests: reports the context it received.",
        epilog="Positional form `resume ID` resumes like Codex's subcommand (= --resume ID).",
    )
    context = parser.add_argument_group("context (each source found prints a CONTEXT line)")
    context.add_argument("--context-file", default="CLAUDE.md", metavar="NAME",
                         help='convention file looked up in the cwd (default CLAUDE.md; "" none)')
    context.add_argument("--append-system-prompt", metavar="TEXT", help="context text (flag)")
    context.add_argument("--context-path", metavar="PATH", help="context file path (flag)")
    context.add_argument("--context-env", metavar="VAR",
                         help="environment variable holding a context file path (env)")
    context.add_argument("--stdin-context", action="store_true",
                         help="the submitted lines up to the end marker (or end of input) are "
                              "the context (stdin)")
    context.add_argument("--stdin-end-marker", default=DEFAULT_END_MARKER, metavar="LINE")
    context.add_argument("--no-paste-context", dest="paste_context", action="store_false",
                         help="do not take a first submitted message holding a bracketed "
                              "paste as the stdin context")
    session = parser.add_argument_group("sessions ($FAKE_AGENT_HOME/sessions)")
    ids = session.add_mutually_exclusive_group()
    ids.add_argument("--session-id", metavar="UUID", help="start a session with this id")
    ids.add_argument("-r", "--resume", metavar="ID", help="resume a recorded session")
    session.add_argument("--session-style", choices=("claude", "codex"), default="claude",
                         help="claude: id printed and recorded at start; codex: id invented, "
                              "shown only by /status, file written at the first message")
    mcp = parser.add_argument_group("MCP and other CLI options (recorded in the report)")
    mcp.add_argument("--mcp-config", nargs="+", action="extend", default=[], metavar="FILE")
    mcp.add_argument("--strict-mcp-config", action="store_true")
    mcp.add_argument("--allowedTools", nargs="+", default=[])
    mcp.add_argument("--mcp-connect", action="store_true",
                     help="connect to the first --mcp-config's server with the mcp SDK and "
                          "answer idea's tasks through it (needs the mcp package)")
    mcp.add_argument("-c", "--config", action="append", default=[], metavar="KEY=VALUE",
                     help="Codex-style override; developer_instructions=TEXT is context (flag)")
    mcp.add_argument("--add-dir", nargs="+", action="extend", default=[], metavar="DIR")
    mcp.add_argument("--system-prompt-snapshot", choices=("on", "off"),
                     help="Claude Code's option, recorded only (no snapshot is modelled)")
    behaviour = parser.add_argument_group("behaviour")
    behaviour.add_argument("--prompt", default=DEFAULT_PROMPT, help=f"default {DEFAULT_PROMPT!r}")
    behaviour.add_argument("--no-bracketed-paste", dest="bracketed_paste", action="store_false",
                           help="do not enable bracketed paste (mode 2004)")
    behaviour.add_argument("--canonical", action="store_true",
                           help="leave the terminal in canonical mode (the kernel edits lines)")
    behaviour.add_argument("--report", metavar="FILE", help="JSON report, rewritten on change")
    behaviour.add_argument("--exit-after", type=int, metavar="N",
                           help="exit 0 after N submitted messages")
    behaviour.add_argument("--print-cwd", action="store_true", help="print CWD <dir> at start")
    behaviour.add_argument("--drop-submits", type=int, default=0, metavar="N",
                           help="lose the first N Enters on a line with text (a CLI under load)")
    parser.add_argument("words", nargs="*", metavar="resume ID", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.words:
        if len(args.words) != 2 or args.words[0] != "resume":
            parser.error(f"unexpected arguments: {' '.join(args.words)}")
        if args.session_id is not None or args.resume is not None:
            parser.error("resume ID cannot be combined with --session-id or --resume")
        args.resume = args.words[1]
    if args.session_style == "codex" and args.session_id is not None:
        parser.error("--session-id: Codex cannot start with a chosen id (use --session-style "
                     "claude)")
    return args


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(141)
