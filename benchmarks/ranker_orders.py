"""The learned ranker's order of every question of a set, recorded; two recordings compared.

    python benchmarks/ranker_orders.py record --set stdlib --out FILE
    python benchmarks/ranker_orders.py record --set validation --trees DIR --out FILE
    python benchmarks/ranker_orders.py record --set qa_dev --qa DIR --out FILE
    python benchmarks/ranker_orders.py compare A B [--out RESULT]

A faster implementation of the learned step must give the same order: `record` asks every
question of a set with the shipped model ordering every route (its manifest copied without
`routes`, as `ranker_latency.py` does) and writes, per question, the candidates the model scored
(chunk ids, in pool order), the model's raw score of each (as `float.hex`: bit for bit) and the
evidence's order (chunk ids and the scores it carries). Sets: `stdlib` (the 51 questions of
`ranker_latency.py`), `validation` (the corpus's validation cases, `data/corpus/cases.jsonl`,
each asked over DIR/<repo>: trees at the corpus revision, as `helix eval corpus ranker-rows`
writes them), `qa_dev` (SWE-QA's dev questions: DIR/<name>.jsonl asked over DIR/<name>, the
benchmark's pinned trees). Run it once on each checkout (PYTHONPATH), then `compare`: the
questions whose pool, scores or order differ (0 when the two are the same ranker).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
QA_DEV = ("reflex", "sqlfluff", "streamlink", "shiro", "strata")


class _Recording:
    """Wraps the scorer the driver hands the learned step: keeps what it scored."""

    def __init__(self, inner: Any, sink: dict[str, Any]) -> None:
        self._inner, self._sink = inner, sink

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def score(self, pooled: Sequence[Any], rows: Sequence[Sequence[float]]) -> Sequence[float]:
        scores = self._inner.score(pooled, rows)
        self._sink["pool"] = [p.chunk.id for p in pooled]
        self._sink["scores"] = [float(s).hex() for s in scores]
        return scores


def _hook(sink: dict[str, Any]) -> None:
    """The driver's learned step, recording its pool, scores and order into `sink`."""
    import controller.driver as driver

    step = driver.learned_order

    def recorded(state: Any, ranked: Any, index: Any, config: Any, scorer: Any,
                 asked: str = "") -> Any:
        out = step(state, ranked, index, config, _Recording(scorer, sink), asked)
        sink["order"] = [[c.chunk.id, float(c.score).hex()] for c in out]
        return out

    driver.learned_order = recorded


def _questions(args: argparse.Namespace) -> Iterator[tuple[Path, str, str]]:
    """(tree, key, question) of the set, in a fixed order."""
    if args.set == "stdlib":
        from evals.runner import materialize_stdlib
        from evals.suites import load_suite

        root = materialize_stdlib()
        for n, case in enumerate(load_suite("stdlib_bench").cases):
            yield root, f"stdlib/{n}", case.question
    elif args.set == "validation":
        lines = (ROOT / "data" / "corpus" / "cases.jsonl").read_text(encoding="utf-8")
        cases = [c for c in map(json.loads, lines.splitlines()) if c["split"] == "validation"]
        for case in sorted(cases, key=lambda c: (c["repo"], c["id"])):
            yield args.trees / case["repo"], case["id"], case["message"]
    else:
        for name in QA_DEV:
            lines = (args.qa / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
            for n, line in enumerate(lines):
                yield args.qa / name, f"{name}/{n}", json.loads(line)["question"]


def record(args: argparse.Namespace) -> int:
    from ranker_latency import every_route

    from evals.runner import PreparedRepo
    from helix.core.hashing import canonical_json

    scratch = tempfile.TemporaryDirectory()
    overrides = every_route(Path(scratch.name))
    sink: dict[str, Any] = {}
    _hook(sink)
    repos: dict[Path, Any] = {}
    done = 0
    with args.out.open("w", encoding="utf-8") as out:
        for root, key, question in _questions(args):
            if args.limit and done >= args.limit:
                break
            if root not in repos:
                repos.clear()
                repos[root] = PreparedRepo(root, overrides, no_embed=True)
            sink.clear()
            repos[root].ask(question)
            out.write(canonical_json({"key": key, "pool": sink.get("pool"),
                                      "scores": sink.get("scores"),
                                      "order": sink.get("order")}) + "\n")
            done += 1
    print(f"{done} questions -> {args.out}")
    return 0


def compare(args: argparse.Namespace) -> int:
    from _result import load_average, show, write_result

    from helix.core.hashing import canonical_json, digest

    def read(path: Path) -> dict[str, dict[str, Any]]:
        return {r["key"]: r for r in map(json.loads, path.read_text(encoding="utf-8")
                                         .splitlines())}

    a, b = read(args.a), read(args.b)
    diff = {part: sorted(k for k in a.keys() & b.keys() if a[k][part] != b[k][part])
            for part in ("pool", "scores", "order")}
    result = {
        "benchmark": "ranker_orders", "a": str(args.a.name), "b": str(args.b.name),
        "questions": len(a.keys() & b.keys()), "only_a": len(a.keys() - b.keys()),
        "only_b": len(b.keys() - a.keys()),
        "ordered": sum(1 for k in a.keys() & b.keys() if a[k]["order"] is not None),
        "differences": {part: len(keys) for part, keys in diff.items()},
        "first_differences": {part: keys[:5] for part, keys in diff.items()},
        # of the records, key by key (whatever the file's layout)
        "digest_a": digest(canonical_json([a[k] for k in sorted(a)])),
        "digest_b": digest(canonical_json([b[k] for k in sorted(b)])),
        "command": " ".join(["python", "benchmarks/ranker_orders.py", *sys.argv[1:]]),
        "load_average": load_average(), "note": args.note}
    if args.out:
        write_result(args.out, result, indent=1)
    show(result, indent=1)
    same = not any(diff.values()) and not result["only_a"] and not result["only_b"]
    return 0 if same else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--set", choices=("stdlib", "validation", "qa_dev"), required=True)
    rec.add_argument("--trees", type=Path, help="validation: DIR/<repo> trees")
    rec.add_argument("--qa", type=Path, help="qa_dev: DIR/<name>.jsonl and DIR/<name>")
    rec.add_argument("--limit", type=int, default=0)
    rec.add_argument("--out", type=Path, required=True)
    cmp = sub.add_parser("compare")
    cmp.add_argument("a", type=Path)
    cmp.add_argument("b", type=Path)
    cmp.add_argument("--out", type=Path)
    cmp.add_argument("--note", default="", help="what A and B are (checkouts, commits)")
    args = parser.parse_args()
    return record(args) if args.command == "record" else compare(args)


if __name__ == "__main__":
    raise SystemExit(main())
