"""Loading libghostty-vt (the shared library `pyghostty` ships) with only the declarations
idea uses.

`pyghostty`'s own binding declares the whole C API (3,500 lines) at import, which pycparser
takes 0.5–3 s to read on a loaded machine, every daemon start; the ≈ 110 lines here take a
few milliseconds. The library file is found without importing pyghostty (its wheel is the
only supported source: `pyghostty==0.1.3`); `PYGHOSTTY_LIB` names another file, as
pyghostty allows. `tests/adapters/emulator/test_ghostty.py` checks every declaration and
constant here against pyghostty's full ones.

`load()` returns the binding or raises `GhosttyUnavailable` with a reason a user can act on
(the wheel is not installed on this platform, the shared library does not load, it lacks a
function). The composition root turns that into a fallback to pyte with the reason logged.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Enumerations are ints in the C ABI (each C enum has a 0x7FFFFFFF member); a tagged union
# passed by value (the scroll-viewport request) is declared as a layout-identical struct,
# which ABI-mode cffi can pass (libffi cannot pass unions); so is the grid point (`IdeaPointS`,
# `GhosttyPoint`'s twin) that asks a cell's hyperlink.
CDEF = r"""
typedef struct GhosttyTerminalImpl* GhosttyTerminal;
typedef struct GhosttyRenderStateImpl* GhosttyRenderState;
typedef struct GhosttyRenderStateRowIteratorImpl* GhosttyRenderStateRowIterator;
typedef struct GhosttyRenderStateRowCellsImpl* GhosttyRenderStateRowCells;
typedef struct { const uint8_t* ptr; size_t len; } GhosttyString;
typedef struct { uint8_t r; uint8_t g; uint8_t b; } GhosttyColorRgb;
typedef uint64_t GhosttyCell;
typedef uint64_t GhosttyRow;
typedef struct { const GhosttyCell* ptr; size_t len; } GhosttyCellsView;
typedef union { uint8_t palette; GhosttyColorRgb rgb; uint64_t _padding; } GhosttyStyleColorValue;
typedef struct { int tag; GhosttyStyleColorValue value; } GhosttyStyleColor;
typedef struct {
  size_t size;
  GhosttyStyleColor fg_color;
  GhosttyStyleColor bg_color;
  GhosttyStyleColor underline_color;
  bool bold; bool italic; bool faint; bool blink; bool inverse; bool invisible;
  bool strikethrough; bool overline;
  int underline;
} GhosttyStyle;
typedef struct { uint16_t conformance_level; uint16_t features[64]; size_t num_features;
    } GhosttyDeviceAttributesPrimary;
typedef struct { uint16_t device_type; uint16_t firmware_version; uint16_t rom_cartridge;
    } GhosttyDeviceAttributesSecondary;
typedef struct { uint32_t unit_id; } GhosttyDeviceAttributesTertiary;
typedef struct {
  GhosttyDeviceAttributesPrimary primary;
  GhosttyDeviceAttributesSecondary secondary;
  GhosttyDeviceAttributesTertiary tertiary;
} GhosttyDeviceAttributes;
typedef struct { uint16_t rows; uint16_t columns; uint32_t cell_width; uint32_t cell_height;
    } GhosttySizeReportSize;
typedef struct { uint16_t mode; bool value; } GhosttyTerminalModeConfig;
typedef struct { GhosttyString mime; GhosttyString data; } GhosttyClipboardContent;
typedef struct GhosttyClipboardWrite GhosttyClipboardWrite;
typedef struct { size_t size; int result; bool remember; } GhosttyClipboardWriteReply;
typedef void (*GhosttyClipboardWriteReplyFn)(const GhosttyClipboardWrite* write,
                                             const GhosttyClipboardWriteReply* reply);
struct GhosttyClipboardWrite {
  size_t size;
  int location;
  const GhosttyClipboardContent* contents;
  size_t contents_len;
  GhosttyString name;
  bool granted;
  bool can_remember;
  const void* ctx;
  GhosttyClipboardWriteReplyFn reply;
};
typedef struct { size_t size; GhosttyString title; GhosttyString body;
    } GhosttyTerminalDesktopNotification;
