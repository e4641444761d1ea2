"""Train the meaning router (`controller/continuity/meaning_model/`), reproducibly:

    python -m evals.router_train [--check]

Training turns are the tuning data only: the held-apart tuning file
(data/evals/continuity/heldapart_tune.jsonl), the scenario files (T0.jsonl ... T10.jsonl,
conversations.jsonl), the paraphrase suite's tuning half and other writers' follow-ups
(every train_writer<n>.jsonl, written for training: TRAIN_WRITER<n>.md). The
reported files (heldapart_report.jsonl, paraphrase_report.jsonl) are never opened
(`FORBIDDEN`). Hand-written
exemplars per class are data/router/exemplars.jsonl; data/router/labels.jsonl gives the class of
the held-apart turns whose (transition, lane) label does not name it (the other sense is T2 like
a narrowed question; a T10 is a pick, a "who calls it?" ... with nothing to act on).

1. Every session runs through the real session path (dry run, the fixture repository) with the
   labelled class forced (teacher forcing: each turn starts from the state the right routes
   leave), recording the features the router computed for it.
2. Every text is embedded with the packaged encoder (its first `ENCODER_LAYERS` layers when
   set: `helix.session.reader.encoder_of`; the model's key names them and the router reads
   with them); the exemplars are the hand-written ones and every labelled turn.
3. The head (softmax regression) is fit on the features, each turn's text features computed
   without the exemplars of its own session or its own wording; 5-fold cross-validation by
   session is reported in the manifest, and with it, per (`continuity.router_rescue`,
   `router_override`) of a grid, how often the class the router would act on is right
   (`routing_curve`) and the best of the grid (the shipped settings: helix/core/config.py).
4. Leave-one-writer-out (`leave_one_writer_out`): each writer's file (heldapart_tune and every
   train_writer<n>) held out in turn, the head fit on the rest and the held turns' text features
   computed without the exemplars only that writer gave; per writer and class, and the mean
   over writers of the routed share per (`router_rescue`, `router_phrase`) (`phrase_curve`: the
   bar against a rule that read the message from its phrases alone, nothing exact in it).
Labels are read by HELDAPART.md's label rules where writers' conventions differ (`normalised`:
a T2 turn after a sense was chosen that names no scope is the other sense, not a narrowing).
`--check` trains into a temporary directory and fails unless the result equals the shipped
model byte for byte (`--jobs N`: the capture and the fits in N processes, the same bytes). The
manifest records what the model was trained from (`evals.router_manifest`: the training files
and router data by digest, the trainer's code and settings, the captured turns' digest);
tests/test_router_manifest.py recomputes the inputs in seconds and fails when one changed
without a retraining. Only `--check` covers the capture (every turn through the session path: a
change to the planner, state, rules or fixture that moves a turn's features or options), the
encoder's vectors of every text, and the fits reproducing the weights byte for byte.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from controller.continuity.meaning import (
    CLASSES,
    Features,
    option_features,
    probabilities,
    similarities,
    text_features,
)
from controller.continuity.turn_plan import Reading
from evals.heldapart import fresh_home
from evals.router_curves import best_settings, phrase_curve, routing_curve
from evals.router_manifest import moved, write_model
from evals.scenarios import SUITE_DIR, resolve_repo
from evals.suites import DATA_DIR, read_jsonl, writer_order
from helix.core.hashing import digest, short_id

ROUTER_DIR = DATA_DIR / "router"
MODEL_DIR = Path(__file__).resolve().parents[1] / "controller" / "continuity" / "meaning_model"
FORBIDDEN = frozenset({"heldapart_report.jsonl", "paraphrase_report.jsonl"})
# follow-ups written for training only: every train_writer<n>.jsonl of the suite directory
# (other writers, TRAIN_WRITER<n>.md) in the order of n, then train_writer_<helper>.jsonl
TRAIN_WRITERS = tuple(sorted((p.name for p in SUITE_DIR.glob("train_writer*.jsonl")),
                             key=writer_order))
TRAIN_FILES = ("heldapart_tune.jsonl", "conversations.jsonl", "paraphrase_tune.jsonl",
               *(f"T{n}.jsonl" for n in range(11)), *TRAIN_WRITERS)
# the class a (transition, lane) label names when nothing says otherwise
DEFAULT_CLASS = {("T0", "chat"): "chat", ("T1", "root"): "new_question",
                 ("T1", "interrupt"): "reset", ("T2", "root"): "narrow",
                 ("T3", "selection"): "pick", ("T4", "graph"): "callers",
                 ("T4", "explain"): "explain", ("T5", "selection"): "reopen",
                 ("T6", "root"): "pivot", ("T6", "interrupt"): "cancel",
                 ("T7", "clarify_resume"): "pick", ("T8", "meta"): "meta",
                 ("T8", "semantic"): "why", ("T9", "recap"): "recap",
                 ("T9", "semantic"): "activity"}
# the labels each class can end in (a T10: the class found nothing to act on)
REACHES: dict[str, set[str]] = {
    "new_question": {"T1"}, "reset": {"T1"}, "pick": {"T3", "T7", "T10"},
    "reopen": {"T5", "T3", "T10"}, "callers": {"T4", "T3", "T10"},
    "tests": {"T4", "T3", "T10"}, "explain": {"T4", "T3", "T10"}, "narrow": {"T2", "T10"},
    "other": {"T2", "T3"}, "pivot": {"T6"}, "cancel": {"T6"}, "back": {"T6"},
    "meta": {"T8", "T10"}, "why": {"T8"}, "meaning": {"T8"}, "recap": {"T9"},
    "activity": {"T9"}, "yes": {"T7"}, "chat": {"T0"}}
PARAPHRASE_CLASS = {"small_talk": "chat", "root_question": "new_question",
                    "scope_rerun": "narrow", "select_ordinal": "pick", "select_label": "pick",
                    "open_focused": "reopen", "callers": "callers", "tests": "tests",
                    "cancel": "cancel", "pivot": "pivot", "meta": "meta", "recap": "recap",
                    "start_over": "reset"}
L2 = 1e-3  # the head's weight decay (5-fold CV by session: 1e-4 0.906, 3e-4 0.906, 1e-3 0.899;
# 1e-4 reads three suite new questions as follow-ups: tests/test_conversations.py)
STEPS = 4000  # full-batch gradient steps (deterministic: no sampling)
RATE = 0.5
FOLDS = 5
DECIMALS = 6  # of the shipped weights
# the sentence model's first transformer layers the router's encoder keeps (`indexers.
# first_layers`), None for the whole model (routercost16). Fewer layers cost less (ONNX
# Runtime's CPU per tuning turn, median/p95 ms: 9.7/13.9 whole, 6.6/9.6 with 4, 4.8/6.8 with 3)
# and their nearest exemplars read other writers' follow-ups better (leave-one-writer-out: 4
# layers 0.822, 3 0.810, whole 0.711), but the head with the state and rules' features reads
# them worse: with 3 layers and writer52 (now tune_writer52) in training, 5-fold CV 0.8199
# and heldapart_tune's CV 0.7708 against the shipped model's 0.8878 and 0.8554 (without
# writer52); honest leave-one-writer-out routes (benchmarks/router_lowo_audit.py's head, fit
# to convergence, one capture) lower for 6 of the first 7 writers (heldapart_tune 0.767 ->
# 0.645, writer2 0.590 -> 0.507). Kept whole.
ENCODER_LAYERS: int | None = None
# divides the fitted head (below 1: sharper). LOWO routes (router_lowo_audit's protocol, rescue
# 0.45): 1.0 0.7145, 0.8 0.7240, 0.7 0.7275, 0.55 0.7278, but at 0.7 scope reruns and new questions
# mid-session read as follow-ups (writer6 0.362 -> 0.325; 4 conversation/README tests fail): 1
TEMPERATURE = 1.0


def settings() -> dict[str, Any]:
    """The constants the head is trained with (the manifest's `head` and `inputs.settings`)."""
    return {"l2": L2, "steps": STEPS, "rate": RATE, "folds": FOLDS, "decimals": DECIMALS,
            "encoder_layers": ENCODER_LAYERS, "temperature": TEMPERATURE}


@dataclass
class Sample:
    text: str
    meaning: str
    group: str  # the session it came from
    source: str
    flags: tuple[float, ...]
    options: tuple[str, ...] = ()  # a pending clarifier's options, described


@dataclass
class ForcedReader:
    """The trainer's reader: the labelled class (`labeller` of what the router saw), and a
    record of what the router saw."""

    labeller: Callable[[Features], str | None] = lambda f: None
    seen: list[tuple[Features, str | None]] = field(default_factory=list)

    def __call__(self, f: Features) -> Reading:
        label = self.labeller(f)
        self.seen.append((f, label))
        return Reading(meaning=label or f.rules, confidence=1.0, forced=True)


def _overrides() -> dict[tuple[str, str, int], dict[str, Any]]:
    return {(r["file"], r["session"], int(r["turn"])): r
            for _, r in read_jsonl(ROUTER_DIR / "labels.jsonl")}


def label_of(file: str, session: dict[str, Any], number: int,
             overrides: dict[tuple[str, str, int], dict[str, Any]], rules: str,
             seen: Features | None = None) -> str | None:
    """The class of one training turn (None: not a training turn); `rules`: the vocabulary
    router's reading of it; `seen`: what the router saw (for `normalised`)."""
    turn = session["turns"][number - 1]
    key = (file.removesuffix(".jsonl"), session["id"], number)
    if key in overrides:
        if overrides[key]["text"] != turn["text"]:
            raise ValueError(f"labels.jsonl {key}: the text changed")
        return str(overrides[key]["meaning"])
    expect = turn.get("expect", {})
    if number == len(session["turns"]) and session.get("intent") in PARAPHRASE_CLASS:
        return PARAPHRASE_CLASS[session["intent"]]
    transition, lane = expect.get("transition"), expect.get("lane")
    if transition is None:
        return None
    if rules in REACHES and transition in REACHES[rules]:
        return rules  # the vocabulary rules read it the way the label says
    if transition == "T10" or not lane:
        return None
    return normalised(DEFAULT_CLASS.get((transition, lane)), seen)


def _label_seen(file: str, session: dict[str, Any], number: int,
                overrides: dict[tuple[str, str, int], dict[str, Any]],
                f: Features) -> str | None:
    return label_of(file, session, number, overrides, f.rules, f)


_SCOPE_NOUNS = frozenset({"folder", "folders", "dir", "directory", "directories", "module",
                          "package", "file", "files"})


def normalised(meaning: str | None, seen: Features | None) -> str | None:
    """The class a label's (transition, lane) names, read by HELDAPART.md's label rules where
    writers' conventions differ. T2 root is "the same question with a changed scope, or the
    other sense after an answer": after a sense was chosen, a T2 turn that names no scope (no
    path, no kind of file, nothing left out, no folder) asks for the other sense (`other`),
    not a narrowing (`narrow`), whichever way its writer counted it."""
    if meaning != "narrow" or seen is None or not seen.flag("choice_sense") \
            or seen.flag("path"):
        return meaning
    from controller.continuity import phrases as say

    words = set(re.findall(r"[a-z]+", seen.text.lower()))
    if words & (set(say.SCOPE_KIND) | _SCOPE_NOUNS) or say.SCOPE_EXCLUDE.search(seen.text):
        return meaning
    return "other"


def training_sessions(files: tuple[str, ...] = TRAIN_FILES
                      ) -> Iterator[tuple[str, dict[str, Any]]]:
    for name in files:
        assert name not in FORBIDDEN
        for _, session in read_jsonl(SUITE_DIR / name):
            yield name, session


def collect(flags: dict[str, Any], files: tuple[str, ...] = TRAIN_FILES) -> list[Sample]:
    """Every labelled turn of `files`, run with its class forced, and the features the router
    saw."""
    from helix.core.config import load_config
    from helix.core.ports import FakeClock
    from helix.session.reader import describe
    from helix.session.runner import run_turn
    from helix.session.store import ensure_schema
    from helix.store.db import open_db

    db = open_db()
    ensure_schema(db)
    overrides = _overrides()
    reader = ForcedReader()
    samples: list[Sample] = []
    configs: dict[str, Any] = {}
    for file, session in training_sessions(files):
        spec = str(session.get("repo", "fixture:continuity_repo"))
        root = resolve_repo(spec)
        config = configs.setdefault(spec, load_config(root, flags=flags))
        name = f"train-{short_id('router-train', file, session['id'])}"
        clock = FakeClock(start=1_700_000_000.0, step=0.001)
        for number, turn in enumerate(session["turns"], start=1):
            reader.seen.clear()
            reader.labeller = functools.partial(_label_seen, file, session, number, overrides)
            run_turn(name, turn["text"], root=root, config=config, dry_run=True, db=db,
                     clock=clock, reply_to=turn.get("reply_to"), reader=reader)
            if not reader.seen or reader.seen[-1][1] is None:
                continue  # exact (a hard interrupt, a strict answer), or not labelled
            f, label = reader.seen[-1]
            assert label is not None
            samples.append(Sample(text=f.text, meaning=label, group=session["id"],
                                  source=file, flags=f.flags,
                                  options=tuple(describe(root, o, config.index.max_file_bytes)
                                                for o in f.options)))
    return samples


# --- exemplars, features, head -------------------------------------------------------------

@dataclass
class Bank:
    texts: list[str]
    labels: np.ndarray
    details: list[str | None]
    groups: list[frozenset[str]]
    vectors: np.ndarray
    sources: list[frozenset[str]] = field(default_factory=list)  # the files each row came from


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).strip(" ?!.")


