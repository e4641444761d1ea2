"""The corpus policy run with embeddings and a seeded cap (round 32): `benchmarks/corpus_rank.py
--embed --cap N` measures the policy users get by default (embeddings on, every vector embedded
before the first ask) on a seeded share of each repository's cases; `benchmarks/qa_cost.py
--embed` times a warm question with the dense channel on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evals.corpus.mine import CorpusCase, Target
from evals.corpus.policy import capped, index_flags

ROOT = Path(__file__).resolve().parents[1]


def _case(number: int) -> CorpusCase:
    return CorpusCase(id=f"r@{number:03d}", repo="r", language="python", split="validation",
                      revision="R", commit=str(number), parent="p", committed=number,
                      message=f"fix {number}", truncated=False,
                      targets=(Target(path="a.py", qualname="f", kind="function", start=1,
                                      end=5),),
                      files=("a.py",), names_target=False, exact=True)


def test_cap_is_seeded_order_free_and_keeps_the_given_order() -> None:
    cases = [_case(n) for n in range(30)]
    kept = capped(cases, 7)
    assert len(kept) == 7
    assert kept == [c for c in cases if c in kept]  # the given order
    assert {c.id for c in capped(list(reversed(cases)), 7)} == {c.id for c in kept}
    assert [c.id for c in kept] != [c.id for c in cases[:7]]  # a spread, not the first seven
    assert {c.id for c in capped(cases, 7, seed="other")} != {c.id for c in kept}


def test_no_cap_or_a_larger_one_keeps_every_case() -> None:
    cases = [_case(n) for n in range(5)]
    assert capped(cases, None) == cases
    assert capped(cases, 5) == cases
    assert capped(cases, 50) == cases


def test_lexical_unless_embed_and_then_every_vector_first() -> None:
    assert index_flags({}) == {"index.embed_enabled": False}
    flags = index_flags({"retrieval.dense_adapter": True}, embed=True)
    assert flags == {"index.background_dense": False, "retrieval.dense_adapter": True}
    assert index_flags({"index.embed_enabled": True}) == {"index.embed_enabled": True}


def test_embedded_config_keeps_embeddings_on(tmp_path: Path) -> None:
    from helix.core.config import load_config

    embedded = load_config(tmp_path, flags=index_flags({}, embed=True))
    lexical = load_config(tmp_path, flags=index_flags({}))
    assert embedded.index.embed_enabled and not embedded.index.background_dense
    assert not lexical.index.embed_enabled


@pytest.mark.parametrize("script,flags", [("corpus_rank.py", ("--embed", "--cap")),
                                          ("qa_cost.py", ("--embed",))])
def test_benchmarks_take_the_flags(script: str, flags: tuple[str, ...]) -> None:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--help"],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert all(flag in out for flag in flags)
