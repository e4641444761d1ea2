"""Round 26's weak-lead rule (`retrieval.file_defs.weak_channels`): record, then replay the grid.

    python benchmarks/weak_leads.py record --set train|validation --mirrors DIR --out FILE
    python benchmarks/weak_leads.py choose --train FILE --validation FILE [--out FILE]

`record` asks every question of a set (no embeddings, this branch's default) and keeps, per
question with gold lines, the order `driver._ranked` gave (the first 40 items: span, symbol,
kind, score, reasons) and the gold spans and symbols. Sets: `train` the training questions of
`data/evals/qa_train` whose snapshot is on this machine (as `benchmarks/file_lead.py`, and
pyparsing left out as in rounds 24-25), `validation` data/evals/qa_validation. Dev is never
recorded here. `choose` rebuilds the candidates, applies `controller.weak_leads.apply` at each
grid point and counts span@5 and symbol@5 on the first five before compaction, per set and per
project; a point's score is the hits gained on both sets minus the questions that lose one (a loss
counted twice), and it must gain on both (docs/ranker.md "Round 26"). Writes
benchmarks/results/weak_leads.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "weak_leads.json"
GRID = {"weak_channels": (1, 2, 3), "weak_trades": (1, 2)}
KEPT = 40
Span = tuple[str, int, int]


def _item(c: Any) -> dict[str, Any]:
    ch = c.chunk
    return {"path": ch.path, "s": ch.start_line, "e": ch.end_line, "kind": ch.kind,
            "symbol": ch.symbol, "def_kind": ch.def_kind, "score": c.score,
            "reasons": [(r.code, r.channel, r.rank) for r in c.reasons]}


def record(which: str, mirrors: Path, out: Path) -> None:
    from file_lead import _sets
    from qa_misses import Recorder

    from evals.history.trees import terminate_as_interrupt
    from evals.qa.gold import derive_gold
    from evals.qa.run import QAContext, load_cases, tree_for
    from evals.reserved import names_reserved

    rows: list[dict[str, Any]] = []
    recorder = Recorder()
    with tempfile.TemporaryDirectory() as tmp, terminate_as_interrupt(), recorder.installed():
        for name, questions, repo, rev in _sets(which, mirrors, Path(tmp)):
            if name.startswith("pyparsing"):
                continue
            cases, _ = load_cases(questions)
            context = QAContext(tree_for(repo, rev)[0], {}, no_embed=True)
            for case in cases:
                gold = derive_gold(case.answer, context.files, context.index.find_definitions)
                if not gold.files or not gold.spans or names_reserved(
                        case.question, case.answer, *gold.files):
                    continue
                context.helix.ask(case.question)
                rows.append({"set": name, "id": case.id,
                             "spans": [(g.path, g.start_line, g.end_line) for g in gold.spans],
                             "symbols": [(g.path, g.start_line, g.end_line)
                                         for g in gold.symbols],
                             "ranked": [_item(c) for c in recorder.ranked[:KEPT]]})
            print(json.dumps({"set": name, "questions": sum(r["set"] == name for r in rows)}),
                  flush=True)
    out.write_bytes(pickle.dumps(rows))


def candidates(items: Sequence[dict[str, Any]]) -> list[Any]:
    """The recorded items as candidates (what `weak_leads.apply` reads: path, reasons)."""
    from controller.evidence import Candidate
    from controller.reasons import Reason
    from helix.core.schemas import Chunk

    return [Candidate(chunk=Chunk(id=str(k), path=it["path"], kind=it["kind"], lang=None,
                                  start_line=it["s"], end_line=it["e"], text="",
                                  content_hash="", symbol=it["symbol"],
                                  def_kind=it["def_kind"], node_id=str(k)),
                      score=it["score"], step=0,
                      reasons=tuple(Reason(code=c, channel=ch or "", rank=rank)
                                    for c, ch, rank in it["reasons"]))
            for k, it in enumerate(items)]


def hit5(spans: Sequence[Span], gold: Sequence[Sequence[Any]]) -> bool:
    return any(s[0] == g[0] and s[1] <= g[2] and g[1] <= s[2] for s in spans[:5] for g in gold)


def replay(rows: Sequence[dict[str, Any]], channels: int, trades: int, depth: int = 24
           ) -> dict[str, Any]:
    """Hits before and after, questions gained and lost, per project (span@5, symbol@5)."""
    from controller.weak_leads import apply
    from helix.core.policy import FileDefsPolicy

    policy = FileDefsPolicy(weak_channels=channels, weak_trades=trades)
    base, new, gained, lost, changed = [0, 0], [0, 0], 0, 0, 0
    per: dict[str, list[int]] = {}
    for row in rows:
        before = [(it["path"], it["s"], it["e"]) for it in row["ranked"]]
        after = [(c.chunk.path, c.chunk.start_line, c.chunk.end_line)
                 for c in apply(candidates(row["ranked"]), policy, depth)]
        was = (hit5(before, row["spans"]), hit5(before, row["symbols"]))
        now = (hit5(after, row["spans"]), hit5(after, row["symbols"]))
        changed += before[:5] != after[:5]
        gained += any(n and not w for w, n in zip(was, now, strict=True))
        lost += any(w and not n for w, n in zip(was, now, strict=True))
        for k in (0, 1):
            base[k] += was[k]
            new[k] += now[k]
        moved = per.setdefault(row["set"], [0, 0])
        moved[0] += now[0] - was[0]
        moved[1] += now[1] - was[1]
    return {"base": base, "new": new, "gained": gained, "lost": lost, "changed": changed,
            "per_project": {k: v for k, v in sorted(per.items()) if v != [0, 0]}}


def choose(train: Path, validation: Path, out: Path) -> None:
    sets = {"train": pickle.loads(train.read_bytes()),
            "validation": pickle.loads(validation.read_bytes())}
    grid = []
    for channels, trades in itertools.product(GRID["weak_channels"], GRID["weak_trades"]):
        point: dict[str, Any] = {"weak_channels": channels, "weak_trades": trades}
        for name, rows in sets.items():
            point[name] = replay(rows, channels, trades)
        deltas = {n: sum(point[n]["new"]) - sum(point[n]["base"]) for n in sets}
        # the net hits already lose a lost question once; it is taken off again
        point["score"] = sum(deltas[n] - point[n]["lost"] for n in sets)
        point["gains_on_both"] = all(d > 0 for d in deltas.values())
        grid.append(point)
        print(json.dumps({k: point[k] for k in ("weak_channels", "weak_trades", "score",
                                                "gains_on_both")}), flush=True)
    eligible = [p for p in grid if p["gains_on_both"]]
    chosen = max(eligible, key=lambda p: p["score"], default=None)
    write_result(out, {"questions": {n: len(r) for n, r in sets.items()}, "grid": grid,
                       "chosen": None if chosen is None else {
                           k: chosen[k] for k in ("weak_channels", "weak_trades")},
                       "load_1m": load_1m(), "machine": machine(with_platform=False)},
                 indent=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--set", choices=("train", "validation"), required=True)
    rec.add_argument("--mirrors", type=Path, required=True)
    rec.add_argument("--out", type=Path, required=True)
    cho = sub.add_parser("choose")
    cho.add_argument("--train", type=Path, required=True)
    cho.add_argument("--validation", type=Path, required=True)
    cho.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.command == "record":
        record(args.set, args.mirrors, args.out)
    else:
        choose(args.train, args.validation, args.out)


if __name__ == "__main__":
    main()