def build_bank(samples: list[Sample], vectors: dict[str, np.ndarray]) -> Bank:
    """The hand-written exemplars, then every labelled turn; one row per (wording, class)."""
    from controller.continuity import phrases as say

    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for _, r in read_jsonl(ROUTER_DIR / "exemplars.jsonl"):
        rows.setdefault((_norm(r["text"]), r["meaning"]), {
            "text": r["text"], "meaning": r["meaning"], "detail": r.get("detail"),
            "groups": {"hand"}, "sources": {"hand"}})
    for s in samples:
        row = rows.setdefault((_norm(s.text), s.meaning), {
            "text": s.text, "meaning": s.meaning, "groups": set(), "sources": set(),
            "detail": say.small_talk(s.text) if s.meaning == "chat" else None})
        row["groups"].add(s.group)
        row["sources"].add(s.source)
    ordered = list(rows.values())
    return Bank(texts=[r["text"] for r in ordered],
                labels=np.array([CLASSES.index(r["meaning"]) for r in ordered]),
                details=[r["detail"] for r in ordered],
                groups=[frozenset(r["groups"]) for r in ordered],
                sources=[frozenset(r["sources"]) for r in ordered],
                vectors=np.stack([vectors[r["text"]] for r in ordered]).astype(np.float32))


