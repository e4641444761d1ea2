"""Inside the files the evidence leads with, the definition that answers (pure).

Retrieval finds the right file far more often than the right lines: a class docstring, a
module header or a neighbouring method wins the file's place in the evidence. For each of the
first files the ranked evidence holds that the evidence introduces by a header (its module top
or a class), every definition of that file is scored against the
question's words: its name's parts (weighted), its signature, docstring and body; the best one
joins the evidence just before the file's first item (`lead`; else right after it) when it
scores above what the evidence already shows of that file. The files keep their order.
Measured on the natural-question dev set (no embeddings): span@5 +0.03 to +0.04 on each of
reflex, sqlfluff and streamlink, evidence recall +0.03 to +0.06, file@1 unchanged.

A descriptive question (`descriptive`: a question, not a report or a commit message, of a
dozen content words or more, as SWE-QA's are) says
what it asks for in enough words for their share to pick the definition: for one, a file the
evidence leads with by a function or method also gets its best definition first when that
scores `over_lead` times what the evidence shows of the file (retrieval chose the function
for a few shared words; "the JSON deserialization factory method in a browser context
identifier type wrapper" is `BrowserContextID.from_json`, not the file's `cancel_download`),
and the pick runs on the definition route too ("what is the meaning of the boolean parameter
that controls reduced-latency mode in the constructor of a platform-specific HLS stream
class?"). A short question keeps what retrieval chose: one or two shared words decide too
little. Dev set: span@5 0.679 -> 0.718, symbol@5 0.688 -> 0.727, recall 0.824 -> 0.840;
the eval suites unchanged.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TypeVar

from controller.reasons import Reason
from controller.route import RoutePlan
from controller.text import held_at_most, name_tokens, spelled_out, token_set
from helix.core.english import QUESTION_LEADS
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk
from indexers.graph import is_test_path

T = TypeVar("T")
_CONTAINERS = frozenset({"class", "interface", "struct", "trait", "enum", "module", "impl",
                         "namespace", "object"})


def question_tokens(plan: RoutePlan) -> frozenset[str]:
    """The question's content words (the route's terms), as the index tokenizes them."""
    return plan.term_words - QUESTION_LEADS


def is_header(chunk: Chunk) -> bool:
    """A chunk that introduces rather than does: a module's top, or a class-like definition
    (its docstring and fields; the methods that do the work are chunks of their own)."""
    return chunk.kind == "code_module" or chunk.def_kind in _CONTAINERS


def descriptive(question: frozenset[str], policy: FileDefsPolicy, asks: bool) -> bool:
    """A question (`asks`: it reads as one, not a report or a commit message) that says what
    it asks for in many words (`policy.descriptive_words`)."""
    return asks and len(question) >= policy.descriptive_words


def applies(question: frozenset[str], route: str, policy: FileDefsPolicy, asks: bool) -> bool:
    """The in-file pick runs for this question: its route is one of `routes`, or of
    `descriptive_routes` for a descriptive question."""
    return policy.enabled and (route in policy.routes or (
        route in policy.descriptive_routes and descriptive(question, policy, asks)))


def _name_words(chunk: Chunk, policy: FileDefsPolicy) -> frozenset[str]:
    words = name_tokens(chunk.symbol or "")
    return spelled_out(words) if policy.long_forms else words


def definition_score(question: frozenset[str], chunk: Chunk, policy: FileDefsPolicy) -> float:
    """How much of the question a definition holds: name parts count `name_weight` times a
    body word, and the body's share is damped by its length (a long class holds every word)."""
    if not question:
        return 0.0
    name = _name_words(chunk, policy) & question
    body_tokens = token_set(chunk.text)
    body = body_tokens & question
    damp = 1.0 + math.log1p(len(body_tokens) / policy.body_norm)
    return (policy.name_weight * len(name) + len(body) / damp) / len(question)


def _bound(question: frozenset[str], chunk: Chunk, policy: FileDefsPolicy) -> float:
    """An upper bound of `definition_score` without tokenizing the definition's text (its
    body words at most `held_at_most`; the damping divides by at least 1)."""
    name = _name_words(chunk, policy) & question
    return (policy.name_weight * len(name) + held_at_most(question, chunk.text)) / len(question)


def best_definitions(question: frozenset[str], defs: Sequence[Chunk], policy: FileDefsPolicy,
                     count: int) -> list[tuple[float, int, str, Chunk]]:
    """The `count` best (score, start line, id, chunk) of `defs` scoring at least
    `policy.min_score`, best first: what scoring every definition and sorting gives, without
    tokenizing those whose bound cannot reach the ones kept (a cold definition's tokens cost
    more than everything else here)."""
    if not question or count <= 0:
        return []
    bounded = sorted(((_bound(question, c, policy), c) for c in defs),
                     key=lambda t: -t[0])  # a stable sort: ties keep `defs` order
    kept: list[tuple[float, int, str, Chunk]] = []
    for bound, chunk in bounded:
        if bound < policy.min_score or (len(kept) >= count and bound < kept[count - 1][0]):
            break  # no later one can score enough, or tie with the last one kept
        kept.append((definition_score(question, chunk, policy), chunk.start_line, chunk.id,
                     chunk))
        kept.sort(key=lambda t: (-t[0], t[1], t[2]))
    return [t for t in kept if t[0] >= policy.min_score][:count]


