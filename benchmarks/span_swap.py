"""The learned swap inside the first five (`retrieval.file_defs.swap_model_digest`): record,
train, replay.

    python benchmarks/span_swap.py record --set train|validation|dev --mirrors DIR --out FILE
    python benchmarks/span_swap.py train --train FILE --validation FILE \\
        [--model-dir data/span_swap] [--out benchmarks/results/span_swap.json]

`record` asks every question of a set (no embeddings, this checkout's defaults, the swap off)
and keeps what `controller.driver._with_file_definitions` returned for it (the ordered
evidence before compaction, each item's reason codes), the question's words, whether it reads
as a question and its route, with the gold spans and symbols (`evals.qa.gold.derive_gold`) and
the evidence sent. Sets as benchmarks/file_lead.py's (`train`: data/evals/qa_train's questions
whose snapshot is under --mirrors, commons-io, commons-lang, joda-time and zod left out). A
pickle of plain data and the project's own objects, written by this script and read only by it.

`train` builds, for each question the swap runs on (a question the in-file step applies to, with
a repeat in the first five and a later definition of a file there: `controller.span_swap.
slots`), a row per place (`span_swap.rows`; the label: the item overlaps a gold span), trains
LightGBM lambdarank on the train questions (one thread, a fixed seed) over a small grid and
replays the swap: span@5 and symbol@5 on the order before compaction (a question the swap does
not run on keeps its recorded order). The grid point, the margin and the number of trades are
chosen by leave-one-project-out (span@5 + symbol@5) on the training questions plus the same on
validation by the model trained on every training question, minus the questions that lose a hit
they had (a loss counts twice; round 25), among the points that gain on both (none: nothing is
shipped); ties: fewer trees, fewer leaves, more rows a leaf, the larger margin, fewer trades.
`record` keeps each item's fused score and (channel, rank) reasons for the round-25 columns.
Dev is never read here. Writes the model and its manifest (`--model-dir`) and the result.
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
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "span_swap.json"
LIMIT = 24  # retrieval.max_evidence's default: the evidence the swap reads
GRID = {"num_leaves": (3, 7), "min_data_in_leaf": (10, 30), "trees": (50, 150)}
MARGINS = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0)
SWAPS = (1, 2)
PARAMS = {"objective": "lambdarank", "learning_rate": 0.05, "num_threads": 1,
          "deterministic": True, "seed": 1, "verbose": -1, "force_row_wise": True}


def _asked(ctx: Any, case: Any, seen: list[dict[str, Any]]) -> dict[str, Any] | None:
    from evals.qa.gold import derive_gold
    from evals.reserved import names_reserved

    gold = derive_gold(case.answer, ctx.files, ctx.index.find_definitions)
    if not gold.files or not gold.spans or names_reserved(case.question, case.answer,
                                                          *gold.files):
        return None
    seen.clear()
    env = ctx.helix.ask(case.question)
    return {"id": case.id, "spans": [(g.path, g.start_line, g.end_line) for g in gold.spans],
            "symbols": [(g.path, g.start_line, g.end_line) for g in gold.symbols],
            "sent": [(e.path, e.start_line, e.end_line) for e in env.evidence],
            "rec": seen[-1] if seen else None}


def record(which: str, mirrors: Path, out: Path) -> None:
    from file_lead import _sets

    import controller.driver as driver
    from controller import file_defs
    from evals.history.trees import terminate_as_interrupt
    from evals.qa.run import QAContext, load_cases, tree_for

    seen: list[dict[str, Any]] = []
    original = driver._with_file_definitions

    def recorded(plan: Any, ranked: Any, index: Any, config: Any, prefixes: Any = ()) -> Any:
        got = original(plan, ranked, index, config, prefixes)
        seen.append({"q": sorted(file_defs.question_tokens(plan)), "route": plan.intent.route,
                     "asks": plan.asked.reads_as_question,
                     "out": [(c.chunk, tuple(r.code for r in c.reasons)) for c in got],
                     "scores": [c.score for c in got],
                     "ranks": [tuple((r.channel, r.rank) for r in c.reasons if r.code == "rank")
                               for c in got]})
        return got

    driver._with_file_definitions = recorded
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, terminate_as_interrupt():
        for name, questions, repo, rev in _sets(which, mirrors, Path(tmp)):
            root, _sha = tree_for(repo, rev)
            ctx = QAContext(root, {}, no_embed=True)
            cases, _ = load_cases(questions)
            for case in cases:
                row = _asked(ctx, case, seen)
                if row is not None:
                    rows.append({"set": which, "project": str(repo), "file": name, **row})
            print(json.dumps({"set": which, "file": name, "questions": len(rows)}), flush=True)
    out.write_bytes(pickle.dumps(rows))


def _hit(span: Sequence[Any], gold: Sequence[Sequence[Any]]) -> bool:
    return any(span[0] == g[0] and span[1] <= g[2] and g[1] <= span[2] for g in gold)


def prepare(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each question's recorded order, and for one the swap runs on, its places and rows."""
    import numpy as np

    from controller import file_defs, span_swap
    from helix.core.policy import FileDefsPolicy

    policy = FileDefsPolicy()
    out = []
    for r in records:
        rec = r["rec"]
        item: dict[str, Any] = {"project": r["project"], "spans": r["spans"],
                                "symbols": r["symbols"], "base": r["sent"], "X": None}
        out.append(item)
        if rec is None or not rec["asks"] or not file_defs.applies(
                frozenset(rec["q"]), rec["route"], policy, True):
            continue
        items = [(c, tuple(codes)) for c, codes in rec["out"]]
        item["base"] = [(c.path, c.start_line, c.end_line) for c, _ in items]
        held, later = span_swap.slots(items, LIMIT)
        if held and later:
            places = [*held, *later]
            item.update(items=items, held=held, later=later,
                        X=np.array(span_swap.rows(frozenset(rec["q"]), items, places, policy,
                                                  span_swap.signals_of(rec["scores"],
                                                                       rec["ranks"]))),
                        y=np.array([int(_hit(item["base"][p], r["spans"])) for p in places]))
    return out


