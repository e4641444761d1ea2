"""The packaged BERT tokenizer in plain Python, for the texts whose every character it reads
exactly as `tokenizers` does: a cold process embeds a message without importing `tokenizers`
and building its tokenizer (about 55 ms of CPU of a one-message `helix ask --session`,
benchmarks/router_cost.py).

    WordPiece.load(model_dir) -> WordPiece | None    None unless tokenizer.json is the plain
                                                     uncased BERT tokenizer this module knows
    WordPiece.ids(text) -> list[int] | None          None for a character outside `SAFE`
    ModelTokenizer(model_dir, max_length).ids(texts) each text's ids and type ids: WordPiece
                                                     where it reads the text exactly, else
                                                     `tokenizers` (built by its first use)

What it reproduces (tokenizers' AddedVocabulary, BertNormalizer, BertPreTokenizer, WordPiece
and TemplateProcessing): the special tokens are split out of the raw text first; the rest is
cleaned (NUL, U+FFFD and control/format characters dropped, whitespace made a space), its
accents stripped (NFD, nonspacing marks dropped), lowercased character by character (no
final-sigma rule), split on whitespace and around each punctuation character, and each word
cut greedily into the longest pieces of the vocabulary ('##' inside a word; a word longer
than `max_input_chars_per_word` characters, or one a piece cannot cover, is [UNK]); [CLS] and
[SEP] around, truncated from the right. `SAFE` is the characters whose Unicode properties the
two implementations' tables agree on (ASCII, Latin-1, the Latin Extended blocks, general
punctuation); a text with any other character goes to `tokenizers` (the caller's fallback).
tests/test_wordpiece.py compares the two on every `SAFE` character and on random texts.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helix.core.errors import UnknownModelError

# characters read exactly: ASCII, Latin-1 Supplement, Latin Extended-A and -B, General
# Punctuation (assigned since Unicode 1.1: every table agrees on their category, case and
# decomposition); tests/test_wordpiece.py checks each against `tokenizers`
SAFE = re.compile(r"[\x00-\u024f\u2000-\u2064]*")
# White_Space among the SAFE characters that survive cleaning (U+0085 and U+000B-C are
# control characters: dropped first)
_SPACES = frozenset("\t\n\r \xa0\u2028\u2029\u202f\u205f") | frozenset(
    chr(c) for c in range(0x2000, 0x200B))
_DROPPED_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Co", "Cn"))
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ASCII_CLEAN = {c: None for c in range(0x20) if chr(c) not in "\t\n\r"} | {
    0x7F: None, ord("\t"): " ", ord("\n"): " ", ord("\r"): " "}
_ASCII_WORDS = re.compile(r"[a-z0-9]+|[^a-z0-9 ]")  # once cleaned and lowercased

# the tokenizer.json this module reproduces, less the vocabulary (`WordPiece.load`)
_NORMALIZER = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
               "strip_accents": None, "lowercase": True}
_PRE_TOKENIZER = {"type": "BertPreTokenizer"}
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def _plain_special(token: dict[str, Any]) -> bool:
    return (token.get("special") is True and token.get("content") in _SPECIAL
            and not any(token.get(k) for k in ("single_word", "lstrip", "rstrip",
                                               "normalized")))


def _template(post: Any, cls: str, sep: str) -> bool:
    """[CLS] $A [SEP] with type id 0 for a single text."""
    if not isinstance(post, dict) or post.get("type") != "TemplateProcessing":
        return False
    return post.get("single") == [{"SpecialToken": {"id": cls, "type_id": 0}},
                                  {"Sequence": {"id": "A", "type_id": 0}},
                                  {"SpecialToken": {"id": sep, "type_id": 0}}]


@dataclass(frozen=True)
class WordPiece:
    vocab: dict[str, int]
    specials: dict[str, int]
    unk: int
    cls: int
    sep: int
    max_chars: int
    max_length: int

    @classmethod
    def load(cls, model_dir: Path, max_length: int) -> WordPiece | None:
        """The tokenizer of `model_dir/tokenizer.json` when it is the uncased BERT one this
        module reproduces (else None: the caller uses `tokenizers`)."""
        try:
            spec = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
            model, added = spec["model"], spec["added_tokens"]
            specials = {t["content"]: int(t["id"]) for t in added}
            if (model.get("type") != "WordPiece" or model.get("continuing_subword_prefix") != "##"
                    or spec.get("normalizer") != _NORMALIZER
                    or spec.get("pre_tokenizer") != _PRE_TOKENIZER
                    or not all(_plain_special(t) for t in added)
                    or not _template(spec.get("post_processor"), "[CLS]", "[SEP]")
                    or not {"[CLS]", "[SEP]", model.get("unk_token")} <= specials.keys()):
                return None
            vocab = model["vocab"]
            if any(vocab.get(k) != v for k, v in specials.items()):
                return None
            return cls(vocab=vocab, specials=specials, unk=specials[model["unk_token"]],
                       cls=specials["[CLS]"], sep=specials["[SEP]"],
                       max_chars=int(model["max_input_chars_per_word"]),
                       max_length=max_length)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def ids(self, text: str) -> list[int] | None:
        """[CLS] + the text's pieces + [SEP], at most `max_length` ids; None when the text has
        a character outside `SAFE`."""
        if SAFE.fullmatch(text) is None:
            return None
        ids: list[int] = []
        for part in _split_specials(text, self.specials):
            if isinstance(part, int):
                ids.append(part)
                continue
            for word in _words(part):
                ids.extend(self._pieces(word))
        return [self.cls, *ids[:max(0, self.max_length - 2)], self.sep]

    def _pieces(self, word: str) -> list[int]:
        if len(word) > self.max_chars:
            return [self.unk]
        out: list[int] = []
        start, vocab = 0, self.vocab
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [self.unk]
            out.append(found)
            start = end
        return out


class ModelTokenizer:
    """A sentence model's tokenizer, as both query encoders prepare their input (the numpy
    encoder's and ONNX Runtime's, `indexers.encoder`, `indexers.onnx_query`): the plain-Python
    WordPiece for the texts it reads exactly, `tokenizers` (built by its first use) for the
    others and for a model whose tokenizer WordPiece does not reproduce."""

    def __init__(self, model_dir: Path, max_length: int) -> None:
        self.model_dir, self.max_length = model_dir, max_length
        self.wordpiece = WordPiece.load(model_dir, max_length)
        self.built: Any = None  # tokenizers' Tokenizer, once built

    def tokenizer(self) -> Any:
        """`tokenizers`' tokenizer of the model, built by its first use."""
        if self.built is None:
            from tokenizers import Tokenizer

            try:
                tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            except Exception as exc:  # tokenizers raises its own error types
                raise UnknownModelError(
                    f"cannot load embedding model {self.model_dir}: {exc}") from None
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=self.max_length)
            self.built = tokenizer
        return self.built

    def ids(self, texts: Sequence[str]) -> list[tuple[list[int], list[int]]]:
        """Each text's token ids and type ids (zeros for a single text's template)."""
        out: list[tuple[list[int], list[int]] | None] = []
        for text in texts:
            ids = self.wordpiece.ids(text) if self.wordpiece is not None else None
            out.append((ids, [0] * len(ids)) if ids is not None else None)
        rest = [i for i, got in enumerate(out) if got is None]
        if rest:
            encodings = self.tokenizer().encode_batch([texts[i] for i in rest])
            for i, enc in zip(rest, encodings, strict=True):
                out[i] = (list(enc.ids), list(enc.type_ids))
        return [got for got in out if got is not None]