def design(samples: list[Sample], bank: Bank, vectors: dict[str, np.ndarray],
           writer: str | None = None) -> np.ndarray:
    """The feature matrix: each turn's text features without its own session's exemplars
    and without its own wording (what a new message would see); with `writer`, without any
    exemplar only that writer's file gave (what a writer never trained on would see)."""
    norms = [_norm(t) for t in bank.texts]
    rows = []
    for s in samples:
        if writer is None:
            keep = np.array([s.group not in g and n != _norm(s.text)
                             for g, n in zip(bank.groups, norms, strict=True)])
        else:
            keep = np.array([bool(src - {writer}) for src in bank.sources])
        sims = similarities(bank.vectors, vectors[s.text])
        scores = [float(v) for v in similarities(
            np.stack([vectors[o] for o in s.options]), vectors[s.text])] if s.options else []
        rows.append(np.concatenate([text_features(bank.labels, sims, keep),
                                    option_features(scores), np.array(s.flags)]))
    return np.array(rows, dtype=np.float64)


FITTED: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # fits computed ahead (`--jobs`)


def fit_key(x: np.ndarray, y: np.ndarray) -> str:
    return digest(b"".join((str((x.shape, x.dtype, y.dtype)).encode(), x.tobytes(),
                            y.tobytes())))


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression, full-batch gradient descent from zeros (deterministic), its
    weights and bias divided by `TEMPERATURE` (or the same fit computed ahead: `FITTED`)."""
    if FITTED:
        return FITTED[fit_key(x, y)]
    n, classes = len(y), len(CLASSES)
    onehot = np.eye(classes)[y]
    w = np.zeros((x.shape[1], classes))
    b = np.zeros(classes)
    for _ in range(STEPS):
        logits = x @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = p - onehot
        w -= RATE * (x.T @ grad / n + L2 * w)
        b -= RATE * grad.mean(axis=0)
    return np.round(w / TEMPERATURE, DECIMALS), np.round(b / TEMPERATURE, DECIMALS)


def fold_of(group: str) -> int:
    return int(digest(group)[-8:], 16) % FOLDS


def cross_validate(x: np.ndarray, y: np.ndarray, groups: list[str]) -> dict[str, Any]:
    """Accuracy of the class on sessions left out of the fit (5 folds by session)."""
    predicted = np.zeros(len(y), dtype=np.int64)
    confidence = np.zeros(len(y))
    folds = np.array([fold_of(g) for g in groups])
    for k in range(FOLDS):
        held = folds == k
        w, b = fit(x[~held], y[~held])
        p = probabilities(w, b, x[held])
        predicted[held] = p.argmax(axis=1)
        confidence[held] = p.max(axis=1)
    right = predicted == y
    per_class = {c: round(float(right[y == i].mean()), 4) for i, c in enumerate(CLASSES)
                 if (y == i).any()}
    return {"accuracy": round(float(right.mean()), 4), "by_class": per_class,
            "predicted": predicted.tolist(), "confidence": confidence.round(4).tolist()}


TUNE_FILE = "heldapart_tune.jsonl"  # the held-apart writer's tuning half: settings are chosen
# by its cross-validated turns (the other training turns are other writers' or the vocabulary's)


def tune_metrics(cv: dict[str, Any], samples: list[Sample]) -> dict[str, Any]:
    """The cross-validated class accuracy on the held-apart tuning half's turns, and how often
    the class the router acts on is right there per (`router_rescue`, `router_phrase`)."""
    mine = [i for i, s in enumerate(samples) if s.source == TUNE_FILE]
    if not mine:
        return {}
    right = [CLASSES[cv["predicted"][i]] == samples[i].meaning for i in mine]
    held = {"predicted": [cv["predicted"][i] for i in mine],
            "confidence": [cv["confidence"][i] for i in mine]}
    return {"cv_tune_accuracy": round(sum(right) / len(mine), 4), "tune_turns": len(mine),
            "cv_tune_routed_by_rescue_phrase": phrase_curve(held, [samples[i] for i in mine])}


WRITER_FILES = (TUNE_FILE, *TRAIN_WRITERS)  # the files written by one writer each


def leave_one_writer_out(samples: list[Sample], bank: Bank, vectors: dict[str, np.ndarray],
                         x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Each writer's file (`WRITER_FILES`) held out in turn: the head fit on every other
    turn, the held turns' text features computed without the exemplars only that writer gave
    (the other turns' features are the usual ones). Per writer: class accuracy and the routed
    share per (`router_rescue`, `router_phrase`) (`phrase_curve`); the means over writers; per
    class over all held turns. Settings are chosen by these and by the curves of the 5-fold
    cross-validation, never by a reported file."""
    predicted = np.zeros(len(y), dtype=np.int64)
    confidence = np.zeros(len(y))
    writers = [w for w in WRITER_FILES if any(s.source == w for s in samples)]
    for writer in writers:
        held = np.array([s.source == writer for s in samples])
        w, b = fit(x[~held], y[~held])
        p = probabilities(w, b, design([s for s, h in zip(samples, held, strict=True) if h],
                                       bank, vectors, writer))
        predicted[held] = p.argmax(axis=1)
        confidence[held] = p.max(axis=1)
    per: dict[str, dict[str, Any]] = {}
    mine_all: list[int] = []
    for writer in writers:
        mine = [i for i, s in enumerate(samples) if s.source == writer]
        mine_all += mine
        held_cv = {"predicted": [int(predicted[i]) for i in mine],
                   "confidence": [float(confidence[i]) for i in mine]}
        per[writer.removesuffix(".jsonl")] = {
            "turns": len(mine),
            "accuracy": round(float((predicted[mine] == y[mine]).mean()), 4),
            "routed_by_rescue_phrase": phrase_curve(held_cv, [samples[i] for i in mine])}
    right = predicted[mine_all] == y[mine_all]
    labels = y[mine_all]
    curves = [v["routed_by_rescue_phrase"] for v in per.values()]
    return {"by_writer": per,
            "mean_accuracy": round(float(np.mean([v["accuracy"] for v in per.values()])), 4),
            "by_class": {c: round(float(right[labels == i].mean()), 4)
                         for i, c in enumerate(CLASSES) if (labels == i).any()},
            "mean_routed_by_rescue_phrase": {
                k: round(float(np.mean([c[k] for c in curves])), 4) for k in curves[0]}
            if curves else {}}


