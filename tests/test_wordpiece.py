"""The plain-Python BERT tokenizer (indexers/wordpiece.py) against `tokenizers` itself: the
same ids for every character it claims to read (`SAFE`) and for random texts; any other text
goes to `tokenizers`; a one-message encoder never imports it."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helix.core.config import IndexSettings
from indexers.encoder import NumpyMiniLMEncoder, default_model_path
from indexers.wordpiece import SAFE, WordPiece

MODEL_DIR = Path(default_model_path(IndexSettings()))
MAX_LENGTH = 256


@pytest.fixture(scope="module")
def reference() -> object:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_LENGTH)
    return tokenizer


@pytest.fixture(scope="module")
def ours() -> WordPiece:
    loaded = WordPiece.load(MODEL_DIR, MAX_LENGTH)
    assert loaded is not None
    return loaded


def _differences(ours: WordPiece, reference: object, texts: list[str]) -> list[str]:
    """The texts it reads (SAFE ones: most of `texts`) with other ids than tokenizers'."""
    read = [t for t in texts if ours.ids(t) is not None]
    assert len(read) > 0.8 * len(texts)
    return [t for t in read if ours.ids(t) != reference.encode(t).ids]  # type: ignore[attr-defined]


def test_every_safe_character_is_read_as_tokenizers_reads_it(ours: WordPiece,
                                                             reference: object) -> None:
    chars = [chr(c) for c in range(0x2100) if SAFE.fullmatch(chr(c))]
    assert len(chars) > 600 and "\u2019" in chars and "é" in chars
    texts = [form.format(c=c) for c in chars
             for form in ("{c}", "a{c}b", "The {c}x", "{c}{c}", "caf{c} Ab{c}C.")]
    assert _differences(ours, reference, texts) == []


def test_random_texts_and_vocabulary_words_get_the_same_ids(ours: WordPiece,
                                                            reference: object) -> None:
    rng = random.Random(32)
    safe = [chr(c) for c in range(0x2100) if SAFE.fullmatch(chr(c))]
    common = [*"abcdefghijklmnopqrstuvwxyz ABCXYZ.,'?!-_/()[]{}\"\t\n0123456789", "[CLS]",
              "[SEP]", "[MASK]", "[UNK]", "[PAD]", "[cls]", "##", "ing", "é", "\u2019", "\u201c",
              "\u2014", "   "]
    texts = ["".join(rng.choice(safe) if rng.random() < 0.3 else rng.choice(common)
                     for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    words = list(ours.vocab)
    for _ in range(1000):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        texts += [text, text.replace(" ", ""), text.upper()]
    texts += ["", "x" * 100, "x" * 101, " ".join(["word"] * 400), "open the [MASK]one[SEP]x"]
    assert _differences(ours, reference, texts) == []


def test_a_text_it_cannot_read_exactly_goes_to_tokenizers() -> None:
    wordpiece = WordPiece.load(MODEL_DIR, MAX_LENGTH)
    assert wordpiece is not None
    assert wordpiece.ids("emoji \U0001f680 and 日本語") is None
    encoder = NumpyMiniLMEncoder(str(MODEL_DIR))
    for text in ("warm", "warm again"):  # the weights' contiguous copies made (`_dense`)
        encoder.embed([text])
    assert encoder._tokens.built is None
    texts = ["emoji \U0001f680 and 日本語", "where is the retry policy decided?"]
    got = encoder._embed(texts)
    assert encoder._tokens.built is not None
    # the same vectors as with tokenizers for both (its ids into the same forward pass)
    encoder._tokens.wordpiece = None
    assert np.array_equal(got, encoder._embed(texts))


def test_another_tokenizer_configuration_is_left_to_tokenizers(tmp_path: Path) -> None:
    spec = json.loads((MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    spec["normalizer"]["lowercase"] = False
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    assert WordPiece.load(tmp_path, MAX_LENGTH) is None
    assert WordPiece.load(tmp_path / "missing", MAX_LENGTH) is None
    shutil.copy(MODEL_DIR / "tokenizer.json", tmp_path / "tokenizer.json")
    assert WordPiece.load(tmp_path, MAX_LENGTH) is not None


_ONE_MESSAGE = """
import sys
from helix.core.config import IndexSettings
from indexers.encoder import NumpyMiniLMEncoder, default_model_path
vec = NumpyMiniLMEncoder(default_model_path(IndexSettings())).embed(["open the second one"])
print(vec.shape, "tokenizers" in sys.modules)
"""


def test_a_one_message_encoder_does_not_import_tokenizers() -> None:
    """A cold `helix ask --session` embeds one message: building tokenizers' tokenizer cost it
    about 55 ms of CPU (benchmarks/router_cost.py)."""
    out = subprocess.run([sys.executable, "-c", _ONE_MESSAGE], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.split() == ["(1,", "384)", "False"]
