"""Which of the first files leads a descriptive question's evidence: the columns a learned
choice reads (pure; the driver hands in the candidates and the files' graph degrees).

For each of the first `file_defs.lead_files` files of the ordered evidence (its leading run of
items, as `file_defs.lead_choice` reads them), one row of `FEATURES`: its place, each channel's
best rank among the file's candidates, the fused score against the first file's, its best
definition's in-file score (name part 3 body words, and 1) against the best of the others,
the hand rule's pick, anchors, whether both whole-file channels rank it first
(`lead_agreed`), the question's words in its path and its definitions' names, test-ness,
documentation and example trees, same-directory agreement with the other first files, and
its graph degree. A LightGBM model (`helix eval corpus train-file-lead`, docs/ranker.md
"Round 22") scores the rows; `choose` keeps the hand rule's order unless the model's best
row leads the first file's by more than the manifest's margin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from controller.evidence import Candidate
from controller.file_defs import definition_score, whole_file_first
from controller.text import name_tokens
from helix.core.policy import FileDefsPolicy
from indexers.graph import is_test_path

CHANNELS = ("files", "file_bm25", "bm25", "name_words", "path_words", "definition", "symbol",
            "test_targets")
ANCHOR_CODES = frozenset({"symbol_exact", "defines", "path_hint"})
MISSING_RANK = 100.0
DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".mdx")
EXAMPLE_DIRS = frozenset({"examples", "example", "docs", "doc", "demo", "demos", "samples",
                          "sample", "benchmarks", "benchmark", "scripts", "website"})
FEATURES: tuple[str, ...] = (
    "place", "files_shown", "q_words",
    *(f"rank_{ch}" for ch in CHANNELS),
    "score_ratio", "def3", "def3_gap", "def3_place", "def1", "def1_gap", "def1_place",
    "name_cov", "name_cov_gap", "hand_pick", "anchored", "agreed", "named",
    "path_cov", "path_hits", "is_test", "is_doc", "is_example", "depth",
    "same_dir", "dir_of_first", "top_of_first", "imports_in", "edges_in", "edges_out",
    "run_len", "file_items", "aligned", "in_file",
)
Degrees = Mapping[str, tuple[int, int, int]]  # path -> (imports in, edges in, edges out)


def _ranks(items: Sequence[Candidate]) -> dict[str, int]:
    best: dict[str, int] = {}
    for c in items:
        for r in c.reasons:
            if r.code == "rank" and r.rank < best.get(r.channel, 10**9):
                best[r.channel] = r.rank
    return best


def _defs(question: frozenset[str], run: Sequence[Candidate], policy: FileDefsPolicy,
          weight: float) -> float:
    scored = policy.model_copy(update={"name_weight": weight})
    return max((definition_score(question, c.chunk, scored) for c in run
                if c.chunk.kind in ("code_def", "code_module")), default=0.0)


def _name_cov(question: frozenset[str], run: Sequence[Candidate]) -> float:
    if not question:
        return 0.0
    return max((len(name_tokens(c.chunk.symbol or "") & question) / len(question)
                for c in run), default=0.0)


def _places(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    out = [0.0] * len(values)
    for place, i in enumerate(order):
        out[i] = float(place)
    return out


def rows(question: frozenset[str], runs: Sequence[Sequence[Candidate]],
         ranked: Sequence[Candidate], hand_pick: int, anchored: bool, named: frozenset[str],
         degrees: Degrees, policy: FileDefsPolicy) -> list[list[float]]:
    """One row of `FEATURES` per run (file), in the runs' order."""
    paths = [run[0].chunk.path for run in runs]
    top = max(runs[0][0].score, 1e-9)
    def3 = [_defs(question, run, policy, policy.name_weight) for run in runs]
    def1 = [_defs(question, run, policy, 1.0) for run in runs]
    cov = [_name_cov(question, run) for run in runs]
    p3, p1 = _places(def3), _places(def1)
    dirs = [str(PurePosixPath(p).parent) for p in paths]
    words = [name_tokens(p.replace("/", " ").replace(".", " ")) for p in paths]
    out = []
    for i, (path, run) in enumerate(zip(paths, runs, strict=True)):
        items = [c for c in ranked if c.chunk.path == path]
        ranks = _ranks(items)
        codes = {r.code for c in run for r in c.reasons}
        others = [v for j, v in enumerate(def3) if j != i]
        others1 = [v for j, v in enumerate(def1) if j != i]
        others_cov = [v for j, v in enumerate(cov) if j != i]
        parts = PurePosixPath(path).parts
        hits = len(words[i] & question)
        deg = degrees.get(path, (0, 0, 0))
        out.append([
            float(i), float(len(runs)), float(len(question)),
            *(float(ranks.get(ch, MISSING_RANK)) for ch in CHANNELS),
            run[0].score / top, def3[i], def3[i] - max(others, default=0.0), p3[i],
            def1[i], def1[i] - max(others1, default=0.0), p1[i],
            cov[i], cov[i] - max(others_cov, default=0.0),
            float(i == hand_pick), float(bool(codes & ANCHOR_CODES) or (i == 0 and anchored)),
            float(whole_file_first([r for c in run for r in c.reasons],
                                   policy.model_copy(update={"lead_agreed": True}))),
            float(parts[-1].split(".", 1)[0].lower() in named),
            hits / max(len(question), 1), float(hits),
            float(is_test_path(path)), float(path.lower().endswith(DOC_SUFFIXES)),
            float(any(p.lower() in EXAMPLE_DIRS for p in parts[:-1])), float(len(parts)),
            float(sum(1 for j, d in enumerate(dirs) if j != i and d == dirs[i])),
            float(dirs[i] == dirs[0]), float(parts[0] == PurePosixPath(paths[0]).parts[0]),
            *(float(v) for v in deg),
            float(len(run)), float(len(items)), float("aligned" in codes),
            float("in_file" in codes),
        ])
    return out


def choose(scores: Sequence[float], margin: float) -> int:
    """The run that leads: the best-scored one when it beats the first run's score by more
    than `margin`, else the first (0). Ties: the earlier run."""
    if len(scores) < 2:
        return 0
    best = min(range(len(scores)), key=lambda i: (-scores[i], i))
    return best if scores[best] - scores[0] > margin else 0
