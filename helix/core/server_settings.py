"""What a long-running Helix (`helix serve`, `helix mcp --http`) lets a client take: the
`server` section of the settings. Yours only: a repository's own config cannot set any of it
(`helix.core.config.REPO_SECTIONS`), so a repository never raises a limit of the server that
reads it.

Every bound below holds per request: a body is counted as it streams (not only its
`Content-Length`), a request's head and its body each have a deadline (a client that trickles
them, slowloris, is cut off), an idle kept-alive connection is closed, and without a token a
request is answered only when its `Host` (and `Origin`, when sent) names this loopback server,
so a web page cannot reach it by DNS rebinding.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from helix.core.schemas import FrozenSettings

MIB = 1024 * 1024
HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-:[]_")


class ServerSettings(FrozenSettings):
    # bytes of one request body (a pasted report is at most 200,000 characters); counted as
    # the body arrives, chunked or not: over it, 413 and the connection is closed
    max_body_bytes: int = Field(default=1_000_000, ge=1024, le=64 * MIB)
    # bytes of a request's head (request line and headers; h11's own default)
    max_header_bytes: int = Field(default=16 * 1024, ge=1024, le=MIB)
    # seconds from a connection's first byte (or its opening) to the end of the request head
    header_timeout_s: float = Field(default=10.0, gt=0, le=600)
    # seconds from the end of the head to the end of the body
    body_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    # seconds an idle kept-alive connection stays open between requests
    keep_alive_s: int = Field(default=5, ge=1, le=600)
    # connections open at once: past it, a new request gets 503
    max_connections: int = Field(default=100, ge=1, le=10_000)
    # Host values answered besides this server's loopback names with its port, without a
    # token (`name` accepts `name:<port>` too); with a token every Host is answered
    allowed_hosts: tuple[str, ...] = ()
    # Origin values answered besides the loopback origins of this server's port
    allowed_origins: tuple[str, ...] = ()

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for host in value:
            if not host or not set(host.lower()) <= HOST_CHARS:
                raise ValueError(f"{host!r} is not a host name (name, name:port, [v6]:port)")
        return tuple(host.lower() for host in value)

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for origin in value:
            scheme, sep, rest = origin.partition("://")
            if scheme not in ("http", "https") or not sep or not rest \
                    or not set(rest.lower()) <= HOST_CHARS:
                raise ValueError(f"{origin!r} is not an origin (http://name[:port])")
        return tuple(origin.lower() for origin in value)