def fit(items: Sequence[dict[str, Any]], leaves: int, per_leaf: int, trees: int) -> Any:
    import lightgbm as lgb
    import numpy as np

    from controller.span_swap import FEATURES

    groups = [g for g in items if g["X"] is not None and 0 < g["y"].sum() < len(g["y"])]
    data = lgb.Dataset(np.vstack([g["X"] for g in groups]),
                       np.concatenate([g["y"] for g in groups]),
                       group=[len(g["y"]) for g in groups], feature_name=list(FEATURES))
    return lgb.train({**PARAMS, "num_leaves": leaves, "min_data_in_leaf": per_leaf}, data,
                     num_boost_round=trees)


def replay(items: Sequence[dict[str, Any]], model: Any, margin: float, swaps: int
           ) -> dict[str, int]:
    """Questions with a gold span (symbol) among the first five, the swap made by `model`
    (None: the recorded order)."""
    from controller.span_swap import swap

    span = symbol = moved = lost = 0
    for g in items:
        order = list(g["base"])
        if model is not None and g["X"] is not None:
            new = swap(g["items"], g["held"], g["later"], list(model.predict(g["X"])), margin,
                       swaps)
            moved += new[:5] != list(range(5))
            order = [g["base"][i] for i in new]
        now = [any(_hit(t, gold) for t in order[:5]) for gold in (g["spans"], g["symbols"])]
        was = [any(_hit(t, gold) for t in g["base"][:5]) for gold in (g["spans"], g["symbols"])]
        span += now[0]
        symbol += bool(g["symbols"]) and now[1]
        lost += sum(w and not n for w, n in zip(was, now, strict=True))
    return {"span@5": span, "symbol@5": symbol, "moved": moved, "lost": lost}


def _add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: a.get(k, 0) + b[k] for k in b}


