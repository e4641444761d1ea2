"""Commands added by feature areas: name -> ("module:attribute", short help)."""

from __future__ import annotations

EXTRA: dict[str, tuple[str, str]] = {}
EXTRA["eval"] = ("helix.cli.eval_cmd:command", "Run eval suites (dry runs): hit@k, MRR, A/B gates.")
