"""Why a span was kept, as typed codes; words only at the edge (`render`).

The controller decides on `Reason.code` (a definition the question asked for, a call site, a
span a doc section named), never on the text a person reads. `render` gives the envelope's
reason strings ("bm25#3", "symbol:exact", "defines Foo (named in docs/x.md)", "calls foo (line
12)"); `codes` gives the typed set the answer writer may test.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from helix.core.schemas import Frozen

ReasonCode = Literal[
    "rank",          # a channel list ranked it: channel + rank
    "symbol_exact",  # an exact definition of a name the lookup asked for
    "symbol_fuzzy",  # a close name, when no exact one exists
    "symbol_lead",   # an exact definition of a name a hit mentioned (not the question)
    "defines",       # it defines `name` (paired with a symbol_* code)
    "path_hint",     # a file the question names
    "neighbour",     # a graph neighbour: `edge` (tests, calls, documents, imports) of `name`
    "reference",     # a reference site of `name`: `edge` (calls, imports, references), `line`
    "aligned",       # doc-to-code alignment: defines `name`, named in the doc at `source`
    "aligned_test",  # doc-to-code alignment: a test of `name`
    "sense",         # a dominance sense's span: `name` holds the sense's words
    "in_file",       # the definition `name` of a file the evidence leads with answers best
    "in_file_more",  # a further definition `name` of such a file: for the model, never a lead
]


class Reason(Frozen):
    code: ReasonCode
    channel: str = ""
    rank: int = 0
    name: str = ""
    edge: str = ""
    line: int = 0
    source: str = ""


def rank(channel: str, position: int) -> Reason:
    return Reason(code="rank", channel=channel, rank=position)


def render(reason: Reason) -> str:
    code = reason.code
    if code == "rank":
        return f"{reason.channel}#{reason.rank}"
    if code in ("symbol_exact", "symbol_fuzzy", "symbol_lead"):
        return "symbol:" + code.split("_", 1)[1]
    if code == "defines":
        return f"defines {reason.name}"
    if code == "path_hint":
        return "path hint"
    if code == "neighbour":
        return f"{reason.edge} {reason.name}"
    if code == "reference":
        return f"{reason.edge} {reason.name} (line {reason.line})"
    if code == "in_file_more":
        return f"also in the file: {reason.name}"
    if code == "in_file":
        return f"best in its file: {reason.name}"
    if code == "aligned":
        return f"defines {reason.name} (named in {reason.source})"
    if code == "aligned_test":
        return f"tests {reason.name}"
    return f"sense: {reason.name}"


def render_all(reasons: Iterable[Reason]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(render(r) for r in reasons))


def codes(reasons: Iterable[Reason]) -> tuple[ReasonCode, ...]:
    """The distinct codes, sorted: what the envelope carries for typed decisions."""
    return tuple(sorted({r.code for r in reasons}))


def has(reasons: Iterable[Reason], *wanted: ReasonCode) -> bool:
    return any(r.code in wanted for r in reasons)


def is_site(reason: Reason) -> bool:
    """A place that uses the symbol: a reference site, a caller, importer or test of it (a
    documenting section is not a use)."""
    return reason.code in ("reference", "aligned_test") or (
        reason.code == "neighbour" and reason.edge not in ("documents", "called by"))


def channels(reasons: Iterable[Reason]) -> tuple[str, ...]:
    return tuple(sorted({r.channel for r in reasons if r.code == "rank"}))