def promotions(question: frozenset[str], ranked: Sequence[Chunk],
               file_chunks: Mapping[str, Sequence[Chunk]], policy: FileDefsPolicy,
               asks: bool = False) -> list[tuple[int, Chunk]]:
    """(position in `ranked` to insert after, definition) for each of the first
    `policy.files` files whose best definition beats what the evidence shows of it."""
    out: list[tuple[int, Chunk]] = []
    present = {c.id for c in ranked}
    seen: list[str] = []
    over_lead = policy.over_lead > 0 and descriptive(question, policy, asks)
    for position, chunk in enumerate(ranked):
        if chunk.path in seen or chunk.kind not in ("code_def", "code_module"):
            continue
        seen.append(chunk.path)
        if len(seen) > policy.files:
            break
        header = is_header(chunk)
        if not header and not over_lead:
            continue  # the file leads with a function or method already: retrieval chose it
        shown = max((definition_score(question, c, policy) for c in ranked
                     if c.path == chunk.path), default=0.0)
        defs = [c for c in file_chunks.get(chunk.path, ()) if c.kind == "code_def"
                and c.id not in present]
        best = best_definitions(question, defs, policy, 1)
        if best and best[0][0] > (shown if header else shown * policy.over_lead):
            out.append((position, best[0][3]))
    return out


def depth_picks(question: frozenset[str], ranked: Sequence[Chunk],
                file_chunks: Mapping[str, Sequence[Chunk]], policy: FileDefsPolicy) -> list[Chunk]:
    """For each of the first `policy.depth_files` code files of the evidence, its next
    `policy.depth` best definitions not in the evidence yet (scoring at least `min_score`),
    in file order then score: the evidence's tail makes room for them (`driver`)."""
    return deeper(question, ranked, file_chunks, policy)[0]


def deeper(question: frozenset[str], ranked: Sequence[Chunk],
           file_chunks: Mapping[str, Sequence[Chunk]],
           policy: FileDefsPolicy) -> tuple[list[Chunk], list[Chunk]]:
    """(the depth picks, the reach picks): each of the first `policy.depth_files` code files'
    next `depth` best definitions not in the evidence (scoring at least `min_score`), then its
    `reach` after those (scoring at least `reach_min`)."""
    if policy.depth + policy.reach <= 0:
        return [], []
    least = min(policy.min_score, policy.reach_min) if policy.reach else policy.min_score
    wide = policy.model_copy(update={"min_score": least})
    order = depth_order(policy)
    present = {c.id for c in ranked}
    files = list(dict.fromkeys(c.path for c in ranked if c.kind in ("code_def", "code_module")))
    picks: list[Chunk] = []
    reach: list[Chunk] = []
    for path in files[:policy.depth_files]:
        defs = [c for c in file_chunks.get(path, ()) if c.kind == "code_def"
                and c.id not in present]
        best = best_definitions(question, defs, wide, policy.depth + policy.reach) \
            if order is policy else _reordered(question, defs, policy, order, least)
        deep = [t[3] for t in best[:policy.depth] if t[0] >= policy.min_score]
        picks.extend(deep)
        reach.extend(t[3] for t in best[len(deep):len(deep) + policy.reach]
                     if t[0] >= policy.reach_min)
    return picks, reach


def _reordered(question: frozenset[str], defs: Sequence[Chunk], policy: FileDefsPolicy,
               order: FileDefsPolicy, least: float) -> list[tuple[float, int, str, Chunk]]:
    """(in-file score, start line, id, chunk) of the `defs` scoring at least `least` by the
    in-file measure (`policy`), best first by the depth measure (`order`)."""
    held = [(definition_score(question, c, policy), c) for c in defs]
    kept = sorted(((s, c) for s, c in held if s >= least), key=lambda t: (
        -definition_score(question, t[1], order), t[1].start_line, t[1].id))
    return [(s, c.start_line, c.id, c) for s, c in kept]


def in_file_order(policy: FileDefsPolicy) -> FileDefsPolicy:
    """`policy` with the depth measure set to the in-file one (what a report keeps)."""
    if policy.depth_name_weight == policy.name_weight:
        return policy
    return policy.model_copy(update={"depth_name_weight": policy.name_weight})


def depth_order(policy: FileDefsPolicy) -> FileDefsPolicy:
    """The measure that orders a first file's next definitions (the depth and reach picks)
    and decides the place-5 pick: the in-file measure with a name part weighing
    `depth_name_weight` (`policy` itself when that is `name_weight`)."""
    if policy.depth_name_weight == policy.name_weight:
        return policy
    return policy.model_copy(update={"name_weight": policy.depth_name_weight})


