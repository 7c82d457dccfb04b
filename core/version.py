"""The version of idea, shared by the client and the daemon."""

VERSION = "0.1.0"
