"""Associations between question words and identifier sub-words, mined from the corpus.

For each case of the train split (never validation or test): the words of its message (as the
controller reads a question: tokenized, stemmed, question leads dropped) and the sub-words of
its target definitions' names (`controller.text.name_tokens` of each qualified name). A pair
(message word w, name part p), w != p, is kept when it occurs in at least `min_cases` cases
from at least `min_repos` repositories (a pair only one project uses says nothing of the
next), and its normalised PMI over cases,

    npmi(w, p) = log(P(w, p) / (P(w) P(p))) / -log P(w, p),

is at least `min_npmi`; each word keeps its `per_word` strongest parts. Shipped with the ranker
(`data/ranker/assoc.json`): the controller expands a question with the parts the repository's
names hold (`retrieval.ranker.expand_words`) and scores each candidate's name parts with it
(the `assoc_*` features).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from controller.text import name_tokens, token_set
from evals.corpus.mine import CorpusCase
from helix.core.english import QUESTION_LEADS

DEFAULTS = {"min_cases": 3, "min_repos": 3, "min_npmi": 0.15, "per_word": 12}


def case_words(case: CorpusCase) -> tuple[frozenset[str], frozenset[str]]:
    """(the message's words, the targets' name parts)."""
    words = frozenset(w for w in token_set(case.message) - QUESTION_LEADS
                      if len(w) > 2 and not w.isdigit())
    parts = frozenset(p for t in case.targets for p in name_tokens(t.qualname) if len(p) > 2)
    return words, parts


def mine(cases: Sequence[CorpusCase], params: Mapping[str, Any] | None = None
         ) -> dict[str, dict[str, float]]:
    """word -> {name part: npmi}, by the rule above (`cases`: the train split only)."""
    p = {**DEFAULTS, **(params or {})}
    n = len(cases)
    word_count: Counter[str] = Counter()
    part_count: Counter[str] = Counter()
    pair_count: Counter[tuple[str, str]] = Counter()
    pair_repos: dict[tuple[str, str], set[str]] = {}
    for case in cases:
        words, parts = case_words(case)
        word_count.update(words)
        part_count.update(parts)
        for w in words:
            for part in parts:
                if w != part:
                    pair = (w, part)
                    pair_count[pair] += 1
                    pair_repos.setdefault(pair, set()).add(case.repo)
    out: dict[str, dict[str, float]] = {}
    for (w, part), joint in sorted(pair_count.items()):
        if joint < p["min_cases"] or len(pair_repos[(w, part)]) < p["min_repos"]:
            continue
        pj = joint / n
        if pj >= 1.0:
            continue
        npmi = math.log(pj / ((word_count[w] / n) * (part_count[part] / n))) / -math.log(pj)
        if npmi >= p["min_npmi"]:
            out.setdefault(w, {})[part] = round(npmi, 4)
    return {w: dict(sorted(sorted(row.items(), key=lambda t: (-t[1], t[0]))[:p["per_word"]]))
            for w, row in sorted(out.items())}


def table_json(links: Mapping[str, Mapping[str, float]], corpus_hash: str | None,
               params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"description": "Question word -> identifier sub-word associations (normalised PMI) "
                           "mined from the corpus's train split (evals.corpus.assoc).",
            "corpus_hash": corpus_hash, "params": {**DEFAULTS, **(params or {})},
            "words": len(links), "pairs": sum(len(r) for r in links.values()),
            "links": {w: dict(r) for w, r in links.items()}}
