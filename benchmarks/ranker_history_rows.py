"""The learned ranker's rows on the history benchmark's cases (issue 31): what the model sees
where the file-level gate is read.

    python benchmarks/ranker_history_rows.py --out DIR [--only NAME ...] [--config NAME]
        [--mirrors DIR]

For every case of `helix eval history`'s development set (data/evals/history_repos.json, the
same mined and sampled cases, the same tree moved to each case's parent with its HEAD there,
the same incremental index) the question is asked three times on one index: with a recorder
in the model's place (`evals.corpus.features.Recorder`: every candidate and its feature row,
as the trainer's rows are collected), with the model the configuration names (the live learned
order) and with the hand order. Written per repository as DIR/<name>.npz (the rows, a label 1
for a candidate in a changed file, the group sizes) and DIR/<name>.json (per case: id, route,
the changed files, each candidate's path, symbol, lines and whether the hand order holds it,
and the files of the live learned and hand evidence in order). `benchmarks/ranker_combine.py`
orders these rows offline (and checks that its order of the rows gives the live learned
evidence's files: no skew between the rows and the live path). A repository already written
is kept. Use a fixed HELIX_HOME.

--fresh-history: the index's history field is built anew at each case's parent (as the corpus
rows' indexes were: one build at one revision) instead of carried forward from the previous
case's (what a user's index does as HEAD moves); the rest of the index stays incremental.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_CONFIG = "learned_ranker"


def _files(env: Any) -> list[str]:
    from evals.history.score import distinct_files
    from evals.metrics import ranked_items

    return distinct_files(item.path for item in ranked_items(env))


def fresh_history() -> None:
    """Every later index build in this process reads its history field anew (no previous
    generation's table carried forward)."""
    import indexers.build as build

    history = build._history

    def anew(root: Path, settings: Any, lexical: Any, prev_index: Any) -> Any:
        return history(root, settings, lexical, None)

    build._history = anew  # type: ignore[assignment]


def collect_repo(spec: Any, overrides: dict[str, Any], out: Path, home: Path | None) -> dict[
        str, Any]:
    import numpy as np

    from controller.rank_features import FEATURES
    from evals.corpus.features import Recorder
    from evals.corpus.history_git import drop_head, point_head
    from evals.history.mine import git_dir, mine
    from evals.history.run import HelixSide, tree_dir
    from evals.history.trees import TreeWriter
    from evals.runner import eval_config, quiet_runlog
    from helix.core.errors import TreeError
    from helix.core.paths import user_path
    from helix.service import ask

    started = time.monotonic()
    gitdir = git_dir(user_path(spec.path))
    mined = mine(gitdir, rev=spec.rev, seed=spec.seed, limit=spec.limit, since=spec.since,
                 name=spec.name)
    target = tree_dir(gitdir, home)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    writer = TreeWriter(gitdir, target)
    drop_head(target)
    writer.remove()
    side = HelixSide(target, overrides, no_embed=True)
    runlog = quiet_runlog()
    hand_overrides = {**overrides, "retrieval.ranker.mode": "hand"}
    rows: list[list[float]] = []
    labels: list[int] = []
    group: list[int] = []
    cases: list[dict[str, Any]] = []
    try:
        for case in mined.cases:
            try:
                writer.move_to(case.parent)
                point_head(writer.target, writer.gitdir, case.parent)
            except TreeError:
                continue
            gold = sorted(g for g in case.gold if g in writer.files)
            if not gold:
                continue
            config = side.config()
            recorder = Recorder()
            live = ask(case.question, root=target, config=config, dry_run=True,
                       runlog=runlog, notify=lambda _line: None, ranker=recorder).envelope
            learned = ask(case.question, root=target, config=config, dry_run=True,
                          runlog=runlog, notify=lambda _line: None).envelope
            hand = ask(case.question, root=target,
                       config=eval_config(target, hand_overrides, no_embed=True),
                       dry_run=True, runlog=runlog, notify=lambda _line: None).envelope
            wanted = set(gold)
            rows.extend(list(r) for r in recorder.rows)
            labels.extend(int(p.chunk.path in wanted) for p in recorder.pooled)
            group.append(len(recorder.pooled))
            cases.append({
                "id": case.id, "route": live.route, "gold": gold,
                "candidates": [[p.chunk.path, p.chunk.symbol or "", p.chunk.start_line,
                                p.chunk.end_line, int(p.hand is not None)]
                               for p in recorder.pooled],
                "recorded_files": _files(live), "learned_files": _files(learned),
                "hand_files": _files(hand)})
            print(f"{case.id} {live.route} candidates={len(recorder.pooled)}", flush=True)
    finally:
        drop_head(target)
        writer.remove()
    x = np.asarray(rows, dtype=np.float64).reshape(-1, len(FEATURES))
    out.mkdir(parents=True, exist_ok=True)
    name = mined.repo
    tmp = out / f".{name}.tmp.npz"
    np.savez_compressed(tmp, x=x, y=np.asarray(labels, dtype=np.int32),
                        group=np.asarray(group, dtype=np.int64))
    tmp.replace(out / f"{name}.npz")
    meta = {"repo": name, "held_out": spec.held_out, "features": list(FEATURES),
            "overrides": overrides, "cases": cases}
    tmp_json = out / f".{name}.tmp.json"
    tmp_json.write_text(json.dumps(meta, sort_keys=True) + "\n", encoding="utf-8")
    tmp_json.replace(out / f"{name}.json")
    return {"cases": len(cases), "seconds": round(time.monotonic() - started, 1)}


def main(argv: Sequence[str] | None = None) -> int:
    from evals.gates import load_named_config
    from evals.history import devset

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=())
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--mirrors", type=Path, default=devset.MIRRORS)
    parser.add_argument("--fresh-history", action="store_true")
    args = parser.parse_args(argv)
    if args.fresh_history:
        fresh_history()
    _, overrides = load_named_config(args.config)
    dev = devset.load(devset.DEV_SET)
    done: dict[str, Any] = {}
    for spec in devset.specs(dev, args.mirrors, only=tuple(args.only)):
        name = spec.name or Path(spec.path).name
        if (args.out / f"{name}.json").is_file():
            done[name] = "kept"
            continue
        done[name] = collect_repo(spec, dict(overrides), args.out, None)
        print(f"{name}: {json.dumps(done[name])}", file=sys.stderr, flush=True)
    print(json.dumps({"command": shlex.join(["python", *sys.argv]), "repos": done,
                      "load_average": [round(v, 2) for v in os.getloadavg()]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
