"""Which definitions of the leading files fill the first five places: a learned swap (pure).

For a question, the evidence's first five places often show one file twice or more (its first
item, then the in-file pick, a place-5 pick) while the definition that answers sits further
down as one of the same file's depth or reach picks (round 24, docs/ranker.md: 30 of the
validation set's 35 span misses whose answer was ranked at all, 17 of dev's 18). A hand
measure does not tell them apart (the in-file measure at any name weight puts the answer 3rd
to 8th in its file; chosen on validation, it lost 4 questions left out one project at a time).
Here a LightGBM model (`benchmarks/span_swap.py train`, on data/evals/qa_train's questions)
scores each item of the first five that repeats a file shown above it, and each later item that
is a definition of a file among the first five (not a test's): the best later item trades
places with the weakest repeat when it scores more than the manifest's margin above it, at most
`swaps` times. The first item never moves, every file keeps a place in the first five, and the
evidence holds the same items (recall and file@1 cannot change). Round 25 added six columns
that say how strongly retrieval itself backs an item and the first five's repeats (`_confidence`:
channels, best rank, fused score share) and a choice that counts a lost question twice. Off by
default (`file_defs.swap_model_digest` ""): round 25's model moves validation span@5 143 -> 150
and symbol@5 116 -> 124 of 200, SWE-QA dev span@5 95 -> 95 and symbol@5 94 -> 93, so round
25's qa_gate did not promote it (round 24's: 147 / 120 and 91 / 91).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from controller.file_defs import definition_score, is_header
from controller.text import name_tokens, token_set
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk
from indexers.graph import is_test_path

TOP = 5
CODES = ("in_file", "in_file_more", "neighbour", "rank", "symbol_exact", "defines")
FEATURES: tuple[str, ...] = (
    "place", "in_top", "file_place", "file_in_top", "first_file", "q_words",
    "def3", "def1", "def0", "def3_gap", "def1_gap", "def1_file_rank", "def3_file_rank",
    "name_hits", "name_len", "name_share", "body_hits", "body_len", "lines",
    "header", "module", *(f"code_{c}" for c in CODES),
    # round 25: how strongly retrieval itself backs the item and the hand order's repeats
    "channels", "best_rank", "score_share", "channels_gap", "held_channels", "top_gap",
)
Item = tuple[Chunk, tuple[str, ...]]  # an evidence item and its reason codes
# an item's fused score and its (channel, rank) reasons: what the hand order rests on
Signal = tuple[float, tuple[tuple[str, int], ...]]
NO_RANK = 100


def _code(chunk: Chunk) -> bool:
    return chunk.kind in ("code_def", "code_module")


def slots(items: Sequence[Item], limit: int) -> tuple[list[int], list[int]]:
    """(the places of the first five that repeat a file shown above them, the later places
    before `limit` holding a definition of a file of the first five, not a test's)."""
    top = [c for c, _ in items[:TOP]]
    files = {c.path for c in top}
    held = [p for p in range(1, len(top)) if _code(top[p])
            and top[p].path in {c.path for c in top[:p]}]
    later = [p for p in range(TOP, min(limit, len(items)))
             if items[p][0].kind == "code_def" and items[p][0].path in files
             and not is_test_path(items[p][0].path)]
    return held, later


def _scores(question: frozenset[str], chunks: Sequence[Chunk], policy: FileDefsPolicy,
            weight: float) -> list[float]:
    scored = policy.model_copy(update={"name_weight": weight})
    return [definition_score(question, c, scored) for c in chunks]


def _file_rank(values: Sequence[float], paths: Sequence[str], p: int) -> int:
    return sum(1 for v, path in zip(values, paths, strict=True)
               if path == paths[p] and v > values[p])


def _confidence(items: Sequence[Item], signals: Sequence[Signal], places: Sequence[int]
                ) -> list[list[float]]:
    """The round-25 columns: for each place, the channels ranking it, its best rank, its score
    over the first item's, its channels over the best of its file's other items in the first
    five; for the question, the most channels behind a repeat and the first item's lead."""
    paths = [c.path for c, _ in items]
    count = [len({ch for ch, _ in ranks}) for _, ranks in signals]
    first = signals[0][0] if signals and signals[0][0] > 0 else 0.0
    held, _ = slots(items, len(items))
    backed = float(max((count[p] for p in held), default=0))
    lead = (first - signals[1][0]) / first if first and len(signals) > 1 else 0.0
    out = []
    for p in places:
        ranks = [r for _, r in signals[p][1]]
        same = [count[i] for i in range(min(TOP, len(items))) if paths[i] == paths[p] and i != p]
        out.append([float(count[p]), math.log1p(min(ranks, default=NO_RANK)),
                    signals[p][0] / first if first else 0.0,
                    float(count[p] - max(same, default=0)), backed, lead])
    return out


def signals_of(scores: Sequence[float], ranks: Sequence[Sequence[tuple[str, int]]]
               ) -> list[Signal]:
    return [(float(s), tuple((str(c), int(r)) for c, r in rk))
            for s, rk in zip(scores, ranks, strict=True)]


def rows(question: frozenset[str], items: Sequence[Item], places: Sequence[int],
         policy: FileDefsPolicy, signals: Sequence[Signal]) -> list[list[float]]:
    """One row of `FEATURES` for each of `places` (indexes into `items`; `signals` in the
    order of `items`)."""
    chunks = [c for c, _ in items]
    paths = [c.path for c in chunks]
    order = list(dict.fromkeys(paths))
    in_top = Counter(paths[:TOP])
    d3, d1, d0 = (_scores(question, chunks, policy, w) for w in (3.0, 1.0, 0.0))
    out = []
    for p in places:
        chunk, codes = items[p]
        same = [i for i in range(min(TOP, len(chunks))) if paths[i] == paths[p] and i != p]
        name = name_tokens(chunk.symbol or "")
        hits = len(name & question)
        body = token_set(chunk.text)
        out.append([
            float(p), float(p < TOP), float(order.index(paths[p])), float(in_top[paths[p]]),
            float(paths[p] == paths[0]), float(len(question)),
            d3[p], d1[p], d0[p],
            d3[p] - max((d3[i] for i in same), default=0.0),
            d1[p] - max((d1[i] for i in same), default=0.0),
            float(_file_rank(d1, paths, p)), float(_file_rank(d3, paths, p)),
            float(hits), float(len(name)), hits / len(name) if name else 0.0,
            float(len(body & question)), math.log1p(len(body)),
            math.log1p(chunk.end_line - chunk.start_line + 1),
            float(is_header(chunk)), float(chunk.kind == "code_module"),
            *(float(c in codes) for c in CODES)])
    return [r + c for r, c in zip(out, _confidence(items, signals, places), strict=True)]


def swap(items: Sequence[Item], held: Sequence[int], later: Sequence[int],
         scores: Sequence[float], margin: float, swaps: int) -> list[int]:
    """The new order of `items` (indexes): the best-scored later place trades with the
    weakest-scored held place while it scores more than `margin` above it (`scores` in the
    order of `held` then `later`); a held place whose file would lose its last place in the
    first five is not taken."""
    order = list(range(len(items)))
    score = dict(zip([*held, *later], scores, strict=True))
    free = sorted(held, key=lambda p: (score[p], -p))
    for p in sorted(later, key=lambda p: (-score[p], p))[:max(swaps, 0)]:
        if not free or score[p] <= score[free[0]] + margin:
            break
        weakest = free.pop(0)
        order[weakest], order[p] = order[p], order[weakest]
    return order
