"""File-level signals for the learned ranker that its rows do not hold (pure): what the
history and the graph say of a candidate's file as a whole. Tried on the corpus
(`benchmarks/ranker_file_signals.py`); see docs/ranker.md for what they gave.

`evals.corpus.file_features` read a file's history through its definitions (the commits that
changed a definition the file still holds). These read it through the file itself, from the
commits the history field read before the indexed revision (`indexers.history.HistoryTable.log`,
newest first, renames followed to the revision's path), and add the graph and the question's
BM25 mass:

- `g_commits`, `g_recent`, `g_since`: how many of the read commits touched the file, how many
  of the newest `RECENT`, and how many commits ago the newest one was (log1p each; a file no
  read commit touched: 0, 0 and log1p(the commits read));
- `g_bm25`, `g_bm25_top`, `g_bm25_rr`: the question's BM25 score over one document per file
  (the words of every read commit that touched it), that score over the best candidate file's,
  and the file's place by it among the question's candidate files (1 / place, 0 for a zero);
- `g_cov`, `g_last_cov`: the share of the question's words those messages hold, and the
  newest touching commit's message alone;
- `f_mass`, `f_mass_rr`: the file's share of the question's BM25 score summed over all its
  candidates (the chunks' `bm25_q`), and its place by it;
- `f_imports_in`, `f_calls_in`, `f_tests_in`: how many other files import it, call one of its
  definitions, test one of them (log1p each; from the index's graph).

Every value is a function of the question's rows, their paths, the read log and the graph:
the same inputs give the same columns, in any process.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from evals.corpus.file_features import words_bm25

SIGNALS: tuple[str, ...] = (
    "g_commits", "g_recent", "g_since", "g_bm25", "g_bm25_top", "g_bm25_rr", "g_cov",
    "g_last_cov", "f_mass", "f_mass_rr", "f_imports_in", "f_calls_in", "f_tests_in",
)
RECENT = 100
# a commit: its sha and its changed files' (old path, new path); None for a side that is absent
LogEntry = tuple[str, Sequence[tuple[str | None, str | None]]]


@dataclass(frozen=True)
class FileLog:
    """Per file at the revision: the read commits that touched it (0: the newest read), their
    words as one BM25 document, the newest one's words."""

    touched: Mapping[str, tuple[int, ...]]
    words: Mapping[str, frozenset[str]]
    last: Mapping[str, frozenset[str]]
    total: int
    idf: Mapping[str, float]
    average: float

    def score(self, path: str, question: frozenset[str]) -> float:
        found = self.words.get(path)
        return words_bm25(found, question, self.idf, self.average) if found else 0.0


def file_log(log: Sequence[LogEntry], messages: Mapping[str, frozenset[str]]) -> FileLog:
    """From the commits read, newest first: each touched path is named as it is at the
    revision (a rename read newest first sends its old name to the newer one); a path a
    newer commit deleted is not at the revision and is left out."""
    alias: dict[str, str | None] = {}
    touched: dict[str, list[int]] = {}
    for number, (_sha, files) in enumerate(log):
        for old, new in files:
            if new is None:  # deleted here: the name is gone after this commit
                if old is not None and old not in alias:
                    alias[old] = None
                continue
            current = alias.get(new, new)
            if old is not None and old != new and old not in alias:
                alias[old] = current
            if current is not None:
                found = touched.setdefault(current, [])
                if not found or found[-1] != number:
                    found.append(number)
    words = {p: frozenset().union(*(messages.get(log[n][0], frozenset()) for n in found))
             for p, found in touched.items()}
    last = {p: messages.get(log[found[0]][0], frozenset()) for p, found in touched.items()}
    documents = {p: w for p, w in words.items() if w}
    postings: dict[str, int] = {}
    for found_words in documents.values():
        for w in found_words:
            postings[w] = postings.get(w, 0) + 1
    n = max(len(documents), 1)
    return FileLog(
        touched={p: tuple(found) for p, found in touched.items()}, words=documents,
        last=last, total=len(log),
        idf={w: math.log(1.0 + (n - c + 0.5) / (c + 0.5)) for w, c in postings.items()},
        average=(sum(len(w) for w in documents.values()) / n) or 1.0)


def _file_of(node: str) -> str | None:
    if node.startswith("file:"):
        return node[5:]
    if node.startswith("def:") and "::" in node:
        return node[4:].split("::", 1)[0]
    return None


def file_degrees(edges: Iterable[tuple[str, str, str]]) -> dict[str, tuple[int, int, int]]:
    """path -> how many other files import it, call into it, test into it (graph edges
    (source node, target node, kind); containment and the rest are not counted)."""
    kinds = {"imports": 0, "calls": 1, "tests": 2}
    sources: dict[str, tuple[set[str], set[str], set[str]]] = {}
    for src, dst, kind in edges:
        at = kinds.get(kind)
        if at is None:
            continue
        a, b = _file_of(src), _file_of(dst)
        if a is None or b is None or a == b:
            continue
        sources.setdefault(b, (set(), set(), set()))[at].add(a)
    return {p: (len(s[0]), len(s[1]), len(s[2])) for p, s in sorted(sources.items())}


def _places(values: Mapping[str, float], order: Sequence[str]) -> dict[str, float]:
    """1 / the file's place by `values` (higher first; ties: first seen), 0 for a zero."""
    ranked = sorted(range(len(order)), key=lambda n: (-values[order[n]], n))
    return {order[n]: (1.0 / place if values[order[n]] > 0 else 0.0)
            for place, n in enumerate(ranked, start=1)}


def signal_columns(bm25: Sequence[float], paths: Sequence[str], question: frozenset[str],
                   log: FileLog | None, degrees: Mapping[str, tuple[int, int, int]]
                   ) -> list[list[float]]:
    """One row of `SIGNALS` per candidate, in order (`bm25`: each candidate's `bm25_q`)."""
    order = list(dict.fromkeys(paths))
    mass = {p: 0.0 for p in order}
    for value, p in zip(bm25, paths, strict=True):
        mass[p] += max(float(value), 0.0)
    total_mass = math.fsum(mass.values()) or 1.0
    hist = {p: log.score(p, question) if log is not None else 0.0 for p in order}
    top = max(hist.values(), default=0.0) or 1.0
    hist_places, mass_places = _places(hist, order), _places(mass, order)
    q = len(question) or 1
    read = log.total if log is not None else 0
    per_file: dict[str, list[float]] = {}
    for p in order:
        found = log.touched.get(p, ()) if log is not None else ()
        words = log.words.get(p, frozenset()) if log is not None else frozenset()
        last = log.last.get(p, frozenset()) if log is not None else frozenset()
        imports, calls, tests = degrees.get(p, (0, 0, 0))
        per_file[p] = [
            math.log1p(len(found)), math.log1p(sum(1 for n in found if n < RECENT)),
            math.log1p(found[0] if found else read), hist[p], hist[p] / top, hist_places[p],
            len(words & question) / q, len(last & question) / q,
            mass[p] / total_mass, mass_places[p],
            math.log1p(imports), math.log1p(calls), math.log1p(tests),
        ]
    return [list(per_file[p]) for p in paths]
