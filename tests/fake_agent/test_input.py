"""Typing into the fake agent: raw input with its own echo, editing keys, bracketed paste,
and the kernel's line discipline when it is asked to keep canonical mode."""

from __future__ import annotations

from tests.fake_agent.conftest import StartAgent


def test_typed_line_is_echoed_then_answered(start: StartAgent) -> None:
    agent = start()
    agent.prompt()
    agent.send(b"hello")
    agent.expect_exact("hello")  # echoed by the program: the terminal is in raw mode
    agent.send(b"\r")
    agent.expect_exact("reply: hello")
    agent.prompt()


def test_backspace_and_ctrl_u_edit_the_line(start: StartAgent) -> None:
    agent = start()
    agent.prompt()
    agent.send(b"helo\x7f\x7fllo world")
    agent.send(b"\r")
    agent.expect_exact("reply: hello world")
    agent.send("é€x\x7f\x7f".encode() + b"\r")  # backspace removes whole UTF-8 characters
    agent.expect_exact("reply: é")
    agent.send(b"garbage\x15fresh\r")
    agent.expect_exact("reply: fresh")


def test_cr_lf_counts_as_one_enter_and_arrow_keys_are_ignored(start: StartAgent) -> None:
    agent = start("--exit-after", "2")
    agent.prompt()
    agent.send(b"one\r\ntwo\x1b[A\x1bOB\r")
    agent.expect_exact("reply: one")
    agent.expect_exact("reply: two")
    assert agent.wait_exit() == 0
    assert "reply: \r" not in agent.text  # no empty message from the LF


def test_bracketed_paste_mode_is_enabled_and_restored(start: StartAgent) -> None:
    agent = start()
    agent.expect_exact("\x1b[?2004h")
    agent.prompt()
    agent.line("/exit 0")
    agent.expect_exact("\x1b[?2004l")
    assert agent.wait_exit() == 0


def test_no_bracketed_paste_when_asked(start: StartAgent) -> None:
    agent = start("--no-bracketed-paste")
    agent.prompt()
    agent.line("/exit 0")
    assert agent.wait_exit() == 0
    assert "\x1b[?2004" not in agent.text


def test_newlines_inside_a_paste_do_not_submit(start: StartAgent) -> None:
    agent = start()
    agent.prompt()
    agent.line("first")  # a typed message first: the paste below is conversation
    agent.expect_exact("reply: first")
    agent.paste("a\rb\nc")
    agent.expect_exact("[pasted 5 bytes]")
    agent.send(b" d\r")
    agent.expect(rb"reply\[lines=2\] sha256=[0-9a-f]{64} bytes=7")


def test_canonical_mode_leaves_editing_and_echo_to_the_kernel(start: StartAgent) -> None:
    agent = start("--canonical")
    agent.prompt()
    agent.send(b"abd\x7fc\r")  # ICRNL turns CR into LF, the kernel erases the d
    agent.expect_exact("reply: abc")


def test_ctrl_d_on_an_empty_line_exits(start: StartAgent) -> None:
    agent = start()
    agent.prompt()
    agent.send(b"\x04")
    agent.expect_exact("EXIT 0")
    assert agent.wait_exit() == 0


def test_ctrl_c_interrupts(start: StartAgent) -> None:
    agent = start()
    agent.prompt()
    agent.send(b"\x03")  # the line discipline still turns it into SIGINT
    agent.expect_exact("EXIT 130")
    assert agent.wait_exit() == 130
