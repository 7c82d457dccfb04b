"""The `idea` program's entry point: a bare `idea` (or `idea attach`, `idea a`) attaches at
once; anything else goes to the command line (`idea_tui.cli`).

Attaching is what a user waits for, and the command line's modules (argparse and its
parser of every subcommand, the control client, msgspec) cost more CPU than the first
frame itself: this module imports none of them for a plain attach.
"""

from __future__ import annotations

import sys

PLAIN_ATTACH: tuple[list[str], ...] = ([], ["attach"], ["a"])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args not in PLAIN_ATTACH:
        from idea_tui.cli import main as command_line

        return command_line(args)
    from idea_tui.attach import attach, refuse_attach
    from idea_tui.daemon_socket import DaemonError

    if refuse_attach(force=False):
        return 1
    try:
        return attach(window=None)
    except DaemonError as exc:  # as `idea_tui.cli.main` says them
        print(f"idea: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
