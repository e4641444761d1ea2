"""tests/net_helpers.py: the one free-port probe the server tests share."""

from __future__ import annotations

import socket

from tests.net_helpers import free_port


def test_free_port_can_be_listened_on_and_reached_at_once() -> None:
    port = free_port()
    assert 0 < port < 65536
    with socket.socket() as server:
        server.bind(("127.0.0.1", port))
        server.listen(1)
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            accepted, _ = server.accept()
            accepted.close()
