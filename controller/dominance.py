"""Evidence-based disambiguation of a bare one-word term ("what is a cavity?").

Sense detection is repo-agnostic: every chunk that mentions the term is placed in a context
cluster (the path component just below the hits' common directory: a top-level directory, a
sub-package, or a file); clusters whose context words overlap (Jaccard >= sense_merge_jaccard)
are one sense. A sense is named by its most distinctive context words. Each sense is then
retrieved with a small budget and scored: evidence mass (distinct chunks that mention the term)
plus `sense_proof_weight` x proofs (chunks that define or state the term). The top sense
dominates when top / second >= dominance_ratio; otherwise the controller asks a two-option
clarifier carrying the evidence for both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from controller.channels import Request, RequestResult
from controller.coverage import states
from controller.evidence import CODE_CHUNK_KINDS, defines, is_test
from controller.text import contains_phrase, jaccard, phrase_tokens, symbol_variants, token_set
from helix.core.config import RetrievalSettings
from helix.core.english import stems
from helix.core.schemas import Chunk, Frozen

if TYPE_CHECKING:
    from controller.route import RoutePlan

LABEL_WORDS = 3  # distinctive words that name a sense
# Words every code file shares: they never name a sense.
_CODE_NOISE_TEXT = ("def class return self none true false import from str int float bool dict "
                    "list tuple len assert init args kwargs lambda yield async await print md "
                    "json txt rst")
CODE_NOISE = frozenset(_CODE_NOISE_TEXT.split())
# lines either side of a mention that form its context: `retrieval.sense_context_lines`
CONTEXT_LINES = 2


class Sense(Frozen):
    key: str  # comma-joined member files: what `run_controller(sense=...)` accepts
    prefixes: tuple[str, ...]  # the member files
    label: str
    words: tuple[str, ...]  # distinctive context words, best first
    chunk_ids: tuple[str, ...]  # discovery chunks mentioning the term
    context: frozenset[str] = frozenset()  # context words of its members
    dirs: tuple[str, ...] = ()  # directories of its files: where per-sense retrieval looks


class SenseScore(Frozen):
    key: str
    mass: int
    proofs: int
    score: float


def _mentions(chunk: Chunk, term: str) -> bool:
    return contains_phrase(token_set(f"{chunk.text} {' '.join(chunk.heading_path)}"), term)


def _context(chunk: Chunk, term: str, around: int = CONTEXT_LINES) -> frozenset[str]:
    need = set(phrase_tokens(term))
    lines = chunk.text.splitlines()
    keep: set[int] = set()
    for number, line in enumerate(lines):
        if need & token_set(line):
            keep.update(range(max(0, number - around), min(len(lines), number + around + 1)))
    text = " ".join(lines[i] for i in sorted(keep))
    text += " " + " ".join(chunk.heading_path) + " " + (chunk.symbol or "")
    return frozenset(t for t in token_set(text) if t not in need and not t.isdigit())


def _path_words(path: str) -> frozenset[str]:
    return token_set(" ".join(path.split("/")))


def _similarity(a: Sequence[frozenset[str]], b: Sequence[frozenset[str]]) -> float:
    """Average linkage: the mean Jaccard over member pairs (resists chaining through hubs)."""
    total = sum(jaccard(x, y) for x in a for y in b)
    return total / (len(a) * len(b))


def _dirs(paths: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted({p.rsplit("/", 1)[0] + "/" if "/" in p else p for p in paths}))


def _linked(files: Sequence[str], links: Sequence[tuple[str, str]]) -> list[list[str]]:
    """Files that import, call or test one another are one sense before any word is
    compared: the groups, each sorted, in order of their first file."""
    group = {f: f for f in files}

    def find(f: str) -> str:
        while group[f] != f:
            f = group[f]
        return f

    for a, b in sorted(links):
        if a in group and b in group and find(a) != find(b):
            ra, rb = sorted((find(a), find(b)))
            group[rb] = ra
    linked: dict[str, list[str]] = {}
    for f in files:
        linked.setdefault(find(f), []).append(f)
    return [sorted(m) for _, m in sorted(linked.items())]


def _merged(clusters: list[list[str]], context: dict[str, frozenset[str]],
            threshold: float) -> list[list[str]]:
    """Agglomerative merging by average-linkage Jaccard while the best pair is >=
    `threshold` (ties: the first pair)."""
    clusters = [list(c) for c in clusters]
    while len(clusters) > 1:
        best: tuple[float, int, int] | None = None
        for i, left in enumerate(clusters):
            for j in range(i + 1, len(clusters)):
                sim = round(_similarity([context[f] for f in left],
                                        [context[f] for f in clusters[j]]), 9)
                if best is None or sim > best[0]:
                    best = (sim, i, j)
        if best is None or best[0] < threshold:
            break
        _, i, j = best
        clusters[i] = sorted(clusters[i] + clusters[j])
        del clusters[j]
    return clusters


def _label_words(index: int, tallies: Sequence[dict[str, int]], need: set[str]
                 ) -> tuple[str, ...]:
    """The words that most set cluster `index` apart from the others (a sense's label)."""
    own = tallies[index]
    others: dict[str, int] = {}
    for other_index, tally in enumerate(tallies):
        if other_index != index:
            for word, n in tally.items():
                others[word] = others.get(word, 0) + n
    ranked = sorted(own, key=lambda w: (-(own[w] - others.get(w, 0)), -own[w], w))
    return tuple(w for w in ranked if re.fullmatch(r"[a-z][a-z0-9]{2,}", w)
                 and w not in CODE_NOISE
                 and not any(t in w or w.startswith(t[:-1]) for t in need))[:LABEL_WORDS]


def detect_senses(term: str, chunks: Sequence[Chunk], settings: RetrievalSettings,
                  links: Sequence[tuple[str, str]] = ()) -> list[Sense]:
    """Senses of `term` among `chunks` (discovery hits), largest first; [] or one when clear.

    One cluster per file to start (its context: words around the mentions plus its path words),
    then agglomerative merging by average-linkage Jaccard while >= sense_merge_jaccard.
    """
    need = set(phrase_tokens(term))
    mentions = sorted({c.id: c for c in chunks if _mentions(c, term)}.values(),
                      key=lambda c: (c.path, c.start_line, c.id))
    if not mentions:
        return []
    by_file: dict[str, list[Chunk]] = {}
    # Tests are about the code they exercise, never a sense of their own: assigned later.
    for chunk in (m for m in mentions if not is_test(m)):
        by_file.setdefault(chunk.path, []).append(chunk)
    files = sorted(by_file)
    context = {f: frozenset().union(*(_context(c, term, settings.sense_context_lines)
                                      for c in by_file[f]),
                                    _path_words(f) - need) for f in files}
    clusters = _merged(_linked(files, links), context, settings.sense_merge_jaccard)
    tallies: list[dict[str, int]] = []
    for members in clusters:
        tally: dict[str, int] = {}
        for f in members:
            for word in context[f]:
                tally[word] = tally.get(word, 0) + 1
        tallies.append(tally)
    senses: list[Sense] = []
    for index, members in enumerate(clusters):
        words = _label_words(index, tallies, need)
        chunk_ids = tuple(c.id for f in members for c in by_file[f])
        where = max(members, key=lambda f: (len(by_file[f]), f))
        label = f"{term}: {' '.join(words)} ({where})" if words else f"{term} ({where})"
        senses.append(Sense(key=",".join(sorted(members)), prefixes=tuple(sorted(members)),
                            label=label, words=words, chunk_ids=chunk_ids,
                            context=frozenset().union(*(context[f] for f in members)),
                            dirs=_dirs(members)))
    senses.sort(key=lambda s: (-len(s.chunk_ids), s.key))
    return senses


def assign(chunk: Chunk, term: str, senses: Sequence[Sense],
           around: int = CONTEXT_LINES) -> str | None:
    """The sense a chunk mentioning `term` belongs to: its file's sense, else the closest one."""
    if not _mentions(chunk, term) or not senses:
        return None
    for sense in senses:
        if chunk.path in sense.prefixes:
            return sense.key
    ctx = _context(chunk, term, around) | (_path_words(chunk.path) - set(phrase_tokens(term)))
    return max(senses, key=lambda s: (round(jaccard(ctx, s.context), 9), -len(s.key), s.key)).key


def _last_word(name: str) -> str:
    parts = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name.rsplit(".", 1)[-1])
    return parts[-1].lower() if parts else ""


