"""The answer contract on paraphrased absence claims (issue 32): rules only, and with the
sentence encoder against absence exemplars.

    python benchmarks/absence_meaning.py [--data FILE ...] [--out FILE] [--tune [--tune-splits S]]

Every answer of the data file (hand-written; data/evals/meaning/absence_answers.json) is checked
by `helix.synthesis.contract.check_answer` against its scenario's evidence, which holds the
answer, told the scenario's question (as `helix ask` tells it the asked one). Counted per
split: absence claims accepted (target 0) and ordinary answers refused as absence claims
(false alarms), with the phrase rules alone (the baseline, same run) and with
`AbsenceMeaning` on the shipped all-MiniLM-L6-v2 (numpy encoder) at the configured thresholds
(`synthesis.absence`). `--data` takes one file or several (their answers pooled, each keeping
its split). `--tune` searches the thresholds on the splits named by `--tune-splits` only
(default `tune`; `all` for every answer given: after a data rotation every set measured so far
is a tune set, docs/benchmarks.md) (the setting
whose grid neighbourhood makes the fewest errors: a threshold on a knife's edge is not chosen)
and reports every split at the chosen ones; the configured defaults are what a tuning run
chose. Writes benchmarks/results/absence_meaning.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "data" / "evals" / "meaning" / "absence_answers.json"
OUT = ROOT / "benchmarks" / "results" / "absence_meaning.json"
NEIGHBOURS = (1, 2, 3)
SIMILARITY_GRID = [round(0.2 + 0.025 * i, 3) for i in range(17)]  # 0.2 .. 0.6
MARGIN_GRID = [round(-0.1 + 0.02 * i, 3) for i in range(16)]  # -0.1 .. 0.2


class Memo:
    """The encoder, each text embedded once per run (tuning re-scores the same spans)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, 0
        self.seen: dict[str, Any] = {}

    @property
    def model_key(self) -> str:
        return str(self.inner.model_key)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        for text in texts:
            if text not in self.seen:
                self.calls += 1
                self.seen[text] = self.inner.embed([text])[0]
        return np.stack([self.seen[t] for t in texts])


def _cases(data: dict[str, Any]) -> list[dict[str, Any]]:
    from helix.core.envelope import EvidenceItem
    from helix.core.hashing import digest, short_id
    from helix.synthesis.prompt import citation_refs

    evidence: dict[str, tuple[EvidenceItem, ...]] = {}
    for name, scenario in data["scenarios"].items():
        evidence[name] = tuple(EvidenceItem(
            id=short_id(e["path"], e["start_line"], e["end_line"], digest(e["text"])),
            path=e["path"], start_line=e["start_line"], end_line=e["end_line"], kind=e["kind"],
            score=1.0, content_hash=digest(e["text"]), node_id=f"file:{e['path']}",
            reasons=(), heading=e.get("heading"), symbol=e.get("symbol"), text=e["text"])
            for e in scenario["evidence"])
    return [{**a, "evidence": evidence[a["scenario"]],
             "refs": citation_refs(evidence[a["scenario"]]),
             "question": data["scenarios"][a["scenario"]].get("question")}
            for a in data["answers"]]


def verdicts(cases: list[dict[str, Any]], meaning: Any, head: Any = None) -> list[bool]:
    """Whether the contract refuses each answer as an absence claim (`head`: the learned
    absence head `helix ask` loads, deciding over the rules' and the encoder's readings)."""
    from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer

    return [check_answer(c["text"], c["refs"], evidence=c["evidence"], meaning=meaning,
                         question=c["question"], head=head).reason == NO_EVIDENCE_CLAIM
            for c in cases]


def count(cases: list[dict[str, Any]], refused: list[bool], split: str) -> dict[str, Any]:
    rows = [(c, r) for c, r in zip(cases, refused, strict=True) if c["split"] == split]
    claims = [(c, r) for c, r in rows if c["absence"]]
    ordinary = [(c, r) for c, r in rows if not c["absence"]]
    return {"absence_claims": len(claims), "accepted": sum(not r for _, r in claims),
            "ordinary": len(ordinary), "false_alarms": sum(r for _, r in ordinary),
            "accepted_texts": [c["text"] for c, r in claims if not r],
            "false_alarm_texts": [c["text"] for c, r in ordinary if r]}


def _choose(grid: dict[tuple[int, float, float], int]) -> tuple[int, float, float, float]:
    """The setting whose neighbourhood does best: fewest errors averaged over it and its grid
    neighbours (one step in similarity and margin, at the same neighbours count; the grid's
    edge repeats its last row), then fewest errors of its own, then the farthest from the
    grid's edge, the fewest neighbours, the lowest similarity: (k, similarity, margin, mean)."""
    sims, margins = SIMILARITY_GRID, MARGIN_GRID

    def errors(k: int, i: int, j: int) -> int:
        return grid[(k, sims[min(max(i, 0), len(sims) - 1)],
                     margins[min(max(j, 0), len(margins) - 1)])]

    ranked = []
    for (k, sim, margin), own in grid.items():
        i, j = sims.index(sim), margins.index(margin)
        around = [errors(k, i + di, j + dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)]
        edge = min(i, len(sims) - 1 - i, j, len(margins) - 1 - j)
        ranked.append((round(sum(around) / len(around), 6), own, -edge, k, sim, margin))
    mean, _, _, k, sim, margin = min(ranked)
    return k, sim, margin, mean


