"""The continuity vocabulary file (`vocabulary.toml` beside this module), read once.

`compiled(name)` is the one way a module gets a pattern of it: the pattern's regex, case-blind
when its entry says `ignore_case = true`, compiled once. The router's phrases
(`controller.continuity.phrases`), a clarifier's replies (`controller.continuity.pending`) and
a selection's cues (`controller.continuity.selection_match`) all read their words from here.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources
from typing import Any

VOCABULARY: dict[str, Any] = tomllib.loads(
    resources.files("controller.continuity").joinpath("vocabulary.toml")
    .read_text(encoding="utf-8"))
PATTERNS: dict[str, dict[str, Any]] = VOCABULARY["patterns"]  # the router's
CUES: dict[str, dict[str, Any]] = VOCABULARY["cues"]  # read after routing, by the lanes


@cache
def compiled(name: str) -> re.Pattern[str]:
    """The vocabulary's pattern `name`, compiled (case-blind if its entry says so)."""
    entry = PATTERNS[name] if name in PATTERNS else CUES[name]
    return re.compile(entry["regex"], re.IGNORECASE if entry.get("ignore_case") else 0)
