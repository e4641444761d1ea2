"""The learned first-file choice (`retrieval.file_defs.lead_model_digest`): record, train, replay.

    python benchmarks/file_lead.py record --set train|validation|dev --mirrors DIR --out FILE
    python benchmarks/file_lead.py train --train FILE --validation FILE --dev FILE \\
        [--model-dir data/file_lead] [--out benchmarks/results/file_lead.json]

`record` asks every question of a set (no embeddings, this checkout's defaults) and keeps, for
each question the first-file choice runs on (a descriptive question: `file_defs.descriptive`),
what `controller.driver._file_lead` was handed (the ordered candidates, the question's words and
terms, the first files' graph degrees), with the gold files (`evals.qa.gold.derive_gold`) and
the evidence's files. Sets: `train` the training questions of `data/evals/qa_train` whose
snapshot is under --mirrors (commons-io, commons-lang, joda-time and zod are left out: their
trees are large); `validation` `data/evals/qa_validation`; `dev` SWE-QA's dev questions
(benchmarks/qa_dev.py's, read from --mirrors/peng-weihan+SWE-QA). A pickle of plain data and
the project's own objects, written by this script and read only by it (scratch, not shipped).

`train` builds each question's rows (`controller.file_lead.rows`, the label: the file is a gold
file), trains LightGBM lambdarank on the train questions (deterministic: one thread, a fixed
seed) over a small grid, and replays the choice on the validation and dev records: a question
whose evidence kept the first file `_file_lead` chose scores the file the model chooses, every
other question keeps its recorded file@1. The grid point, the trees and the margin are chosen
by validation file@1 plus leave-one-project-out file@1 on the training questions (a project's
files held out together; round 23: 200 validation questions alone moved by one or two
questions between points), ties: fewer trees, fewer leaves, more rows a leaf, the smaller
margin; dev is reported. Writes the model and its manifest (`--model-dir`) and the result.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "file_lead.json"
TRAIN_SKIP = frozenset({"commons_io", "commons_lang", "joda_time", "zod"})
GRID = {"num_leaves": (3, 7), "min_data_in_leaf": (10, 30)}
TREES = (50, 100, 200, 300)
MARGINS = (0.0, 0.25, 0.5, 1.0)
PARAMS = {"objective": "lambdarank", "learning_rate": 0.05, "lambda_l2": 10.0,
          "num_threads": 1, "deterministic": True, "seed": 7, "verbose": -1,
          "force_row_wise": True}


def _sets(which: str, mirrors: Path, tmp: Path) -> Iterator[tuple[str, Path, Path, str]]:
    """(name, questions file, snapshot, revision) of a set."""
    from evals.corpus.repos import mirror_dir

    if which == "train":
        base = ROOT / "data" / "evals" / "qa_train"
        projects = json.loads((base / "manifest.json").read_text(encoding="utf-8"))["projects"]
        for name, e in sorted(projects.items()):
            if name not in TRAIN_SKIP:
                yield name, base / e["file"], mirror_dir(mirrors, e["source"]), e["revision"]
    elif which == "validation":
        from qa_misses import VALIDATION

        from evals.corpus.qa_cases import load_question_list

        for entry in load_question_list(VALIDATION):
            yield (entry.name, VALIDATION.parent / entry.file,
                   mirror_dir(mirrors, entry.source), entry.revision)
    else:
        from qa_dev import DEV

        sources = {"reflex": "reflex-dev/reflex", "sqlfluff": "sqlfluff/sqlfluff",
                   "streamlink": "streamlink/streamlink", "shiro": "apache/shiro",
                   "strata": "OpenGamma/Strata"}
        swe = mirror_dir(mirrors, "github:peng-weihan/SWE-QA")
        for name, (file, rev) in DEV.items():
            data = subprocess.run(["git", "-C", str(swe), "show", f"HEAD:Benchmark/{file}"],
                                  capture_output=True, check=True).stdout
            (tmp / f"{name}.jsonl").write_bytes(data)
            yield name, tmp / f"{name}.jsonl", mirror_dir(mirrors, f"github:{sources[name]}"), rev


class Recorder:
    """What `_file_lead` is handed, per question (the last call of a question's ask)."""

    def __init__(self) -> None:
        self.record: dict[str, Any] | None = None

    def install(self) -> Callable[[], None]:
        import controller.driver as driver
        from controller import file_lead_step

        original = driver._file_lead

        def lead(plan: Any, question: Any, ranked: Any, policy: Any, index: Any = None) -> Any:
            out = original(plan, question, ranked, policy, index)
            paths = list(dict.fromkeys(c.chunk.path for c in ranked))[:policy.lead_files]
            self.record = {"question": question, "terms": list(plan.intent.terms),
                           "ranked": list(ranked[:60]), "after": [c.chunk.path for c in out[:5]],
                           "degrees": dict(file_lead_step.degrees(index, paths))}
            return out

        driver._file_lead = lead

        def restore() -> None:
            driver._file_lead = original

        return restore


def record(which: str, mirrors: Path, out: Path) -> None:
    from evals.history.trees import terminate_as_interrupt
    from evals.metrics import ranked_items
    from evals.qa.gold import derive_gold
    from evals.qa.run import QAContext, load_cases, tree_for
    from evals.reserved import names_reserved

    recorder, rows = Recorder(), []
    restore = recorder.install()
    try:
        with tempfile.TemporaryDirectory() as tmp, terminate_as_interrupt():
            for name, questions, repo, rev in _sets(which, mirrors, Path(tmp)):
                cases, _ = load_cases(questions)
                context = QAContext(tree_for(repo, rev)[0], {}, no_embed=True)
                for case in cases:
                    gold = derive_gold(case.answer, context.files, context.index.find_definitions)
                    if not gold.files or names_reserved(case.question, case.answer, *gold.files):
                        continue
                    recorder.record = None
                    env = context.helix.ask(case.question)
                    files = list(dict.fromkeys(e.path for e in ranked_items(env)))
                    rows.append({"set": name, "id": case.id, "gold": list(gold.files),
                                 "files": files[:10], "rec": recorder.record})
                print(json.dumps({"set": name, "questions": sum(r["set"] == name for r in rows),
                                  "recorded": sum(r["set"] == name and r["rec"] is not None
                                                  for r in rows)}), flush=True)
    finally:
        restore()
    out.write_bytes(pickle.dumps(rows))


def _runs(ranked: Sequence[Any], files: int) -> list[list[Any]]:
    """The first files' leading runs of items, as `controller.driver._file_lead` reads them."""
    runs: dict[str, list[Any]] = {}
    for position, c in enumerate(ranked):
        if c.chunk.path not in runs:
            if len(runs) >= files:
                break
            runs[c.chunk.path] = [c]
        elif runs[c.chunk.path][-1] is ranked[position - 1]:
            runs[c.chunk.path].append(c)
    return list(runs.values())


def prepare(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each recorded question with its rows, labels, the hand rule's pick and whether the
    choice is guarded (anchored, named, one file: the hand rule decides)."""
    import numpy as np

    from controller import file_defs, file_lead
    from controller.driver import ANCHORS
    from controller.text import is_identifier
    from helix.core.policy import FileDefsPolicy

    policy = FileDefsPolicy()
    out = []
    for r in records:
        item = {"set": r["set"], "gold": r["gold"],
                "base_hit": bool(r["files"]) and r["files"][0] in r["gold"]}
        rec = r["rec"]
        if rec is not None:
            runs, question = _runs(rec["ranked"], policy.lead_files), rec["question"]
            anchored = any(x.code in ANCHORS for c in runs[0] for x in c.reasons)
            named = frozenset(t.lower() for t in rec["terms"] if is_identifier(t))
            hand = file_defs.lead_choice(question, [[c.chunk for c in run] for run in runs],
                                         anchored, named, policy)
            paths = [run[0].chunk.path for run in runs]
            item.update(
                X=np.array(file_lead.rows(question, runs, rec["ranked"], hand, anchored, named,
                                          rec["degrees"], policy)),
                y=np.array([int(p in r["gold"]) for p in paths]), paths=paths, hand=hand,
                guard=len(runs) < 2 or anchored or file_defs.stem(paths[0]) in named,
                kept=bool(r["files"]) and rec["after"][:1] == r["files"][:1])
        out.append(item)
    return out


def file_hits(items: Sequence[dict[str, Any]], pick: Callable[[dict[str, Any]], int]) -> int:
    """file@1 hits when `pick` chooses the lead of every recorded question whose evidence kept
    the chosen first file (the rest keep their recorded file@1)."""
    hits = 0
    for it in items:
        if "X" not in it or not it["kept"]:
            hits += it["base_hit"]
        else:
            hits += int(it["paths"][it["hand"] if it["guard"] else pick(it)] in it["gold"])
    return hits


def per_set(items: Sequence[dict[str, Any]], pick: Callable[[dict[str, Any]], int]
            ) -> dict[str, int]:
    names = sorted({it["set"] for it in items})
    return {n: file_hits([it for it in items if it["set"] == n], pick) for n in names}


def _dataset(items: Sequence[dict[str, Any]]) -> tuple[Any, Any, list[int]]:
    import numpy as np

    keep = [it for it in items
            if "X" in it and not it["guard"] and 0 < it["y"].sum() < len(it["y"])]
    return (np.vstack([it["X"] for it in keep]), np.concatenate([it["y"] for it in keep]),
            [len(it["y"]) for it in keep])


def _picker(model: Any, margin: float) -> Callable[[dict[str, Any]], int]:
    from controller.file_lead import FEATURES, choose
    from controller.learned_rank import parse_model

    trees = parse_model(model.model_to_string(), FEATURES)  # what Helix evaluates
    return lambda it: choose(trees.scores(it["X"]), margin)


def _booster(items: list[dict[str, Any]], leaves: int, per_leaf: int, trees: int) -> Any:
    import lightgbm as lgb

    from controller.file_lead import FEATURES

    X, y, groups = _dataset(items)
    return lgb.train({**PARAMS, "num_leaves": leaves, "min_data_in_leaf": per_leaf},
                     lgb.Dataset(X, y, group=groups, feature_name=list(FEATURES)),
                     num_boost_round=trees)


def _cut(booster: Any, trees: int) -> Any:
    import lightgbm as lgb

    return lgb.Booster(model_str=booster.model_to_string(num_iteration=trees))


def search(train: list[dict[str, Any]], validation: list[dict[str, Any]]
           ) -> tuple[tuple[Any, ...], Any, list[dict[str, Any]]]:
    """The grid, each point's validation file@1 and leave-one-project-out file@1 on the
    training questions; the best by their sum (key, model string)."""
    projects = sorted({_project(it["set"]) for it in train})
    held = {p: [it for it in train if _project(it["set"]) == p] for p in projects}
    tried, best = [], None
    for leaves, per_leaf in itertools.product(GRID["num_leaves"], GRID["min_data_in_leaf"]):
        booster = _booster(train, leaves, per_leaf, max(TREES))
        folds = {p: _booster([it for it in train if _project(it["set"]) != p], leaves, per_leaf,
                             max(TREES)) for p in projects}
        for trees, margin in itertools.product(TREES, MARGINS):
            model = _cut(booster, trees)
            hits = file_hits(validation, _picker(model, margin))
            out = sum(file_hits(held[p], _picker(_cut(folds[p], trees), margin))
                      for p in projects)
            tried.append({"num_leaves": leaves, "min_data_in_leaf": per_leaf, "trees": trees,
                          "margin": margin, "validation_file_hits": hits,
                          "lopo_file_hits": out})
            key = (hits + out, -trees, -leaves, per_leaf, -margin)
            if best is None or key > best[0]:
                best = (key, model.model_to_string(num_iteration=trees), tried[-1])
    assert best is not None
    return best[0], (best[1], best[2]), tried


def _project(name: str) -> str:
    for style in ("_process", "_hidden", "_report"):
        name = name.removesuffix(style)
    return name


def lopo(train: list[dict[str, Any]], point: dict[str, Any]) -> dict[str, Any]:
    """Leave one training project out, at the chosen point: file@1 of the hand rule, of
    retrieval's first file, of the model (a third opinion beside validation and dev)."""
    totals = {"questions": 0, "hand": 0, "first": 0, "model": 0}
    for project in sorted({_project(it["set"]) for it in train}):
        held = [it for it in train if _project(it["set"]) == project]
        booster = _booster([it for it in train if _project(it["set"]) != project],
                           point["num_leaves"], point["min_data_in_leaf"], point["trees"])
        totals["questions"] += len(held)
        totals["hand"] += file_hits(held, lambda it: it["hand"])
        totals["first"] += file_hits(held, lambda it: 0)
        totals["model"] += file_hits(held, _picker(booster, point["margin"]))
    return totals


def _report(items: list[dict[str, Any]], pick: Callable[[dict[str, Any]], int]
            ) -> dict[str, Any]:
    return {"questions": len(items), "recorded": sum("X" in it for it in items),
            "hand": per_set(items, lambda it: it["hand"]), "first": per_set(items, lambda it: 0),
            "model": per_set(items, pick),
            "pooled": {"hand": file_hits(items, lambda it: it["hand"]),
                       "first": file_hits(items, lambda it: 0), "model": file_hits(items, pick)}}


def train_cmd(args: argparse.Namespace) -> None:
    from helix.core.hashing import digest

    started = cpu_seconds()
    sets = {name: prepare(pickle.loads(path.read_bytes())) for name, path in (
        ("train", args.train), ("validation", args.validation), ("dev", args.dev))}
    _key, (model_text, point), tried = search(sets["train"], sets["validation"])
    import lightgbm as lgb

    pick = _picker(lgb.Booster(model_str=model_text), point["margin"])
    args.model_dir.mkdir(parents=True, exist_ok=True)
    (args.model_dir / "model.txt").write_text(model_text, encoding="utf-8")
    from controller.file_lead import FEATURES

    train_groups = len(_dataset(sets["train"])[2])
    manifest = {
        "description": "The learned first-file choice (controller.file_lead): LightGBM "
                       "lambdarank over the first files of a descriptive question, trained by "
                       "benchmarks/file_lead.py on data/evals/qa_train's questions.",
        "model": "model.txt", "model_digest": digest(model_text.encode("utf-8")),
        "margin": point["margin"], "features": list(FEATURES),
        "params": {**PARAMS, "num_leaves": point["num_leaves"],
                   "min_data_in_leaf": point["min_data_in_leaf"], "trees": point["trees"]},
        "train_sets": sorted({it["set"] for it in sets["train"]}), "train_groups": train_groups,
        "records_digest": {n: digest(p.read_bytes()) for n, p in (
            ("train", args.train), ("validation", args.validation), ("dev", args.dev))},
        "validation_file_hits": point["validation_file_hits"],
        "lopo_file_hits": point["lopo_file_hits"]}
    raw = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    (args.model_dir / "manifest.json").write_text(raw, encoding="utf-8")
    result = {"chosen": point, "manifest_digest": digest(raw.encode("utf-8")),
              "validation": _report(sets["validation"], pick),
              "dev": _report(sets["dev"], pick), "train_lopo": lopo(sets["train"], point),
              "grid": tried, "cpu_s": round(cpu_seconds() - started, 1), "load_1m": load_1m(),
              "machine": machine(with_platform=False)}
    write_result(args.out, result, indent=1)
    print(json.dumps({k: result[k] for k in ("chosen", "manifest_digest", "train_lopo")}))
    print(json.dumps({n: result[n]["pooled"] for n in ("validation", "dev")}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--set", required=True, choices=("train", "validation", "dev"))
    rec.add_argument("--mirrors", type=Path, required=True)
    rec.add_argument("--out", type=Path, required=True)
    trn = sub.add_parser("train")
    for name in ("--train", "--validation", "--dev"):
        trn.add_argument(name, type=Path, required=True)
    trn.add_argument("--model-dir", type=Path, default=ROOT / "data" / "file_lead")
    trn.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.command == "record":
        record(args.set, args.mirrors, args.out)
    else:
        train_cmd(args)


if __name__ == "__main__":
    main()
