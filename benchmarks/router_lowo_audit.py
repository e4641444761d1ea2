"""Audit of the meaning router's leave-one-writer-out (LOWO) protocol (issue 32, router11):

    python benchmarks/router_lowo_audit.py [--cache PICKLE] [--out JSON]

Why does LOWO (manifest `metrics.lowo.mean_accuracy`, 0.826) overstate what held-apart sets
measure (0.61-0.77)? Every training turn is run once the way `evals.router_train.collect` runs
it (teacher forcing: the labelled class forced, each turn starting from the state the right
routes leave), recording besides the features what the router's planner saw (the turn, the
rules' plan), the plan and the final (transition, lane) of the forced run; every text is
embedded once (`--cache` keeps both: the capture is ~20 CPU minutes, the rest minutes). Then,
per writer file (`WRITER_FILES`):

- `lowo_trainer`: the trainer's protocol (the training turns' features computed against the
  whole exemplar bank, the held writer's own turns included; the held turns against the bank
  without the rows only that writer gave);
- `lowo_honest`: everything learned from data rebuilt without the held writer (the bank, every
  training turn's features against that bank, the head);
- for both, `class` (the trainer's metric: the head's class right, labelled turns only) and
  `route` (what a held-apart set scores: the plan `router.read_plan` makes of the held head's
  reading, every follow-up of the file, the writer's `alt` readings accepted, a T10 on its class
  alone; a plan equal to the forced run's takes that run's final outcome);
- `oracle`: the route of the forced run itself, i.e. with the right class every time (the
  ceiling any classifier has in this planner and these states);
- `rules_only`: the vocabulary router's plan alone;
- the cross-writer share of exact duplicate follow-ups.
The head is the trainer's softmax regression and weight decay, fit to convergence (L-BFGS)
rather than by 4000 gradient steps, to keep the 22 fits in minutes (its class accuracy is
lower than the manifest's: the trainer's step count acts as early stopping).
"""

from __future__ import annotations

import argparse
import functools
import os
import pickle
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "router_lowo_audit.json"


# --- capture ----------------------------------------------------------------------------------

def capture() -> dict[str, Any]:
    """Every turn of every training file, teacher-forced as the trainer runs it."""
    os.environ["HELIX_HOME"] = tempfile.mkdtemp(prefix="helix-lowo-audit-")
    import evals.router_train as rt
    from controller.continuity import router
    from evals.heldapart import got_reading, routed_intent
    from evals.scenarios import resolve_repo
    from helix.core.config import load_config
    from helix.core.hashing import short_id
    from helix.core.ports import FakeClock
    from helix.session.reader import describe
    from helix.session.runner import run_turn
    from helix.session.store import ensure_schema
    from helix.store.db import open_db

    seen: list[tuple[Any, ...]] = []
    original = router.read_plan

    def spy(t: Any, rules_plan: Any, reading: Any, *, exact: bool = True) -> Any:
        plan = original(t, rules_plan, reading, exact=exact)
        seen.append((t, rules_plan, exact, plan))
        return plan

    router.read_plan = spy  # type: ignore[assignment]
    db = open_db()
    ensure_schema(db)
    overrides = rt._overrides()
    reader = rt.ForcedReader()
    rows: list[dict[str, Any]] = []
    configs: dict[str, Any] = {}
    try:
        for file, session in rt.training_sessions():
            spec = str(session.get("repo", "fixture:continuity_repo"))
            root = resolve_repo(spec)
            config = configs.setdefault(spec, load_config(
                root, flags={"index.embed_enabled": False}))
            name = f"train-{short_id('router-train', file, session['id'])}"
            clock = FakeClock(start=1_700_000_000.0, step=0.001)
            for number, turn in enumerate(session["turns"], start=1):
                reader.seen.clear()
                seen.clear()
                reader.labeller = functools.partial(rt._label_seen, file, session, number,
                                                    overrides)
                result = run_turn(name, turn["text"], root=root, config=config, dry_run=True,
                                  db=db, clock=clock, reply_to=turn.get("reply_to"),
                                  reader=reader)
                row = {"file": file, "session": session["id"], "turn": number,
                       "text": turn["text"], "expect": turn.get("expect", {}),
                       "alt": turn.get("alt", []), "final": got_reading(result),
                       "final_intent": result.intent, "routed_intent": routed_intent(result)}
                if reader.seen:
                    f, label = reader.seen[-1]
                    t, rules_plan, exact, plan = seen[-1]
                    row.update(f=f, label=label, t=t, rules_plan=rules_plan, exact=exact,
                               forced_plan=(plan.transition, plan.lane, plan.intent),
                               options=tuple(describe(root, o, config.index.max_file_bytes)
                                             for o in f.options))
                rows.append(row)
    finally:
        router.read_plan = original  # type: ignore[assignment]
    hand = [r["text"] for _, r in rt.read_jsonl(rt.ROUTER_DIR / "exemplars.jsonl")]
    texts = [r["text"] for r in rows] + [o for r in rows for o in r.get("options", ())] + hand
    return {"rows": rows, "vectors": rt.embed(texts)}


