"""File-level features for the learned ranker (pure): what a candidate's file holds as a whole.
Tried and not shipped (`benchmarks/ranker_file_features.py`, data/tries.json): the model
with these columns put the changed file first no more often on the validation split.

The definition rows (`controller.rank_features`) say what a candidate is; these columns say
how its file compares with the question's other candidate files, so that the model can put
the changed file first even when no one of its definitions stands out:

- the file's place among the candidate files by its whole-file BM25 score, by its best and
  second-best candidate's BM25 score, by its best name and body match, by its path words, by
  how many candidates it has;
- the file's history: the distinct commits that changed any of its definitions before the
  indexed revision, the share of the question's words their messages hold, their BM25 score
  (a field of one document per file) over the best candidate file's, and the file's place by
  it; and its best candidate's own history score.

Every value is a function of the question's rows, their paths and the file history: the same
rows give the same columns, in any process.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

FILE_FEATURES: tuple[str, ...] = (
    "f_bm25_rr", "f_best_bm25", "f_second_bm25", "f_best_bm25_rr", "f_best_name",
    "f_best_name_rr", "f_best_body", "f_best_body_rr", "f_path_rr", "f_count_rr",
    "f_hist_commits", "f_hist_cov", "f_hist_bm25", "f_hist_rr", "f_best_hist",
)
K1, B = 1.2, 0.75


def words_bm25(found: frozenset[str], question: frozenset[str], idf: Mapping[str, float],
               average: float) -> float:
    """BM25 of `question` against one bag of words (`found`: a file's commit words)."""
    norm = 1.0 - B + B * len(found) / average
    return math.fsum(idf[w] for w in sorted(question & found)) * (K1 + 1) / (1.0 + K1 * norm)


@dataclass(frozen=True)
class FileHistory:
    """Per file: the words of the messages of the commits that changed its definitions, and
    how many distinct commits; a BM25 field over those documents."""

    words: Mapping[str, frozenset[str]]
    commits: Mapping[str, int]
    idf: Mapping[str, float]
    average: float

    def score(self, path: str, question: frozenset[str]) -> float:
        found = self.words.get(path)
        return words_bm25(found, question, self.idf, self.average) if found else 0.0


def file_history(defs: Mapping[str, Sequence[str]], messages: Mapping[str, frozenset[str]]
                 ) -> FileHistory:
    """From the history table (`indexers.history.HistoryTable`: definition node id -> its
    commits, commit -> its message's words)."""
    shas: dict[str, set[str]] = {}
    for node in sorted(defs):
        if node.startswith("def:") and "::" in node:
            shas.setdefault(node[4:].split("::", 1)[0], set()).update(defs[node])
    words = {path: frozenset().union(*(messages.get(s, frozenset()) for s in sorted(found)))
             for path, found in shas.items()}
    words = {p: w for p, w in words.items() if w}
    postings: dict[str, int] = {}
    for found in words.values():
        for w in found:
            postings[w] = postings.get(w, 0) + 1
    n = max(len(words), 1)
    return FileHistory(
        words=words, commits={p: len(s) for p, s in shas.items() if p in words},
        idf={w: math.log(1.0 + (n - c + 0.5) / (c + 0.5)) for w, c in postings.items()},
        average=(sum(len(w) for w in words.values()) / n) or 1.0)


def _places(values: Mapping[str, float], order: Sequence[str]) -> dict[str, float]:
    """1 / the file's place by `values` (higher first; ties: first seen), 0 for a zero."""
    ranked = sorted(range(len(order)), key=lambda n: (-values[order[n]], n))
    return {order[n]: (1.0 / place if values[order[n]] > 0 else 0.0)
            for place, n in enumerate(ranked, start=1)}


def _column(rows: Sequence[Sequence[float]], at: int) -> list[float]:
    return [float(r[at]) for r in rows]


def file_columns(rows: Sequence[Sequence[float]], paths: Sequence[str],
                 columns: Mapping[str, int], question: frozenset[str],
                 history: FileHistory | None) -> list[list[float]]:
    """One row of `FILE_FEATURES` per candidate, in order (`columns`: a definition feature's
    place in `rows`)."""
    order = list(dict.fromkeys(paths))
    members: dict[str, list[int]] = {p: [] for p in order}
    for n, p in enumerate(paths):
        members[p].append(n)
    bm25 = _column(rows, columns["bm25_q"])
    name = _column(rows, columns["name_cov"])
    body = _column(rows, columns["body_score"])
    path_words = [a + b for a, b in zip(_column(rows, columns["path_cov"]),
                                        _column(rows, columns["stem_cov"]), strict=True)]
    past = _column(rows, columns["hist_bm25"])
    file_bm25 = {p: float(rows[members[p][0]][columns["file_bm25_q"]]) for p in order}

    def best(values: Sequence[float]) -> dict[str, float]:
        return {p: max(values[n] for n in members[p]) for p in order}

    def second(values: Sequence[float]) -> dict[str, float]:
        return {p: _nth(sorted((values[n] for n in members[p]), reverse=True), 1)
                for p in order}

    best_bm25, best_name, best_body = best(bm25), best(name), best(body)
    paths_best, best_past = best(path_words), best(past)
    counts = {p: float(len(members[p])) for p in order}
    hist = {p: history.score(p, question) if history is not None else 0.0 for p in order}
    top_hist = max(hist.values(), default=0.0) or 1.0
    commits = history.commits if history is not None else {}
    words = history.words if history is not None else {}
    q = len(question) or 1
    per_file = {p: [0.0] * len(FILE_FEATURES) for p in order}
    places = [_places(v, order) for v in (file_bm25, best_bm25, best_name, best_body,
                                          paths_best, counts, hist)]
    sec = second(bm25)
    for p in order:
        per_file[p] = [
            places[0][p], best_bm25[p], sec[p], places[1][p], best_name[p], places[2][p],
            best_body[p], places[3][p], places[4][p], places[5][p],
            math.log1p(commits.get(p, 0)), len(words.get(p, frozenset()) & question) / q,
            hist[p] / top_hist, places[6][p], best_past[p],
        ]
    return [list(per_file[p]) for p in paths]


def _nth(values: Sequence[float], n: int) -> float:
    return values[n] if len(values) > n else 0.0


def column_places(names: Iterable[str]) -> dict[str, int]:
    return {name: n for n, name in enumerate(names)}
