"""Leave-one-set-out for the meaning checks of issue 32: how a learned reading would carry
to a set it never saw, against the rules as they stand.

    python benchmarks/meaning_loso.py [--out FILE] [--absence-neighbours 3] [--learned-only]

Unit lines (data/evals/meaning/unit_lines*.json, one set per file): every line judged as
benchmarks/unit_denials.py judges it (`evals.unit_lines.judge`); the rules' errors per set
(denials confirmed or given, statements not confirmed) are in-sample, the rules having been
written on every set. A logistic regression over the line's words (the asked unit, other unit
names, numbers and the quantity's words each one token; words, word pairs and the five words
either side of the unit), with and without the rules' reading as a feature, is fit on the other
sets and scored on each held one, alone and as a veto on the rules (a line is confirmed only
when both say it states the unit).

Absence answers (data/evals/meaning/absence_answers*.json, one set per split): for each split,
the encoder thresholds (`synthesis.absence`) chosen on the other splits by
benchmarks/absence_meaning.py's grid and rule (`_choose`), and the held split's errors at
them, beside its errors at the shipped thresholds. `--absence-neighbours` limits the grid's
neighbour counts (default: the shipped one) to keep the run short. And a learned head
(`absence_learned`: a logistic regression over the shipped verdict, the rules' claims, the
encoder's best span scores, citing / answering from the evidence, with and without that span's
embedding) fit on the other splits, against the shipped contract on each held split.

`--learned-only` runs the learned head against the shipped contract alone (no unit lines, no
threshold grid: seconds instead of many minutes) and writes
benchmarks/results/meaning_loso_learned.json unless `--out` says otherwise.

Writes benchmarks/results/meaning_loso.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
MEANING = ROOT / "data" / "evals" / "meaning"
OUT = ROOT / "benchmarks" / "results" / "meaning_loso.json"
LEARNED_OUT = ROOT / "benchmarks" / "results" / "meaning_loso_learned.json"
L2 = 1.0  # ridge of the regression
STEPS = 2000  # gradient steps (full batch, step 1/L: deterministic)
WINDOW = 5  # words either side of the unit
THRESHOLDS = (0.5, 0.3, 0.2)  # probability of "states" a line must reach
_TOKEN = re.compile(r"\w+(?:['’]\w+)*|!=|==|[^\w\s]")


def _token(word: str, unit: str, quantity: set[str]) -> str:
    from controller.units import unit_name

    low = word.lower()
    if unit_name(word) is not None:
        return "<U>" if unit_name(word) == unit_name(unit) else "<OTHER>"
    if word.isdigit():
        return "<N>"
    if low in quantity:
        return "<Q>"
    return "<ID>" if "_" in word or word[1:] != word[1:].lower() else low


def line_features(text: str, unit: str, quantity: str, rule: bool | None) -> dict[str, float]:
    words = [_token(w, unit, set(quantity.split())) for w in _TOKEN.findall(text)]
    out = {"bias": 1.0, **({"rule": 1.0 if rule else -1.0} if rule is not None else {})}
    out.update({f"w:{w}": 1.0 for w in words})
    out.update({f"b:{a}_{b}": 1.0 for a, b in pairwise(words)})
    for i in (i for i, w in enumerate(words) if w == "<U>"):
        out.update({f"pre:{w}": 1.0 for w in words[max(0, i - WINDOW):i]})
        out.update({f"post:{w}": 1.0 for w in words[i + 1:i + 1 + WINDOW]})
    return out


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    w = np.zeros(x.shape[1])
    step = np.linalg.norm(x, 2) ** 2 / 4 + L2
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(x @ w)))
        w -= (x.T @ (p - y) + L2 * w) / step
    return w


def unit_rows() -> list[dict[str, Any]]:
    from evals.unit_lines import judge
    from helix.core.config import HelixConfig

    threshold = HelixConfig().retrieval.coverage_threshold
    rows = []
    for path in sorted(MEANING.glob("unit_lines*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for line in data["lines"]:
            judged = judge(line, data["quantity"], threshold)
            rows.append({"set": path.stem, "text": line["text"], "unit": line["unit"],
                         "quantity": data["quantity"], "states": line["reading"] == "states",
                         "rule": judged["confirmed"] and judged["gives_unit"]})
    return rows


def _held_probabilities(rows: list[dict[str, Any]], with_rule: bool) -> np.ndarray:
    feats = [line_features(r["text"], r["unit"], r["quantity"], r["rule"] if with_rule else None)
             for r in rows]
    y = np.array([r["states"] for r in rows], dtype=float)
    out = np.zeros(len(rows))
    for held in sorted({r["set"] for r in rows}):
        train = np.array([r["set"] != held for r in rows])
        names = sorted({k for f, t in zip(feats, train, strict=True) if t for k in f})
        index = {k: n for n, k in enumerate(names)}
        x = np.zeros((len(rows), len(names)))
        for n, f in enumerate(feats):
            for k, v in f.items():
                if k in index:
                    x[n, index[k]] = v
        out[~train] = 1 / (1 + np.exp(-(x[~train] @ fit(x[train], y[train]))))
    return out


def _errors(rows: list[dict[str, Any]], said: np.ndarray) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for r, states in zip(rows, said, strict=True):
        tally = out.setdefault(r["set"], [0, 0])
        tally[0] += int(bool(states) and not r["states"])
        tally[1] += int(not states and r["states"])
    return out


def units() -> dict[str, Any]:
    rows = unit_rows()
    rule = np.array([r["rule"] for r in rows])
    result: dict[str, Any] = {
        "sets": {s: {"denials": sum(not r["states"] for r in rows if r["set"] == s),
                     "statements": sum(r["states"] for r in rows if r["set"] == s)}
                 for s in sorted({r["set"] for r in rows})},
        "rules_in_sample": _errors(rows, rule)}
    for with_rule in (False, True):
        p = _held_probabilities(rows, with_rule)
        name = "lr_with_rules_feature" if with_rule else "lr_words"
        for t in THRESHOLDS:
            result[f"{name}_at_{t}"] = _errors(rows, p > t)
            result[f"rules_and_{name}_at_{t}"] = _errors(rows, rule & (p > t))
    result["columns"] = "per set: [denials confirmed, statements missed]"
    result["totals"] = {k: [sum(v[0] for v in e.values()), sum(v[1] for v in e.values())]
                        for k, e in result.items() if isinstance(e, dict) and k != "sets"
                        and all(isinstance(v, list) for v in e.values())}
    return result


def absence(neighbours: tuple[int, ...]) -> dict[str, Any]:
    import absence_meaning as bench

    from helix.core.config import HelixConfig, IndexSettings
    from helix.synthesis.absence_meaning import AbsenceMeaning
    from indexers.encoder import query_embedder

    cases = [c for p in sorted(MEANING.glob("absence_answers*.json"))
             for c in bench._cases(json.loads(p.read_text(encoding="utf-8")))]
    embedder, base = bench.Memo(query_embedder(IndexSettings())), HelixConfig().synthesis.absence
    splits = sorted({c["split"] for c in cases})
    per: dict[tuple[int, float, float], dict[str, list[int]]] = {}
    for key in [(k, s, m) for k in neighbours for s in bench.SIMILARITY_GRID
                for m in bench.MARGIN_GRID]:
        policy = base.model_copy(update=dict(zip(
            ("neighbours", "similarity_min", "margin_min"), key, strict=True)))
        tally = {s: [0, 0] for s in splits}
        for c, refused in zip(cases, bench.verdicts(cases, AbsenceMeaning(embedder, policy)),
                              strict=True):
            tally[c["split"]][0 if c["absence"] else 1] += int(refused != c["absence"])
        per[key] = tally
    shipped = (base.neighbours, base.similarity_min, base.margin_min)
    out: dict[str, Any] = {"columns": "per split: [claims accepted, ordinary refused]"}
    for held in splits:
        k, sim, margin, _ = bench._choose({key: sum(sum(v) for s, v in t.items() if s != held)
                                           for key, t in per.items()})
        out[held] = {"chosen": [k, sim, margin], "held_errors": per[(k, sim, margin)][held],
                     "at_shipped": per[shipped][held] if shipped in per else None}
    out["totals"] = {"held_errors": [sum(out[s]["held_errors"][i] for s in splits)
                                     for i in (0, 1)]}
    out["learned"] = absence_learned(cases, embedder, base)
    return out


def _absence_features(case: dict[str, Any], meaning: Any, embedder: Any,
                      shipped: bool) -> tuple[list[float], Any]:
    """An answer's reading as a learned head would see it: the shipped verdict, the phrase
    rules' claims, the encoder's best span (similarity to the absence exemplars, margin over
    the answer exemplars), whether the answer cites or answers from the evidence; and the
    embedding of its most claim-like span (zeros when no span is compared)."""
    import numpy as np

    from helix.synthesis.absence import absence_claims, answers_from, evidence_words
    from helix.synthesis.absence_verdict import _held_forms
    from helix.synthesis.citations import extract_citations

    words = evidence_words(part for e in case["evidence"]
                           for part in (e.text, e.path, e.symbol or "", e.heading or ""))
    scored = meaning.score(case["text"], _held_forms(words))
    best = max(scored, key=lambda s: s.margin) if scored else None
    vector = (embedder.embed([best.span.masked])[0] if best is not None
              else np.zeros(embedder.dim, dtype=np.float32))
    return [1.0 if shipped else -1.0,
            1.0 if absence_claims(case["text"], cues=False) else -1.0,
            best.absence if best else 0.0, best.margin if best else -1.0,
            1.0 if extract_citations(case["text"], case["refs"])[1] else -1.0,
            1.0 if answers_from(case["text"], words) else -1.0,
            float(len(scored))], vector


def absence_learned(cases: list[dict[str, Any]], embedder: Any, base: Any) -> dict[str, Any]:
    """Leave-one-split-out for a learned absence head (logistic regression, `fit`) over
    `_absence_features`, with and without the span's embedding, against the shipped contract
    (rules + encoder at the configured thresholds) on each held split: [claims accepted,
    ordinary refused]."""
    import absence_meaning as bench

    from helix.synthesis.absence_meaning import AbsenceMeaning

    meaning = AbsenceMeaning(embedder, base)
    shipped = bench.verdicts(cases, meaning)
    rows = [_absence_features(c, meaning, embedder, s) for c, s in zip(cases, shipped,
                                                                        strict=True)]
    structure = np.array([r[0] for r in rows], dtype=float)
    vectors = np.array([r[1] for r in rows], dtype=float)
    y = np.array([c["absence"] for c in cases], dtype=float)
    splits = sorted({c["split"] for c in cases})
    out: dict[str, Any] = {"columns": "per split: [claims accepted, ordinary refused]"}
    for name, x in (("lr_structure", structure),
                    ("lr_structure_and_embedding", np.hstack([structure, vectors]))):
        said = np.zeros(len(cases), dtype=bool)
        for held in splits:
            train = np.array([c["split"] != held for c in cases])
            mean, std = x[train].mean(axis=0), x[train].std(axis=0) + 1e-9
            z = np.hstack([np.ones((len(cases), 1)), (x - mean) / std])
            w = fit(z[train], y[train])
            said[~train] = (z[~train] @ w) > 0
        out[name] = _absence_tally(cases, said, splits)
    out["shipped"] = _absence_tally(cases, np.array(shipped), splits)
    out["totals"] = {k: [sum(v[0] for v in t.values()), sum(v[1] for v in t.values())]
                     for k, t in out.items() if k != "columns"}
    return out


def _absence_tally(cases: list[dict[str, Any]], said: np.ndarray,
                   splits: list[str]) -> dict[str, list[int]]:
    tally = {s: [0, 0] for s in splits}
    for c, refused in zip(cases, said, strict=True):
        tally[c["split"]][0 if c["absence"] else 1] += int(bool(refused) != c["absence"])
    return tally


def learned_only(note: str, out: str, started: float) -> None:
    """The learned head against the shipped contract, leave-one-split-out, alone."""
    import absence_meaning as bench

    from helix.core.config import HelixConfig, IndexSettings
    from indexers.encoder import query_embedder

    cases = [c for p in sorted(MEANING.glob("absence_answers*.json"))
             for c in bench._cases(json.loads(p.read_text(encoding="utf-8")))]
    learned = absence_learned(cases, bench.Memo(query_embedder(IndexSettings())),
                              HelixConfig().synthesis.absence)
    result = {"note": note, "learned": learned,
              "cpu_seconds": round(time.process_time() - started, 1)}
    Path(out).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(learned["totals"], indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--absence-neighbours", default="3")
    parser.add_argument("--note", default="", help="what was run and why, kept in the result")
    parser.add_argument("--learned-only", action="store_true")
    args = parser.parse_args()
    started = time.process_time()
    if args.learned_only:
        learned_only(args.note, args.out if args.out != str(OUT) else str(LEARNED_OUT), started)
        return
    result: dict[str, Any] = {"note": args.note, "units": units()}
    result["absence"] = absence(tuple(int(k) for k in args.absence_neighbours.split(",")))
    result["cpu_seconds"] = round(time.process_time() - started, 1)
    Path(args.out).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n",
                              encoding="utf-8")
    print(json.dumps({"units": result["units"]["totals"],
                      "absence": result["absence"]["totals"],
                      "absence_learned": result["absence"]["learned"]["totals"]}, indent=1))


if __name__ == "__main__":
    main()