# --- scoring ----------------------------------------------------------------------------------

def accepted(row: dict[str, Any]) -> list[tuple[str, str]]:
    """The readings a held-apart scorer accepts (`evals.heldapart.readings`, alts beside
    `expect` included)."""
    expect = dict(row["expect"])
    alts = [*expect.get("alt", ()), *(row.get("alt") or ())]
    return [(e["transition"], e.get("lane", "")) for e in (expect, *alts)]


def right(got: tuple[str, str], row: dict[str, Any]) -> bool:
    return any(t == got[0] and (t == "T10" or lane == got[1]) for t, lane in accepted(row))


def state_of(row: dict[str, Any]) -> str:
    """The session state a turn was read in (the first that holds, in this order)."""
    from controller.continuity.meaning import FLAG_NAMES

    if "f" not in row:
        return "exact (router not consulted)"
    flag = dict(zip(FLAG_NAMES, row["f"].flags, strict=True))
    for name, state in (("pending_sense", "pending sense clarifier"),
                        ("pending_offer", "pending offer"),
                        ("pending_choice", "pending selection clarifier"),
                        ("pending_reading", "pending two-readings clarifier"),
                        ("has_focus", "focus"), ("has_list", "list on screen, no focus"),
                        ("has_answer", "answer, no list")):
        if flag[name]:
            return state
    return "nothing yet"


def routed(row: dict[str, Any], p: np.ndarray, vectors: dict[str, np.ndarray]) -> tuple[str, str]:
    """What the router does with class probabilities `p` on this captured turn."""
    from controller.continuity.meaning import CLASSES, similarities
    from controller.continuity.router import hold_selection_pending, read_plan
    from controller.continuity.turn_plan import Reading

    options = row["options"]
    scores = tuple(float(v) for v in similarities(
        np.stack([vectors[o] for o in options]), vectors[row["text"]])) if options else ()
    order = sorted(range(len(CLASSES)), key=lambda c: (-p[c], c))
    reading = Reading(meaning=CLASSES[order[0]], confidence=float(p[order[0]]),
                      alternatives=tuple((CLASSES[c], float(p[c])) for c in order[1:3]),
                      option_scores=scores)
    t = row["t"]
    plan = hold_selection_pending(t, read_plan(t, row["rules_plan"], reading,
                                               exact=row["exact"]))
    if (plan.transition, plan.lane, plan.intent) == tuple(row["forced_plan"]):
        return tuple(row["final"])  # type: ignore[return-value]
    return plan.transition, "boundary" if plan.transition == "T10" else plan.lane


