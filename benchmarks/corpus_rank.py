"""Helix's policy on the corpus (issue 31): function and file Acc@1/5/10 per split.

Each repository's tree at R (written by `helix eval corpus trees --into TREES`) is indexed by
Helix (lexical, no embeddings; with --embed the default embeddings, all embedded first) under
$HELIX_HOME, and each case's message goes through
`helix.service.ask(dry_run=True)`, as `helix ask --dry-run` does (`evals.corpus.policy`).
Function Acc@k: every target definition within the evidence's first k items; file Acc@k:
every target file among its first k distinct files. Reported per repository, per split, and
split by whether the message names a target.

    python benchmarks/corpus_rank.py --trees DIR [--split S ...] [--config TOML]
        [--only NAME ...] [--embed] [--cap N] [--out FILE]

--cap N keeps N cases per repository, seeded (`evals.corpus.policy.capped`).

Use a HELIX_HOME of its own (an index per repository is kept there and reused). Writes
benchmarks/results/corpus_rank.json (or --out), rewritten after each repository.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _result import write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evals.corpus.build import load_cases  # noqa: E402
from evals.corpus.policy import capped, run_repo, summary  # noqa: E402
from evals.corpus.repos import load_repo_list  # noqa: E402
from helix.core.hashing import digest_file  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "corpus_rank.json"
SPLITS = ("train", "validation", "test")


def overrides_of(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    from evals.cli.run_common import candidate_overrides

    return dict(candidate_overrides(path))


def pooled(results: dict[str, Any], split: str) -> dict[str, Any]:
    rows = [r for repo in results.values() if repo["split"] == split for r in repo["rows"]]
    return {"all": summary(rows),
            "names_target": summary([r for r in rows if r["names_target"]]),
            "no_name": summary([r for r in rows if not r["names_target"]]),
            "errors": sum(1 for r in rows if "error" in r),
            "ask_p50_s": _p50([r["seconds"] for r in rows])}


def _p50(values: list[float]) -> float | None:
    return round(sorted(values)[len(values) // 2], 4) if values else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--trees", required=True, type=Path)
    parser.add_argument("--cases", type=Path, default=ROOT / "data" / "corpus" / "cases.jsonl")
    parser.add_argument("--repos", type=Path,
                        default=ROOT / "data" / "evals" / "corpus_repos.json")
    parser.add_argument("--split", action="append", choices=SPLITS, default=[])
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--config", help="a TOML file of settings to run with")
    parser.add_argument("--embed", action="store_true",
                        help="index with the default embeddings (all embedded before asking)")
    parser.add_argument("--cap", type=int, default=None, metavar="N",
                        help="at most N cases per repository, seeded")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    splits = tuple(args.split) or SPLITS
    overrides = overrides_of(args.config)
    listing = load_repo_list(args.repos)
    cases = load_cases(args.cases)
    results: dict[str, Any] = {}
    payload: dict[str, Any] = {}
    for entry in listing.repos:
        mine = capped([c for c in cases if c.repo == entry.name], args.cap)
        if entry.split not in splits or not mine or (args.only and entry.name not in args.only):
            continue
        started = time.monotonic()
        rows, index_s = run_repo(args.trees / entry.name, mine, overrides,
                                 progress=lambda line: print(line, flush=True),
                                 embed=args.embed)
        results[entry.name] = {"split": entry.split, "language": entry.language,
                               **summary(rows), "index_s": round(index_s, 2),
                               "seconds": round(time.monotonic() - started, 1), "rows": rows}
        print(f"{entry.name} [{entry.split}]: {json.dumps(summary(rows))} "
              f"index {index_s:.1f}s total {time.monotonic() - started:.0f}s", flush=True)
        payload = {"benchmark": "corpus_rank", "system": "helix ask --dry-run "
                   "(helix.service.ask, dry_run=True; "
                   + ("embeddings, all embedded first)" if args.embed else "lexical index)"),
                   "embed": args.embed, "cap": args.cap,
                   "overrides": dict(sorted(overrides.items())),
                   "cases_file_hash": digest_file(args.cases),
                   "splits": {s: pooled(results, s) for s in splits
                              if any(r["split"] == s for r in results.values())},
                   "repos": results}
        write_result(args.out, payload, indent=1)
    print(json.dumps(payload.get("splits", {}), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
