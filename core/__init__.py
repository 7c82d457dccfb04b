"""The pure domain of idea: value objects, pure operations and ports. No I/O here."""
