"""The meaning model's exemplar bank laid out once per models directory
(helix/session/meaning_bank.py): a later process maps the same arrays instead of parsing and
widening them; anything it cannot trust falls back to the plain load."""

from __future__ import annotations

import json
import mmap
import os
import shutil
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from controller.continuity.meaning import MODEL_DIR, MeaningModel
from helix.session import meaning_bank

SHIPPED = Path(str(resources.files("controller.continuity").joinpath(MODEL_DIR)))


@pytest.fixture(scope="module")
def reference() -> MeaningModel:
    return MeaningModel.load()


def _same(model: MeaningModel, reference: MeaningModel) -> bool:
    arrays = ("vectors", "labels", "weights", "bias")
    return (all(np.array_equal(getattr(model, a), getattr(reference, a))
                and getattr(model, a).dtype == getattr(reference, a).dtype for a in arrays)
            and model.texts == reference.texts and model.details == reference.details
            and model.model_key == reference.model_key and model.bounds == reference.bounds)


def _mapped(array: np.ndarray) -> bool:
    base: object = array
    while base is not None and not isinstance(base, mmap.mmap | np.memmap):
        base = getattr(base, "base", None)
    return base is not None


def test_a_later_process_maps_the_same_model(tmp_path: Path, reference: MeaningModel) -> None:
    first = meaning_bank.shipped(models=tmp_path)
    assert _same(first, reference) and not _mapped(first.vectors)
    banks = sorted(p.name for p in tmp_path.iterdir())
    assert len(banks) == 1 and banks[0].startswith(meaning_bank.PREFIX)
    again = meaning_bank.shipped(models=tmp_path)
    assert _same(again, reference) and _mapped(again.vectors)
    assert again.vectors.flags.c_contiguous and not again.vectors.flags.writeable


def test_a_bank_that_does_not_read_back_whole_is_not_used(tmp_path: Path,
                                                          reference: MeaningModel) -> None:
    meaning_bank.shipped(models=tmp_path)
    (bank,) = tmp_path.iterdir()
    texts = json.loads((bank / "texts.json").read_text(encoding="utf-8"))
    (bank / "texts.json").write_text(json.dumps(texts[:-1]), encoding="utf-8")
    got = meaning_bank.shipped(models=tmp_path)
    assert _same(got, reference) and not _mapped(got.vectors)
    (bank / "vectors.npy").write_bytes(b"not an array")
    assert _same(meaning_bank.shipped(models=tmp_path), reference)


def test_other_model_files_get_another_bank(tmp_path: Path, reference: MeaningModel) -> None:
    model = tmp_path / "model"
    shutil.copytree(SHIPPED, model)
    models = tmp_path / "models"
    first = meaning_bank.bank_dir(model, models)
    meaning_bank.shipped(model, models)
    assert first.is_dir()
    stat = (model / "head.json").stat()
    os.utime(model / "head.json", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert meaning_bank.bank_dir(model, models) != first
    assert _same(meaning_bank.shipped(model, models), reference)
    assert len(list(models.iterdir())) == 2  # the first is recent: not swept


def test_a_models_directory_that_cannot_be_written_leaves_the_plain_load(
        tmp_path: Path, reference: MeaningModel) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the models directory would be", encoding="utf-8")
    assert _same(meaning_bank.shipped(models=blocked), reference)
