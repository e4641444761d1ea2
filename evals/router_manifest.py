"""The meaning router's model files and their manifest: what the model was trained from, by
digest, so that a change to an input without a retraining is caught in seconds
(tests/test_router_manifest.py), not only by the trainer's 16-minute `--check`.

    inputs() -> {"training_data": {file: digest}, "code": {module: digest},
                 "settings": {name: value}}     recomputed by the test from the checkout
    samples_digest(samples) -> str              the captured training turns (the manifest's
                                                `captured`: what `--check` recaptures)
    write_model(out, bank, w, b, model_key, metrics, samples)

`training_data`: every training file (`evals.router_train.TRAIN_FILES`) and the router's own
data (the hand-written exemplars, the label overrides); `code`: the trainer's modules
(`TRAINER_CODE`), each by its tokens without comments, blank lines and docstrings (an edit to
what the code says leaves the digest, an edit to what it does changes it; the tokens are this
Python's tokenizer's); `settings`: the head's and the features' constants.
"""

from __future__ import annotations

import io
import json
import os
import tokenize
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from helix.core.hashing import canonical_json, digest, digest_file

if TYPE_CHECKING:
    from evals.router_train import Bank, Sample

ROOT = Path(__file__).resolve().parents[1]
# the modules whose code decides what the trainer writes (its capture runs the session path:
# a change there is what `--check` finds, `captured` says whether the turns moved)
TRAINER_CODE = ("evals/router_train.py", "evals/router_curves.py", "evals/router_manifest.py",
                "evals/router_parallel.py")
_SKIPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER})
_STATEMENT_START = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})


def code_digest(path: Path) -> str:
    """A module's digest by its tokens, without comments, blank lines and docstrings (a string
    standing alone as a statement)."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(
        path.read_text(encoding="utf-8")).readline) if t.type not in _SKIPPED]
    kept = []
    for i, tok in enumerate(tokens):
        alone = tok.type == tokenize.STRING and (
            i == 0 or tokens[i - 1].type in _STATEMENT_START) and (
            i + 1 == len(tokens) or tokens[i + 1].type == tokenize.NEWLINE)
        if not alone:
            kept.append(tok.string)
    return digest(" ".join(kept))


def inputs() -> dict[str, Any]:
    """What the shipped model must have been trained from, computed from this checkout."""
    from controller.continuity import meaning
    from evals import router_train as rt

    data = {name: digest_file(rt.SUITE_DIR / name) for name in rt.TRAIN_FILES} | {
        f"router/{n}": digest_file(rt.ROUTER_DIR / n) for n in ("exemplars.jsonl",
                                                                 "labels.jsonl")}
    return {"training_data": data,
            "code": {name: code_digest(ROOT / name) for name in TRAINER_CODE},
            "settings": rt.settings() | {"round": meaning.ROUND, "top_k": meaning.TOP_K,
                                         "features": digest(canonical_json(
                                             list(meaning.FEATURE_NAMES)))}}


def samples_digest(samples: list[Sample]) -> str:
    """The captured training turns (text, class, session, file, the router's features, the
    pending options' descriptions), in order."""
    return digest(canonical_json([[s.text, s.meaning, s.group, s.source, list(s.flags),
                                   list(s.options)] for s in samples]))


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_model(out: Path, bank: Bank, w: np.ndarray, b: np.ndarray, model_key: str,
                metrics: dict[str, Any], samples: list[Sample]) -> None:
    from controller.continuity.meaning import CLASSES, FEATURE_NAMES
    from evals import router_train as rt

    out.mkdir(parents=True, exist_ok=True)
    rows = "".join(canonical_json({"text": t, "meaning": CLASSES[int(c)], "detail": d}) + "\n"
                   for t, c, d in zip(bank.texts, bank.labels, bank.details, strict=True))
    buffer = io.BytesIO()
    np.save(buffer, bank.vectors.astype(np.float16), allow_pickle=False)
    head = {"model_key": model_key, "classes": list(CLASSES), "features": list(FEATURE_NAMES),
            "weights": w.tolist(), "bias": b.tolist()}
    files = {"exemplars.jsonl": rows.encode(), "exemplars.npy": buffer.getvalue(),
             "head.json": (json.dumps(head, indent=0, sort_keys=True) + "\n").encode()}
    for name, data in files.items():
        _atomic(out / name, data)
    trained = inputs()
    manifest = {
        "model_key": model_key, "classes": list(CLASSES), "features": len(FEATURE_NAMES),
        "files": {name: digest(data) for name, data in sorted(files.items())},
        "training_data": trained.pop("training_data"), "inputs": trained,
        "captured": {"turns": len(samples), "digest": samples_digest(samples)},
        "exemplars": dict(sorted(Counter(CLASSES[int(c)] for c in bank.labels).items())),
        "training_turns": dict(sorted(Counter(s.meaning for s in samples).items())),
        "head": {"kind": "softmax regression", **rt.settings()},
        "metrics": metrics, "command": "python -m evals.router_train"}
    _atomic(out / "manifest.json", (json.dumps(manifest, indent=1, sort_keys=True)
                                    + "\n").encode())


def moved(fresh: Path, shipped: Path) -> str:
    """Which part of a training moved between two model directories: its inputs, the
    captured turns, or (neither) the vectors or the fits."""
    a, b = (json.loads((d / "manifest.json").read_text(encoding="utf-8"))
            for d in (fresh, shipped))
    for key, what in (("training_data", "the training data"),
                      ("inputs", "the trainer's code or settings"),
                      ("captured", "the captured turns")):
        if a.get(key) != b.get(key):
            return f"{what} changed"
    return "same inputs and turns: the vectors or the fits differ"
