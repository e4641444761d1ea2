"""file@1 misses: when the wrong file leads, what it is, where the right file is, what put it first.

    python benchmarks/file_misses.py --swe-qa DIR --repo reflex=DIR ... [--out FILE]
    python benchmarks/file_misses.py --mirrors DIR [--candidate-config TOML] [--out FILE]
    python benchmarks/file_misses.py --corpus-trees DIR [--split validation] [--out FILE]

The same questions, trees and dry run as benchmarks/qa_misses.py (no embeddings; the dev set, or
with --mirrors the validation set). For every question with a gold file, the first distinct file
of the ranked evidence (`evals.metrics.ranked_items`, what file@1 scores) is a hit when it is a
gold file; a miss is described by:

  what       what the leading file is: `test` (the index's test rule), `doc` (a documentation
             suffix), `example` (under examples/, docs/, demo/, samples/, benchmarks/, scripts/),
             `sibling` (a code file in a gold file's directory), `package` (a code file under a
             gold file's top directory), `other`
  path_words whether the leading file's path words share a word with the question, and whether
             a gold file's do
  gold_at    where the first gold file is among the evidence's distinct files: 2, 3-5, 6-10,
             later, or `pool` (a candidate of the order before the in-file step, not listed),
             `none`
  step       the step that put the leading file first: `fusion` (first in the fused order
             already), `file_lead` (the in-file step's first-file choice moved it up), `later`
             (compaction or the learned order changed the first file)
  channel    for the leading file's first candidate in the fused order: its anchors
             (`symbol_exact`, `defines`, `path_hint`) or its best-ranked channel; and the
             channels in which it ranks above the gold file's first candidate

With --corpus-trees (the trees of `helix eval corpus trees --history`, indexed under $HELIX_HOME
with `index.history_commits = 1000` as the ranker's rows were), the corpus split's commit
messages instead (`evals.corpus.policy`: every target file among the first k files): the
same `what` and `gold_at` of the first target file, whether the case changes several files
(never a hit at 1), and the leading item's reason codes (the learned order keeps none of the
channels' ranks). A question of the `issue` route is ordered by the learned model
(docs/ranker.md "Routes"), the rest by the hand order; counted apart (`route`). Writes per
project and pooled counts and each miss's record (question head, leading file, gold files,
the first five files).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402
from qa_misses import DOC_SUFFIXES, _sets  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "file_misses.json"
EXAMPLE_DIRS = frozenset({"examples", "example", "docs", "doc", "demo", "demos", "samples",
                          "sample", "benchmarks", "benchmark", "scripts", "website"})
ANCHORS = ("symbol_exact", "defines", "path_hint")
WHAT = ("test", "doc", "example", "sibling", "package", "other")
GOLD_AT = ("2", "3-5", "6-10", "later", "pool", "none")
STEPS = ("fusion", "file_lead", "later")


def _is_test(path: str) -> bool:
    from indexers.graph import is_test_path

    return is_test_path(path)


def what_file(path: str, gold_files: Sequence[str]) -> str:
    """What a leading file that is not gold is, next to the gold files (pure)."""
    if _is_test(path):
        return "test"
    if path.lower().endswith(DOC_SUFFIXES):
        return "doc"
    parts = PurePosixPath(path).parts
    if any(p.lower() in EXAMPLE_DIRS for p in parts[:-1]):
        return "example"
    parent = str(PurePosixPath(path).parent)
    if any(str(PurePosixPath(g).parent) == parent for g in gold_files):
        return "sibling"
    top = parts[0] if len(parts) > 1 else ""
    if top and any(PurePosixPath(g).parts[0] == top for g in gold_files if "/" in g):
        return "package"
    return "other"


def path_words(path: str) -> frozenset[str]:
    from controller.text import name_tokens

    return frozenset(name_tokens(path.replace("/", " ").replace(".", " ")))


def gold_place(files: Sequence[str], pool_files: Sequence[str], gold: Sequence[str]) -> str:
    rank = next((n for n, f in enumerate(files, start=1) if f in gold), None)
    if rank is None:
        return "pool" if any(f in gold for f in pool_files) else "none"
    if rank == 1:
        return "1"
    return "2" if rank == 2 else "3-5" if rank <= 5 else "6-10" if rank <= 10 else "later"


def channels(candidate: Any) -> dict[str, int]:
    return {r.channel: r.rank for r in candidate.reasons if r.code == "rank"}


def lead_channel(candidate: Any) -> str:
    """The leading candidate's anchors, or its best-ranked channel."""
    codes = [r.code for r in candidate.reasons]
    anchors = [a for a in ANCHORS if a in codes]
    if anchors:
        return "+".join(anchors)
    ranks = channels(candidate)
    if not ranks:
        return codes[0] if codes else "none"
    return min(sorted(ranks), key=lambda ch: ranks[ch])


