"""Variants of the meaning router's head, measured by honest leave-one-writer-out (issue 32,
routermodel23):

    python benchmarks/router_head_variants.py [--cache PICKLE] [--variants A,B] [--jobs N]
                                              [--out JSON]

The training turns are captured once the way `evals.router_train` captures them (teacher
forcing through the session path, `--jobs` processes) and embedded once; `--cache` keeps both
(the capture is ~20 CPU minutes, each variant then a few). Per variant, each writer's file
(`WRITER_FILES`: heldapart_tune and every train_writer<n>) is held out in turn and everything
learned from data is rebuilt without it: the exemplar bank (the rows only that writer gave are
gone), every training turn's text features against that bank, the head; the held turns are then
read against that bank (`honest`, as `benchmarks/router_lowo_audit.py`'s lowo_honest; the
trainer's own LOWO keeps the held writer's rows in the training turns' features). Reported: the
class accuracy per writer, their mean and the worst writer, per class over all held turns, and
(`--cv`) 5-fold cross-validation by session with the trainer's folds.

The head is the trainer's (softmax regression, full-batch gradient descent from zeros, its
steps, rate and weight decay) computed in float32 to keep a variant in minutes; a variant names
what it changes:
  excl     what a training turn's text features leave out: "session" (its session and wording:
           the trainer before routermodel23), "writer" (and the rows only its own writer's file
           gave, for a turn of a writer's file), "file" (the same for every file)
  l2       weight decay; steps: gradient steps
  balance  class weights (n / (classes * n_c)) ** balance, normalised to mean 1
  norm     "rel": each class's similarities also relative to the turn's best class; "writer":
           also centred per writer's file (transductive: the held writer's own mean)
  hidden   a ReLU layer of that width beside the linear head (numpy, seed 0)
Temperature divides the logits: it never changes the class read, so it is not a variant here
(its effect is on the rescue/phrase bars: the trainer's curves).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals"))
from _result import cpu_seconds, load_1m, machine, write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "router_head_variants.json"
VARIANTS: dict[str, dict[str, Any]] = {
    "shipped_session": {"excl": "session"},
    "writer": {"excl": "writer"},
    "file": {"excl": "file"},
    "session_balance_0.5": {"excl": "session", "balance": 0.5},
    "session_l2_1e-4": {"excl": "session", "l2": 1e-4},
    "writer_l2_1e-4": {"excl": "writer", "l2": 1e-4},
    "writer_l2_1e-2": {"excl": "writer", "l2": 1e-2},
    "writer_balance_0.5": {"excl": "writer", "balance": 0.5},
    "writer_rel": {"excl": "writer", "norm": "rel"},
    "writer_norm_writer": {"excl": "writer", "norm": "writer"},
    "writer_mlp32": {"excl": "writer", "hidden": 32, "steps": 2000},
}
DATA: dict[str, Any] = {}  # the capture and what every variant shares (`prepare`)


# --- capture ----------------------------------------------------------------------------------

def capture(jobs: int) -> dict[str, Any]:
    """The trainer's samples (`evals.router_train.collect`) and the vectors of every text."""
    import evals.router_train as rt
    from evals import router_parallel

    home = tempfile.mkdtemp(prefix="helix-head-variants-")
    os.environ["HELIX_HOME"] = home
    try:
        flags = {"index.embed_enabled": False}
        samples = router_parallel.collect(flags, jobs) if jobs > 1 else rt.collect(flags)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    hand = [r["text"] for _, r in rt.read_jsonl(rt.ROUTER_DIR / "exemplars.jsonl")]
    vectors = rt.embed([s.text for s in samples] + [o for s in samples for o in s.options] + hand)
    return {"samples": samples, "vectors": vectors}