def _rules_routed(row: dict[str, Any]) -> tuple[str, str]:
    from controller.continuity.router import hold_selection_pending

    plan = hold_selection_pending(row["t"], row["rules_plan"])
    if (plan.transition, plan.lane, plan.intent) == tuple(row["forced_plan"]):
        return tuple(row["final"])  # type: ignore[return-value]
    return plan.transition, "boundary" if plan.transition == "T10" else plan.lane


# --- features and head ------------------------------------------------------------------------

def design(idx: list[int], rows: list[dict[str, Any]], bank: Any,
           vectors: dict[str, np.ndarray], exclude_own: bool) -> np.ndarray:
    """`evals.router_train.design`'s features of captured rows against `bank` (vectorised;
    the same numbers): with `exclude_own`, without the row's own session and wording."""
    from controller.continuity.meaning import CLASSES, TOP_K, option_features, similarities
    from evals.router_train import _norm

    v = np.stack([vectors[rows[i]["text"]] for i in idx]).astype(np.float32)
    sims = np.round(v @ bank.vectors.T, 4).astype(np.float64)
    if exclude_own:
        by_group: dict[str, list[int]] = defaultdict(list)
        by_norm: dict[str, list[int]] = defaultdict(list)
        for j, (groups, text) in enumerate(zip(bank.groups, bank.texts, strict=True)):
            for g in groups:
                by_group[g].append(j)
            by_norm[_norm(text)].append(j)
        for a, i in enumerate(idx):
            sims[a, by_group.get(rows[i]["session"], [])] = -np.inf
            sims[a, by_norm.get(_norm(rows[i]["text"]), [])] = -np.inf
    k = len(CLASSES)
    text = np.zeros((len(idx), 2 * k))
    for c in range(k):
        cols = np.flatnonzero(bank.labels == c)
        if not cols.size:
            continue
        part = sims[:, cols]
        if part.shape[1] > TOP_K:
            part = np.partition(part, part.shape[1] - TOP_K, axis=1)[:, -TOP_K:]
        top = -np.sort(-part, axis=1)[:, :TOP_K]
        finite = np.isfinite(top)
        count = finite.sum(axis=1)
        text[:, c] = np.where(np.isfinite(top[:, 0]), top[:, 0], 0.0)
        text[:, k + c] = np.where(count > 0, np.where(finite, top, 0.0).sum(axis=1)
                                  / np.maximum(count, 1), 0.0)
    options = []
    for i in idx:
        r = rows[i]
        scores = [float(s) for s in similarities(np.stack([vectors[o] for o in r["options"]]),
                                                 vectors[r["text"]])] if r["options"] else []
        options.append(option_features(scores))
    flags = np.array([rows[i]["f"].flags for i in idx], dtype=np.float64)
    return np.concatenate([np.round(text, 4), np.array(options), flags], axis=1)


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The trainer's objective (softmax regression, weight decay `L2` on the weights), to
    convergence."""
    from scipy.optimize import minimize

    from controller.continuity.meaning import CLASSES
    from evals.router_train import L2

    n, d = x.shape
    k = len(CLASSES)
    onehot = np.eye(k)[y]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:d * k].reshape(d, k), theta[d * k:]
        logits = x @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        lse = np.log(np.exp(logits).sum(axis=1))
        value = float((lse - (logits * onehot).sum(axis=1)).mean() + 0.5 * L2 * (w * w).sum())
        g = np.exp(logits - lse[:, None]) - onehot
        return value, np.concatenate([(x.T @ g / n + L2 * w).ravel(), g.mean(axis=0)])

    theta = minimize(loss, np.zeros(d * k + k), jac=True, method="L-BFGS-B",
                     options={"maxiter": 500}).x
    return theta[:d * k].reshape(d, k), theta[d * k:]


# --- the audit --------------------------------------------------------------------------------

def _rate(flags: list[bool]) -> dict[str, Any]:
    return {"accuracy": round(float(np.mean(flags)), 4) if flags else None, "turns": len(flags)}


def lowo(data: dict[str, Any], honest: bool) -> dict[str, Any]:
    import evals.router_train as rt
    from controller.continuity.meaning import CLASSES, probabilities

    rows, vectors = data["rows"], data["vectors"]
    idx = [i for i, r in enumerate(rows) if "t" in r and r["label"] is not None]
    samples = [rt.Sample(text=rows[i]["text"], meaning=rows[i]["label"],
                         group=rows[i]["session"], source=rows[i]["file"],
                         flags=rows[i]["f"].flags, options=rows[i]["options"]) for i in idx]
    y = np.array([CLASSES.index(s.meaning) for s in samples])
    source = np.array([s.source for s in samples])
    full_x = None if honest else design(idx, rows, rt.build_bank(samples, vectors), vectors,
                                        True)
    per: dict[str, Any] = {}
    outcomes: list[tuple[int, bool]] = []
    for writer in (w for w in rt.WRITER_FILES if (source == w).any()):
        keep = source != writer
        bank = rt.build_bank([s for s, k in zip(samples, keep, strict=True) if k], vectors)
        x = full_x if full_x is not None else design(idx, rows, bank, vectors, True)
        w, b = fit(x[keep], y[keep])
        held = [i for i, r in enumerate(rows) if r["file"] == writer and "t" in r]
        p = dict(zip(held, probabilities(w, b, design(held, rows, bank, vectors, False)),
                     strict=True))
        klass, route = [], []
        for i, r in enumerate(rows):
            if r["file"] != writer or r["turn"] == 1 or "transition" not in r["expect"]:
                continue
            if i in p and r["label"] is not None:
                klass.append(CLASSES[int(np.argmax(p[i]))] == r["label"])
            got = routed(r, p[i], vectors) if i in p else tuple(r["final"])
            route.append(right(got, r))  # type: ignore[arg-type]
            outcomes.append((i, route[-1]))
        per[writer.removesuffix(".jsonl")] = {"class": _rate(klass), "route": _rate(route)}
        print(f"{'honest' if honest else 'trainer'} {writer}: {per[writer.removesuffix('.jsonl')]}",
              file=sys.stderr)
    out = {"by_writer": per, **{f"mean_{m}": round(float(np.mean(
        [v[m]["accuracy"] for v in per.values()])), 4) for m in ("class", "route")}}
    if honest:
        out["breakdown"] = breakdown(rows, outcomes)
    return out


def breakdown(rows: list[dict[str, Any]], outcomes: list[tuple[int, bool]]) -> dict[str, Any]:
    by_class: dict[str, list[bool]] = defaultdict(list)
    by_state: dict[str, list[bool]] = defaultdict(list)
    for i, good in outcomes:
        e = rows[i]["expect"]
        by_class[f"{e['transition']} {e.get('lane', '')}"].append(good)
        by_state[state_of(rows[i])].append(good)
    return {"by_expected": {k: _rate(v) for k, v in sorted(by_class.items())},
            "by_state": {k: _rate(v) for k, v in sorted(by_state.items())}}


def ceilings(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The forced run's own routes (the right class every time), the rules' plan alone, and
    where the forced run misses: per writer, expected class and state."""
    from evals.router_train import WRITER_FILES

    oracle: dict[str, list[bool]] = defaultdict(list)
    rules: dict[str, list[bool]] = defaultdict(list)
    by_class: dict[str, list[bool]] = defaultdict(list)
    by_state: dict[str, list[bool]] = defaultdict(list)
    misses: Counter[str] = Counter()
    for r in rows:
        if r["file"] not in WRITER_FILES or r["turn"] == 1 or "transition" not in r["expect"]:
            continue
        writer = r["file"].removesuffix(".jsonl")
        good = right(tuple(r["final"]), r)  # type: ignore[arg-type]
        oracle[writer].append(good)
        rules[writer].append(right(_rules_routed(r), r) if "t" in r else good)
        expected = f"{r['expect']['transition']} {r['expect'].get('lane', '')}"
        by_class[expected].append(good)
        by_state[state_of(r)].append(good)
        if not good:
            misses[f"{expected} -> {r['final'][0]} {r['final'][1]} ({state_of(r)})"] += 1
    return {
        "oracle_by_writer": {k: _rate(v) for k, v in sorted(oracle.items())},
        "oracle_mean": round(float(np.mean([np.mean(v) for v in oracle.values()])), 4),
        "oracle_by_expected": {k: _rate(v) for k, v in sorted(by_class.items())},
        "oracle_by_state": {k: _rate(v) for k, v in sorted(by_state.items())},
        "oracle_misses_top": dict(sorted(misses.most_common(20), key=lambda kv: (-kv[1], kv[0]))),
        "rules_only_by_writer": {k: _rate(v) for k, v in sorted(rules.items())},
        "rules_only_mean": round(float(np.mean([np.mean(v) for v in rules.values()])), 4)}


