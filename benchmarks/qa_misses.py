"""The natural-question dev set's misses, each put down to the stage that lost it.

    python benchmarks/qa_misses.py --swe-qa DIR --repo reflex=DIR --repo sqlfluff=DIR \\
        --repo streamlink=DIR --repo shiro=DIR --repo strata=DIR [--out FILE]
    python benchmarks/qa_misses.py --mirrors DIR --out benchmarks/results/qa_misses_validation.json

(the second: the validation set, data/evals/qa_validation, as benchmarks/qa_validation.py).
Each miss is also given one of round 14's classes (`CLASSES`, docs/ranker.md "Round 14").

The same questions, trees and dry run as benchmarks/qa_dev.py (no embeddings); the controller's
stages are recorded as each question runs (`controller.driver`: the pool the loop admitted, the
order `_ranked` gave, what compaction kept). A question whose gold has spans and whose first
five evidence items overlap none of them is a span miss, put down to the first stage that lost
it:

  gold_odd      no chunk of the index overlaps any gold span (a line range past the file's end,
                a file the index does not chunk): no evidence can hit it. Counted apart.
  compaction    the order before compaction had a gold hit in its first five; compaction
                dropped it or cut it to lines outside the gold (`controller.compaction`)
  span_in_file  a gold file is among the files of the first five items, but its item there is
                another span of it: `container` (the class holding the gold method),
                `inside` (a piece of the gold definition that misses a stated line range),
                `sibling` (another definition of the file), with whether the gold definition
                was in the pool
  budget        the gold definition was a candidate the loop admitted, but the ranked evidence
                was cut before it (`retrieval.max_evidence`: the in-file picks take the tail)
  rank          the gold definition was a candidate (in the pool or promoted), ranked below five;
                what put the items above it (their reason codes) is counted
  pool          no candidate overlaps the gold: the gold file was a candidate (`file_in_pool`)
                or not even that

Gold shapes are counted over every question (a whole-file span, a class of more than
`--wide-lines` lines). A recall miss (nothing sent overlaps the gold) is put down to `pool`,
`budget` (a candidate past `retrieval.max_evidence`) or `compaction`.
Writes benchmarks/results/qa_misses.json (per repository and pooled: counts per stage, each
miss with its question head, gold, top five and the stage's detail).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402
from qa_dev import DEV, _questions  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "qa_misses.json"
VALIDATION = ROOT / "data" / "evals" / "qa_validation" / "manifest.json"
TOP = 5
STAGES = ("gold_odd", "compaction", "span_in_file", "budget", "rank", "pool")
# the classes of issue 31's round 14 (every span miss in exactly one): (a) no candidate of any
# channel overlaps the gold, (b) a candidate cut before the evidence (the evidence list's
# length, compaction), (c) in the evidence past place 5, (d) a gold file in places 1 to 5 as a
# span missing the gold lines, (e) the gold is all tests or docs and the question names them
CLASSES = ("a_pool", "b_cut", "c_past5", "d_span", "e_testdoc", "odd")
DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".mdx")
TESTDOC_WORDS = re.compile(r"\b(?:tests?|testing|tested|test suite|fixtures?|unit tests?|"
                           r"docs?|documentation|readme|tutorials?|guides?)\b", re.I)


def testdoc(path: str) -> bool:
    """A test file by the index's rule, or a documentation file by its suffix."""
    from indexers.graph import is_test_path

    return is_test_path(path) or path.lower().endswith(DOC_SUFFIXES)


def miss_class(stage: str | None, detail: dict[str, Any], gold: Sequence[tuple[str, int, int]],
               question: str, sent: Sequence[tuple[str, int, int]]) -> str | None:
    """The round 14 class of a span miss (None: a hit), from its stage (pure)."""
    if stage is None:
        return None
    if stage == "gold_odd":
        return "odd"
    if all(testdoc(g[0]) for g in gold) and TESTDOC_WORDS.search(question):
        return "e_testdoc"
    if stage == "span_in_file":
        return "d_span"
    if stage == "pool":
        return "a_pool"
    if stage == "rank" and first_hit(sent, gold) is not None:
        return "c_past5"
    return "b_cut"


def overlaps(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    return a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]


def first_hit(spans: Sequence[tuple[str, int, int]], gold: Sequence[tuple[str, int, int]]
              ) -> int | None:
    for rank, span in enumerate(spans, start=1):
        if any(overlaps(span, g) for g in gold):
            return rank
    return None