def _proves(chunk: Chunk, term: str, names: frozenset[str]) -> bool:
    """A span that says what the term is in this sense: it defines it (`Cavity`), defines a kind
    of it (`OpticalCavity`, a heading "The optical cavity"), or states it in prose."""
    if defines(chunk, names) is not None:
        return True
    wanted = set(stems(term.lower()))
    if chunk.kind == "code_def" and chunk.symbol and _last_word(chunk.symbol) in wanted:
        return True
    if chunk.heading_path and _last_word(chunk.heading_path[-1].replace(" ", "_")) in wanted:
        return True
    return chunk.kind not in CODE_CHUNK_KINDS and states(chunk.text, (term,))


def score_senses(senses: Sequence[Sense], term: str,
                 retrieved: Mapping[str, Sequence[Chunk]],
                 settings: RetrievalSettings) -> list[SenseScore]:
    """Each sense scored on its own small-budget retrieval (the same budget for every sense).

    Mass: retrieved chunks that mention the term and belong to the sense (its files, or closest
    by context); proofs: those that define it (a def/class named for it) or state it in prose.
    """
    names = frozenset(stems(term.lower()))
    out: list[SenseScore] = []
    for sense in senses:
        mass: set[str] = set()
        proofs: set[str] = set()
        for chunk in retrieved.get(sense.key, ()):
            if assign(chunk, term, senses, settings.sense_context_lines) != sense.key:
                continue
            mass.add(chunk.id)
            if _proves(chunk, term, names):
                proofs.add(chunk.id)
        score = round(len(mass) + settings.sense_proof_weight * len(proofs), 6)
        out.append(SenseScore(key=sense.key, mass=len(mass), proofs=len(proofs), score=score))
    return sorted(out, key=lambda x: (-x.score, x.key))


