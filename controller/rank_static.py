"""What the learned ranker's features need of a candidate whatever the question (pure): its
word sets, size and kind, and a signature of its words (`word_bits`), made once per chunk and
kept (`_STATIC`, by chunk id and the scoring settings)."""

from __future__ import annotations

import math
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from controller.evidence import DOC_CHUNK_KINDS, is_test
from controller.text import name_tokens, spelled_out, token_set
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk

_CONTAINERS = frozenset({"class", "interface", "struct", "trait", "enum", "module", "impl",
                         "namespace", "object", "type"})
_COMMENT = re.compile(r"^\s*(?:#|//|/\*|\*|\"\"\"|'''|///|//!)")


@dataclass(frozen=True)
class _Static:
    """What a candidate's features need of it whatever the question (kept per chunk id)."""

    name: frozenset[str]  # the last part of its qualified name
    owner: frozenset[str]
    long_name: frozenset[str]  # the whole qualified name, short forms spelled out
    last: str  # the last part, lower-cased
    path: frozenset[str]
    stem: frozenset[str]
    sig: frozenset[str]  # the first code line
    doc: frozenset[str]  # comment and docstring lines
    body: frozenset[str]
    damp: float  # `file_defs.definition_score`'s body damping
    fixed: tuple[float, ...]  # kind, size, test, depth, private
    # a bit per word of its name, long name and body (`word_bits`): no bit in common with the
    # question's means no word in common, so `select` skips the set tests (most candidates)
    bits: int = 0
    # the same of every word field (name, owner, long name, path, stem, signature, comments,
    # body): no bit in common, every word feature of its row but `name_exact` is 0
    every: int = 0


SIGNATURE_BITS = 1024  # 136 bytes a cached chunk; 87% of the disjoint skipped (stdlib questions)


def word_bits(words: AbstractSet[str]) -> int:
    """One bit of SIGNATURE_BITS per word (by its hash, the same within a process): two sets
    whose signatures share no bit share no word (the converse need not hold)."""
    bits = 0
    for word in words:
        bits |= 1 << (hash(word) % SIGNATURE_BITS)
    return bits


_STATIC: dict[str, _Static] = {}
_STATIC_KEPT = 50_000


def _static(chunk: Chunk, scoring: FileDefsPolicy, suffix: str = "") -> _Static:
    """`suffix`: `_static_suffix(scoring)`, made once for many chunks."""
    key = chunk.id + (suffix or _static_suffix(scoring))
    found = _STATIC.get(key)
    if found is not None:
        return found
    symbol = chunk.symbol or ""
    owner_name, _, last_name = symbol.rpartition(".")
    name = name_tokens(last_name)
    owner = name_tokens(owner_name) if owner_name else frozenset()
    whole = name_tokens(symbol)
    lines = chunk.text.splitlines()
    first = next((ln for ln in lines if ln.strip() and not _COMMENT.match(ln)
                  and not ln.lstrip().startswith("@")), "")
    body = token_set(chunk.text)
    last = last_name.lower()
    long_name = spelled_out(whole) if scoring.long_forms else whole
    path = token_set(chunk.path.replace("/", " "))
    stem = token_set(chunk.path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    sig = token_set(first)
    doc = token_set(" ".join(ln for ln in lines if _COMMENT.match(ln)))
    found = _Static(
        name=name, owner=owner, long_name=long_name,
        last=last, path=path, stem=stem, sig=sig, doc=doc, body=body,
        damp=1.0 + math.log1p(len(body) / scoring.body_norm),
        fixed=(1.0 if chunk.kind == "code_def" else 0.0,
               1.0 if chunk.kind == "code_module" else 0.0,
               1.0 if chunk.kind in DOC_CHUNK_KINDS else 0.0,
               1.0 if chunk.def_kind in _CONTAINERS else 0.0,
               1.0 if chunk.def_kind in ("function", "method") else 0.0,
               math.log1p(chunk.end_line - chunk.start_line + 1),
               1.0 if is_test(chunk) else 0.0, float(chunk.path.count("/")),
               1.0 if last.startswith("_") else 0.0),
        bits=word_bits(name | long_name | body),
        every=word_bits(name | owner | long_name | path | stem | sig | doc | body))
    if len(_STATIC) >= _STATIC_KEPT:
        _STATIC.clear()
    _STATIC[key] = found
    return found


def _static_suffix(scoring: FileDefsPolicy) -> str:
    return f":{scoring.body_norm}:{scoring.long_forms}"