def _within(inner: tuple[str, int, int], outer: tuple[str, int, int]) -> bool:
    return inner[0] == outer[0] and outer[1] <= inner[1] and inner[2] <= outer[2]


def file_shape(item: tuple[str, int, int], gold: Sequence[tuple[str, int, int]]) -> str:
    """How an item of a gold file misses it: the class around the gold, a piece of a gold
    definition beside a stated range, or another definition of the file."""
    same = [g for g in gold if g[0] == item[0]]
    if any(_within(g, item) for g in same):
        return "container"
    if any(_within(item, g) for g in same):
        return "inside"
    return "sibling"


def classify(gold: Sequence[tuple[str, int, int]], hittable: bool,
             pool: Sequence[tuple[str, int, int]], ranked: Sequence[tuple[str, int, int]],
             sent: Sequence[tuple[str, int, int]]) -> tuple[str, dict[str, Any]] | None:
    """The stage that lost a question's span (None: a hit in the first five of `sent`).
    `pool`: every candidate the loop admitted or the ranking promoted; `ranked`: their order
    before compaction; `sent`: the evidence after it, in rank order (pure)."""
    if first_hit(sent[:TOP], gold) is not None:
        return None
    if not hittable:
        return "gold_odd", {}
    before = first_hit(ranked[:TOP], gold)
    if before is not None:
        kept = first_hit(sent, gold)
        return "compaction", {"rank_before": before, "kept_at": kept}
    gold_files = {g[0] for g in gold}
    in_pool = first_hit(pool, gold) is not None
    for item in sent[:TOP]:
        if item[0] in gold_files:
            return "span_in_file", {"shape": file_shape(item, gold), "gold_in_pool": in_pool,
                                    "rank": first_hit(ranked, gold)}
    if in_pool:
        rank = first_hit(ranked, gold)
        return ("rank", {"rank": rank}) if rank is not None else ("budget", {})
    return "pool", {"file_in_pool": any(p[0] in gold_files for p in pool)}


def recall_stage(gold: Sequence[tuple[str, int, int]], hittable: bool,
                 pool: Sequence[tuple[str, int, int]], ranked: Sequence[tuple[str, int, int]],
                 sent: Sequence[tuple[str, int, int]]) -> str | None:
    if first_hit(sent, gold) is not None:
        return None
    if not hittable:
        return "gold_odd"
    if first_hit(ranked, gold) is not None:
        return "compaction"
    return "budget" if first_hit(pool, gold) is not None else "pool"


class Recorder:
    """Notes, per question, the loop's pool, the order before compaction and its reasons."""

    def __init__(self) -> None:
        self.pool: list[Any] = []
        self.ranked: list[Any] = []

    @contextmanager
    def installed(self) -> Iterator[Recorder]:
        import controller.driver as driver

        retrieved, ranked, learned = driver._retrieved, driver._ranked, driver.learned_order

        def _retrieved(*args: Any, **kwargs: Any) -> Any:
            state = retrieved(*args, **kwargs)
            self.pool = list(state.evidence)
            return state

        def _ranked(*args: Any, **kwargs: Any) -> Any:
            out = ranked(*args, **kwargs)
            self.ranked = list(out)
            return out

        def _learned(*args: Any, **kwargs: Any) -> Any:  # the model's order replaces the hand's
            out = learned(*args, **kwargs)
            self.pool += [c for c in self.ranked if c not in self.pool]
            self.ranked = list(out)
            return out

        driver._retrieved, driver._ranked = _retrieved, _ranked  # type: ignore[assignment]
        driver.learned_order = _learned  # type: ignore[assignment]
        try:
            yield self
        finally:
            driver._retrieved, driver._ranked = retrieved, ranked  # type: ignore[assignment]
            driver.learned_order = learned  # type: ignore[assignment]


def _span(c: Any) -> tuple[str, int, int]:
    return (c.chunk.path, c.chunk.start_line, c.chunk.end_line)


def _reason(c: Any) -> str:
    codes = [r.channel if r.code == "rank" else r.code for r in c.reasons]
    return "+".join(dict.fromkeys(codes)) or "none"


def ranked_item(c: Any) -> dict[str, Any]:
    """One ranked candidate as the result lists it: span, kind, symbol and channels, a path or a
    symbol naming a reserved project replaced by its placeholder (`evals.reserved`)."""
    from evals.reserved import shown_name, shown_path

    return {"span": f"{shown_path(c.chunk.path)}:{c.chunk.start_line}-{c.chunk.end_line}",
            "kind": c.chunk.kind, "symbol": shown_name(c.chunk.symbol), "why": _reason(c)}


