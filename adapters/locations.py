"""Where idea keeps its files: the one module that knows the XDG paths (DECISIONS D18).

`IDEA_HOME` puts everything under one folder (tests use it). Without it:
data    `$XDG_DATA_HOME/idea`   (~/.local/share/idea)
state   `$XDG_STATE_HOME/idea`  (~/.local/state/idea) — logs
config  `$XDG_CONFIG_HOME/idea` (~/.config/idea)
runtime `$XDG_RUNTIME_DIR/idea`, else `/tmp/idea-$UID` — sockets, pid file
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# sun_path is 108 bytes on Linux including the terminating NUL (104 on macOS).
MAX_SOCKET_PATH = 100


class RuntimeDirError(Exception):
    """The runtime directory exists but is unsafe to use."""


class Locations:
    """The four folders (a frozen value). Written out rather than a dataclass: every `idea`
    command resolves them first, and the dataclasses module (with the inspect it loads)
    would be most of what `idea attach` imports before its first frame."""

    __slots__ = ("config", "data", "runtime", "state")
    data: Path
    state: Path
    config: Path
    runtime: Path

    def __init__(self, data: Path, state: Path, config: Path, runtime: Path) -> None:
        for name, value in (("data", data), ("state", state), ("config", config),
                            ("runtime", runtime)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Locations are frozen: cannot set {name}")

    def _fields(self) -> tuple[Path, Path, Path, Path]:
        return self.data, self.state, self.config, self.runtime

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Locations):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"Locations(data={self.data!r}, state={self.state!r}, "
                f"config={self.config!r}, runtime={self.runtime!r})")

    @property
    def socket(self) -> Path:
        path = self.runtime / "daemon.sock"
        if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
            return path
        # An IDEA_HOME deep in a temp tree makes the path too long for AF_UNIX: use a
        # short, stable path derived from it instead (hashlib only then: the client's start
        # does not pay for it otherwise).
        import hashlib

        digest = hashlib.sha256(os.fsencode(self.runtime)).hexdigest()[:16]
        return Path(f"/tmp/idea-{os.getuid()}-{digest}.sock")

    @property
    def mcp_socket(self) -> Path:
        """The MCP bridge socket (`ss -xp | grep idea-mcp` finds it, FEATURES MCP-3)."""
        path = self.runtime / "idea-mcp.sock"
        if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
            return path
        import hashlib

        digest = hashlib.sha256(os.fsencode(self.runtime)).hexdigest()[:16]
        return Path(f"/tmp/idea-mcp-{os.getuid()}-{digest}.sock")

    @property
    def pid_file(self) -> Path:
        return self.runtime / "daemon.pid"

    @property
    def lock_file(self) -> Path:
        return self.runtime / "daemon.lock"

    @property
    def log_file(self) -> Path:
        return self.state / "daemon.log"

    @property
    def config_file(self) -> Path:
        return self.config / "config.toml"

    @property
    def registry_file(self) -> Path:
        return self.data / "projects.json"

    @property
    def workspace_file(self) -> Path:
        return self.data / "workspace.json"


def locate(env: Mapping[str, str] | None = None) -> Locations:
    """Resolve the folders from the environment (no directory is created here)."""
    env = os.environ if env is None else env
    home_override = env.get("IDEA_HOME")
    if home_override:
        root = Path(home_override).expanduser().absolute()
        return Locations(root / "data", root / "state", root / "config", root / "run")
    home = Path(env.get("HOME") or Path.home())

    def xdg(name: str, default: Path) -> Path:
        value = env.get(name)
        return Path(value) if value and Path(value).is_absolute() else default

    runtime_base = env.get("XDG_RUNTIME_DIR")
    runtime = (
        Path(runtime_base) / "idea"
        if runtime_base and Path(runtime_base).is_absolute()
        else Path(f"/tmp/idea-{os.getuid()}")
    )
    return Locations(
        data=xdg("XDG_DATA_HOME", home / ".local" / "share") / "idea",
        state=xdg("XDG_STATE_HOME", home / ".local" / "state") / "idea",
        config=xdg("XDG_CONFIG_HOME", home / ".config") / "idea",
        runtime=runtime,
    )


def ensure_private_dir(path: Path) -> None:
    """Create `path` as a 0700 directory owned by us, or refuse one another user owns."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirError(f"{path} is not a directory")
    if info.st_uid != os.getuid():
        raise RuntimeDirError(
            f"{path} belongs to another user (uid {info.st_uid}); refusing to use it. "
            "Remove it or set XDG_RUNTIME_DIR / IDEA_HOME."
        )
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)


def ensure_dirs(locations: Locations) -> None:
    for folder in (locations.data, locations.state, locations.config):
        folder.mkdir(parents=True, exist_ok=True)
    ensure_private_dir(locations.runtime)