def tune(cases: list[dict[str, Any]], embedder: Any, base: Any,
         splits: str = "tune") -> dict[str, Any]:
    """The thresholds chosen on the named splits alone (`_choose`)."""
    from helix.synthesis.absence_meaning import AbsenceMeaning

    named = set(splits.split(","))
    tuning = [c for c in cases if "all" in named or c["split"] in named]
    grid: dict[tuple[int, float, float], int] = {}
    for k in NEIGHBOURS:
        for sim in SIMILARITY_GRID:
            for margin in MARGIN_GRID:
                policy = base.model_copy(update={"neighbours": k, "similarity_min": sim,
                                                 "margin_min": margin})
                refused = verdicts(tuning, AbsenceMeaning(embedder, policy))
                grid[(k, sim, margin)] = sum(
                    r != c["absence"] for c, r in zip(tuning, refused, strict=True))
    k, sim, margin, mean = _choose(grid)
    return {"splits": sorted({c["split"] for c in tuning}), "answers": len(tuning),
            "fewest_errors": min(grid.values()), "errors": grid[(k, sim, margin)],
            "neighbourhood_mean_errors": mean, "neighbours": k, "similarity_min": sim,
            "margin_min": margin}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", default=[str(DATA)])
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--tune-splits", default="tune")
    args = parser.parse_args()
    from helix.core.config import HelixConfig, IndexSettings
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from indexers.encoder import query_embedder

    cases = [case for path in args.data
             for case in _cases(json.loads(Path(path).read_text(encoding="utf-8")))]
    started = time.perf_counter()
    embedder = Memo(query_embedder(IndexSettings()))
    load_s = time.perf_counter() - started
    policy = HelixConfig().synthesis.absence
    result: dict[str, Any] = {"data": ", ".join(Path(p).name for p in args.data),
                              "model_key": embedder.model_key}
    if args.tune:
        result["tuning"] = tune(cases, embedder, policy, args.tune_splits)
        policy = policy.model_copy(update={k: result["tuning"][k] for k in (
            "neighbours", "similarity_min", "margin_min")})
    result["policy"] = policy.model_dump()
    rules = verdicts(cases, None)
    meaning = AbsenceMeaning(embedder, policy)
    checked = time.perf_counter()
    with_meaning = verdicts(cases, meaning)
    per_answer: list[float] = []
    for case in cases[:10]:  # the contract's cost per answer, vectors of the run remembered
        t = time.perf_counter()
        verdicts([case], AbsenceMeaning(embedder, policy))
        per_answer.append((time.perf_counter() - t) * 1000)
    # an answer's spans are embedded once each (the encoder keeps what it embedded): the
    # spans an answer has compared, and one text's embedding in CPU ms, never seen before
    compared = [len(meaning.score(c["text"], frozenset())) for c in cases]
    fresh: list[float] = []
    for n in range(5):
        cpu = time.process_time()
        embedder.inner.embed([f"The excerpts shown say nothing about item {n} of {time.time()}"])
        fresh.append((time.process_time() - cpu) * 1000)
    splits = sorted({c["split"] for c in cases})
    result["rules_only"] = {s: count(cases, rules, s) for s in splits}
    result["meaning"] = {s: count(cases, with_meaning, s) for s in splits}
    from helix.synthesis.absence_head import AbsenceHead

    with_head = verdicts(cases, meaning, AbsenceHead.load())
    result["shipped"] = {s: count(cases, with_head, s) for s in splits}  # as helix ask checks
    result["timing"] = {"encoder_load_s": round(load_s, 3),
                        "first_pass_s": round(time.perf_counter() - checked, 3),
                        "contract_ms_median_cached": round(statistics.median(per_answer), 3),
                        "spans_compared_median": statistics.median(compared),
                        "spans_compared_max": max(compared),
                        "embed_cpu_ms_per_span": round(statistics.median(fresh), 3),
                        "texts_embedded": embedder.calls}
    Path(args.out).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n",
                              encoding="utf-8")
    brief = {s: {k: v for k, v in result["meaning"][s].items() if not k.endswith("texts")}
             for s in splits}
    base = {s: {k: v for k, v in result["rules_only"][s].items() if not k.endswith("texts")}
            for s in splits}
    print(json.dumps({"tuning": result.get("tuning"), "policy": result["policy"],
                      "meaning": brief, "rules_only": base, "timing": result["timing"]},
                     indent=1))


if __name__ == "__main__":
    main()
