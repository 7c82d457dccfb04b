"""Git as idea sees it: frozen values (`model`), the port (`port`), errors, and pure helpers
(hunk patches `patch`, graph lanes `graph`). No I/O here; the adapters do it."""