def embed(texts: list[str]) -> dict[str, np.ndarray]:
    from helix.session.reader import encoder_of

    encoder = encoder_of(ENCODER_LAYERS)
    unique = sorted(set(texts))
    vectors = encoder.embed(unique)
    return {t: vectors[i] for i, t in enumerate(unique)}


def train(out: Path, jobs: int = 1) -> dict[str, Any]:
    from evals import router_parallel

    os.environ["HELIX_HOME"] = fresh_home(prefix="helix-router-train-")
    flags = {"index.embed_enabled": False}
    samples = router_parallel.collect(flags, jobs) if jobs > 1 else collect(flags)
    hand = [r["text"] for _, r in read_jsonl(ROUTER_DIR / "exemplars.jsonl")]
    vectors = embed([s.text for s in samples] + [o for s in samples for o in s.options] + hand)
    bank = build_bank(samples, vectors)
    x = design(samples, bank, vectors)
    y = np.array([CLASSES.index(s.meaning) for s in samples])
    if jobs > 1:
        router_parallel.prefit([(x[m], y[m]) for m in router_parallel.masks(samples)],
                               jobs)
    cv = cross_validate(x, y, [s.group for s in samples])
    w, b = fit(x, y)
    train_acc = float((probabilities(w, b, x).argmax(axis=1) == y).mean())
    metrics = {"training_accuracy": round(train_acc, 4), "cv_accuracy": cv["accuracy"],
               "cv_by_class": cv["by_class"], "turns": len(samples),
               "cv_routed_by_rescue_override": routing_curve(cv, samples)}
    metrics["cv_best"] = best_settings(metrics["cv_routed_by_rescue_override"])
    metrics["cv_routed_by_rescue_phrase"] = phrase_curve(cv, samples)
    metrics.update(tune_metrics(cv, samples))
    metrics["lowo"] = leave_one_writer_out(samples, bank, vectors, x, y)
    from helix.session.reader import encoder_of

    write_model(out, bank, w, b, encoder_of(ENCODER_LAYERS).model_key, metrics, samples)
    FITTED.clear()
    return {"metrics": metrics, "cv": cv, "samples": samples}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail unless training reproduces the shipped model")
    parser.add_argument("--out", type=Path, default=MODEL_DIR)
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes for the capture and the fits (the same model)")
    args = parser.parse_args(argv)
    out = Path(fresh_home(prefix="helix-router-model-")) if args.check else args.out
    from threadpoolctl import threadpool_limits

    # one BLAS thread: the sixteen fits' thousands of small products gain nothing from a
    # second thread, and on a shared machine its spinning made a training many times slower
    with threadpool_limits(limits=1, user_api="blas"):
        result = train(out, max(1, args.jobs))
    print(json.dumps(result["metrics"], sort_keys=True))
    if args.check:
        differ = [p.name for p in sorted(MODEL_DIR.iterdir()) if p.is_file()
                  and (out / p.name).read_bytes() != p.read_bytes()]
        if differ:
            print(f"the shipped model differs from a fresh training: {', '.join(differ)}"
                  f" ({moved(out, MODEL_DIR)})", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":  # `-m`: the imported module's main, whose FITTED prefit fills
    from evals import router_train as _module
    sys.exit(_module.main())
