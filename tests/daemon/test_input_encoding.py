"""Input messages to bytes, in the daemon, with the program's modes of the moment."""

from __future__ import annotations

from adapters.ipc.messages import KeyInput, MouseInput, PasteInput, RawInput
from core.terminal import MouseMode, TerminalModes
from idea_daemon.input_encoding import encode

PLAIN = TerminalModes()


def test_keys_follow_the_program_modes() -> None:
    assert encode(KeyInput(cell="c", key="up"), PLAIN) == b"\x1b[A"
    assert encode(KeyInput(cell="c", key="up"), TerminalModes(app_cursor=True)) == b"\x1bOA"
    assert encode(KeyInput(cell="c", key="a", character="a"), PLAIN) == b"a"


def test_shift_enter_is_a_new_line_in_agent_cells_only() -> None:
    key = KeyInput(cell="c", key="shift+enter")
    assert encode(key, PLAIN) == b"\r"
    assert encode(key, PLAIN, agent=True) == b"\x1b\r"
    assert encode(KeyInput(cell="c", key="enter"), PLAIN, agent=True) == b"\r"


def test_paste_raw_and_mouse() -> None:
    assert encode(RawInput(cell="c", data=b"\x03"), PLAIN) == b"\x03"
    bracketed = TerminalModes(bracketed_paste=True)
    assert encode(PasteInput(cell="c", text="a\nb"), bracketed) == b"\x1b[200~a\rb\x1b[201~"
    click = MouseInput(cell="c", kind="press", button=0, x=1, y=2)
    assert encode(click, PLAIN) == b""  # the program did not ask for the mouse
    sgr = TerminalModes(mouse=MouseMode.NORMAL, mouse_sgr=True)
    assert encode(click, sgr) == b"\x1b[<0;2;3M"
    assert encode(MouseInput(cell="c", kind="nonsense", button=0, x=0, y=0), sgr) == b""


def test_an_agent_cli_that_turned_on_the_kitty_protocol_gets_shift_enter_itself() -> None:
    kitty = TerminalModes(kitty_keys=1)
    assert encode(KeyInput(cell="c", key="shift+enter"), kitty, agent=True) == b"\x1b[13;2u"
    assert encode(KeyInput(cell="c", key="escape"), kitty, agent=True) == b"\x1b[27u"
