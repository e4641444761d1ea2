"""An owner's members named for a question's verb, the ones product code calls first.

"where is the BM25 index built?" looks up `BM25Index.build` (`controller.names`: the owner the
question names, its action as the member). A class often does one thing several ways
(`build`, `build_from_term_ids`, `build_with_files`) and the one spelled exactly like the verb
need not be the one the product runs: the question's words sit in the owner's name and the
docstring, the verb only starts the member's name. So the lookup also takes the owner's other
members whose name starts with the verb (`build_*`, `buildIndex`) when code outside tests,
benchmarks and examples calls them from another file, and orders every member it found by
that call graph prior: more product callers first, then a larger share of product callers
among all callers (a member mostly called by tests and benchmarks is a reference entry point,
not the product's path), then the exact member, then the shorter name. When the product runs
the verb through another member, an exact member that only tests, benchmarks or examples call
is left out (it stays reachable by every other channel).

A member no product code calls keeps today's order (the exact one, alone): a library's public
methods have no callers inside it, and the prior then says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from helix.core.english import stems
from helix.core.schemas import SymbolDef
from indexers.graph import is_test_path

# Directories of code that exercises the product rather than being it: a definition only they
# call is not what the product runs (tests are `indexers.graph.is_test_path`).
SUPPORT_DIRS = frozenset({"benchmarks", "benchmark", "bench", "examples", "example"})
_FIRST_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Za-z][a-z0-9]*")


class Member(NamedTuple):
    node_id: str
    qualname: str
    product: int  # callers in product code (other files)
    callers: int  # callers of any kind (other files)
    exact: bool  # the member the lookup spelled


def is_support_path(path: str) -> bool:
    """A test, benchmark or example file: code that runs the product, not the product."""
    return is_test_path(path) or any(part in SUPPORT_DIRS for part in path.split("/")[:-1])


def first_word(member: str) -> str:
    """A member name's first word, lowercased and stemmed: `build_with_files`, `buildIndex`,
    `builds` -> build."""
    match = _FIRST_WORD.search(member.lstrip("_"))
    return stems(match.group(0).lower())[0] if match else ""


def _path_of(graph: Any, node: str) -> str:
    if node in graph:
        return str(graph.nodes[node].get("path") or "")
    return node.split(":", 1)[-1].split("::", 1)[0]


def callers_of(graph: Any, node: str) -> tuple[int, int]:
    """(product callers, all callers) of a definition, each caller once, its own file's left
    out (a class delegating to itself says nothing of who runs it)."""
    own = _path_of(graph, node)
    product = total = 0
    for caller in sorted({u for u, _, key in graph.in_edges(node, keys=True) if key == "calls"}):
        path = _path_of(graph, caller)
        if path == own:
            continue
        total += 1
        product += not is_support_path(path)
    return product, total


def prior_key(member: Member) -> tuple[int, float, bool, int, str]:
    share = member.product / member.callers if member.callers else 0.0
    return (-member.product, -share, not member.exact, len(member.qualname), member.node_id)


def verb_members(graph: Any, owners: Sequence[SymbolDef], member: str) -> list[Member]:
    """The owners' members named for `member`'s verb: the exact one if it exists, and the
    others starting with the verb that product code calls; by `prior_key`."""
    verb = first_word(member)
    out: list[Member] = []
    for owner in owners:
        if owner.node_id not in graph:
            continue
        children = sorted({v for _, v, key in graph.out_edges(owner.node_id, keys=True)
                           if key == "contains"})
        for child in children:
            name = str(graph.nodes[child].get("name") or child.rsplit(".", 1)[-1])
            exact = name == member
            if not exact and (not verb or first_word(name) != verb):
                continue
            product, total = callers_of(graph, child)
            if exact or product:
                out.append(Member(child, f"{owner.qualname}.{name}", product, total, exact))
    if any(m.product and not m.exact for m in out):
        # the product runs the verb by another member: the exact one only tests, benchmarks
        # or examples call is theirs, not what the question is after
        out = [m for m in out if m.product or not m.callers]
    return sorted(out, key=prior_key)