def prepare(data: dict[str, Any]) -> None:
    """The bank of every training turn, each turn's rounded similarity to every bank row, and
    the bank's rows by session, wording, the one file they came from, and class."""
    import evals.router_train as rt
    from controller.continuity.meaning import CLASSES, option_features, similarities

    samples, vectors = data["samples"], data["vectors"]
    bank = rt.build_bank(samples, vectors)
    queries = np.stack([vectors[s.text] for s in samples]).astype(np.float32)
    by_group: dict[str, list[int]] = defaultdict(list)
    by_norm: dict[str, list[int]] = defaultdict(list)
    only: dict[str, list[int]] = defaultdict(list)
    for j, (groups, text, sources) in enumerate(zip(bank.groups, bank.texts, bank.sources,
                                                    strict=True)):
        for g in groups:
            by_group[g].append(j)
        by_norm[rt._norm(text)].append(j)
        if len(sources) == 1:
            only[next(iter(sources))].append(j)

    def options(s: Any) -> np.ndarray:
        scores = [float(v) for v in similarities(np.stack([vectors[o] for o in s.options]),
                                                 vectors[s.text])] if s.options else []
        return option_features(scores)

    DATA.update(
        samples=samples, sims=np.round(queries @ bank.vectors.T, 4).astype(np.float32),
        y=np.array([CLASSES.index(s.meaning) for s in samples]),
        source=np.array([s.source for s in samples]), by_group=by_group, by_norm=by_norm,
        only=only, by_label=[np.flatnonzero(bank.labels == c) for c in range(len(CLASSES))],
        options=np.array([options(s) for s in samples]),
        flags=np.array([s.flags for s in samples], dtype=np.float64))


# --- features ---------------------------------------------------------------------------------

def _masked(idx: np.ndarray, drop: np.ndarray, exclusion: str) -> np.ndarray:
    """The turns' similarities with the rows they may not see set to -inf."""
    import evals.router_train as rt

    m = DATA["sims"][idx].copy()
    if len(drop):
        m[:, drop] = -np.inf
    if exclusion == "none":
        return m
    samples = DATA["samples"]
    for a, i in enumerate(idx):
        m[a, DATA["by_group"].get(samples[i].group, [])] = -np.inf
        m[a, DATA["by_norm"].get(rt._norm(samples[i].text), [])] = -np.inf
    if exclusion in ("writer", "file"):
        by_source: dict[str, list[int]] = defaultdict(list)
        for a, i in enumerate(idx):
            by_source[samples[i].source].append(a)
        for source, rows in by_source.items():
            cols = DATA["only"].get(source, [])
            if cols and (exclusion == "file" or source in rt.WRITER_FILES):
                m[np.ix_(rows, cols)] = -np.inf
    return m


def text_features(idx: np.ndarray, drop: np.ndarray, exclusion: str) -> np.ndarray:
    """`controller.continuity.meaning.text_features` of many turns at once (the same numbers):
    per class the best similarity and the mean of the `TOP_K` best."""
    from controller.continuity.meaning import TOP_K

    m = _masked(idx, drop, exclusion)
    k = len(DATA["by_label"])
    out = np.zeros((len(idx), 2 * k))
    for c, cols in enumerate(DATA["by_label"]):
        if not cols.size:
            continue
        part = m[:, cols]
        if part.shape[1] > TOP_K:
            part = np.partition(part, part.shape[1] - TOP_K, axis=1)[:, -TOP_K:]
        top = -np.sort(-part, axis=1)[:, :TOP_K].astype(np.float64)
        finite = np.isfinite(top)
        count = finite.sum(axis=1)
        out[:, c] = np.where(finite[:, 0], top[:, 0], 0.0)
        out[:, k + c] = np.where(count > 0, np.where(finite, top, 0.0).sum(axis=1)
                                 / np.maximum(count, 1), 0.0)
    return np.round(out, 4)


