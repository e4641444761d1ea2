"""The continuity vocabulary file (`vocabulary.toml` beside this module), read once.

`compiled(name)` is the one way a module gets a pattern of it: the pattern's regex, case-blind
when its entry says `ignore_case = true`, compiled once. The router's phrases
(`controller.continuity.phrases`), a clarifier's replies (`controller.continuity.pending`) and
a selection's cues (`controller.continuity.selection_match`) all read their words from here;
`filler(name)` is the one way a lane gets a filler list (named groups of one table).
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from helix.core.english import said_positions

VOCABULARY: dict[str, Any] = tomllib.loads(
    resources.files("controller.continuity").joinpath("vocabulary.toml")
    .read_text(encoding="utf-8"))
PATTERNS: dict[str, dict[str, Any]] = VOCABULARY["patterns"]  # the router's
CUES: dict[str, dict[str, Any]] = VOCABULARY["cues"]  # read after routing, by the lanes
FILLER_GROUPS: dict[str, list[str]] = VOCABULARY["fillers"]["groups"]
FILLER_LISTS: dict[str, dict[str, list[str]]] = VOCABULARY["fillers"]["lists"]


@cache
def compiled(name: str) -> re.Pattern[str]:
    """The vocabulary's pattern `name`, compiled (case-blind if its entry says so)."""
    entry = PATTERNS[name] if name in PATTERNS else CUES[name]
    return re.compile(entry["regex"], re.IGNORECASE if entry.get("ignore_case") else 0)


def filler_words(name: str) -> tuple[str, ...]:
    """The filler list `name`: its groups' words and its own, each once, longest first (an
    alternation never stops at a shorter word: "same thing" before "same")."""
    entry = FILLER_LISTS[name]
    words = {w for group in entry["groups"] for w in FILLER_GROUPS[group]} | set(entry["words"])
    return tuple(sorted(words, key=lambda w: (-len(w), w)))


@cache
def filler(name: str) -> re.Pattern[str]:
    """The filler list `name` as one case-blind pattern of whole words."""
    return re.compile(rf"\b(?:{'|'.join(re.escape(w) for w in filler_words(name))})\b",
                      re.IGNORECASE)


# an ordinal said in another language ("doosra", "pangatlo", "la troisième"), whole words or
# phrases, longest first; a list noun joined to its number by a dash ("NUMBER-3", "item-2")
OTHER_ORDINALS: dict[str, str] = {k.lower(): v for k, v in
                                  VOCABULARY["other_language_ordinals"].items()}
_OTHER_ORDINAL = re.compile(
    r"(?<![\w-])(" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in
                              sorted(OTHER_ORDINALS, key=lambda w: (-len(w), w)))
    + r")(?![\w-])", re.IGNORECASE)
_NOUN_DASH_NUMBER = re.compile(
    r"\b(" + "|".join(re.escape(w) for w in VOCABULARY["lists"]["list_nouns"]
                      if w.isalpha()) + r")-(\d{1,2})\b", re.IGNORECASE)


def positions_said(text: str) -> str:
    """`helix.core.english.said_positions` of `text` after a position said in another language
    is written as the English ordinal ("yung pangalawa" -> "yung second", "doosra wala" ->
    "second wala") and a list noun dashed to its number is spaced ("NUMBER-3" -> "NUMBER 3"):
    what the continuity lanes' ordinal readers read."""
    text = _OTHER_ORDINAL.sub(lambda m: OTHER_ORDINALS[" ".join(m.group(1).lower().split())],
                              text)
    return said_positions(_NOUN_DASH_NUMBER.sub(r"\1 \2", text))
