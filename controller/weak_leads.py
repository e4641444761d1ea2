"""A weakly backed file's only item yields its place in the first five (round 26, off by
default: `retrieval.file_defs.weak_channels` 0).

A file's first item in places 2 to 5 that no in-file pick put there and that at most
`weak_channels` ranking channels back (for 2: `files` + `file_bm25`, the file found as a whole
and shown by a chunk no chunk channel chose; or `bm25` + `graph`) trades places with the first
item past place 5 of a file the first five already show (a further definition of it), and
moves to place 6. At most `weak_trades` trades, the weakest place (the last) first. The first
item never moves and the evidence holds the same items, so file@1 and recall cannot move.

Why (docs/ranker.md, "Round 26"): over the training and validation questions' recorded orders,
such an item overlaps a gold span in 15 of 262 (training) and 0 of 18 (validation) cases, the
next definitions of the files shown (places 6 to 12) in 0.16 and 0.11 of theirs. Measured: dev
lost one question it holds the answer of, so the rule is off. Pure: it reads the candidates'
reasons and paths only.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller import file_defs
from controller.evidence import Candidate
from controller.route import RoutePlan
from helix.core.config import HelixConfig
from helix.core.policy import FileDefsPolicy

TOP = 5
_PICKS = frozenset({"in_file", "in_file_more"})  # the in-file steps' reason codes


def channels(candidate: Candidate) -> frozenset[str]:
    """The ranking channels that put the candidate in the pool."""
    return frozenset(r.channel for r in candidate.reasons if r.code == "rank" and r.channel)


def weak(ranked: Sequence[Candidate], at: int, most: int) -> bool:
    """The item at `at` (not the first) is its file's first, not an in-file pick, and at most
    `most` channels back it."""
    item = ranked[at]
    if at == 0 or any(r.code in _PICKS for r in item.reasons):
        return False
    if any(c.chunk.path == item.chunk.path for c in ranked[:at]):
        return False
    found = channels(item)
    return bool(found) and len(found) <= most


def _filler(ranked: Sequence[Candidate], victim: int, depth: int) -> int | None:
    """The first item past place 5 (before `depth`) of a file the first five show, the victim
    aside."""
    shown = {c.chunk.path for k, c in enumerate(ranked[:TOP]) if k != victim}
    for at in range(TOP, min(depth, len(ranked))):
        if ranked[at].chunk.path in shown:
            return at
    return None


def apply(ranked: Sequence[Candidate], policy: FileDefsPolicy, depth: int) -> list[Candidate]:
    """`ranked` with up to `policy.weak_trades` weak items of the first five traded for the
    shown files' next items (unchanged when `policy.weak_channels` is 0)."""
    out = list(ranked)
    if policy.weak_channels <= 0:
        return out
    for _ in range(policy.weak_trades):
        victims = [k for k in range(1, min(TOP, len(out))) if weak(out, k, policy.weak_channels)]
        if not victims:
            break
        victim = victims[-1]
        at = _filler(out, victim, depth)
        if at is None:
            break
        filler, moved = out.pop(at), out.pop(victim)
        out.insert(victim, filler)
        out.insert(TOP, moved)
    return out


def step(plan: RoutePlan, ranked: list[Candidate], config: HelixConfig) -> list[Candidate]:
    """`apply` for a question (not a report) the in-file steps run for; else `ranked`."""
    policy = config.retrieval.file_defs
    if policy.weak_channels <= 0 or not plan.asked.reads_as_question or not file_defs.applies(
            file_defs.question_tokens(plan), plan.intent.route, policy, True):
        return ranked
    return apply(ranked, policy, config.retrieval.max_evidence)
