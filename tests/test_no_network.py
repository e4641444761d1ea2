"""The test suite's own guard: a connection to anything but loopback fails at once."""

from __future__ import annotations

import socket

import pytest
from conftest import NetworkRefused


def test_an_outside_address_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, \
            pytest.raises(NetworkRefused):
        sock.connect(("93.184.216.34", 80))


def test_loopback_is_allowed() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            client.connect(server.getsockname())
