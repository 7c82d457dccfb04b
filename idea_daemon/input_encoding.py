"""Turn client input messages into the bytes a cell's program reads.

Encoding happens in the daemon, with the modes the program set at that moment (application
cursor keys, bracketed paste, mouse reporting), so a client never encodes with stale modes.
"""

from __future__ import annotations

from adapters.ipc.messages import KeyInput, MouseInput, PasteInput, RawInput
from core.keys import encode_key, wrap_paste
from core.mouse import MouseEvent, MouseKind, encode_mouse
from core.terminal import TerminalModes

# In an agent CLI, Shift+Enter starts a new line of the prompt instead of sending it. Legacy
# terminals send CR for it, like Enter; agent CLIs read ESC CR (Meta+Enter) as "new line",
# which is what their own terminal-setup commands configure terminals to send. A CLI that
# turned on the kitty keyboard protocol gets the key itself (`CSI 13;2u`) instead.
AGENT_NEWLINE_KEYS = {"shift+enter": b"\x1b\r"}


def encode(
    message: KeyInput | RawInput | PasteInput | MouseInput,
    modes: TerminalModes,
    *,
    agent: bool = False,
) -> bytes:
    """The bytes for one input message; `agent` when the cell runs an agent CLI."""
    if isinstance(message, RawInput):
        return message.data
    if isinstance(message, KeyInput):
        if agent and not modes.kitty_keys and message.key in AGENT_NEWLINE_KEYS:
            return AGENT_NEWLINE_KEYS[message.key]
        return encode_key(message.key, modes, message.character) or b""
    if isinstance(message, PasteInput):
        return wrap_paste(message.text, modes)
    try:
        kind = MouseKind(message.kind)
    except ValueError:
        return b""
    event = MouseEvent(
        kind=kind,
        button=message.button,
        x=message.x,
        y=message.y,
        shift=message.shift,
        alt=message.alt,
        ctrl=message.ctrl,
    )
    return encode_mouse(event, modes) or b""