typedef struct {
  size_t size;
  bool viewport_has_value;
  uint16_t viewport_x;
  uint16_t viewport_y;
  bool wide_tail;
  bool visible;
  bool blinking;
  bool password_input;
  int visual_style;
} GhosttyRenderStateCursor;
typedef struct { int tag; uint64_t value[2]; } IdeaScrollViewportS;
typedef struct { size_t size; void* node; uint16_t x; uint16_t y; } GhosttyGridRef;
typedef struct { uint16_t x; uint32_t y; uint64_t _pad; } IdeaPointValueS;
typedef struct { int tag; IdeaPointValueS value; } IdeaPointS;
typedef struct { uint64_t bits[2]; } GhosttyRenderStateRowId;

typedef void (*GhosttyTerminalBellFn)(GhosttyTerminal, void*);
typedef void (*GhosttyTerminalClipboardWriteFn)(GhosttyTerminal, void*,
    const GhosttyClipboardWrite*);
typedef void (*GhosttyTerminalDesktopNotificationFn)(GhosttyTerminal, void*,
    const GhosttyTerminalDesktopNotification*);
typedef bool (*GhosttyTerminalDeviceAttributesFn)(GhosttyTerminal, void*, GhosttyDeviceAttributes*);
typedef bool (*GhosttyTerminalSizeFn)(GhosttyTerminal, void*, GhosttySizeReportSize*);
typedef void (*GhosttyTerminalTitleChangedFn)(GhosttyTerminal, void*);
typedef void (*GhosttyTerminalRenderHoldFn)(GhosttyTerminal, void*, bool);
typedef void (*GhosttyTerminalPwdChangedFn)(GhosttyTerminal, void*);
typedef void (*GhosttyTerminalWritePtyFn)(GhosttyTerminal, void*, const uint8_t*, size_t);

int ghostty_terminal_new(const void* allocator, GhosttyTerminal* terminal, uint16_t cols,
    uint16_t rows);
void ghostty_terminal_free(GhosttyTerminal terminal);
int ghostty_terminal_resize(GhosttyTerminal terminal, uint16_t cols, uint16_t rows,
                            uint32_t cell_width_px, uint32_t cell_height_px);
int ghostty_terminal_set(GhosttyTerminal terminal, int option, const void* value);
void ghostty_terminal_vt_write(GhosttyTerminal terminal, const uint8_t* data, size_t len);
int ghostty_terminal_get(GhosttyTerminal terminal, int data, void* out);
void ghostty_terminal_scroll_viewport(GhosttyTerminal terminal, IdeaScrollViewportS behavior);
int ghostty_terminal_compression_activity(GhosttyTerminal terminal, uint64_t* out_activity);
int ghostty_terminal_compress(GhosttyTerminal terminal, int mode, int* out_result);
int ghostty_terminal_grid_ref(GhosttyTerminal terminal, IdeaPointS point, GhosttyGridRef* out_ref);
int ghostty_grid_ref_hyperlink_uri(const GhosttyGridRef* ref, uint8_t* buf, size_t buf_len,
    size_t* out_len);

int ghostty_render_state_new(const void* allocator, GhosttyRenderState* state);
void ghostty_render_state_free(GhosttyRenderState state);
int ghostty_render_state_update(GhosttyRenderState state, GhosttyTerminal terminal);
int ghostty_render_state_get(GhosttyRenderState state, int data, void* out);
int ghostty_render_state_set(GhosttyRenderState state, int option, const void* value);
int ghostty_render_state_clean(GhosttyRenderState state);
int ghostty_render_state_row_iterator_new(const void* allocator,
    GhosttyRenderStateRowIterator* out);
void ghostty_render_state_row_iterator_free(GhosttyRenderStateRowIterator iterator);
bool ghostty_render_state_row_iterator_next(GhosttyRenderStateRowIterator iterator);
bool ghostty_render_state_row_iterator_next_dirty(GhosttyRenderStateRowIterator iterator,
    uint16_t* out_y);
int ghostty_render_state_row_get(GhosttyRenderStateRowIterator iterator, int data, void* out);
int ghostty_row_get(GhosttyRow row, int data, void* out);
int ghostty_render_state_row_cells_new(const void* allocator, GhosttyRenderStateRowCells* out);
int ghostty_render_state_row_cells_select(GhosttyRenderStateRowCells cells, uint16_t x);
int ghostty_render_state_row_cells_get(GhosttyRenderStateRowCells cells, int data, void* out);
void ghostty_render_state_row_cells_free(GhosttyRenderStateRowCells cells);

