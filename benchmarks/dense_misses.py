"""Where the dense channel's hits are lost, with and without the query-side adapter (round 32).

    python benchmarks/dense_misses.py --mirrors DIR [--candidate NAME=TOML ...] [--only NAME ...]
        [--out FILE]

The natural-question validation set (data/evals/qa_validation, as benchmarks/qa_validation.py),
asked with embeddings (every vector embedded first, as `helix ask --wait`) under the hand order
and each candidate, on one index per tree. For every question the dense channel's own lists
are recorded (every dense request the controller makes, `controller.channels._dense`), beside
the loop's pool, the order before compaction and the evidence sent (`qa_misses.Recorder`).
Each question's span@5 outcome gets one fate (`dense_fate`, pure):

  hit           a gold span in the first five items sent
  dense_none    no dense list holds a chunk overlapping the gold
  not_admitted  a dense list holds it, but no candidate of the pool overlaps the gold (the
                loop's caps: the channel's k, the pool's size, the step budget)
  compaction    the order before compaction had it in its first five; compaction lost it
  wrong_span    a gold file is among the first five items, as another span of it
  fused_below   a candidate overlaps the gold, ranked past five or cut from the evidence

Writes benchmarks/results/dense_misses.json: per configuration, fates pooled and per project,
split by the dense rank of the gold (1-5, 6 or later), and each question's row.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import load_1m, write_result  # noqa: E402
from qa_misses import TOP, VALIDATION, Recorder, _span, first_hit  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "dense_misses.json"
FATES = ("hit", "dense_none", "not_admitted", "compaction", "wrong_span", "fused_below")
Span = tuple[str, int, int]


def dense_fate(gold: Sequence[Span], dense: Sequence[Span], pool: Sequence[Span],
               ranked: Sequence[Span], sent: Sequence[Span]) -> str:
    """One question's span@5 fate (see the module's list; pure). `dense`: the dense lists'
    items, best rank first; `pool`: every candidate; `ranked`: the order before compaction;
    `sent`: the evidence."""
    if first_hit(sent[:TOP], gold) is not None:
        return "hit"
    if first_hit(dense, gold) is None:
        return "dense_none"
    if first_hit(pool, gold) is None and first_hit(ranked, gold) is None:
        return "not_admitted"
    if first_hit(ranked[:TOP], gold) is not None:
        return "compaction"
    if {g[0] for g in gold} & {s[0] for s in sent[:TOP]}:
        return "wrong_span"
    return "fused_below"


def merged(lists: Sequence[Sequence[Span]]) -> list[Span]:
    """The dense lists of one question as one list: each span at its best rank in any of
    them, ties in list order (pure)."""
    best: dict[Span, tuple[int, int]] = {}
    for number, items in enumerate(lists):
        for rank, span in enumerate(items, start=1):
            best[span] = min(best.get(span, (rank, number)), (rank, number))
    return sorted(best, key=lambda s: best[s])


class DenseLists:
    """Records every dense list the controller fetches while installed."""

    def __init__(self) -> None:
        self.lists: list[list[str]] = []

    @contextmanager
    def installed(self) -> Iterator[DenseLists]:
        import controller.channels as channels

        original = channels._dense

        def _dense(*args: Any, **kwargs: Any) -> Any:
            hits = original(*args, **kwargs)
            self.lists.append([h.chunk_id for h in hits])
            return hits

        channels._dense = _dense
        try:
            yield self
        finally:
            channels._dense = original


def _question_row(case: Any, gold: Any, env: Any, recorder: Recorder, lists: DenseLists,
                  index: Any) -> dict[str, Any]:
    spans = [(g.path, g.start_line, g.end_line) for g in gold.spans]
    dense = merged([[_chunk_span(index, cid) for cid in ids] for ids in lists.lists])
    pool = [_span(c) for c in recorder.pool] + [_span(c) for c in recorder.ranked]
    ranked = [_span(c) for c in recorder.ranked]
    sent = [(e.path, e.start_line, e.end_line) for e in env.evidence]
    return {"id": case.id, "fate": dense_fate(spans, dense, pool, ranked, sent),
            "dense_rank": first_hit(dense, spans), "ranked_at": first_hit(ranked, spans),
            "sent_at": first_hit(sent, spans), "dense_lists": len(lists.lists)}


def _chunk_span(index: Any, chunk_id: str) -> Span:
    chunk = index.chunk(chunk_id)
    return (chunk.path, chunk.start_line, chunk.end_line)


def run_set(questions: Path, repo: Path, rev: str,
            configs: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    from evals.history.trees import terminate_as_interrupt
    from evals.qa.gold import derive_gold
    from evals.qa.run import QAContext, load_cases, one_run_per_tree, tree_for
    from evals.reserved import names_reserved

    cases, _ = load_cases(questions)
    out: dict[str, list[dict[str, Any]]] = {}
    with terminate_as_interrupt(), one_run_per_tree(repo, rev):
        root, _sha = tree_for(repo, rev)
        for name, overrides in configs.items():
            context = QAContext(root, overrides, no_embed=False)
            recorder, lists, rows = Recorder(), DenseLists(), []
            with recorder.installed(), lists.installed():
                for case in cases:
                    gold = derive_gold(case.answer, context.files,
                                       context.index.find_definitions)
                    if not gold.spans or names_reserved(case.question, case.answer,
                                                        *gold.files):
                        continue
                    recorder.pool, recorder.ranked, lists.lists = [], [], []
                    env = context.helix.ask(case.question)
                    rows.append(_question_row(case, gold, env, recorder, lists,
                                              context.index))
            out[name] = rows
    return out


def tally(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Fates counted, and split by where the dense lists had the gold (pure)."""
    def band(rank: int | None) -> str:
        return "none" if rank is None else "1-5" if rank <= TOP else "6+"

    split = Counter(f"{band(r['dense_rank'])}:{r['fate']}" for r in rows)
    return {"questions": len(rows), "fates": {f: sum(r["fate"] == f for r in rows)
                                               for f in FATES},
            "by_dense_rank": dict(sorted(split.items()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--candidate", action="append", default=[], metavar="NAME=TOML")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from evals.cli.run_common import candidate_overrides
    from evals.corpus.qa_cases import load_question_list
    from evals.corpus.repos import mirror_dir

    configs: dict[str, dict[str, Any]] = {"hand": {}}
    for item in args.candidate:
        name, _, toml = item.partition("=")
        configs[name] = dict(candidate_overrides(toml))
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {name: {} for name in configs}
    for entry in load_question_list(VALIDATION):
        if args.only is not None and entry.name not in args.only:
            continue
        got = run_set(VALIDATION.parent / entry.file, mirror_dir(args.mirrors, entry.source),
                      entry.revision, configs)
        for name, project_rows in got.items():
            rows[name][entry.name] = project_rows
            print(json.dumps({"config": name, "project": entry.name,
                              **tally(project_rows)["fates"]}), flush=True)
    payload: dict[str, Any] = {"embed": True, "load_1m": load_1m(),
                               "configs": {name: {
                                   "pooled": tally([r for rs in got.values() for r in rs]),
                                   "projects": {p: tally(rs) for p, rs in got.items()},
                                   "rows": got} for name, got in rows.items()}}
    print(json.dumps({name: c["pooled"]["fates"] for name, c in payload["configs"].items()}))
    write_result(args.out, payload, indent=1)


if __name__ == "__main__":
    main()