def above(lead: Any, gold: Any | None) -> list[str]:
    """The channels in which the leading candidate ranks above the gold file's first one."""
    mine = channels(lead)
    theirs = channels(gold) if gold is not None else {}
    return sorted(ch for ch, r in mine.items() if r < theirs.get(ch, 10**9))


def first_of(ranked: Sequence[Any], path: str | Sequence[str]) -> Any | None:
    paths = {path} if isinstance(path, str) else set(path)
    return next((c for c in ranked if c.chunk.path in paths), None)


def describe(question: str, gold_files: Sequence[str], files: Sequence[str],
             fused: Sequence[Any], after_in_file: Sequence[str], route: str) -> dict[str, Any]:
    """One question's file@1 record: `files` the evidence's distinct files in order, `fused` the
    fused order's candidates (before the in-file step), `after_in_file` that step's files."""
    from controller.text import name_tokens

    lead = files[0] if files else ""
    fused_files = list(dict.fromkeys(c.chunk.path for c in fused))
    place = gold_place(files, fused_files, gold_files)
    row: dict[str, Any] = {"question_head": " ".join(question.split())[:100], "route": route,
                           "hit": place == "1", "lead": lead, "gold": list(gold_files)[:4],
                           "files5": list(files[:5])}
    if place == "1" or not lead:
        return row
    step = ("fusion" if fused_files[:1] == [lead] else
            "file_lead" if after_in_file[:1] == [lead] else "later")
    words = frozenset(name_tokens(question))
    lead_c, gold_c = first_of(fused, lead), first_of(fused, gold_files)
    row.update(what=what_file(lead, gold_files), gold_at=place, step=step,
               lead_path_words=bool(path_words(lead) & words),
               gold_path_words=any(path_words(g) & words for g in gold_files),
               channel=lead_channel(lead_c) if lead_c is not None else "none",
               above=above(lead_c, gold_c) if lead_c is not None else [])
    return row


