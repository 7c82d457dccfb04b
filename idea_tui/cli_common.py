"""Helpers shared by the `idea` subcommand modules: calling the daemon, printing, options."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from adapters.locations import locate
from idea_tui.control import CommandFailed, ControlClient, decoded, decoded_list

Runner = Callable[[argparse.Namespace], int]
T = TypeVar("T")


def print_json(value: Any) -> None:
    """A result as JSON; an answer Struct in its wire shape (the names the daemon sends)."""
    print(json.dumps(msgspec.to_builtins(value), indent=2, ensure_ascii=False))


def confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def call(args: argparse.Namespace, method: str, *, start: bool = False, **params: Any) -> Any:
    """Run one command; ask before ending programs (or tell how to force it)."""
    with ControlClient.connect(locate(), start=start) as client:
        try:
            return client.call(method, **params)
        except CommandFailed as exc:
            if exc.code != "confirm" or params.get("force"):
                raise
            if not confirm(f"{exc} Continue?"):
                raise CommandFailed("confirm", f"{exc} (not done; add -f to force)") from exc
            return client.call(method, **{**params, "force": True})


def call_as(args: argparse.Namespace, answer: type[T], method: str, /, *,
            start: bool = False, **params: Any) -> T:
    """`call` for a command whose answer is the Struct `answer` (`adapters.ipc.answers`)."""
    return decoded(answer, method, call(args, method, start=start, **params))


def call_list(args: argparse.Namespace, answer: type[T], method: str, /, *,
              start: bool = False, **params: Any) -> list[T]:
    """`call` for a command whose answer is a list of the Struct `answer`."""
    return decoded_list(answer, method, call(args, method, start=start, **params))


def absolute(path: str) -> str:
    # The daemon only sees absolute paths: resolve against the caller's directory here.
    return os.path.abspath(os.path.expanduser(path))


# ─── output ────────────────────────────────────────────────────────────────────────────


def simple(args: argparse.Namespace, result: Any, text: str | None) -> int:
    if getattr(args, "json", False):
        print_json(result)
    elif text:
        print(text)
    return 0


def target_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-t",
        "--target",
        help="the cell (default: the focused one); forms: 2, Page.2, project:Page.2, %%ID",
    )


def side_options(parser: argparse.ArgumentParser) -> None:
    for flag, side in (("L", "left"), ("R", "right"), ("U", "up"), ("D", "down")):
        parser.add_argument(f"-{flag}", action="store_true", help=f"toward the {side}")


def json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="structured output")


def force_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-f", "--force", action="store_true", help="do not ask before ending running programs"
    )
