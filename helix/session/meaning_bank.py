"""The shipped meaning model laid out for a cold process: its exemplar bank as the classifier
multiplies it (grouped by class, float32), mapped from a file instead of parsed and widened.

    shipped(root=None) -> MeaningModel     the same arrays as `MeaningModel.load()`

`MeaningModel.load` parses 6,454 JSON rows and widens the float16 vectors into a fresh 10 MB
array: about 40-55 ms of CPU of a one-turn `helix ask --session` on the shared machine, most of
it the new memory's page faults and the widening (benchmarks/router_cost.py, `meaning_load`).
The first process of a models directory (`$HELIX_MODELS_DIR`, else `$HELIX_HOME/models`) loads
the model so and writes the result beside the exported embedding models, in a directory named
by the model files' sizes and modification times, the classes, the features and
`BANK_FORMAT`; later ones map `vectors.npy` (the page cache's pages, no copy) and read the
labels, texts and details. Written in a private directory and renamed into place (a reader
never sees half a bank); a directory that cannot be written, or a bank that does not read
back whole, leaves the plain load. Banks of other model files older than `STALE_S` are swept.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from importlib import resources
from pathlib import Path

import numpy as np

from controller.continuity.meaning import CLASSES, FEATURE_NAMES, MODEL_DIR, MeaningModel
from helix.core.errors import HelixError
from helix.core.hashing import hash_obj
from helix.core.home import models_dir

BANK_FORMAT = 2  # 2: texts as a JSON list (texts.json), a text may span lines
PREFIX = "meaning-bank-"
MODEL_FILES = ("head.json", "exemplars.jsonl", "exemplars.npy")
STALE_S = 24 * 3600
_KEY_CHARS = 16


def bank_dir(root: Path, models: Path | None = None) -> Path:
    """Where the bank of the model in `root` is (it may not exist yet)."""
    stats = [[name, (root / name).stat().st_size, (root / name).stat().st_mtime_ns]
             for name in MODEL_FILES]
    key = hash_obj([BANK_FORMAT, list(CLASSES), list(FEATURE_NAMES), stats])
    return (models or models_dir()) / f"{PREFIX}{key.split(':', 1)[1][:_KEY_CHARS]}"


def shipped(root: Path | None = None, models: Path | None = None) -> MeaningModel:
    """The model in `root` (default: the shipped one), from its bank when there is one."""
    if root is None:
        found = resources.files("controller.continuity").joinpath(MODEL_DIR)
        if not isinstance(found, Path):  # a zipped install: no files to stat
            return MeaningModel.load()
        root = found
    try:
        directory = bank_dir(root, models)
    except (OSError, HelixError):
        return MeaningModel.load(root)
    model = _read(directory)
    if model is None:
        model = MeaningModel.load(root)
        _write(directory, model)
    return model


def _read(directory: Path) -> MeaningModel | None:
    try:
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        vectors = np.asarray(np.load(directory / "vectors.npy", mmap_mode="r"))
        arrays = {n: np.load(directory / f"{n}.npy") for n in ("labels", "weights", "bias")}
        texts = tuple(json.loads((directory / "texts.json").read_text(encoding="utf-8")))
        details = tuple(json.loads((directory / "details.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError):
        return None
    if not (len(texts) == len(details) == len(arrays["labels"]) == vectors.shape[0]
            == meta.get("exemplars")) or vectors.dtype != np.float32:
        return None
    return MeaningModel(model_key=str(meta["model_key"]), texts=texts, labels=arrays["labels"],
                        details=details, vectors=vectors, weights=arrays["weights"],
                        bias=arrays["bias"])


def _write(directory: Path, model: MeaningModel) -> None:
    """The bank of `model` at `directory`, best effort (nothing when it cannot be written;
    the texts a JSON list: a training turn may span lines, an agent's YAML)."""
    with contextlib.suppress(OSError):
        directory.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}."))
        try:
            for name, array in (("vectors", model.vectors), ("labels", model.labels),
                                ("weights", model.weights), ("bias", model.bias)):
                np.save(work / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
            (work / "texts.json").write_text(json.dumps(list(model.texts)), encoding="utf-8")
            (work / "details.json").write_text(json.dumps(list(model.details)),
                                               encoding="utf-8")
            (work / "meta.json").write_text(json.dumps(
                {"model_key": model.model_key, "exemplars": len(model.texts)}),
                encoding="utf-8")
            os.rename(work, directory)  # fails when another process put it there first
        finally:
            shutil.rmtree(work, ignore_errors=True)
        _sweep(directory)


def _sweep(keep: Path) -> None:
    """Banks of other model files (ours by name) unchanged for `STALE_S`."""
    for other in keep.parent.glob(f"*{PREFIX}*"):  # and private directories left mid-way
        with contextlib.suppress(OSError):
            if other != keep and time.time() - other.stat().st_mtime > STALE_S:
                shutil.rmtree(other, ignore_errors=True)
