"""Label and row variants of the question model's training rows (docs/ranker.md, round 12).

SWE-QA dev's gold counts an evidence item as a hit when it overlaps any gold span: a whole
definition the answer names (a class: every method inside it), a cited line range (module text
included). The question cases' labels are narrower (`evals.corpus.features.label_case`: a
candidate is positive when it is a target definition, the innermost one a cited range
overlaps). Two variants, each a pure function of the collected rows:

- `overlap_groups`: a candidate is positive when it overlaps a target definition or a range the
  answer cites (`evals.qa.gold.derive_gold` over the answer, as dev's gold is read), so a
  method of a named class and module text inside a cited range count as dev counts them;
- `without_tests`: test candidates left out of training and `is_test` zeroed. The writers
  skipped tests, so no training question has a test target and every test candidate is a
  negative: the model learned that a test never answers, while SWE-QA asks about tests.

`Groups.target_of` (what the leave-one-project-out metrics score) is left as collected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from evals.corpus.qa_train import load_cases, project_groups
from evals.corpus.ranker_train import Groups, _current, load
from evals.qa.gold import derive_gold

Span = tuple[str, int, int]


def _question_number(case_id: str) -> int:
    """`qa:<project>:<n>` -> n (1-based: the line of the question file)."""
    return int(case_id.rsplit(":", 1)[1])


def overlap_labels(candidates: Sequence[Sequence[Any]], spans: Sequence[Span]) -> list[int]:
    """1 for each candidate (path, symbol, start, end) overlapping one of `spans`."""
    out: list[int] = []
    for path, _symbol, start, end in candidates:
        out.append(int(any(path == p and int(start) <= b and a <= int(end)
                           for p, a, b in spans)))
    return out


def overlap_groups(rows: Path, name: str, answers: Sequence[str],
                   features: Sequence[str]) -> Groups:
    """`name`'s rows (`project_groups`) labelled by overlap; `answers[n - 1]` is question
    n's reference answer."""
    base = project_groups(rows, name, features)
    x, y, group, side = load(rows / name)
    _x, _y, _g, entries = _current(x, y, group, side, rows / name, features)
    cases = load_cases(rows / f"{name}.cases.jsonl")
    labels: list[int] = []
    for entry, candidates in zip(side["cases"], entries, strict=True):
        case = cases[entry["id"]]
        files = sorted({str(c[0]) for c in candidates} | {t.path for t in case.targets})
        gold = derive_gold(answers[_question_number(entry["id"]) - 1], files, lambda _n: [])
        spans = [(t.path, t.start, t.end) for t in case.targets] + [
            (s.path, s.start_line, s.end_line) for s in gold.spans]
        labels.extend(overlap_labels(candidates, spans))
    return replace(base, y=np.asarray(labels, dtype=base.y.dtype))


def without_tests(data: Groups, features: Sequence[str]) -> Groups:
    """`data` without its test candidates, `is_test` zeroed (a model trained on it never
    splits on test-ness)."""
    column = list(features).index("is_test")
    keep = data.x[:, column] == 0
    sizes: list[int] = []
    files: list[list[str]] = []
    at = 0
    for size, paths in zip(data.group, data.files, strict=True):
        mask = keep[at:at + int(size)]
        sizes.append(int(mask.sum()))
        files.append([p for p, k in zip(paths, mask, strict=True) if k])
        at += int(size)
    x = data.x[keep].copy()
    x[:, column] = 0.0
    return Groups(x, data.y[keep], np.asarray(sizes, dtype=np.int64), data.target_of[keep],
                  data.targets, files, data.target_files)
