"""The history benchmark over the development set (issue 10): Helix vs whole-file BM25.

Reads `data/evals/history_repos.json` (eight repositories, pinned commits, seed, limit, since,
two held out), finds each repository's git directory (`fetch github:owner/name` puts a bare
mirror at /work/.mirror/owner+name/repo; or a bare clone in $HELIX_HOME/history/repos/), runs
`helix eval history`'s cases on each and writes benchmarks/results/history_bench.json: per
repository and overall (all, tuning, held out) Acc@1/3/5/10, MRR and seconds per case for
Helix and BM25, every case's ranks and top files, run times, and a Markdown table. The file is
rewritten after each repository, so a long run's finished repositories are never lost.

    python benchmarks/history_bench.py [--no-embed] [--only NAME ...] [--mirrors DIR] [--out F]
        [--config NAME_OR_FILE]   # a named configuration (evals/configs/) or a TOML overrides file

Use a fixed HELIX_HOME (indexes and the embedding cache are reused between runs).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from _result import load_average, write_result

from evals.history import devset
from evals.history.run import RepoRun, result_json, run_repo
from evals.history.score import KS

RESULT = Path(__file__).parent / "results" / "history_bench.json"


def markdown(payload: Mapping[str, Any]) -> str:
    """Per repository and overall: Helix vs BM25, Acc@1/3/5/10, MRR, p50 seconds per case."""
    head = ("| repository | kind | cases | system | "
            + " | ".join(f"Acc@{k}" for k in KS) + " | MRR | p50 s |")
    rows = [head, "|" + " --- |" * (head.count("|") - 1)]

    def row(label: str, kind: str, cases: Any, system: str, s: Mapping[str, Any]) -> str:
        cells = [label, kind, str(cases), system,
                 *(f"{s[f'acc@{k}']:.2f}" if s[f"acc@{k}"] is not None else "-" for k in KS),
                 f"{s['mrr']:.3f}" if s["mrr"] is not None else "-", f"{s['p50_s']:.2f}"]
        return "| " + " | ".join(cells) + " |"

    for repo in payload["repos"]:
        label = repo["name"] + (" (held out)" if repo["spec"]["held_out"] else "")
        rows.append(row(label, repo["spec"]["kind"], len(repo["cases"]), "Helix", repo["helix"]))
        rows.append(row("", "", "", "BM25", repo["bm25"]))
    for group, data in payload["overall"].items():
        cases = data["helix"]["cases"]
        rows.append(row(f"**{group}**", "", cases, "Helix", data["helix"]))
        rows.append(row("", "", "", "BM25", data["bm25"]))
    return "\n".join(rows)


def write(out: Path, runs: Sequence[RepoRun], *, no_embed: bool, started: float,
          dev: devset.DevSet, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    payload = result_json(runs, no_embed=no_embed, overrides=overrides)
    payload["dev_set"] = {"path": "data/evals/history_repos.json",
                          "held_out_rule": dev.held_out_rule, "seed": dev.seed,
                          "limit": dev.limit, "since": dev.since}
    payload["run"] = {"wall_s": round(time.perf_counter() - started, 1),
                      "per_repo_s": {r.name: r.seconds for r in runs},
                      "cpus": os.cpu_count(),
                      "command": shlex.join(["python", *sys.argv]),
                      "load_average": load_average()}
    payload["markdown"] = markdown(payload)
    write_result(out, payload)
    return payload


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-embed", action="store_true", help="Helix without embeddings.")
    parser.add_argument("--only", nargs="*", default=(), help="Only these repositories.")
    parser.add_argument("--mirrors", type=Path, default=devset.MIRRORS,
                        help="Where fetch put the mirrors (owner+name/repo).")
    parser.add_argument("--dev-set", type=Path, default=devset.DEV_SET)
    parser.add_argument("--out", type=Path, default=RESULT)
    parser.add_argument("--config", metavar="NAME_OR_FILE", default=None,
                        help="A named configuration (evals/configs/) or TOML overrides file.")
    args = parser.parse_args(argv)
    overrides: dict[str, Any] = {}
    if args.config is not None:
        from evals.gates import load_named_config

        _, overrides = load_named_config(args.config)
    dev = devset.load(args.dev_set)
    specs = devset.specs(dev, args.mirrors, only=tuple(args.only))
    started = time.perf_counter()
    runs: list[RepoRun] = []
    payload: dict[str, Any] = {}
    for spec in specs:
        runs.append(run_repo(spec, no_embed=args.no_embed, overrides=overrides,
                             progress=lambda line: print(line, file=sys.stderr, flush=True)))
        payload = write(args.out, runs, no_embed=args.no_embed, started=started, dev=dev,
                        overrides=overrides)
        print(f"{spec.name}: done in {runs[-1].seconds:.0f} s", file=sys.stderr, flush=True)
    print(payload.get("markdown", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