def _hittable(index: Any, gold: Sequence[tuple[str, int, int]]) -> bool:
    for path in dict.fromkeys(g[0] for g in gold):
        spans = [(c.path, c.start_line, c.end_line) for c in index.chunks_for_path(path)]
        if any(first_hit(spans, [g]) for g in gold if g[0] == path):
            return True
    return False


def _shapes(index: Any, gold: Any, wide: int) -> list[str]:
    out = []
    for g in gold.spans:
        chunks = index.chunks_for_path(g.path)
        last = max((c.end_line for c in chunks), default=0)
        if g.start_line <= 1 and g.end_line >= last:
            out.append("whole_file")
        elif g.end_line - g.start_line + 1 > wide:
            out.append("wide")
    return out


def run_repo(name: str, questions: Path, repo: Path, rev: str, wide: int,
             overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    from evals.history.trees import terminate_as_interrupt
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
                if not gold.files or not gold.spans or names_reserved(
                        case.question, case.answer, *gold.files):
                    continue
                env = context.helix.ask(case.question)
                rows.append(_row(case, gold, env, recorder, context.index, wide))
    return {"questions": len(rows), **_counts(rows),
            "misses": [r for r in rows if r["stage"] or r["symbol_stage"]]}


def _row(case: Any, gold: Any, env: Any, recorder: Recorder, index: Any, wide: int
         ) -> dict[str, Any]:
    from evals.reserved import shown_path

    spans = [(g.path, g.start_line, g.end_line) for g in gold.spans]
    symbols = [(g.path, g.start_line, g.end_line) for g in gold.symbols]
    pool = [_span(c) for c in recorder.pool]
    pool += [_span(c) for c in recorder.ranked if _span(c) not in set(pool)]
    ranked = [_span(c) for c in recorder.ranked]
    sent = [(e.path, e.start_line, e.end_line) for e in env.evidence]
    hittable = _hittable(index, spans)
    verdict = classify(spans, hittable, pool, ranked, sent)
    kind = miss_class(verdict[0] if verdict else None, verdict[1] if verdict else {}, spans,
                      case.question, sent)
    by_symbol = classify(symbols, _hittable(index, symbols), pool, ranked, sent) if symbols \
        else None
    row: dict[str, Any] = {
        "id": case.id, "question_head": " ".join(case.question.split())[:100],
        "route": env.route, "stage": verdict[0] if verdict else None, "class": kind,
        "at": {"pool": first_hit(pool, spans), "ranked": first_hit(ranked, spans),
               "sent": first_hit(sent, spans), "sent_len": len(sent)},
        "gold_testdoc": [testdoc(p) for p, _s, _e in spans[:8]],
        "asks_testdoc": bool(TESTDOC_WORDS.search(case.question)),
        "file_top5": bool({p for p, _s, _e in spans} & {p for p, _s, _e in sent[:TOP]}),
        "top10": [ranked_item(c) for c in recorder.ranked[:10]],
        "detail": verdict[1] if verdict else {},
        "symbol_hit": bool(symbols) and first_hit(sent[:TOP], symbols) is not None,
        "with_symbols": bool(symbols),
        "symbol_stage": by_symbol[0] if by_symbol else None,
        "symbol_detail": by_symbol[1] if by_symbol else {},
        "recall_stage": recall_stage(spans, hittable, pool, ranked, sent),
        "gold_shapes": _shapes(index, gold, wide),
        "gold": [f"{p}:{s}-{e}" for p, s, e in spans[:8]],
        "top": [f"{shown_path(p)}:{s}-{e}" for p, s, e in sent[:TOP]]}
    if verdict and verdict[0] in ("rank", "span_in_file"):
        gold_at = first_hit(ranked, spans)
        above = recorder.ranked[:(gold_at or len(ranked) + 1) - 1][:10]
        row["above"] = [_reason(c) for c in above]
        if gold_at is not None:
            row["gold_reasons"] = _reason(recorder.ranked[gold_at - 1])
    return row


def _counts(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    stages = Counter(r["stage"] for r in rows if r["stage"])
    classes = Counter(r["class"] for r in rows if r["class"])
    recall = Counter(r["recall_stage"] for r in rows if r["recall_stage"])
    shapes = Counter(s for r in rows for s in set(r["gold_shapes"]))
    in_file = Counter(r["detail"]["shape"] for r in rows if r["stage"] == "span_in_file")
    pooled = Counter("file_in_pool" if r["detail"]["file_in_pool"] else "file_not_in_pool"
                     for r in rows if r["stage"] == "pool")
    above = Counter(code for r in rows if r["stage"] in ("rank", "span_in_file")
                    for code in r.get("above", [])[:TOP])
    with_symbols = [r for r in rows if r["with_symbols"]]
    by_symbol = Counter(r["symbol_stage"] for r in with_symbols if r["symbol_stage"])
    return {"span_hits": sum(1 for r in rows if not r["stage"]),
            "symbol_hits": sum(1 for r in with_symbols if r["symbol_hit"]),
            "with_symbols": len(with_symbols),
            "stages": {s: stages.get(s, 0) for s in STAGES},
            "symbol_stages": {s: by_symbol.get(s, 0) for s in STAGES},
            "classes": {c: classes.get(c, 0) for c in CLASSES},
            "recall_stages": dict(sorted(recall.items())),
            "span_in_file": dict(sorted(in_file.items())),
            "pool": dict(sorted(pooled.items())),
            "above_gold_reasons": dict(sorted(above.items())),
            "gold_shapes": dict(sorted(shapes.items()))}


def _sets(args: argparse.Namespace, repos: dict[str, str], tmp: Path
          ) -> Iterator[tuple[str, Path, Path, str]]:
    """(name, questions file, repository, revision) of the dev set or the validation set
    (or, with `--list`, another question list such as data/evals/qa_train's; `--only` its sets)."""
    if args.mirrors is not None:
        from evals.corpus.qa_cases import load_question_list
        from evals.corpus.repos import mirror_dir

        manifest = getattr(args, "list", None) or VALIDATION
        only = getattr(args, "only", None)
        for entry in load_question_list(manifest):
            if only is None or entry.name in only:
                yield (entry.name, manifest.parent / entry.file,
                       mirror_dir(args.mirrors, entry.source), entry.revision)
        return
    for name, (file, rev) in DEV.items():
        if name in repos:
            yield name, _questions(args.swe_qa, name, file, tmp), Path(repos[name]), rev


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swe-qa", type=Path, help="SWE-QA's snapshot (the dev set)")
    parser.add_argument("--mirrors", type=Path, help="the validation set's snapshots "
                        "(data/evals/qa_validation, as benchmarks/qa_validation.py)")
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--list", type=Path, metavar="MANIFEST",
                        help="another list with --mirrors (data/evals/qa_train)")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    parser.add_argument("--wide-lines", type=int, default=150)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--candidate-config", metavar="TOML",
                        help="settings to try (as `helix eval qa --candidate-config`)")
    args = parser.parse_args()
    repos = dict(item.split("=", 1) for item in args.repo)
    from evals.cli.run_common import candidate_overrides

    overrides = candidate_overrides(args.candidate_config)
    started = cpu_seconds()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, questions, repo, rev in _sets(args, repos, Path(tmp)):
            results[name] = run_repo(name, questions, repo, rev, args.wide_lines, overrides)
            print(json.dumps({"repo": name, "questions": results[name]["questions"],
                              "span_hits": results[name]["span_hits"],
                              "classes": results[name]["classes"]}), flush=True)
    rows = [m for r in results.values() for m in r["misses"]]
    pooled = {"questions": sum(r["questions"] for r in results.values()),
              "span_hits": sum(r["span_hits"] for r in results.values()),
              "symbol_hits": sum(r["symbol_hits"] for r in results.values()),
              "with_symbols": sum(r["with_symbols"] for r in results.values()),
              "stages": {s: sum(r["stages"][s] for r in results.values()) for s in STAGES},
              "symbol_stages": {s: sum(r["symbol_stages"][s] for r in results.values())
                                for s in STAGES},
              "classes": {c: sum(r["classes"][c] for r in results.values()) for c in CLASSES},
              "recall_stages": dict(sorted(sum((Counter(r["recall_stages"])
                                                for r in results.values()), Counter()).items())),
              "span_in_file": dict(sorted(Counter(
                  m["detail"]["shape"] for m in rows if m["stage"] == "span_in_file").items())),
              "gold_shapes": dict(sorted(sum((Counter(r["gold_shapes"])
                                              for r in results.values()), Counter()).items()))}
    print(json.dumps({"pooled": pooled}))
    write_result(args.out, {"pooled": pooled, "results": results, "wide_lines": args.wide_lines,
                            "cpu_s": round(cpu_seconds() - started, 1), "load_1m": load_1m(),
                            "machine": machine(with_platform=False)}, indent=1)


if __name__ == "__main__":
    main()
