"""`idea git …`: the git panel's operations as commands, with `--json` for scripts.

Every command runs in the daemon (the same `git_*` requests the panel sends), on the
current project's repository or the one `-C PATH` names. File arguments are paths relative
to the repository's root, as `idea git status` prints them.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from adapters.ipc import answers_git as ans
from idea_tui.cli_common import absolute, call_as, call_list, json_option, print_json


def _where(args: argparse.Namespace) -> dict[str, Any]:
    return {"path": absolute(args.C)} if args.C else {}


def _print_status(status: ans.GitStatus) -> None:
    head = status.branch or f"(detached at {str(status.head)[:12]})"
    if status.head is None:
        head += " (no commits yet)"
    line = f"on {head}"
    if status.upstream:
        line += f" ← {status.upstream}"
        if status.ahead or status.behind:
            line += f" (ahead {status.ahead}, behind {status.behind})"
    print(line)
    if status.state != "none":
        print(f"{status.state}: finish or abort it")
    sections = (("conflicted", status.conflicted, "conflict"), ("staged", status.staged, "staged"),
                ("unstaged", status.unstaged, "unstaged"), ("untracked", status.untracked, None))
    for section, items, key in sections:
        if not items:
            continue
        print(f"{section}:")
        for item in items:
            mark = (getattr(item, key) or "?") if key else "?"
            name = item.path
            print(f"  {mark} {name!r}" if "\n" in name else f"  {mark} {name}")
    if not any(items for _, items, _ in sections):
        print("nothing to commit, working tree clean")


def cmd_status(args: argparse.Namespace) -> int:
    status = call_as(args, ans.GitStatus, "git_status", **_where(args))
    print_json(status) if args.json else _print_status(status)
    return 0


def _print_diff(files: list[ans.FileDiff]) -> None:
    for item in files:
        print(f"--- {item.path} ({item.change}, +{item.added} -{item.removed})")
        if item.binary:
            print("  binary file: no text diff")
        for hunk in item.hunks:
            print(hunk.header)
            for kind, text, no_newline in hunk.lines:
                print(f"{kind}{text}")
                if no_newline:
                    print("\\ No newline at end of file")
        if item.truncated:
            print("  … cut: the diff is too large to show whole")


def cmd_diff(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {**_where(args), "files": args.files or None}
    if args.commit:
        params.update(target="commit", new=args.commit, old=args.against)
    elif args.staged:
        params["target"] = "staged"
    result = call_as(args, ans.GitDiff, "git_diff", **params)
    print_json(result) if args.json else _print_diff(result.files)
    return 0


def _when(seconds: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def cmd_log(args: argparse.Namespace) -> int:
    result = call_as(args, ans.GitLog, "git_log", **_where(args),
                     rev="--all" if args.all else args.rev, skip=args.skip, limit=args.n)
    if args.json:
        print_json(result)
        return 0
    for entry in result.entries:
        graph = entry.graph or ans.GraphCell(column=0, line="", joint="")
        refs = f" ({', '.join(entry.refs)})" if entry.refs else ""
        width = max(len(graph.line), len(graph.joint))
        print(f"{graph.line:<{width}} {entry.oid[:10]} {entry.subject}{refs}"
              f" — {entry.author}, {_when(entry.time)}")
        if graph.joint:
            print(graph.joint)
    return 0


def _paths_call(method: str, verb: str) -> Any:
    def run(args: argparse.Namespace) -> int:
        params = {**_where(args), "paths": list(args.files)}
        if method == "git_discard":
            params["force"] = args.force
        result = call_as(args, ans.GitPaths, method, **params)
        print_json(result) if args.json else print(f"{verb} {len(args.files)} file(s)")
        return 0

    return run


def cmd_commit(args: argparse.Namespace) -> int:
    message = args.message if args.message is not None else sys.stdin.read()
    result = call_as(args, ans.GitCommitted, "git_commit", **_where(args), message=message)
    print_json(result) if args.json else print(f"committed {result.oid[:12]}")
    return 0


def cmd_branch(args: argparse.Namespace) -> int:
    branches = call_list(args, ans.Branch, "git_branches", **_where(args), remote=args.remote)
    if args.json:
        print_json(branches)
        return 0
    for branch in branches:
        up = f" → {branch.upstream}" if branch.upstream else ""
        print(f"{'*' if branch.current else ' '} {branch.name}{up}")
    return 0


def cmd_switch(args: argparse.Namespace) -> int:
    result = call_as(args, ans.GitSwitched, "git_switch", **_where(args), branch=args.branch,
                     create=args.create)
    print_json(result) if args.json else print(f"on {args.branch}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    result = call_as(args, ans.GitCommitted, "git_merge", **_where(args), branch=args.branch,
                     ffOnly=args.ff_only)
    print_json(result) if args.json else print(f"merged {args.branch}: {result.oid[:12]}")
    return 0


def cmd_stash(args: argparse.Namespace) -> int:
    stashes = call_list(args, ans.Stash, "git_stash", **_where(args))
    if args.json:
        print_json(stashes)
    for stash in [] if args.json else stashes:
        print(f"stash@{{{stash.index}}} {stash.message}")
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    result = call_as(args, ans.GitRoot, "git_init", **_where(args))
    print_json(result) if args.json else print(f"initialized {result.root}")
    return 0


def _remote_call(method: str) -> Any:
    def run(args: argparse.Namespace) -> int:
        params = {**_where(args), "remote": args.remote}
        if method == "git_push":
            params["branch"] = args.branch
        result = call_as(args, ans.GitRemote, method, **params)
        print_json(result) if args.json else print(result.summary or "done")
        return 0

    return run


def cmd_worktree_list(args: argparse.Namespace) -> int:
    trees = call_list(args, ans.Worktree, "git_worktrees", **_where(args))
    if args.json:
        print_json(trees)
    for tree in [] if args.json else trees:
        print(f"{tree.path}  {tree.branch or '(detached)'}"
              + (" [prunable]" if tree.prunable else ""))
    return 0


def cmd_worktree_add(args: argparse.Namespace) -> int:
    result = call_as(args, ans.Worktree, "git_worktree_add", **_where(args),
                     dest=absolute(args.dest), branch=args.branch, base=args.base)
    print_json(result) if args.json else print(f"{result.path} on {result.branch}")
    return 0


def cmd_worktree_remove(args: argparse.Namespace) -> int:
    result = call_as(args, ans.GitRemoved, "git_worktree_remove", **_where(args),
                     dest=absolute(args.dest), force=args.force)
    print_json(result) if args.json else print(f"removed {result.removed}")
    return 0


def register(sub: Any) -> None:
    """Add `idea git …` to the `idea` parser's subcommands."""
    git = sub.add_parser("git", help="the project's git repository (status, diff, commit, …)")
    git.set_defaults(run=cmd_status, C=None, json=False)
    actions = git.add_subparsers(metavar="ACTION")

    def action(name: str, run: Any, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(name, help=text, description=text)
        parser.set_defaults(run=run)
        parser.add_argument("-C", metavar="PATH",
                            help="the repository (default: the current project's root)")
        json_option(parser)
        return parser

    action("status", cmd_status, "branch, ahead/behind, staged, unstaged, untracked, conflicts")
    diff = action("diff", cmd_diff, "unstaged changes (--staged: staged; --commit: a commit's)")
    diff.add_argument("files", nargs="*", help="only these files (relative to the root)")
    diff.add_argument("--staged", action="store_true")
    diff.add_argument("--commit", metavar="REV", help="the changes this commit made")
    diff.add_argument("--against", metavar="REV", help="with --commit: compare with REV instead")
    log = action("log", cmd_log, "history with its graph, a page at a time")
    log.add_argument("rev", nargs="?", help="from this branch or commit (default: HEAD)")
    log.add_argument("-n", type=int, default=30, help="commits per page (default 30)")
    log.add_argument("--skip", type=int, default=0, help="start this many commits in")
    log.add_argument("--all", action="store_true", help="every branch")
    for name, method, verb, text in (
        ("stage", "git_stage", "staged", "stage files (deletions too)"),
        ("unstage", "git_unstage", "unstaged", "unstage files (the work tree is untouched)"),
        ("discard", "git_discard", "discarded", "throw away unstaged changes (asks; -f)"),
    ):
        parser = action(name, _paths_call(method, verb), text)
        parser.add_argument("files", nargs="+")
        if name == "discard":
            parser.add_argument("-f", "--force", action="store_true", help="do not ask")
    commit = action("commit", cmd_commit, "commit what is staged")
    commit.add_argument("-m", "--message", help="the message (default: read from stdin)")
    branch = action("branch", cmd_branch, "list branches")
    branch.add_argument("--remote", action="store_true", help="remote-tracking ones too")
    switch = action("switch", cmd_switch, "check out a branch (refuses to lose changes)")
    switch.add_argument("branch")
    switch.add_argument("-c", "--create", action="store_true", help="make it at HEAD first")
    merge = action("merge", cmd_merge, "merge a branch into the current one")
    merge.add_argument("branch")
    merge.add_argument("--ff-only", action="store_true")
    action("stash", cmd_stash, "list the stash")
    action("init", cmd_init, "make the project (or -C PATH) a git repository")
    for name in ("fetch", "pull", "push"):
        parser = action(name, _remote_call(f"git_{name}"),
                        f"{name} (never waits on a password prompt)")
        parser.add_argument("remote", nargs="?")
        if name == "push":
            parser.add_argument("branch", nargs="?")
    worktree = actions.add_parser("worktree", help="the repository's worktrees")
    worktree.set_defaults(run=cmd_worktree_list, C=None, json=False)
    trees = worktree.add_subparsers(metavar="ACTION")
    for name, run, text in (("list", cmd_worktree_list, "list worktrees"),
                            ("add", cmd_worktree_add, "a new worktree on a new (or free) branch"),
                            ("remove", cmd_worktree_remove, "remove one (its branch stays)")):
        parser = trees.add_parser(name, help=text, description=text)
        parser.set_defaults(run=run)
        parser.add_argument("-C", metavar="PATH")
        json_option(parser)
        if name == "add":
            parser.add_argument("dest")
            parser.add_argument("branch")
            parser.add_argument("--base", help="start the new branch here (default: HEAD)")
        elif name == "remove":
            parser.add_argument("dest")
            parser.add_argument("-f", "--force", action="store_true",
                                help="even with uncommitted changes")
