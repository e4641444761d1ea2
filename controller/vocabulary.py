"""The one compiler of the question vocabulary (`controller/route_phrases.toml`).

A vocabulary file holds English as data: `[fragments]` (regex pieces), `[lists]` (word lists,
each entry a word, a phrase or a small regex of its inflections), `[actions]` (a table whose keys
are words), `[respell]` (a misspelt word -> the word it stands for), the ordered `[[route]]`
patterns and the named `[patterns.NAME]`. In a regex,
`{name}` stands for a fragment, or for a list's or a table's entries joined by "|" (a quantifier
such as `{0,3}` is left alone). Every pattern ignores case unless its `flags` says otherwise
("" for none, letters of `re` flags: "i", "m", "s"). Nothing here knows what a route is: the
reader (`controller/question.py`) applies what this compiles.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

ROUTE_PHRASES = Path(__file__).with_name("route_phrases.toml")
_NAME = re.compile(r"\{([a-z_]+)\}")
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


@dataclass(frozen=True)
class Phrase:
    """One compiled pattern with what the file says of it."""

    name: str
    regex: re.Pattern[str]
    examples: tuple[str, ...]
    purpose: str = ""
    route: str | None = None  # a [[route]] entry: the route it decides


@dataclass(frozen=True)
class Vocabulary:
    routes: tuple[Phrase, ...]  # in the file's order: the first that matches decides
    patterns: dict[str, Phrase]
    lists: dict[str, tuple[str, ...]]
    actions: dict[str, str]
    respell: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> re.Pattern[str]:
        return self.patterns[name].regex


def _flags(letters: str) -> int:
    flags = 0
    for letter in letters:
        flags |= _FLAGS[letter]
    return flags


def _compose(template: str, parts: dict[str, str]) -> str:
    def part(match: re.Match[str]) -> str:
        return parts.get(match.group(1), match.group(0))

    return _NAME.sub(part, template)


def _phrase(name: str, entry: dict[str, Any], parts: dict[str, str]) -> Phrase:
    regex = re.compile(_compose(entry["regex"], parts), _flags(entry.get("flags", "i")))
    return Phrase(name=name, regex=regex, examples=tuple(entry.get("examples", ())),
                  purpose=entry.get("purpose", ""), route=entry.get("route"))


def compile_vocabulary(data: dict[str, Any]) -> Vocabulary:
    """The vocabulary of a parsed file (see the module's docstring)."""
    lists = {name: tuple(words) for name, words in data.get("lists", {}).items()}
    actions = dict(data.get("actions", {}))
    parts = {**data.get("fragments", {}), **{name: "|".join(words) for name, words in
                                             lists.items()}, "actions": "|".join(actions)}
    routes = tuple(_phrase(entry["name"], entry, parts) for entry in data.get("route", ()))
    patterns = {name: _phrase(name, entry, parts)
                for name, entry in data.get("patterns", {}).items()}
    return Vocabulary(routes=routes, patterns=patterns, lists=lists, actions=actions,
                      respell=dict(data.get("respell", {})))


@cache
def load(path: Path = ROUTE_PHRASES) -> Vocabulary:
    """The compiled vocabulary of `path` (read and compiled once per process)."""
    return compile_vocabulary(tomllib.loads(path.read_text(encoding="utf-8")))
