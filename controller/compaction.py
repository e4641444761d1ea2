"""Deterministic compaction of evidence to a token budget (plan phase 3).

Order: definition spans, contracts/policy, entrypoints, tests, everything else; within a class by
score, then a total order on position. Dedup by (file, heading, content hash). Long spans are cut
to an excerpt around the lines that match the question's terms rather than dropped. When the
items do not all fit whole, every item is first capped at one common size, the largest that
lets them all fit (not below `min_cap_tokens`), so two 150-line functions cannot crowd out six
other spans: the budget is shared before it is filled. Once a definition span does not fit,
nothing of a lower class is kept: definitions are never dropped while anything lower ranks is
kept. Tokens are estimated as ceil(chars / chars_per_token). The numbers are policy
(`helix.core.policy.CompactionPolicy`, in the settings).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate

from controller.text import lines_matching
from helix.core.english import tokens_by_chars
from helix.core.envelope import EvidenceItem
from helix.core.policy import CompactionPolicy

DEFAULT = CompactionPolicy()
PRIORITY = {"definition": 0, "contract": 1, "entrypoint": 2, "test": 3}
OTHER = 4


def tokens(text: str, chars_per_token: int = DEFAULT.chars_per_token) -> int:
    return tokens_by_chars(text, chars_per_token)


def priority(item: EvidenceItem) -> int:
    return PRIORITY.get(item.kind, OTHER)


def order_key(item: EvidenceItem) -> tuple[int, float, str, int, str]:
    return (priority(item), -item.score, item.path, item.start_line, item.id)


def excerpt(item: EvidenceItem, terms: Sequence[str], budget: int, context: int,
            chars_per_token: int = DEFAULT.chars_per_token) -> EvidenceItem:
    """The item cut to <= budget tokens around its first matching lines (the head if none)."""

    lines = item.text.splitlines()
    # the tokens of "\n".join(lines[lo:hi]) from the lines' lengths (`tokens_by_chars` reads
    # only the length), not a joined text per step
    ends = [0, *accumulate(len(line) for line in lines)]

    def tokens(lo: int, hi: int) -> int:
        return math.ceil((ends[hi] - ends[lo] + max(hi - lo - 1, 0)) / chars_per_token)

    centre = (lines_matching(item.text, terms, first=True) or [0])[0]
    lo, hi = max(0, centre - context), min(len(lines), centre + context + 1)
    while lo > 0 or hi < len(lines):  # grow while it fits
        grown = False
        if hi < len(lines) and tokens(lo, hi + 1) <= budget:
            hi, grown = hi + 1, True
        if lo > 0 and tokens(lo - 1, hi) <= budget:
            lo, grown = lo - 1, True
        if not grown:
            break
    while hi - lo > 1 and tokens(lo, hi) > budget:  # shrink towards the hit
        if hi - 1 > centre:
            hi -= 1
        else:
            lo += 1
    text = "\n".join(lines[lo:hi])
    if tokens_by_chars(text, chars_per_token) > budget:
        text = text[:budget * chars_per_token]
    start = item.start_line + lo
    end = max(start, item.start_line + hi - 1)
    return item.model_copy(update={"text": text, "start_line": start, "end_line": end})


def common_cap(costs: Sequence[int], budget: int,
               floor: int = DEFAULT.min_cap_tokens) -> int | None:
    """The largest per-item cap c with sum(min(cost, c)) <= budget, not below `floor`; None
    when every item fits whole (no cap needed)."""
    if sum(costs) <= budget:
        return None
    lo, hi = floor, max(costs)
    if sum(min(c, lo) for c in costs) > budget:
        return floor
    while lo < hi:  # invariant: lo fits
        mid = (lo + hi + 1) // 2
        if sum(min(c, mid) for c in costs) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def compact(items: Sequence[EvidenceItem], budget: int, terms: Sequence[str],
            context: int = 3, policy: CompactionPolicy = DEFAULT) -> list[EvidenceItem]:
    """Items kept within `budget` tokens, in compaction order (see module docstring)."""
    per = policy.chars_per_token

    def tokens(text: str) -> int:
        return tokens_by_chars(text, per)

    seen: set[tuple[str, str, str]] = set()
    unique: list[EvidenceItem] = []
    for item in sorted(items, key=order_key):
        key = (item.path, item.heading or "", item.content_hash)
        if key not in seen:
            seen.add(key)
            unique.append(item)
    cap = common_cap([tokens(i.text) for i in unique], budget, policy.min_cap_tokens)
    if cap is not None:
        unique = [excerpt(i, terms, cap, context, per) if tokens(i.text) > cap else i
                  for i in unique]
    kept: list[EvidenceItem] = []
    left = budget
    definition_dropped = False
    for item in unique:
        if definition_dropped and item.kind != "definition":
            break
        cost = tokens(item.text)
        if cost <= left:
            kept.append(item)
            left -= cost
        elif left >= policy.min_excerpt_tokens:
            cut = excerpt(item, terms, left, context, per)
            kept.append(cut)
            left -= tokens(cut.text)
        elif item.kind == "definition":
            definition_dropped = True
    return kept