#define GHOSTTY_TERMINAL_OPT_WRITE_PTY 1
#define GHOSTTY_TERMINAL_OPT_BELL 2
#define GHOSTTY_TERMINAL_OPT_TITLE_CHANGED 5
#define GHOSTTY_TERMINAL_OPT_SIZE 6
#define GHOSTTY_TERMINAL_OPT_DEVICE_ATTRIBUTES 8
#define GHOSTTY_TERMINAL_OPT_COLOR_FOREGROUND 11
#define GHOSTTY_TERMINAL_OPT_DEFAULT_CURSOR_STYLE 22
#define GHOSTTY_TERMINAL_OPT_PWD_CHANGED 25
#define GHOSTTY_TERMINAL_OPT_CLIPBOARD_WRITE 26
#define GHOSTTY_TERMINAL_OPT_SCROLLBACK_MAX_BYTES 27
#define GHOSTTY_TERMINAL_OPT_SCROLLBACK_MAX_LINES 28
#define GHOSTTY_TERMINAL_OPT_DESKTOP_NOTIFICATION 29
#define GHOSTTY_TERMINAL_OPT_MODE 34
#define GHOSTTY_TERMINAL_OPT_RENDER_HOLD 41
#define GHOSTTY_TERMINAL_DATA_CURSOR_X 3
#define GHOSTTY_TERMINAL_DATA_CURSOR_Y 4
#define GHOSTTY_TERMINAL_DATA_CURSOR_PENDING_WRAP 5
#define GHOSTTY_TERMINAL_DATA_ACTIVE_SCREEN 6
#define GHOSTTY_TERMINAL_DATA_CURSOR_VISIBLE 7
#define GHOSTTY_TERMINAL_DATA_KITTY_KEYBOARD_FLAGS 8
#define GHOSTTY_TERMINAL_DATA_MOUSE_TRACKING 11
#define GHOSTTY_TERMINAL_DATA_TITLE 12
#define GHOSTTY_TERMINAL_DATA_PWD 13
#define GHOSTTY_TERMINAL_DATA_SCROLLBACK_ROWS 15
#define GHOSTTY_TERMINAL_DATA_MODE 37
#define GHOSTTY_TERMINAL_SCREEN_ALTERNATE 1
#define GHOSTTY_RENDER_STATE_DATA_DIRTY 3
#define GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR 4
#define GHOSTTY_RENDER_STATE_DATA_CURSOR 18
#define GHOSTTY_RENDER_STATE_DIRTY_FALSE 0
#define GHOSTTY_RENDER_STATE_DIRTY_FULL 2
#define GHOSTTY_RENDER_STATE_ROW_DATA_DIRTY 1
#define GHOSTTY_RENDER_STATE_ROW_DATA_RAW 2
#define GHOSTTY_RENDER_STATE_ROW_DATA_CELLS 3
#define GHOSTTY_RENDER_STATE_ROW_DATA_CELLS_RAW 5
#define GHOSTTY_RENDER_STATE_ROW_DATA_ID 7
#define GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_STYLE 2
#define GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_GRAPHEMES_LEN 3
#define GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_GRAPHEMES_BUF 4
#define GHOSTTY_SCROLL_VIEWPORT_BOTTOM 1
#define GHOSTTY_ROW_DATA_WRAP 1
#define GHOSTTY_POINT_TAG_VIEWPORT 1
#define GHOSTTY_SCROLL_VIEWPORT_ROW 3
#define GHOSTTY_STYLE_COLOR_PALETTE 1
#define GHOSTTY_TERMINAL_COMPRESSION_MODE_INCREMENTAL 0
#define GHOSTTY_TERMINAL_COMPRESSION_RESULT_PENDING 1
#define GHOSTTY_STYLE_COLOR_RGB 2
"""


_log = logging.getLogger(__name__)

# A library built without them (`PYGHOSTTY_LIB` may name any build) still works: its
# history just stays uncompressed.
OPTIONAL_FUNCTIONS = frozenset(
    {"ghostty_terminal_compress", "ghostty_terminal_compression_activity"}
)


class GhosttyUnavailable(RuntimeError):
    """libghostty-vt cannot be used here; the message says why."""


@dataclass(frozen=True)
class Binding:
    ffi: Any
    lib: Any
    version: str
    compresses: bool = False
    """The library can compress idle scrollback (`OPTIONAL_FUNCTIONS`)."""


_binding: Binding | None = None
_failure: str | None = None


def load() -> Binding:
    """The loaded binding (loaded once per process), or `GhosttyUnavailable`."""
    global _binding, _failure
    if _binding is not None:
        return _binding
    if _failure is not None:
        raise GhosttyUnavailable(_failure)
    try:
        _binding = _load()
    except GhosttyUnavailable as error:
        _failure = str(error)
        raise
    return _binding


def library_path() -> Path:
    """The libghostty-vt file: `PYGHOSTTY_LIB`, else the one in pyghostty's wheel."""
    named = os.environ.get("PYGHOSTTY_LIB")
    if named:
        return Path(named)
    spec = importlib.util.find_spec("pyghostty")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        raise GhosttyUnavailable(
            "pyghostty is not installed (it has wheels for Linux x86_64/aarch64 only)"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "_lib"
    for suffix in (".so", ".dylib", ".dll"):
        candidate = folder / f"libghostty-vt{suffix}"
        if candidate.exists():
            return candidate
    raise GhosttyUnavailable(f"pyghostty is installed but has no libghostty-vt in {folder}")


FFI_MODULE = Path(__file__).with_name("_ghostty_ffi.py")
"""`CDEF` compiled by cffi into a Python module (cffi's out-of-line ABI mode: no C
compiler, just the parsed declarations): loading it skips pycparser, which costs the daemon
some 2 MB and a few milliseconds at every start. Regenerate it after changing `CDEF` with
`python -m adapters.emulator.ghostty_lib`; a test checks it declares the same."""


def ffi_module_source() -> str:
    """What `FFI_MODULE` must hold for the current `CDEF`."""
    from cffi import FFI

    builder = FFI()
    builder.cdef(CDEF)
    builder.set_source("adapters.emulator._ghostty_ffi", None)
    with tempfile.TemporaryDirectory() as folder:
        return Path(builder.compile(folder)).read_text(encoding="utf-8")


def _declarations() -> Any:
    """The FFI holding `CDEF`: the precompiled module, else parsed now (a cffi too old
    or too new for the module still works, only slower to start)."""
    try:
        from adapters.emulator._ghostty_ffi import ffi

        return ffi
    except Exception as error:
        _log.debug("the precompiled declarations do not load (%r): parsing them", error)
    from cffi import FFI

    ffi = FFI()
    ffi.cdef(CDEF)
    return ffi


def _load() -> Binding:
    try:
        import _cffi_backend  # noqa: F401  (what the declarations need)
    except ImportError as error:
        raise GhosttyUnavailable(f"cffi is not installed ({error})") from error
    path = library_path()
    try:
        ffi = _declarations()
        lib = ffi.dlopen(str(path))
    except OSError as error:
        raise GhosttyUnavailable(f"libghostty-vt does not load: {error}") from error
    except Exception as error:  # a broken install must not stop the daemon
        raise GhosttyUnavailable(f"libghostty-vt does not load: {error!r}") from error
    missing = [
        name for name in _FUNCTIONS if name not in OPTIONAL_FUNCTIONS and not _has(lib, name)
    ]
    if missing:
        raise GhosttyUnavailable(f"libghostty-vt at {path} lacks {', '.join(missing)}")
    try:
        version = importlib.metadata.version("pyghostty")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    compresses = all(_has(lib, name) for name in OPTIONAL_FUNCTIONS)
    return Binding(ffi, lib, version, compresses)


def _has(lib: Any, name: str) -> bool:
    try:
        getattr(lib, name)
    except AttributeError:
        return False
    return True


_FUNCTIONS = tuple(
    line.split("(")[0].split()[-1].lstrip("*")
    for line in CDEF.splitlines()
    if line.startswith(("int ghostty_", "void ghostty_", "bool ghostty_"))
)



def available() -> str | None:
    """None when libghostty-vt loads, else the reason it does not."""
    try:
        load()
    except GhosttyUnavailable as error:
        return str(error)
    return None


if __name__ == "__main__":
    FFI_MODULE.write_text(ffi_module_source(), encoding="utf-8")
    print(f"wrote {FFI_MODULE}")