def search(train: list[dict[str, Any]], validation: list[dict[str, Any]]
           ) -> list[dict[str, Any]]:
    """Every grid point's leave-one-project-out and validation counts."""
    projects = sorted({g["project"] for g in train})
    points = []
    for leaves, per_leaf, trees in itertools.product(*GRID.values()):
        held_out = {p: fit([g for g in train if g["project"] != p], leaves, per_leaf, trees)
                    for p in projects}
        full = fit(train, leaves, per_leaf, trees)
        for margin, swaps in itertools.product(MARGINS, SWAPS):
            lopo: dict[str, int] = {}
            for p in projects:
                lopo = _add(lopo, replay([g for g in train if g["project"] == p],
                                         held_out[p], margin, swaps))
            val = replay(validation, full, margin, swaps)
            points.append({"num_leaves": leaves, "min_data_in_leaf": per_leaf,
                           "trees": trees, "margin": margin, "swaps": swaps, "lopo": lopo,
                           "validation": val,
                           "choice": sum(lopo[m] + val[m] for m in ("span@5", "symbol@5"))
                           - lopo["lost"] - val["lost"]})
            print(json.dumps(points[-1]), flush=True)
    return points


def _gains(point: dict[str, Any], base: dict[str, dict[str, int]]) -> bool:
    """Whether the point has more hits than the recorded order left one project out and on
    validation, each."""
    return all(sum(point[where][m] - base[where][m] for m in ("span@5", "symbol@5")) > 0
               for where in ("lopo", "validation"))


def _best(points: list[dict[str, Any]], base: dict[str, dict[str, int]]
          ) -> dict[str, Any] | None:
    """The point of the highest choice among those that gain on both (None: no such point)."""
    kept = [p for p in points if _gains(p, base)]
    return min(kept, key=lambda p: (-p["choice"], p["trees"], p["num_leaves"],
                                    -p["min_data_in_leaf"], -p["margin"], p["swaps"]),
               default=None)


def _ship(model: Any, point: dict[str, Any], model_dir: Path) -> str:
    from helix.core.hashing import digest

    text = model.model_to_string().encode()
    model_dir.mkdir(parents=True, exist_ok=True)
    (model_dir / "model.txt").write_bytes(text)
    from controller.span_swap import FEATURES

    manifest = {"description": "The learned swap inside the first five (controller.span_swap): "
                "LightGBM lambdarank over the first five's repeats and the later definitions "
                "of their files, trained by benchmarks/span_swap.py on data/evals/qa_train's "
                "questions.", "features": list(FEATURES), "model": "model.txt",
                "model_digest": digest(text), "margin": point["margin"],
                "swaps": point["swaps"], "point": {k: point[k] for k in (
                    "num_leaves", "min_data_in_leaf", "trees")},
                "lopo": point["lopo"], "validation": point["validation"]}
    raw = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    (model_dir / "manifest.json").write_bytes(raw)
    return digest(raw)


def train_cmd(args: argparse.Namespace) -> None:
    started = cpu_seconds()
    train = prepare(pickle.loads(args.train.read_bytes()))
    validation = prepare(pickle.loads(args.validation.read_bytes()))
    points = search(train, validation)
    recorded = {"train": replay(train, None, 0.0, 0),
                "validation": replay(validation, None, 0.0, 0)}
    best = _best(points, {"lopo": recorded["train"], "validation": recorded["validation"]})
    pinned = None
    if best is not None:  # else no point gains on both: nothing is shipped
        model = fit(train, best["num_leaves"], best["min_data_in_leaf"], best["trees"])
        pinned = _ship(model, best, args.model_dir)
    write_result(args.out, {
        "command": "python benchmarks/span_swap.py train --train TRAIN --validation VAL",
        "questions": {"train": len(train), "validation": len(validation)},
        "decisions": {"train": sum(g["X"] is not None for g in train),
                      "validation": sum(g["X"] is not None for g in validation)},
        "recorded": recorded,
        "chosen": best, "manifest_digest": pinned, "grid": points,
        "cpu_s": round(cpu_seconds() - started, 1), "load_1m": load_1m(),
        "machine": machine(with_platform=False)}, indent=1)
    print(json.dumps({"chosen": best, "manifest_digest": pinned}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--set", choices=("train", "validation", "dev"), required=True)
    rec.add_argument("--mirrors", type=Path, required=True)
    rec.add_argument("--out", type=Path, required=True)
    tr = sub.add_parser("train")
    tr.add_argument("--train", type=Path, required=True)
    tr.add_argument("--validation", type=Path, required=True)
    tr.add_argument("--model-dir", type=Path, default=ROOT / "data" / "span_swap")
    tr.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.command == "record":
        record(args.set, args.mirrors, args.out)
    else:
        train_cmd(args)


if __name__ == "__main__":
    main()
