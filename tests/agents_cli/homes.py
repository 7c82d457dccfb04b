"""A scratch HOME (and CODEX_HOME) in which the real CLIs run offline against the model server.

Every setting here is one AGENT-CLIS.md lists as needed ("Running the real CLIs offline"):
without it a CLI stops on a dialog, reaches for a host off the machine, or starts a
background daemon that outlives the test.

Claude Code: the server's URL and a bearer token in the environment (an API key would raise
a "use this key?" dialog whose default is No), onboarding done and the folders trusted in
`~/.claude.json`, the `idea` server's tools pre-allowed in `~/.claude/settings.json` (the
default "auto" permission mode would ask the vendor's servers about an unlisted tool call).

Codex: a `local` provider speaking the Responses API at the server, no retries (a failure
shows at once), approvals never asked, the `idea` MCP server's tools approved and required
(so the first request waits for it), plugins, updates, analytics and the background
app-server daemon off (these last are feature flags: top-level they are ignored with a
warning), the folders trusted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

CLAUDE_TOKEN = "idea-test-token"
CLAUDE_OAUTH_TOKEN = "sk-ant-oat01-idea-test"
CODEX_KEY_VAR = "IDEA_TEST_MODEL_KEY"
CLAUDE_QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_MODEL_CATALOG": "off",
    "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
}


def base_env(home: Path, path: str | None = None) -> dict[str, str]:
    """The environment both CLIs get: the scratch HOME, a terminal, a locale."""
    return {
        "PATH": path or os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
    }


def prepare_claude(home: Path, url: str, trusted: Iterable[Path],
                   allow: Iterable[str] = ("mcp__idea",), *,
                   subscription: bool = False) -> dict[str, str]:
    """Write Claude Code's files into `home`; the variables it needs to reach `url`.

    `subscription`: log in as a subscriber (an OAuth token in CLAUDE_CODE_OAUTH_TOKEN, still
    sent to `url` only) instead of with a token: only then does Claude Code build its
    usage-limit message ("You've hit your limit · resets …") from the
    `anthropic-ratelimit-unified-*` headers and record the reset in its transcript.
    """
    home.mkdir(parents=True, exist_ok=True)
    state_path = home / ".claude.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    state["hasCompletedOnboarding"] = True
    state.setdefault("theme", "dark")
    projects = state.setdefault("projects", {})
    for folder in trusted:
        projects.setdefault(os.path.realpath(folder), {})["hasTrustDialogAccepted"] = True
    state_path.write_text(json.dumps(state, indent=2))
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"allow": list(allow)}}, indent=2))
    auth = ({"CLAUDE_CODE_OAUTH_TOKEN": CLAUDE_OAUTH_TOKEN} if subscription
            else {"ANTHROPIC_AUTH_TOKEN": CLAUDE_TOKEN})
    return {"ANTHROPIC_BASE_URL": url, **auth, **CLAUDE_QUIET}


def _toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def prepare_codex(codex_home: Path, url: str, trusted: Iterable[Path],
                  servers: Iterable[str] = ()) -> dict[str, str]:
    """Write `$CODEX_HOME/config.toml`; the variables Codex needs to reach `url`.

    `servers` (declared elsewhere: a config.toml entry without a command makes every Codex
    start fail) get their tools approved and are `required`; their command comes from the
    command line (idea's `-c mcp_servers.idea.…` overrides) or from `codex mcp add`.
    """
    codex_home.mkdir(parents=True, exist_ok=True)
    lines = [
        'model_provider = "local"',
        'model = "gpt-5-codex"',
        'approval_policy = "never"',
        "check_for_update_on_startup = false",
        "",
        "[model_providers.local]",
        'name = "Scripted model"',
        f"base_url = {_toml_string(url + '/v1')}",
        f"env_key = {_toml_string(CODEX_KEY_VAR)}",
        'wire_api = "responses"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
        "[features]",
        "plugins = false",
        "remote_plugin = false",
        "plugin_sharing = false",
        "apps = false",
        "in_app_updates = false",
        "daemon_auto_start = false",
        "",
        "[analytics]",
        "enabled = false",
        "",
    ]
    for server in servers:
        lines += [f"[mcp_servers.{server}]", 'default_tools_approval_mode = "approve"',
                  "required = true", ""]
    for folder in trusted:
        lines += [f"[projects.{_toml_string(os.path.realpath(folder))}]",
                  'trust_level = "trusted"', ""]
    (codex_home / "config.toml").write_text("\n".join(lines))
    return {CODEX_KEY_VAR: "sk-idea-test", "CODEX_HOME": str(codex_home)}


def cli_env(home: Path, url: str, trusted: Iterable[Path],
            extra: Mapping[str, str] | None = None, path: str | None = None,
            servers: Iterable[str] = ("idea",)) -> dict[str, str]:
    """One environment in which both CLIs run against `url` with `home` prepared; the
    tools of MCP `servers` are allowed (Claude Code) and approved (Codex)."""
    servers = list(servers)
    env = base_env(home, path)
    env.update(prepare_claude(home, url, trusted, [f"mcp__{name}" for name in servers]))
    env.update(prepare_codex(home / ".codex", url, trusted, servers))
    env.update(extra or {})
    return env
