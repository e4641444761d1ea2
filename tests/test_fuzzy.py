"""FuzzyNames (issue 13) gives exactly `resolve.fuzzy_names`' list - same names, same order - on
any keys and any name, without scanning every key with difflib."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexers.fuzzy import FuzzyNames
from indexers.resolve import fuzzy_names

# identifiers, qualified names, a few non-ASCII letters and characters beyond the BMP
ALPHABET = st.sampled_from([*"abcdefgABCDEFG_.0123", "é", "Ж", "𝔸"])
NAMES = st.text(ALPHABET, min_size=0, max_size=12)
LONG_NAMES = st.text(ALPHABET, min_size=60, max_size=80)


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(NAMES.filter(bool), max_size=60, unique=True),
       name=st.one_of(NAMES, LONG_NAMES), limit=st.integers(min_value=1, max_value=12),
       presorted=st.booleans())
def test_same_answer_as_fuzzy_names(keys: list[str], name: str, limit: int,
                                    presorted: bool) -> None:
    if presorted:
        keys = sorted(keys)
    assert FuzzyNames(keys).close_names(name, limit) == fuzzy_names(name, keys, limit)


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(NAMES.filter(bool), min_size=1, max_size=40, unique=True),
       name=NAMES.filter(bool))
def test_lcs_bound_never_drops_a_close_match(keys: list[str], name: str) -> None:
    """The bit-parallel LCS is the true LCS length, so 2*LCS/T bounds difflib's ratio."""
    names = FuzzyNames(keys)
    lcs = names._lcs_lengths(name).tolist()
    for key, length in zip(keys, lcs, strict=True):
        assert length == _lcs(key, name)
        ratio = difflib.SequenceMatcher(None, key, name).ratio()
        assert ratio <= 2.0 * length / (len(key) + len(name)) + 1e-12


def _lcs(a: str, b: str) -> int:
    row = [0] * (len(b) + 1)
    for ca in a:
        prev = 0
        for j, cb in enumerate(b, start=1):
            keep = row[j]
            row[j] = prev + 1 if ca == cb else max(row[j], row[j - 1])
            prev = keep
    return row[-1]


def test_a_realistic_name_set() -> None:
    verbs = ["render", "compute", "resolve", "load", "store", "sync", "merge"]
    nouns = ["oracle", "quorum", "ledger", "lattice", "cavity", "router", "kernel"]
    keys = sorted({f"{v}_{n}_{m}" for v in verbs for n in nouns for m in nouns}
                  | {f"{v.capitalize()}{n.capitalize()}.{m}" for v in verbs for n in nouns
                     for m in verbs})
    names = FuzzyNames(keys)
    for query in ("render_oracle_quorum", "renderOracleQuorum", "RenderOracle.load",
                  "ledger", "Ledger", "x", "compute_latice_cavity", "a" * 70):
        assert names.close_names(query, 10) == fuzzy_names(query, keys, 10)


def test_no_keys() -> None:
    assert FuzzyNames([]).close_names("anything", 10) == [] == fuzzy_names("anything", [], 10)


def test_a_fuzzy_lookup_scores_only_plausible_names(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`Index.find_definitions(fuzzy=True)` (the controller's symbol channel, `helix find`)
    runs difflib on the few names that can reach the cutoff, not on every name of the index
    (what cost seconds per question on a large repository); the answer is fuzzy_names'."""
    from helix.core.config import HelixConfig
    from helix.core.ports import FakeEmbedder
    from indexers.build import ensure_index

    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    verbs = ["render", "compute", "resolve", "load", "store", "sync"]
    nouns = ["oracle", "quorum", "ledger", "lattice", "cavity", "router", "kernel", "prism"]
    for verb in verbs:
        body = "".join(f"def {verb}_{n}_{m}():\n    return 1\n\n\n" for n in nouns for m in nouns)
        (repo / "pkg" / f"{verb}.py").write_text(body, encoding="utf-8")
    index, _ = ensure_index(repo, HelixConfig(), index_dir=tmp_path / "idx",
                            embedder=FakeEmbedder())
    keys = index.rows().def_keys()
    assert len(keys) == len(verbs) * len(nouns) ** 2
    scored: list[str] = []
    real = difflib.SequenceMatcher.set_seq1

    def counting(self: difflib.SequenceMatcher, a: str) -> None:
        scored.append(a)
        real(self, a)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", counting)
    found = index.find_definitions("render_oracle_quorom", fuzzy=True)
    assert 0 < len(scored) < len(keys) // 4
    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", real)
    expected = fuzzy_names("render_oracle_quorom", keys, 10)
    assert {d.name for d in found} == set(expected) and "render_oracle_quorum" in expected
