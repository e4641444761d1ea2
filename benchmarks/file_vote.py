"""Round 28's file vote (`retrieval.file_defs.vote_terms`): record, then replay the grid.

    python benchmarks/file_vote.py record --set train|validation --mirrors DIR --out REC
        [--only NAME ...]
    python benchmarks/file_vote.py replay --train REC --validation REC [--out FILE]

`record` asks every question with a gold file (no embeddings, the default configuration: the
vote off) and keeps, per question, the order `driver._ranked` gives (before compaction), the
gold spans and files, whether it reads as a question, and the feedback pass's chunks under
each of `PASSES` (`controller.prf.prf_chunks` on the question's words, code chunks), one JSON
line each. The dev set is never recorded here: its candidate numbers are read once, end to end.
`replay` applies `controller.file_vote.apply` to each recorded order for every grid point and
counts file@1, span@5 and symbol@5 as `evals.qa.score` does; the choice rule (docs/ranker.md
"Round 28"): a point must gain on both sets (the three summed) and lower no measure on either;
of those the highest sum of both sets' gains minus the questions that lose any hit; ties: fewer
questions moved, then smaller weight, fewer files, smaller k. Writes
benchmarks/results/file_vote.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "file_vote.json"
MANIFESTS = {"train": ROOT / "data/evals/qa_train/manifest.json",
             "validation": ROOT / "data/evals/qa_validation/manifest.json"}
# name -> (vote_terms, vote_prf_weight): round 27's point, a lighter one, no expansion
PASSES = {"prf10_06": (10, 0.6), "prf5_03": (5, 0.3), "code0": (10, 0.0)}
GRID = {"vote_files": (2, 3, 5), "vote_weight": (0.25, 0.5, 1.0, 2.0), "vote_k": (1, 5, 10, 60)}
PASS_CHUNKS = 60


@contextmanager
def recording(box: dict[str, Any]) -> Iterator[None]:
    """`driver._ranked` wrapped: its order, the plan's facts and each pass's chunks kept."""
    import controller.driver as driver
    from controller.evidence import CODE_CHUNK_KINDS
    from controller.prf import prf_chunks

    original = driver._ranked

    def ranked(state: Any, index: Any, config: Any) -> Any:
        out = original(state, index, config)
        plan = state.plan
        box.update(order=[[c.chunk.path, c.chunk.start_line, c.chunk.end_line,
                           [r.code for r in c.reasons]] for c in out],
                   asks=bool(plan.asked.reads_as_question), text=plan.text, passes={})
        for name, (terms, weight) in PASSES.items():
            pools = config.retrieval.pools.model_copy(update={"prf_terms": terms,
                                                              "prf_weight": weight})
            found = prf_chunks(index, plan.text, PASS_CHUNKS, pools,
                               lambda h: h.kind in CODE_CHUNK_KINDS) if plan.text else []
            box["passes"][name] = [c.path for c in found]
        return out

    driver._ranked = ranked
    try:
        yield
    finally:
        driver._ranked = original


def record_project(name: str, questions: Path, repo: Path, rev: str, out: Any) -> int:
    from evals.history.trees import terminate_as_interrupt
    from evals.qa.gold import derive_gold
    from evals.qa.run import QAContext, load_cases, tree_for
    from evals.reserved import names_reserved

    cases, _ = load_cases(questions)
    box: dict[str, Any] = {}
    written = 0
    with terminate_as_interrupt(), recording(box):
        root, _sha = tree_for(repo, rev)
        context = QAContext(root, {}, no_embed=True)
        for case in cases:
            gold = derive_gold(case.answer, context.files, context.index.find_definitions)
            if not gold.files or names_reserved(case.question, case.answer, *gold.files):
                continue
            box.clear()
            context.helix.ask(case.question)
            out.write(json.dumps({
                "project": name, "id": case.id, "gold_files": list(gold.files),
                "gold_spans": [[g.path, g.start_line, g.end_line] for g in gold.spans],
                "gold_symbols": [[g.path, g.start_line, g.end_line] for g in gold.symbols],
                **box}, sort_keys=True) + "\n")
            written += 1
    return written


def record(which: str, mirrors: Path, out_path: Path, only: Sequence[str] | None) -> None:
    from evals.corpus.qa_cases import load_question_list
    from evals.corpus.repos import mirror_dir

    manifest = MANIFESTS[which]
    with out_path.open("w", encoding="utf-8") as out:
        for entry in load_question_list(manifest):
            if only and entry.name not in only:
                continue
            n = record_project(entry.name, manifest.parent / entry.file,
                               mirror_dir(mirrors, entry.source), entry.revision, out)
            print(json.dumps({"project": entry.name, "questions": n}), flush=True)


def _overlaps(item: Sequence[Any], spans: Sequence[Sequence[Any]]) -> bool:
    return any(item[0] == g[0] and item[1] <= g[2] and g[1] <= item[2] for g in spans)


def hits(order: Sequence[Sequence[Any]], rec: dict[str, Any]) -> tuple[bool, bool, bool]:
    """file@1, span@5, symbol@5 of an order (as `evals.qa.score` counts them)."""
    files = list(dict.fromkeys(i[0] for i in order))
    span = next((n for n, i in enumerate(order, 1) if _overlaps(i, rec["gold_spans"])), None)
    symbol = next((n for n, i in enumerate(order, 1) if _overlaps(i, rec["gold_symbols"])),
                  None)
    return (bool(files) and files[0] in rec["gold_files"],
            span is not None and span <= 5, symbol is not None and symbol <= 5)


class _Item:
    """A recorded item as much of a `Candidate` as `file_vote.apply` reads."""

    def __init__(self, row: Sequence[Any]) -> None:
        from types import SimpleNamespace

        self.row = row
        self.chunk = SimpleNamespace(path=row[0])
        self.reasons = [SimpleNamespace(code=code) for code in row[3]]


def voted(rec: dict[str, Any], passed: str, point: dict[str, Any]) -> list[Sequence[Any]]:
    from controller.file_vote import apply, voted_files
    from helix.core.policy import FileDefsPolicy

    order = rec["order"]
    if not rec["asks"] or not rec["text"].strip() or len(order) < 2:
        return order
    policy = FileDefsPolicy(vote_terms=PASSES[passed][0], **point)
    items = [_Item(row) for row in order]
    out = apply(items, voted_files(rec["passes"][passed]), policy)  # type: ignore[arg-type]
    return [i.row for i in out]  # type: ignore[attr-defined]


def replay(recs: Sequence[dict[str, Any]], passed: str, point: dict[str, Any]) -> dict[str, Any]:
    base, cand = [0, 0, 0], [0, 0, 0]
    gained = lost = moved = 0
    for rec in recs:
        before = hits(rec["order"], rec)
        order = voted(rec, passed, point)
        after = hits(order, rec)
        moved += order != rec["order"]
        base = [b + x for b, x in zip(base, before, strict=True)]
        cand = [c + x for c, x in zip(cand, after, strict=True)]
        gained += any(a and not b for a, b in zip(after, before, strict=True))
        lost += any(b and not a for a, b in zip(after, before, strict=True))
    return {"base": base, "delta": [c - b for c, b in zip(cand, base, strict=True)],
            "gained": gained, "lost": lost, "moved": moved}


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def grid(train: Sequence[dict[str, Any]], validation: Sequence[dict[str, Any]]
         ) -> list[dict[str, Any]]:
    rows = []
    for passed, files, weight, k in itertools.product(
            PASSES, GRID["vote_files"], GRID["vote_weight"], GRID["vote_k"]):
        point: dict[str, Any] = {"vote_files": files, "vote_weight": weight, "vote_k": k}
        t, v = replay(train, passed, point), replay(validation, passed, point)
        ok = (sum(t["delta"]) > 0 and sum(v["delta"]) > 0
              and min(t["delta"]) >= 0 and min(v["delta"]) >= 0)
        score = sum(t["delta"]) + sum(v["delta"]) - t["lost"] - v["lost"]
        rows.append({"pass": passed, **point, "ok": ok, "score": score, "train": t,
                     "validation": v})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def chosen(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    ok = [r for r in rows if r["ok"]]
    ok.sort(key=lambda r: (-r["score"], r["train"]["moved"] + r["validation"]["moved"],
                           r["vote_weight"], r["vote_files"], r["vote_k"],
                           list(PASSES).index(r["pass"])))
    return ok[0] if ok else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--set", choices=sorted(MANIFESTS), required=True)
    rec.add_argument("--mirrors", type=Path, required=True)
    rec.add_argument("--out", type=Path, required=True)
    rec.add_argument("--only", nargs="*")
    rep = sub.add_parser("replay")
    rep.add_argument("--train", type=Path, required=True)
    rep.add_argument("--validation", type=Path, required=True)
    rep.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    started = cpu_seconds()
    if args.command == "record":
        record(args.set, args.mirrors, args.out, args.only)
        return
    rows = grid(_load(args.train), _load(args.validation))
    best = chosen(rows)
    print(json.dumps({"chosen": best}))
    write_result(args.out, {"passes": PASSES, "grid": GRID, "chosen": best, "points": rows,
                            "cpu_s": round(cpu_seconds() - started, 1), "load_1m": load_1m(),
                            "machine": machine(with_platform=False)}, indent=1)


if __name__ == "__main__":
    main()