def design(idx: np.ndarray, drop: np.ndarray, exclusion: str, v: dict[str, Any]) -> np.ndarray:
    t = text_features(idx, drop, exclusion)
    k = t.shape[1] // 2
    if v.get("norm") == "rel":
        t = np.concatenate([t, t[:, :k] - t[:, :k].max(axis=1, keepdims=True),
                            t[:, k:] - t[:, k:].max(axis=1, keepdims=True)], axis=1)
    elif v.get("norm") == "writer":
        centred = t.copy()
        source = DATA["source"][idx]
        for name in set(source):
            centred[source == name] -= t[source == name].mean(axis=0)
        t = np.concatenate([t, centred], axis=1)
    return np.concatenate([t, DATA["options"][idx], DATA["flags"][idx]], axis=1)


# --- heads ------------------------------------------------------------------------------------

def _weights(y: np.ndarray, classes: int, balance: float) -> np.ndarray:
    if not balance:
        return np.ones((len(y), 1), dtype=np.float32)
    counts = np.bincount(y, minlength=classes).astype(np.float64)
    per = (len(y) / (classes * np.maximum(counts, 1))) ** balance
    w = per[y]
    return (w / w.mean()).astype(np.float32)[:, None]


def fit(x: np.ndarray, y: np.ndarray, v: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """The trainer's softmax regression (from zeros, full batch), in float32; with `hidden`,
    `fit_mlp`."""
    import evals.router_train as rt

    classes = len(DATA["by_label"])
    x32 = x.astype(np.float32)
    onehot = np.eye(classes, dtype=np.float32)[y]
    sw = _weights(y, classes, float(v.get("balance", 0)))
    if v.get("hidden"):
        return fit_mlp(x32, onehot, sw, v)
    l2, rate, n = float(v.get("l2", rt.L2)), float(v.get("rate", rt.RATE)), len(y)
    w = np.zeros((x.shape[1], classes), np.float32)
    b = np.zeros(classes, np.float32)
    for _ in range(int(v.get("steps", rt.STEPS))):
        logits = x32 @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * sw
        w -= rate * (x32.T @ g / n + l2 * w)
        b -= rate * g.mean(axis=0)
    return (w, b)


def fit_mlp(x: np.ndarray, onehot: np.ndarray, sw: np.ndarray,
            v: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """A ReLU layer beside a linear skip, full-batch gradient descent, weights from seed 0."""
    rng = np.random.default_rng(0)
    n, d = x.shape
    hidden, l2, rate = int(v["hidden"]), float(v.get("l2", 1e-3)), float(v.get("rate", 0.5))
    w1 = (rng.standard_normal((d, hidden)) * np.sqrt(1.0 / d)).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = np.zeros((hidden, onehot.shape[1]), np.float32)
    w0 = np.zeros((d, onehot.shape[1]), np.float32)
    b2 = np.zeros(onehot.shape[1], np.float32)
    for _ in range(int(v.get("steps", 2000))):
        z = x @ w1 + b1
        a = np.maximum(z, 0)
        logits = a @ w2 + x @ w0 + b2
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * sw / n
        back = (g @ w2.T) * (z > 0)
        w2 -= rate * (a.T @ g + l2 * w2)
        w0 -= rate * (x.T @ g + l2 * w0)
        b2 -= rate * g.sum(axis=0)
        w1 -= rate * (x.T @ back + l2 * w1)
        b1 -= rate * back.sum(axis=0)
    return (w1, b1, w2, w0, b2)


def predict(model: tuple[np.ndarray, ...], x: np.ndarray) -> np.ndarray:
    """The class read (the logits' argmax: a temperature never changes it)."""
    x32 = x.astype(np.float32)
    if len(model) == 2:
        logits = x32 @ model[0] + model[1]
    else:
        w1, b1, w2, w0, b2 = model
        logits = np.maximum(x32 @ w1 + b1, 0) @ w2 + x32 @ w0 + b2
    return np.asarray(logits.argmax(axis=1))


# --- the measurement --------------------------------------------------------------------------

def held_writer(task: tuple[str, dict[str, Any]]) -> tuple[str, np.ndarray, np.ndarray]:
    """One writer held out: the bank without the rows only it gave, the head fit on the rest."""
    writer, v = task
    drop = np.array(DATA["only"].get(writer, []), dtype=np.int64)
    held = np.flatnonzero(DATA["source"] == writer)
    train = np.flatnonzero(DATA["source"] != writer)
    model = fit(design(train, drop, v.get("excl", "session"), v), DATA["y"][train], v)
    return writer, held, predict(model, design(held, drop, "none", v))


def cross_validate(v: dict[str, Any]) -> float:
    """5-fold by session (the trainer's folds), the features the variant's exclusion gives."""
    import evals.router_train as rt

    n = len(DATA["y"])
    x = design(np.arange(n), np.zeros(0, dtype=np.int64), v.get("excl", "session"), v)
    folds = np.array([rt.fold_of(s.group) for s in DATA["samples"]])
    predicted = np.zeros(n, dtype=np.int64)
    for k in range(rt.FOLDS):
        held = folds == k
        predicted[held] = predict(fit(x[~held], DATA["y"][~held], v), x[held])
    return round(float((predicted == DATA["y"]).mean()), 4)


def measure(v: dict[str, Any], jobs: int, first: int = 0) -> dict[str, Any]:
    """`first`: only the first that many writer files held out (0: every one)."""
    import evals.router_train as rt
    from controller.continuity.meaning import CLASSES

    writers = [w for w in rt.WRITER_FILES if (DATA["source"] == w).any()]
    writers = writers[:first] if first else writers
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        pending = pool.apply_async(cross_validate, (v,)) if v.get("cv") else None
        held = pool.map(held_writer, [(w, v) for w in writers], chunksize=1)
        cv = pending.get() if pending is not None else None
    per: dict[str, float] = {}
    hits: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for writer, rows, predicted in held:
        truth = DATA["y"][rows]
        per[writer.removesuffix(".jsonl")] = round(float((predicted == truth).mean()), 4)
        for t, p in zip(truth, predicted, strict=True):
            hits[CLASSES[t]][0] += int(t == p)
            hits[CLASSES[t]][1] += 1
    worst = min(per, key=lambda w: (per[w], w))
    return {"variant": v, "lowo_mean": round(float(np.mean(list(per.values()))), 4),
            "lowo_worst": {"writer": worst, "accuracy": per[worst]}, "cv": cv,
            "lowo_by_writer": per,
            "lowo_by_class": {c: {"accuracy": round(h / t, 4), "turns": t}
                              for c, (h, t) in sorted(hits.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None,
                        help="pickle of the capture and vectors (read if it exists, else written)")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--writers", type=int, default=0,
                        help="hold out only the first N writer files (0: all; a loaded machine)")
    parser.add_argument("--cv", action="store_true",
                        help="each variant's 5-fold cross-validation by session as well")
    args = parser.parse_args()
    names = [n for n in args.variants.split(",") if n]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"router_head_variants: unknown variant(s): {', '.join(unknown)}")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        if args.cache is not None and args.cache.is_file():
            with args.cache.open("rb") as handle:
                data = pickle.load(handle)
        else:
            data = capture(max(1, args.jobs))
            if args.cache is not None:
                with args.cache.open("wb") as handle:
                    pickle.dump(data, handle)
        prepare(data)
        results = {}
        for name in names:
            results[name] = measure({**VARIANTS[name], "cv": args.cv}, max(1, args.jobs),
                                    args.writers)
            print(name, results[name]["lowo_mean"], results[name]["lowo_worst"],
                  results[name]["cv"], flush=True)
    write_result(args.out, {
        "protocol": "honest leave-one-writer-out (bank, features and head without the held "
                    "writer); class accuracy of labelled teacher-forced turns",
        "turns": len(data["samples"]), "variants": results,
        "writers_held": args.writers or "all", "machine": machine(),
        "load": load_1m(), "cpu_seconds": round(cpu_seconds(), 1),
        "command": "python benchmarks/router_head_variants.py"}, indent=1)


if __name__ == "__main__":
    main()
