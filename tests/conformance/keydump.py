"""Print the bytes of each key typed, for comparing key encodings between terminals.

Run as `python keydump.py [app]`: with `app`, it first turns on application cursor and
keypad modes (DECCKM, DECKPAM). Keys are separated by typing `,`; everything read is
printed as one line of `repr`s, one per key, once `END` has been typed.
"""

from __future__ import annotations

import os
import sys
import termios
import tty


def main() -> None:
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    app = sys.argv[1:] == ["app"]
    tty.setraw(fd)
    try:
        if app:
            os.write(1, b"\x1b[?1h\x1b=")
        os.write(1, b"ready\r\n")
        data = b""
        while not data.endswith(b"END"):
            data += os.read(fd, 1024)
    finally:
        if app:
            os.write(1, b"\x1b[?1l\x1b>")
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    keys = data.removesuffix(b"END").split(b",")
    print(" ".join(repr(key)[2:-1] for key in keys if key))


if __name__ == "__main__":
    main()
