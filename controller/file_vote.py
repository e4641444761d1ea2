"""Which file leads, voted on by the feedback pass's files (round 28, off by default:
`retrieval.file_defs.vote_terms` 0).

Round 27's feedback pass (`controller.prf`: chunk BM25 on the whole question, expanded by the
first pass's best code chunks' terms) moved file@1 up on the training, validation and dev
questions alike, and lost span@5 where its list, fused as a chunk vote, reordered the first
five. Here the pass votes only for which file leads: its best code chunks rank files (first
appearance, test files left out); each of the first `vote_files` files of the evidence order
scores 1 / (vote_k + its place) + vote_weight / (vote_k + its place in the pass's files); the
best leads by moving its first item to the front. Nothing else moves, so the evidence holds
the same items (recall cannot move) and at most one item leaves the first five. A first file
the question anchors (an exact name, a definition, a path) keeps the lead.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller import file_defs
from controller.evidence import CODE_CHUNK_KINDS, Candidate
from controller.prf import prf_chunks
from controller.route import RoutePlan
from helix.core.config import HelixConfig
from helix.core.policy import FileDefsPolicy
from indexers.api import IndexReader
from indexers.graph import is_test_path

# reasons that tie the evidence's first file to the question's own words: an exact name it
# asks for, a definition of it, a path it gives (`driver._file_lead` keeps such a file first)
ANCHORS = frozenset({"symbol_exact", "defines", "path_hint"})
PASS_CHUNKS = 60  # the pass's chunks read for its file order


def voted_files(paths: Sequence[str]) -> list[str]:
    """The pass's chunks' files in order of first appearance, test files left out (pure)."""
    return [p for p in dict.fromkeys(paths) if not is_test_path(p)]


def winner(files: Sequence[str], votes: Sequence[str], weight: float, k: int) -> int:
    """The place (0-based) in `files` of the file that scores best; ties keep the earlier."""
    place = {f: n for n, f in enumerate(votes, start=1)}
    best, best_score = 0, float("-inf")
    for at, path in enumerate(files):
        score = 1.0 / (k + at + 1) + (weight / (k + place[path]) if path in place else 0.0)
        if score > best_score:
            best, best_score = at, score
    return best


def anchored(ranked: Sequence[Candidate], path: str) -> bool:
    """Any item of `path` in the order carries an anchor (the question names it)."""
    return any(r.code in ANCHORS for c in ranked if c.chunk.path == path for r in c.reasons)


def apply(ranked: Sequence[Candidate], votes: Sequence[str], policy: FileDefsPolicy
          ) -> list[Candidate]:
    """`ranked` with the voted file's first item moved to the front (unchanged when the first
    file wins, is anchored, or the policy is off)."""
    out = list(ranked)
    files = list(dict.fromkeys(c.chunk.path for c in out))[:policy.vote_files]
    if policy.vote_terms <= 0 or len(files) < 2 or not votes or anchored(out, files[0]):
        return out
    won = winner(files, votes, policy.vote_weight, policy.vote_k)
    if won == 0:
        return out
    at = next(n for n, c in enumerate(out) if c.chunk.path == files[won])
    return [out[at], *out[:at], *out[at + 1:]]


def step(plan: RoutePlan, ranked: list[Candidate], index: IndexReader, config: HelixConfig
         ) -> list[Candidate]:
    """`apply` for a question (not a report) with the pass run on its words; else `ranked`."""
    policy = config.retrieval.file_defs
    if (policy.vote_terms <= 0 or len(ranked) < 2 or not plan.asked.reads_as_question
            or not plan.text.strip()):
        return ranked
    if not file_defs.applies(file_defs.question_tokens(plan), plan.intent.route, policy, True):
        return ranked
    pools = config.retrieval.pools.model_copy(update={
        "prf_terms": policy.vote_terms, "prf_weight": policy.vote_prf_weight})
    chunks = prf_chunks(index, plan.text, PASS_CHUNKS, pools,
                        lambda h: h.kind in CODE_CHUNK_KINDS)
    return apply(ranked, voted_files([c.path for c in chunks]), policy)