def decide(scores: Sequence[SenseScore], settings: RetrievalSettings) -> str | None:
    """The dominant sense's key, or None when the top two are too close to call."""
    ordered = sorted(scores, key=lambda s: (-s.score, s.key))
    if not ordered:
        return None
    if len(ordered) == 1 or ordered[1].score <= 0:
        return ordered[0].key
    return ordered[0].key if ordered[0].score / ordered[1].score >= settings.dominance_ratio \
        else None


def sense_prefixes(sense: str, known: Mapping[str, Sense] | None = None) -> tuple[str, ...]:
    """Path prefixes for a chosen sense (`key` of a Sense, or any comma-joined prefixes)."""
    if known and sense in known:
        return known[sense].prefixes
    return tuple(p.strip() for p in sense.split(",") if p.strip())


def scoped(plan: RoutePlan) -> tuple[RoutePlan, tuple[str, ...]]:
    """The plan as its scope runs it, and the scope's path prefixes. A scope is one path prefix
    ("tests/") or several, comma-joined ("search/,tests/": a narrowed follow-up that left a
    folder out), like a chosen sense. A report narrowed to a folder reads that folder's
    documentation too (the policy of a long question: the report's own seed is source code
    only, and "only in docs/" would search nothing)."""
    prefixes = tuple(p for p in (plan.intent.scope or "").split(",") if p)
    if plan.intent.sense and not prefixes:
        prefixes = sense_prefixes(plan.intent.sense)
    if prefixes and plan.policy_name == "issue":
        plan = plan.model_copy(update={"policy_route": "long_question"})
    return plan, prefixes


def sense_requests(term: str, sense: Sense, budget: int) -> list[Request]:
    """One sense's small-budget retrieval: its words with the term, and definitions of the term
    inside the sense's directories (every sense gets the same requests and budget)."""
    reqs = [Request(channel="bm25", query=" ".join((term, *sense.words)), k=budget,
                    prefixes=sense.dirs)]
    reqs += [Request(channel="symbol", query=name, k=budget, prefixes=sense.dirs)
             for name in symbol_variants(term)]
    return reqs


def found_by_sense(results: Sequence[RequestResult], term: str, senses: Sequence[Sense],
                   around: int = CONTEXT_LINES) -> dict[str, list[str]]:
    """Sense key -> the found chunks' ids that sense's context words claim, in found order."""
    per_sense: dict[str, list[str]] = {s.key: [] for s in senses}
    for result in results:
        for f in result.found:
            key = assign(f.chunk, term, senses, around)
            if key is not None and f.chunk.id not in per_sense[key]:
                per_sense[key].append(f.chunk.id)
    return per_sense
