"""`profiles.json` in idea's data dir: the configured AI profiles (FEATURES.md §3.3, PRF).

The seed describes the file as a bare JSON array of profiles. idea writes it wrapped, like
every other file, so that a newer format can be refused instead of misread (D12):

    {"version": 1, "profiles": [{"id": "claude-code", "name": "Claude Code", ...}]}

and reads both forms. A profile is in the seed's JSON shape, camelCase, with the optional
blocks of `core.agents.profile`: `session` (`startArgs`, `resumeArgs`, `idKnownAtLaunch`),
`mcp` (`config` tagged by `strategy`, `transport`), `promptReadyPattern`, `rateLimitPattern`,
`submitSequence`, `submitDelayMs`, `env`. The seed's `session: {"assignFlag", "resumeFlag"}`
is read too, as the equivalent templates, and written back in the template form. Optional
values are omitted when absent or default. Unknown keys are kept at every level (D23). Every
profile is validated on read; errors name the file and the key (`profiles[2].cwd: ...`).

The file's existence is meaningful: the first-run wizard appears only when it does not
exist, so skipping the wizard saves an empty list.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.store._reader import JsonReader, index_at, key_at, unknown_keys
from adapters.store.atomic import ensure_directory, read_json, replace_json
from core.agents.errors import DuplicateProfile, InvalidProfile, ProfileNotFound
from core.agents.profile import (
    DEFAULT_CWD,
    DEFAULT_SUBMIT_DELAY_MS,
    DEFAULT_SUBMIT_SEQUENCE,
    AgentProfile,
    ConfigFile,
    ContextInjection,
    ConventionFile,
    Env,
    Flag,
    McpCapability,
    McpConfig,
    McpTransport,
    SessionTemplates,
    Stdin,
    find_profile,
)
from core.agents.profile_rules import validate_profile
from core.errors import FileAccessError

SUPPORTED_VERSION = 1
FILE_NAME = "profiles.json"

_PROFILE_KEYS = (
    *("id", "name", "command", "args", "contextInjection", "detect", "cwd", "session", "mcp"),
    *("promptReadyPattern", "rateLimitPattern", "submitSequence", "submitDelayMs", "env"),
)
_SESSION_KEYS = ("startArgs", "resumeArgs", "idKnownAtLaunch", "assignFlag", "resumeFlag")


# ─── Decoding ────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class _Content:
    profiles: tuple[AgentProfile, ...]
    extra: dict[str, Any]


def decode_profiles(data: object, source: str = FILE_NAME) -> list[AgentProfile]:
    """The profiles of a parsed `profiles.json` (wrapped or a bare array).

    Raises:
        NewerVersion: The file comes from a newer idea.
        CorruptFile: A value does not match the format or breaks a profile rule, or two
            profiles share an id; the message gives the location.
    """
    return list(_decode(data, source).profiles)


def _decode(data: object, source: str) -> _Content:
    read = JsonReader(source)
    items, extra, at = read.listing(data, "profiles", SUPPORTED_VERSION)
    profiles: list[AgentProfile] = []
    for i, item in enumerate(items):
        item_at = index_at(at, i)
        profile = decode_profile(item, source, item_at)
        if any(other.id == profile.id for other in profiles):
            read.fail(key_at(item_at, "id"), f"the id {profile.id!r} is used twice")
        profiles.append(profile)
    return _Content(tuple(profiles), extra)


def decode_profile(data: object, source: str, at: str = "") -> AgentProfile:
    """One profile from its JSON object, validated (`validate_profile`).

    Args:
        data: The parsed JSON object.
        source: The file name for error messages.
        at: The JSON location of the object inside the file ("" for a file holding one).

    Raises:
        CorruptFile: A value does not match the format or breaks a rule.
    """
    read = JsonReader(source)
    obj = read.mapping(data, at)
    args_at = key_at(at, "args")
    env_at = key_at(at, "env")
    env = read.mapping(_or_default(obj.get("env"), {}), env_at)
    for name, value in env.items():
        if not isinstance(value, str):
            read.expect(value, key_at(env_at, name), "a string")
    profile = AgentProfile(
        id=read.text(obj, "id", at),
        name=read.text(obj, "name", at),
        command=read.text(obj, "command", at),
        context_injection=_injection(read, obj, at),
        args=_strings(read, _or_default(obj.get("args"), []), args_at),
        detect=read.optional_text(obj, "detect", at),
        cwd=read.optional_text(obj, "cwd", at) or DEFAULT_CWD,
        session=_session(read, obj.get("session"), key_at(at, "session")),
        mcp=_mcp(read, obj.get("mcp"), key_at(at, "mcp")),
        prompt_ready_pattern=read.optional_text(obj, "promptReadyPattern", at),
        rate_limit_pattern=read.optional_text(obj, "rateLimitPattern", at),
        submit_sequence=_or_default(
            read.optional_text(obj, "submitSequence", at), DEFAULT_SUBMIT_SEQUENCE
        ),
        submit_delay_ms=read.integer(obj, "submitDelayMs", at, default=DEFAULT_SUBMIT_DELAY_MS),
        env=dict(env),
        extra=unknown_keys(obj, _PROFILE_KEYS),
    )
    try:
        return validate_profile(profile)
    except InvalidProfile as error:
        read.fail(key_at(at, error.key), error.detail)


def _or_default(value: Any, default: Any) -> Any:
    return default if value is None else value  # absent or null; "" stays ""


def _strings(read: JsonReader, value: object, at: str) -> tuple[str, ...]:
    items = read.array(value, at)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            read.expect(item, index_at(at, i), "a string")
    return tuple(items)


_STRATEGIES: dict[str, tuple[type[Any], str | None]] = {
    "conventionFile": (ConventionFile, "target"),
    "configFile": (ConfigFile, "target"),
    "flag": (Flag, "flag"),
    "env": (Env, "var"),
    "stdin": (Stdin, None),
}
"""Wire tag → (value class, payload key) of the tagged strategy objects."""


def _strategy(read: JsonReader, value: object, at: str, allowed: tuple[str, ...]) -> Any:
    """The value of a `{"strategy": tag, <payload key>: ...}` object, unknown keys kept."""
    obj = read.mapping(value, at)
    tag = read.text(obj, "strategy", at)
    if tag not in allowed:
        read.fail(key_at(at, "strategy"), f"unknown strategy {tag!r} (one of {', '.join(allowed)})")
    cls, key = _STRATEGIES[tag]
    if key is None:
        return cls(unknown_keys(obj, ("strategy",)))
    return cls(read.text(obj, key, at), unknown_keys(obj, ("strategy", key)))


def _injection(read: JsonReader, obj: dict[str, Any], at: str) -> ContextInjection:
    value = read.required(obj, "contextInjection", at)
    kinds = ("conventionFile", "flag", "stdin", "env")
    injection: ContextInjection = _strategy(read, value, key_at(at, "contextInjection"), kinds)
    return injection


def _session(read: JsonReader, value: object, at: str) -> SessionTemplates | None:
    if value is None:
        return None
    obj = read.mapping(value, at)
    try:
        seed = SessionTemplates.from_seed_flags(
            read.optional_text(obj, "assignFlag", at), read.optional_text(obj, "resumeFlag", at)
        )
    except ValueError as error:
        read.fail(at, f"assignFlag or resumeFlag cannot be split into words ({error})")
    start, resume = seed.start_args, seed.resume_args
    if "startArgs" in obj:
        start = _strings(read, obj["startArgs"], key_at(at, "startArgs"))
    if "resumeArgs" in obj:
        resume = _strings(read, obj["resumeArgs"], key_at(at, "resumeArgs"))
    derived = any("{conversationId}" in word for word in start)
    known = read.flag(obj, "idKnownAtLaunch", at) if "idKnownAtLaunch" in obj else derived
    return SessionTemplates(start, resume, known, unknown_keys(obj, _SESSION_KEYS))


def _mcp(read: JsonReader, value: object, at: str) -> McpCapability | None:
    if value is None:
        return None
    obj = read.mapping(value, at)
    kinds = ("configFile", "flag", "env")
    config: McpConfig = _strategy(
        read, read.required(obj, "config", at), key_at(at, "config"), kinds
    )
    name = read.optional_text(obj, "transport", at) or McpTransport.STDIO.value
    try:
        transport = McpTransport(name)
    except ValueError:
        read.fail(key_at(at, "transport"), f"unknown transport {name!r} (stdio, socket or http)")
    return McpCapability(config, transport, unknown_keys(obj, ("config", "transport")))


# ─── Encoding ────────────────────────────────────────────────────────────────────────────


def encode_profiles(profiles: Iterable[AgentProfile], extra: dict[str, Any] | None = None) -> Any:
    """The JSON form of `profiles.json` (wrapped, see the module docstring)."""
    return {
        "version": SUPPORTED_VERSION,
        "profiles": [encode_profile(profile) for profile in profiles],
        **(extra or {}),
    }


def encode_profile(profile: AgentProfile) -> dict[str, Any]:
    """The JSON object of one profile, in the seed's key order."""
    obj: dict[str, Any] = {
        "id": profile.id,
        "name": profile.name,
        "command": profile.command,
        "args": list(profile.args),
        "contextInjection": _encode_strategy(profile.context_injection),
    }
    if profile.detect is not None:
        obj["detect"] = profile.detect
    obj["cwd"] = profile.cwd
    if profile.session is not None:
        session = profile.session
        obj["session"] = {
            "startArgs": list(session.start_args),
            "resumeArgs": list(session.resume_args),
            "idKnownAtLaunch": session.id_known_at_launch,
            **session.extra,
        }
    if profile.mcp is not None:
        obj["mcp"] = {
            "config": _encode_strategy(profile.mcp.config),
            "transport": profile.mcp.transport.value,
            **profile.mcp.extra,
        }
    if profile.prompt_ready_pattern is not None:
        obj["promptReadyPattern"] = profile.prompt_ready_pattern
    if profile.rate_limit_pattern is not None:
        obj["rateLimitPattern"] = profile.rate_limit_pattern
    if profile.submit_sequence != DEFAULT_SUBMIT_SEQUENCE:
        obj["submitSequence"] = profile.submit_sequence
    if profile.submit_delay_ms != DEFAULT_SUBMIT_DELAY_MS:
        obj["submitDelayMs"] = profile.submit_delay_ms
    if profile.env:
        obj["env"] = dict(profile.env)
    return {**obj, **profile.extra}