def _split_specials(text: str, specials: dict[str, int]) -> list[str | int]:
    """The raw text cut around the special tokens written in it (matched before any
    normalization, as tokenizers' AddedVocabulary does), each replaced by its id."""
    if "[" not in text:
        return [text]
    pattern = "|".join(re.escape(s) for s in sorted(specials, key=lambda s: (-len(s), s)))
    out: list[str | int] = []
    last = 0
    for match in re.finditer(pattern, text):
        out += [text[last:match.start()], specials[match.group(0)]]
        last = match.end()
    out.append(text[last:])
    return [p for p in out if p != ""]


def _words(text: str) -> list[str]:
    """BertNormalizer then BertPreTokenizer on a SAFE text."""
    if text.isascii():
        return _ASCII_WORDS.findall(text.translate(_ASCII_CLEAN).lower())
    cleaned = "".join(" " if c in _SPACES else c for c in text
                      if c in "\t\n\r" or unicodedata.category(c) not in _DROPPED_CATEGORIES)
    stripped = "".join(c for c in unicodedata.normalize("NFD", cleaned)
                       if unicodedata.category(c) != "Mn")
    lowered = "".join(c.lower() for c in stripped)
    words: list[str] = []
    current: list[str] = []
    for c in lowered:
        if c == " ":  # every whitespace character is a space once cleaned
            boundary, keep = True, False
        elif c in _ASCII_PUNCTUATION or unicodedata.category(c).startswith("P"):
            boundary, keep = True, True
        else:
            current.append(c)
            continue
        if boundary and current:
            words.append("".join(current))
            current = []
        if keep:
            words.append(c)
    if current:
        words.append("".join(current))
    return words