def duplicates(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Per writer: the share of its follow-ups whose words another writer's file also has."""
    import re

    from evals.router_train import WRITER_FILES

    def words(text: str) -> str:
        return " ".join(re.findall(r"[a-z0-9]+", text.lower()))

    owners: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        if r["file"] in WRITER_FILES and r["turn"] > 1:
            owners[words(r["text"])].add(r["file"])
    out = {}
    for writer in WRITER_FILES:
        mine = [words(r["text"]) for r in rows if r["file"] == writer and r["turn"] > 1]
        out[writer.removesuffix(".jsonl")] = round(
            sum(bool(owners[m] - {writer}) for m in mine) / max(len(mine), 1), 4)
    return out


LEAKS = {
    "bank": "the trainer's LOWO computes the training turns' text features against the whole "
            "bank, the held writer's turns included (only the held turns' own features leave "
            "that writer's rows out): rebuilt here (lowo_honest); it changes little",
    "settings": "router_rescue / router_phrase / router_override and the head's L2 were chosen "
                "on curves over all writers, the held one included",
    "rules": "the vocabulary's phrases (vocabulary.toml, phrases.py) were extended from "
             "training writers' wordings (e.g. commit d3c9c9c's 'May I see that test?' is "
             "train_writer4's): the rule_* features and the rules' plan know them; rules_only "
             "per writer shows the earlier writers and heldapart_tune read better by the rules",
    "labels": "data/router/labels.jsonl relabels 64 turns of heldapart_tune only; the other "
              "writers' turns take DEFAULT_CLASS (a T4 graph 'is it tested?' is 'callers' "
              "unless the rules read 'tests')",
    "metric": "the trainer's LOWO scores the head's class on labelled, teacher-forced turns; a "
              "held-apart set scores the (transition, lane) the whole router ends in, every "
              "follow-up, alts accepted: lowo_*.mean_route is that number"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None,
                        help="pickle of the capture (read if it exists, else written)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        if args.cache is not None and args.cache.is_file():
            with args.cache.open("rb") as handle:
                data = pickle.load(handle)
        else:
            data = capture()
            if args.cache is not None:
                with args.cache.open("wb") as handle:
                    pickle.dump(data, handle)
        import json

        manifest = json.loads((ROOT / "controller" / "continuity" / "meaning_model"
                               / "manifest.json").read_text(encoding="utf-8"))
        result: dict[str, Any] = {
            "manifest_lowo_mean_accuracy": manifest["metrics"]["lowo"]["mean_accuracy"],
            "leaks": LEAKS, "cross_writer_duplicates": duplicates(data["rows"]),
            **ceilings(data["rows"]),
            "lowo_trainer": lowo(data, honest=False), "lowo_honest": lowo(data, honest=True)}
    result.update(machine=machine(), load=load_1m(), cpu_seconds=round(cpu_seconds(), 1),
                  command="python benchmarks/router_lowo_audit.py")
    write_result(args.out, result, indent=1)


if __name__ == "__main__":
    main()
