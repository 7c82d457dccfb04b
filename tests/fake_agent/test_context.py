"""The fake agent reports the context each injection strategy delivers, byte for byte.

The four strategies of PRF-5 (conventionFile, flag, stdin, env) each get a CONTEXT line on
screen and an entry in the --report file holding the exact content; idea's end-to-end tests
rely on both to check that every strategy delivers the same composed context (D7).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.fake_agent.conftest import StartAgent
from tests.fake_agent.driver import read_report

COMPOSED = "# Project root\n\n/srv/app\n\n# Persona\nYou review code — carefully. «ok» 😀\n"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def big_context() -> str:
    """Over 8 KB, with long lines, blank lines and non-ASCII text (D19: test over 8 KB)."""
    lines = [f"{i:05d} " + "détail " * (i % 40) for i in range(600)]
    return "# Project root\n\n" + "\n".join(lines) + "\n\n"


def test_convention_file_in_the_cwd(start: StartAgent, project: Path, tmp_path: Path) -> None:
    (project / "CLAUDE.md").write_text(COMPOSED, encoding="utf-8")
    report = tmp_path / "report.json"
    agent = start("--report", str(report))
    agent.expect_exact(f"CONTEXT[conventionFile] sha256={sha(COMPOSED)} "
                       f"bytes={len(COMPOSED.encode())} source=CLAUDE.md")
    agent.prompt()
    [entry] = read_report(report)["contexts"]
    assert entry["strategy"] == "conventionFile"
    assert entry["content"] == COMPOSED


def test_context_file_names_the_convention_file(
    start: StartAgent, project: Path, tmp_path: Path
) -> None:
    (project / "CLAUDE.md").write_text("not this one", encoding="utf-8")
    (project / "AGENTS.md").write_text(COMPOSED, encoding="utf-8")
    report = tmp_path / "report.json"
    agent = start("--context-file", "AGENTS.md", "--report", str(report))
    agent.expect_exact("source=AGENTS.md")
    agent.prompt()
    assert [c["content"] for c in read_report(report)["contexts"]] == [COMPOSED]


def test_flag_text(start: StartAgent, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    agent = start("--append-system-prompt", COMPOSED, "--report", str(report))
    agent.expect_exact(f"CONTEXT[flag] sha256={sha(COMPOSED)}")
    agent.prompt()
    [entry] = read_report(report)["contexts"]
    assert (entry["strategy"], entry["source"], entry["content"]) == (
        "flag", "--append-system-prompt", COMPOSED)


def test_flag_path_and_a_missing_one(start: StartAgent, tmp_path: Path) -> None:
    context = tmp_path / "run" / "context.md"
    context.parent.mkdir()
    context.write_text(COMPOSED, encoding="utf-8")
    agent = start("--context-path", str(context))
    agent.expect_exact(f"CONTEXT[flag] sha256={sha(COMPOSED)}")
    agent.prompt()

    missing = start("--context-path", str(tmp_path / "nowhere.md"))
    missing.expect_exact(f"CONTEXT[flag] error=missing source={tmp_path / 'nowhere.md'}")


def test_env_var_names_the_file(
    start: StartAgent, agent_env: dict[str, str], tmp_path: Path
) -> None:
    context = tmp_path / "context.md"
    context.write_text(COMPOSED, encoding="utf-8")
    report = tmp_path / "report.json"
    env = {**agent_env, "AGENT_CONTEXT_FILE": str(context)}
    agent = start("--context-env", "AGENT_CONTEXT_FILE", "--report", str(report), env=env)
    agent.expect_exact(f"CONTEXT[env] sha256={sha(COMPOSED)}")
    agent.prompt()
    data = read_report(report)
    assert data["contexts"][0]["content"] == COMPOSED
    assert data["env"]["AGENT_CONTEXT_FILE"] == str(context)

    unset = start("--context-env", "AGENT_CONTEXT_FILE")
    unset.expect_exact("CONTEXT[env] error=unset source=AGENT_CONTEXT_FILE")


def test_no_context_at_all(start: StartAgent) -> None:
    agent = start()
    agent.expect_exact("CONTEXT[none]")
    agent.prompt()


def test_stdin_context_over_8_kb_by_bracketed_paste(start: StartAgent, tmp_path: Path) -> None:
    """What idea's launcher does for the stdin strategy: wait for the prompt, paste, Enter."""
    text = big_context()
    assert len(text.encode()) > 8 * 1024
    report = tmp_path / "report.json"
    agent = start("--report", str(report))
    agent.expect_exact("\x1b[?2004h")  # it asked for bracketed paste, like a real TUI
    agent.prompt()
    agent.paste(text)
    agent.send(b"\r")
    agent.expect_exact(f"[pasted {len(text.encode())} bytes]")
    agent.expect_exact(f"CONTEXT[stdin] sha256={sha(text)} bytes={len(text.encode())} "
                       "source=paste")
    agent.prompt()
    assert read_report(report)["contexts"][-1]["content"] == text
    agent.line("after")
    agent.expect_exact("reply: after")  # later input is conversation again


def test_stdin_context_ended_by_a_marker(start: StartAgent, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    agent = start("--stdin-context", "--stdin-end-marker", "END", "--report", str(report))
    agent.prompt()
    for line in ("# Project root", "", "/srv/app"):
        agent.line(line)
    agent.line("END")
    expected = "# Project root\n\n/srv/app\n"
    agent.expect_exact(f"CONTEXT[stdin] sha256={sha(expected)}")
    agent.prompt()
    assert read_report(report)["contexts"][-1]["content"] == expected
    assert read_report(report)["messages"] == []


def test_a_first_paste_is_a_message_with_no_paste_context(start: StartAgent) -> None:
    agent = start("--no-paste-context")
    agent.prompt()
    agent.paste("two\nlines")
    agent.send(b"\r")
    agent.expect_exact(f"reply[lines=2] sha256={sha('two' + chr(10) + 'lines')}")


def test_every_source_at_once_is_reported(
    start: StartAgent, project: Path, agent_env: dict[str, str], tmp_path: Path
) -> None:
    (project / "CLAUDE.md").write_text("file", encoding="utf-8")
    (tmp_path / "ctx.md").write_text("env", encoding="utf-8")
    report = tmp_path / "report.json"
    env = {**agent_env, "CTX": str(tmp_path / "ctx.md")}
    agent = start("--append-system-prompt", "flag", "--context-env", "CTX",
                  "--report", str(report), env=env)
    agent.prompt()
    contexts = read_report(report)["contexts"]
    assert [(c["strategy"], c["content"]) for c in contexts] == [
        ("conventionFile", "file"), ("flag", "flag"), ("env", "env")]


def test_codex_developer_instructions_override(start: StartAgent, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    agent = start("-c", "model=x", "-c", f"developer_instructions={COMPOSED}",
                  "--report", str(report))
    agent.expect_exact(f"CONTEXT[flag] sha256={sha(COMPOSED)} bytes={len(COMPOSED.encode())} "
                       "source=-c developer_instructions")
    agent.prompt()
    assert read_report(report)["contexts"][0]["content"] == COMPOSED
