"""A loopback port for a server a test starts (or for an address nothing listens on)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback TCP port free at the moment of asking (the OS's pick for port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
