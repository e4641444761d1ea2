"""The definition the others derive from comes first among same-named ones.

A name defined in several files (a base dialect's `DropViewStatementSegment` and each
dialect's override of it; an interface and its implementations named alike) ranks those
definitions by small differences of wording. The one whose file the others' files import is the
one they build on: within each group of same-named definitions in the ranked evidence, it takes
the group's first place, the rest keep their order, unless the question names one of the
files ("in the Hive dialect"): that one goes first. Pure: the caller reads the imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from helix.core.schemas import Chunk


def _name(chunk: Chunk) -> str | None:
    if chunk.kind != "code_def" or not chunk.symbol:
        return None
    return chunk.symbol.rsplit(".", 1)[-1]


def _stem_words(path: str) -> frozenset[str]:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    return frozenset(w for w in re.split(r"[^a-z0-9]+", stem) if w)


def _first(members: list[int], chunks: Sequence[Chunk], asked: frozenset[str],
           built_on: Callable[[int], int]) -> int:
    """The member that takes the group's first place: the one whose file the question names
    ("the Hive dialect's ..." -> dialect_hive.py), else the one the others build on."""
    stems = {p: _stem_words(chunks[p].path) for p in members}
    shared = frozenset.intersection(*stems.values())
    named = [p for p in members if (stems[p] - shared) & asked]
    if named:
        return named[0]
    best = min(members, key=lambda p: (-built_on(p), p))
    return best if built_on(best) > built_on(members[0]) else members[0]


def canonical_order(chunks: Sequence[Chunk], importers: Callable[[str], frozenset[str]],
                    asked: frozenset[str] = frozenset()) -> list[int]:
    """Positions of `chunks` in their new order. `importers(path)`: the files importing it;
    `asked`: the question's words, lower-cased."""
    groups: dict[str, list[int]] = {}
    for position, chunk in enumerate(chunks):
        name = _name(chunk)
        if name is not None:
            groups.setdefault(name, []).append(position)
    order = list(range(len(chunks)))
    for members in groups.values():
        paths = {chunks[p].path for p in members}
        if len(paths) < 2:
            continue

        def built_on(position: int, paths: set[str] = paths) -> int:
            path = chunks[position].path
            return len((importers(path) & paths) - {path})

        first = _first(members, chunks, asked, built_on)
        if first != members[0]:
            # only the group's first place changes: that member moves up, the rest keep order
            rest = [p for p in members if p != first]
            for slot, position in zip(members, [first, *rest], strict=True):
                order[slot] = position
    return order
