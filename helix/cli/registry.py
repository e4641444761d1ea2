"""Commands added by feature areas: name -> ("module:attribute", short help)."""

from __future__ import annotations

EXTRA: dict[str, tuple[str, str]] = {}