def counts(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    misses = [r for r in rows if not r["hit"] and "what" in r]
    return {"questions": len(rows), "file_hits": sum(1 for r in rows if r["hit"]),
            "misses": len(misses),
            "issue_route": {"questions": sum(1 for r in rows if r["route"] == "issue"),
                            "hits": sum(1 for r in rows if r["route"] == "issue" and r["hit"])},
            "what": {k: sum(1 for r in misses if r["what"] == k) for k in WHAT},
            "gold_at": {k: sum(1 for r in misses if r["gold_at"] == k) for k in GOLD_AT},
            "step": {k: sum(1 for r in misses if r["step"] == k) for k in STEPS},
            "lead_path_words": sum(1 for r in misses if r["lead_path_words"]),
            "gold_path_words": sum(1 for r in misses if r["gold_path_words"]),
            "channel": dict(Counter(r["channel"] for r in misses).most_common()),
            "above": dict(Counter(ch for r in misses for ch in r["above"]).most_common())}


class Recorder:
    """The fused order and the in-file step's output, per question."""

    def __init__(self) -> None:
        self.fused: list[Any] = []
        self.after: list[str] = []

    @contextmanager
    def installed(self) -> Iterator[Recorder]:
        import controller.driver as driver

        original = driver._with_file_definitions

        def record(plan: Any, ranked: list[Any], *args: Any, **kwargs: Any) -> Any:
            out = original(plan, ranked, *args, **kwargs)
            self.fused = list(ranked)
            self.after = list(dict.fromkeys(c.chunk.path for c in out))
            return out

        driver._with_file_definitions = record
        try:
            yield self
        finally:
            driver._with_file_definitions = original


def run_repo(questions: Path, repo: Path, rev: str, overrides: dict[str, Any] | None = None
             ) -> list[dict[str, Any]]:
    from evals.history.trees import terminate_as_interrupt
    from evals.metrics import ranked_items
    from evals.qa.gold import derive_gold
    from evals.qa.run import QAContext, load_cases, tree_for
    from evals.reserved import names_reserved

    cases, _ = load_cases(questions)
    rows: list[dict[str, Any]] = []
    with terminate_as_interrupt():
        root, _sha = tree_for(repo, rev)
        context = QAContext(root, overrides or {}, no_embed=True)
        recorder = Recorder()
        with recorder.installed():
            for case in cases:
                gold = derive_gold(case.answer, context.files, context.index.find_definitions)
                if not gold.files or names_reserved(case.question, case.answer, *gold.files):
                    continue
                recorder.fused, recorder.after = [], []
                env = context.helix.ask(case.question)
                files = list(dict.fromkeys(e.path for e in ranked_items(env)))
                row = describe(case.question, gold.files, files, recorder.fused,
                               recorder.after, env.route)
                rows.append({"id": case.id, **row})
    return rows


def corpus_rows(trees: Path, split: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Per repository of the corpus split: each case's file@1 record (as `describe`)."""
    import sqlite_utils

    from evals.corpus.build import load_cases
    from evals.corpus.policy import case_ranks, index_tree
    from evals.corpus.repos import load_repo_list
    from helix.runlog import RunLog
    from helix.service import ask

    names = {e.name for e in load_repo_list(ROOT / "data/evals/corpus_repos.json").repos
             if e.split == split}
    cases = [c for c in load_cases(ROOT / "data/corpus/cases.jsonl") if c.repo in names]
    out: dict[str, Any] = {}
    for name in sorted(names):
        root = trees / name
        _index, config, _s = index_tree(root, {"index.history_commits": 1000, **overrides})
        runlog = RunLog(sqlite_utils.Database(memory=True))
        rows = []
        for case in (c for c in cases if c.repo == name):
            items = ask(case.message, root=root, config=config, dry_run=True, runlog=runlog,
                        notify=lambda _line: None).envelope.evidence
            targets = sorted({t.path for t in case.targets})
            files = list(dict.fromkeys(i.path for i in items))
            rank = case_ranks(case, items)["file_rank"]
            row: dict[str, Any] = {"id": case.id, "hit": rank == 1, "lead": files[:1],
                                   "targets": targets[:4], "several": len(targets) > 1}
            if rank != 1 and files and files[0] not in targets:
                row.update(what=what_file(files[0], targets), reasons=list(
                    items[0].reason_codes), gold_at=gold_place(files, [], targets))
            rows.append(row)
        out[name] = rows
        print(json.dumps({"repo": name, **corpus_counts(rows)}), flush=True)
    return out


def corpus_counts(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    led = [r for r in rows if "what" in r]
    return {"cases": len(rows), "file_hits": sum(1 for r in rows if r["hit"]),
            "several_files": sum(1 for r in rows if r["several"] and not r["hit"]),
            "what": {k: sum(1 for r in led if r["what"] == k) for k in WHAT},
            "gold_at": {k: sum(1 for r in led if r["gold_at"] == k) for k in GOLD_AT},
            "reasons": dict(Counter("+".join(sorted(set(r["reasons"]))) or "none"
                                    for r in led).most_common())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swe-qa", type=Path, help="SWE-QA's snapshot (the dev set)")
    parser.add_argument("--mirrors", type=Path, help="the validation set's snapshots")
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--list", type=Path, metavar="MANIFEST",
                        help="another list with --mirrors (data/evals/qa_train)")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--candidate-config", metavar="TOML",
                        help="settings to try (as `helix eval qa --candidate-config`)")
    parser.add_argument("--corpus-trees", type=Path, help="the corpus's trees (with history)")
    parser.add_argument("--split", default="validation", choices=("train", "validation"))
    args = parser.parse_args()
    repos = dict(item.split("=", 1) for item in args.repo)
    from evals.cli.run_common import candidate_overrides

    overrides = dict(candidate_overrides(args.candidate_config))
    started = cpu_seconds()
    if args.corpus_trees is not None:
        split = corpus_rows(args.corpus_trees, args.split, overrides)
        every = [r for rows in split.values() for r in rows]
        write_result(args.out, {"split": args.split, "pooled": corpus_counts(every),
                                "results": {n: {**corpus_counts(rows), "rows": [
                                    r for r in rows if not r["hit"]]} for n, rows in split.items()},
                                "cpu_s": round(cpu_seconds() - started, 1), "load_1m": load_1m(),
                                "machine": machine(with_platform=False)}, indent=1)
        print(json.dumps({"pooled": corpus_counts(every)}))
        return
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, questions, repo, rev in _sets(args, repos, Path(tmp)):
            rows = run_repo(questions, repo, rev, overrides)
            results[name] = {**counts(rows), "rows": [r for r in rows if not r["hit"]]}
            print(json.dumps({"repo": name, **counts(rows)}), flush=True)
    every = [r for v in results.values() for r in v["rows"]]
    pooled = counts(every)
    pooled["questions"] = sum(v["questions"] for v in results.values())
    pooled["file_hits"] = sum(v["file_hits"] for v in results.values())
    pooled["issue_route"] = {k: sum(v["issue_route"][k] for v in results.values())
                             for k in ("questions", "hits")}
    print(json.dumps({"pooled": pooled}))
    write_result(args.out, {"pooled": pooled, "results": results,
                            "cpu_s": round(cpu_seconds() - started, 1), "load_1m": load_1m(),
                            "machine": machine(with_platform=False)}, indent=1)


if __name__ == "__main__":
    main()