def lead_first(question: frozenset[str], picks: Sequence[Chunk], reach: Sequence[Chunk],
               shown: Sequence[Chunk], policy: FileDefsPolicy) -> tuple[list[Chunk], list[Chunk]]:
    """`reach_lead`: the depth and reach picks of the files `shown` (the first places), not a
    test's unless `depth_tests`, the one that answers the question best goes first among the
    depth picks (the one `picks_ahead` considers for place `depth_at` + 1), taken out of
    `reach` if it came from there. Ties keep the picks' order."""
    paths = {c.path for c in shown}
    pool = [*picks, *reach]
    eligible = [(definition_score(question, c, policy), -i) for i, c in enumerate(pool)
                if c.path in paths and (policy.depth_tests or not is_test_path(c.path))]
    if not eligible:
        return list(picks), list(reach)
    best = pool[-max(eligible)[1]]
    return ([best, *(c for c in picks if c is not best)],
            [c for c in reach if c is not best])


def reach_places(question: frozenset[str], ranked: Sequence[Chunk], reach: Sequence[Chunk],
                 keep: int, limit: int, policy: FileDefsPolicy) -> dict[int, Chunk]:
    """place -> the reach pick that takes it: each reach pick, the best first, takes the
    place (after the first `keep`, before `limit`) of the code item that answers the question
    least (`definition_score`; the later one of a tie) when it answers it better; with
    `depth_repeats`, only an item whose file has another place before `limit` (the evidence
    keeps every file it held, as the place-5 pick keeps the first five's)."""
    shown = Counter(c.path for c in ranked[:limit])
    places = [(definition_score(question, c, policy), -p) for p, c in enumerate(ranked)
              if keep <= p < limit and c.kind in ("code_def", "code_module")
              and (not policy.depth_repeats or shown[c.path] > 1)]
    scored = sorted(((definition_score(question, c, policy), -i, c) for i, c in enumerate(reach)),
                    key=lambda t: (-t[0], -t[1]))
    out: dict[int, Chunk] = {}
    for score, _, chunk in scored:
        if not places:
            break
        weakest = min(places)
        if score <= weakest[0]:
            break
        places.remove(weakest)
        out[-weakest[1]] = chunk
        if policy.depth_repeats:  # the place's file has one place fewer now
            path = ranked[-weakest[1]].path
            shown[path] -= 1
            if shown[path] == 1:
                places = [t for t in places if ranked[-t[1]].path != path]
    return out


def picks_ahead(question: frozenset[str], picks: Sequence[Chunk], ranked: Sequence[Chunk],
                policy: FileDefsPolicy) -> int:
    """How many of the depth picks go to place `depth_at` + 1: up to `depth_lead`, each
    while it answers the question at least `depth_over` times as well (`definition_score`)
    as the item it pushes out of that place, unless `depth_tests` is not a test's and, with
    `depth_repeats`, pushes out only an item whose file is shown above it (the first places
    keep every file they showed)."""
    count = 0
    order = depth_order(policy)
    for pick in picks[:policy.depth_lead]:
        place = policy.depth_at + count
        if place >= len(ranked) or (not policy.depth_tests and is_test_path(pick.path)):
            break
        pushed = ranked[place - count]
        if definition_score(question, pick, order) < (
                policy.depth_over * definition_score(question, pushed, order)) or (
                policy.depth_repeats
                and pushed.path not in {c.path for c in ranked[:place - count]}):
            break
        count += 1
    return count


def with_picks(ranked: Sequence[T], picks: Sequence[T], lead: int, at: int) -> list[T]:
    """`ranked` (cut to make room) with the depth picks: the first `lead` of them at place
    `at` + 1 (the first file's best not yet shown, within the first five), the rest at the
    tail."""
    at = min(at, len(ranked))
    return [*ranked[:at], *picks[:lead], *ranked[at:], *picks[lead:]]


def lead_choice(question: frozenset[str], runs: Sequence[Sequence[Chunk]], anchored: bool,
                named: frozenset[str], policy: FileDefsPolicy) -> int:
    """Which of the first files' leading runs of items (in evidence order) should lead: the
    one whose best definition scores highest less `lead_rank_cost` a place down; the first
    (0) when it is anchored by the question (an exact name, a path it gives: `anchored`) or
    its file is named after an identifier the question spells (`named`: "FxNdf" keeps
    `FxNdf.java` first)."""
    if len(runs) < 2 or anchored or stem(runs[0][0].path) in named:
        return 0
    keys = [max((definition_score(question, c, policy) for c in run
                 if c.kind in ("code_def", "code_module")), default=0.0)
            - policy.lead_rank_cost * place for place, run in enumerate(runs)]
    return min(range(len(runs)), key=lambda i: (-keys[i], i))


def whole_file_first(reasons: Sequence[Reason], policy: FileDefsPolicy) -> bool:
    """Both whole-file channels rank this file first (`reasons`: its leading items'), and
    `lead_agreed` keeps such a file in the lead: the two measures of the file as a whole
    agree, and a better-named definition elsewhere is more often a sibling module than the
    answer (docs/ranker.md, round 21)."""
    ranks = {r.channel for r in reasons if r.code == "rank" and r.rank == 1}
    return policy.lead_agreed and {"files", "file_bm25"} <= ranks


def stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