def _encode_strategy(value: ContextInjection | McpConfig) -> dict[str, Any]:
    tag, key = next((t, k) for t, (cls, k) in _STRATEGIES.items() if type(value) is cls)
    payload = {} if key is None else {key: getattr(value, key)}
    return {"strategy": tag, **payload, **value.extra}


# ─── The store ───────────────────────────────────────────────────────────────────────────


class ProfileStore:
    """Loads and saves the global `profiles.json`.

    Args:
        data_dir: idea's data directory (`$XDG_DATA_HOME/idea`), created on first write.
    """

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / FILE_NAME

    def exists(self) -> bool:
        """Whether profiles were ever saved (or the wizard skipped): no first-run wizard then.

        A file that exists but cannot be read counts too: the wizard must not replace it.
        """
        return self.path.exists()

    def load(self) -> list[AgentProfile]:
        """The configured profiles, in file order; empty when the file does not exist.

        Raises:
            CorruptFile: The file is not valid; it is left untouched.
            NewerVersion: The file comes from a newer idea; it is left untouched.
            FileAccessError: The system refused the read.
        """
        return list(self._read().profiles)

    def get(self, profile_id: str) -> AgentProfile:
        """The profile an agent's `profileId` designates (aliases resolved, D23).

        Raises:
            ProfileNotFound: No profile has that id.
        """
        profile = find_profile(self.load(), profile_id)
        if profile is None:
            raise ProfileNotFound(profile_id)
        return profile

    def save(self, profiles: Iterable[AgentProfile]) -> None:
        """Replace every profile (the wizard, the settings screen); unknown keys are kept.

        Raises:
            InvalidProfile: A profile breaks a rule; nothing is written.
            DuplicateProfile: Two profiles share an id; nothing is written.
            CorruptFile, NewerVersion: The file on disk cannot be read; it is NOT overwritten.
            FileAccessError: The system refused the write.
        """
        checked: list[AgentProfile] = []
        for profile in profiles:
            validate_profile(profile)
            if any(other.id == profile.id for other in checked):
                raise DuplicateProfile(profile.id)
            checked.append(profile)
        self._write(_Content(tuple(checked), self._read().extra))

    def add(self, profile: AgentProfile) -> AgentProfile:
        """Append a profile. Raises `DuplicateProfile` when its id is taken, else as `save`."""
        profiles = self.load()
        if any(other.id == profile.id for other in profiles):
            raise DuplicateProfile(profile.id)
        self.save([*profiles, profile])
        return profile

    def update(self, profile: AgentProfile) -> AgentProfile:
        """Replace the profile with the same id. Raises `ProfileNotFound`, else as `save`."""
        profiles = self.load()
        if not any(other.id == profile.id for other in profiles):
            raise ProfileNotFound(profile.id)
        self.save([profile if other.id == profile.id else other for other in profiles])
        return profile

    def remove(self, profile_id: str) -> AgentProfile:
        """Delete a profile (its agents then cannot launch). Raises `ProfileNotFound`."""
        profiles = self.load()
        removed = next((p for p in profiles if p.id == profile_id), None)
        if removed is None:
            raise ProfileNotFound(profile_id)
        self.save([p for p in profiles if p.id != profile_id])
        return removed

    def add_profile_from_file(self, path: Path) -> AgentProfile:
        """Add ONE profile read from a JSON file in the seed's format (`idea profile add`).

        Raises:
            CorruptFile: The file is not JSON or not a valid profile; the message names the
                file and the key.
            DuplicateProfile: A profile has that id already.
            FileAccessError: The system refused the read or the write.
        """
        return self.add(read_profile_file(path))

    def _read(self) -> _Content:
        try:
            data = read_json(self.path)
        except FileNotFoundError:
            return _Content((), {})
        return _decode(data, str(self.path))

    def _write(self, content: _Content) -> None:
        ensure_directory(self.path.parent)
        replace_json(
            self.path,
            encode_profiles(content.profiles, content.extra),
            lambda data: _decode(data, str(self.path)),
        )


def read_profile_file(path: Path) -> AgentProfile:
    """One profile from a JSON file holding a single profile object.

    Raises:
        CorruptFile: The file is not JSON, or not a valid profile (file and key named).
        FileAccessError: The file does not exist, or the system refused the read.
    """
    try:
        data = read_json(Path(path))
    except FileNotFoundError as error:
        raise FileAccessError(path, "read", "no such file") from error
    return decode_profile(data, str(path))
