"""The learned swap inside the first five (`controller.span_swap`, `controller.span_swap_step`,
`retrieval.file_defs.swap_model_digest`): its places, its columns, its trades, its manifest."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from controller.evidence import Candidate
from controller.reasons import Reason
from controller.span_swap import FEATURES, rows, signals_of, slots, swap
from helix.core.errors import RankerModelError
from helix.core.hashing import digest
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk

POLICY = FileDefsPolicy()
WORDS = frozenset({"merge", "value", "spacing", "config"})


def _chunk(path: str, symbol: str, text: str, line: int = 1) -> Chunk:
    return Chunk(id=f"{path}:{symbol}", path=path, kind="code_def", lang="python",
                 start_line=line, end_line=line + 2, text=text,
                 content_hash=digest(text.encode()), symbol=symbol, def_kind="function",
                 node_id=f"def:{path}:{symbol}")


A = "pkg/config/merge.py"
B = "pkg/config/load.py"
# places 0-4: A, B, A (a repeat), B (a repeat), A (a repeat); 5: B's; 6: a test's; 7: A's
ITEMS = [
    (_chunk(A, "Config", "class Config: spacing config\n"), ("rank",)),
    (_chunk(B, "load_file", "def load_file(path): read\n"), ("rank",)),
    (_chunk(A, "Config.copy", "def copy(self): config\n", 10), ("in_file",)),
    (_chunk(B, "read_all", "def read_all(): read\n", 20), ("rank",)),
    (_chunk(A, "Config.keys", "def keys(self): config\n", 30), ("in_file_more",)),
    (_chunk(B, "load_dir", "def load_dir(): read\n", 40), ("in_file_more",)),
    (_chunk("tests/test_merge.py", "test_merge", "def test_merge(): merge_values\n"), ()),
    (_chunk(A, "merge_values", "def merge_values(a, b): spacing value\n", 50),
     ("in_file_more",)),
    (_chunk("pkg/other.py", "merge", "def merge(): value\n"), ("rank",)),
]


# fused scores and (channel, rank) reasons of ITEMS: Config by three channels, load_file by one,
# Config.copy (an in-file pick) by none, read_all by two, the rest by none
SIGNALS = signals_of([4.0, 3.0, 4.0, 2.0, 0.0, 0.0, 1.0, 0.0, 1.0],
                     [[("bm25", 1), ("files", 1), ("name_words", 2)], [("bm25", 2)], [],
                      [("bm25", 4), ("file_bm25", 3)], [], [], [("bm25", 9)], [], [("bm25", 7)]])


def test_the_places_are_the_first_fives_repeats_and_later_definitions_of_their_files() -> None:
    held, later = slots(ITEMS, 24)
    assert held == [2, 3, 4]
    assert later == [5, 7]  # not the test's, not a file the first five do not show
    assert slots(ITEMS, 6) == ([2, 3, 4], [5])
    # A, B, B's load_dir, the test, A's merge_values; then a file the first five do not show
    assert slots(ITEMS[:2] + ITEMS[5:], 24) == ([2, 4], [])
    assert slots([ITEMS[0], ITEMS[1], ITEMS[8], ITEMS[7]], 24) == ([3], [])


def test_one_row_of_every_column_per_place() -> None:
    out = rows(WORDS, ITEMS, [2, 7], POLICY, SIGNALS)
    assert [len(r) for r in out] == [len(FEATURES)] * 2
    col = {name: [r[i] for r in out] for i, name in enumerate(FEATURES)}
    assert col["place"] == [2.0, 7.0] and col["in_top"] == [1.0, 0.0]
    assert col["file_in_top"] == [3.0, 3.0] and col["first_file"] == [1.0, 1.0]
    assert col["name_hits"] == [1.0, 2.0]  # Config.copy: config; merge_values: merge, value
    assert col["def1"][1] > col["def1"][0] and col["def1_gap"][1] > 0
    assert col["code_in_file"] == [1.0, 0.0] and col["code_in_file_more"] == [0.0, 1.0]


def test_the_confidence_columns_read_the_channels_and_scores_behind_each_place() -> None:
    out = rows(WORDS, ITEMS, [2, 3, 4, 7], POLICY, SIGNALS)
    col = {name: [r[i] for r in out] for i, name in enumerate(FEATURES)}
    assert col["channels"] == [0.0, 2.0, 0.0, 0.0]
    assert col["best_rank"][1] == pytest.approx(math.log1p(3))
    assert col["best_rank"][0] == pytest.approx(math.log1p(100))  # no channel ranked it
    assert col["score_share"] == [1.0, 0.5, 0.0, 0.0]
    # read_all (2 channels) against load_file (1); Config.copy (0) against Config (3)
    assert col["channels_gap"] == [-3.0, 1.0, -3.0, -3.0]
    assert col["held_channels"] == [2.0] * 4  # read_all, the best-backed repeat
    assert col["top_gap"] == [0.25] * 4  # (4 - 3) / 4


def test_the_step_hands_the_candidates_scores_and_channel_ranks_to_the_columns() -> None:
    from controller import span_swap_step

    seen: list[list[list[float]]] = []

    class Spy:
        def scores(self, rows: list[list[float]]) -> list[float]:
            seen.append(rows)
            return [0.0] * len(rows)

    pinned = "sha256:toy-span-swap-signals"
    span_swap_step._LOADED[pinned] = span_swap_step.SwapModel(
        model=Spy(), margin=0.5, swaps=1)  # type: ignore[arg-type]
    ranked = [Candidate(chunk=c, score=s, step=1, reasons=tuple(
        Reason(code="rank", channel=ch, rank=r) for ch, r in ranks))
        for (c, _), (s, ranks) in zip(ITEMS, SIGNALS, strict=True)]
    try:
        span_swap_step.apply(WORDS, ranked, 24, POLICY.model_copy(
            update={"swap_model_digest": pinned}))
    finally:
        span_swap_step._LOADED.pop(pinned, None)
    channels = FEATURES.index("channels")
    assert [r[channels] for r in seen[0]] == [0.0, 2.0, 0.0, 0.0, 0.0]  # places 2, 3, 4, 5, 7


def test_the_best_later_item_trades_with_the_weakest_repeat_beyond_the_margin() -> None:
    held, later = [2, 3, 4], [5, 7]
    scores = [0.5, -1.0, 0.2, 0.0, 2.0]  # held 2, 3, 4; later 5, 7
    order = swap(ITEMS, held, later, scores, 0.5, 1)
    assert order[:5] == [0, 1, 2, 7, 4] and order[7] == 3  # 7 (2.0) takes 3's place (-1.0)
    assert sorted(order) == list(range(len(ITEMS)))  # the same items
    assert swap(ITEMS, held, later, scores, 0.0, 2)[:5] == [0, 1, 2, 7, 4]  # 0.0 < 0.2
    two = swap(ITEMS, held, later, [0.5, -1.0, 0.2, 0.3, 2.0], 0.0, 2)
    assert two[:5] == [0, 1, 2, 7, 5] and (two[5], two[7]) == (4, 3)
    assert swap(ITEMS, held, later, [0.5, -1.0, 0.2, 0.3, 2.0], 0.0, 1)[:5] == [0, 1, 2, 7, 4]


def test_no_trade_within_the_margin_and_the_first_place_never_moves() -> None:
    assert swap(ITEMS, [2, 3, 4], [5, 7], [0.5, -1.0, 0.2, 0.0, 2.0], 3.5, 2) == list(
        range(len(ITEMS)))
    order = swap(ITEMS, [2, 3, 4], [5, 7], [-9.0, -9.0, -9.0, 9.0, 9.0], 0.0, 5)
    assert order[0] == 0 and order[1] == 1
    shown = {ITEMS[i][0].path for i in order[:5]}
    assert {A, B} <= shown  # every file keeps a place in the first five


def _cands() -> list[Candidate]:
    return [Candidate(chunk=c, score=1.0, step=1,
                      reasons=tuple(Reason(code=code) for code in codes))  # type: ignore[arg-type]
            for c, codes in ITEMS]


def test_off_by_default_the_evidence_keeps_its_order() -> None:
    from controller import span_swap_step

    assert POLICY.swap_model_digest == ""
    ranked = _cands()
    assert span_swap_step.apply(WORDS, ranked, 24, POLICY) == ranked


def test_a_pinned_model_trades_places() -> None:
    from controller import span_swap_step

    class Scores:
        def scores(self, rows: object) -> list[float]:
            return [0.5, -1.0, 0.2, 0.0, 2.0][:len(rows)]  # type: ignore[arg-type]

    pinned = "sha256:toy-span-swap-model"
    span_swap_step._LOADED[pinned] = span_swap_step.SwapModel(
        model=Scores(), margin=0.5, swaps=1)  # type: ignore[arg-type]
    try:
        policy = POLICY.model_copy(update={"swap_model_digest": pinned})
        ranked = _cands()
        out = span_swap_step.apply(WORDS, ranked, 24, policy)
        assert [c.chunk.symbol for c in out[:5]] == [
            "Config", "load_file", "Config.copy", "merge_values", "Config.keys"]
        assert out[7].chunk.symbol == "read_all" and len(out) == len(ranked)
    finally:
        span_swap_step._LOADED.pop(pinned, None)


def _manifest(tmp: Path, model: str, **extra: object) -> str:
    (tmp / "model.txt").write_text(model, encoding="utf-8")
    raw = json.dumps({"model": "model.txt", "model_digest": digest(model.encode()),
                      "margin": 0.5, "swaps": 1, **extra}).encode()
    (tmp / "manifest.json").write_bytes(raw)
    return digest(raw)


def test_the_model_is_read_only_under_its_pinned_digest(tmp_path: Path) -> None:
    from controller import span_swap_step

    _manifest(tmp_path, "tree\n")
    with pytest.raises(RankerModelError, match="swap_model_digest"):
        span_swap_step.load("sha256:not-it", tmp_path / "manifest.json")
    pinned = _manifest(tmp_path, "not a model\n")
    with pytest.raises(RankerModelError, match="features"):
        span_swap_step.load(pinned, tmp_path / "manifest.json")
    (tmp_path / "model.txt").write_text("changed\n", encoding="utf-8")
    with pytest.raises(RankerModelError, match="does not match"):
        span_swap_step.load(pinned, tmp_path / "manifest.json")
    pinned = _manifest(tmp_path, "tree\n", swaps="two")
    with pytest.raises(RankerModelError, match="malformed"):
        span_swap_step.load(pinned, tmp_path / "manifest.json")


def test_the_shipped_model_loads_under_its_manifest_digest_and_scores_the_columns() -> None:
    from controller import span_swap_step

    raw = span_swap_step.MANIFEST.read_bytes()
    manifest = json.loads(raw)
    assert manifest["features"] == list(FEATURES)
    size = sum((span_swap_step.MANIFEST.parent / n).stat().st_size
               for n in ("manifest.json", manifest["model"]))
    assert size < 10 << 20
    loaded = span_swap_step.load(digest(raw))
    assert loaded.model.trees == manifest["point"]["trees"]
    assert (loaded.margin, loaded.swaps) == (manifest["margin"], manifest["swaps"])
    table = rows(WORDS, ITEMS, [2, 3, 4, 5, 7], POLICY, SIGNALS)
    scores = loaded.model.scores(table)
    assert len(scores) == 5 and scores == loaded.model.scores(table)  # the same every time


def test_the_candidate_config_pins_the_shipped_model() -> None:
    from controller import span_swap_step
    from evals.cli.run_common import candidate_overrides

    toml = Path(__file__).resolve().parents[1] / "evals" / "configs" / "span_swap.toml"
    pinned = candidate_overrides(str(toml))["retrieval.file_defs.swap_model_digest"]
    assert pinned == digest(span_swap_step.MANIFEST.read_bytes())


def _driver_run(reads_as_question: bool, pinned: str) -> list[str]:
    """`controller.driver._with_file_definitions` with the other in-file steps off: the
    evidence repeats merge.py at place 2, and merge.py's `merge_values` sits at place 6."""
    from types import SimpleNamespace
    from typing import Any, cast

    from controller.driver import _with_file_definitions
    from helix.core.config import HelixConfig

    chunks = [c for c, _ in ITEMS]
    order = [chunks[0], chunks[2], chunks[1], chunks[8],
             _chunk("pkg/four.py", "four", "def four(): pass\n"), chunks[7]]
    ranked = [Candidate(chunk=c, score=1.0, reasons=(), step=0) for c in order]
    index = SimpleNamespace(chunks_for_path=lambda path: [c for c in chunks if c.path == path])
    plan = SimpleNamespace(term_words=WORDS, intent=SimpleNamespace(route="explanation"),
                           asked=SimpleNamespace(reads_as_question=reads_as_question))
    config = HelixConfig().model_copy(deep=True)
    policy = config.retrieval.file_defs.model_copy(update={
        "files": 0, "reach": 0, "depth": 0, "depth_lead": 0, "lead_files": 1, "callees": 0,
        "recut": False, "swap_model_digest": pinned})
    config = config.model_copy(update={"retrieval": config.retrieval.model_copy(
        update={"file_defs": policy})})
    out = _with_file_definitions(cast(Any, plan), ranked, cast(Any, index), config)
    return [c.chunk.symbol or "" for c in out]


def test_the_driver_trades_for_a_question_with_a_model_pinned_and_never_for_a_report() -> None:
    from controller import span_swap_step

    class Later:  # every later item scores 5 above the first five's
        def scores(self, rows: list[list[float]]) -> list[float]:
            return [0.0 if r[FEATURES.index("in_top")] else 5.0 for r in rows]

    pinned = "sha256:toy-span-swap-driver"
    span_swap_step._LOADED[pinned] = span_swap_step.SwapModel(
        model=Later(), margin=0.5, swaps=1)  # type: ignore[arg-type]
    try:
        before = ["Config", "Config.copy", "load_file", "merge", "four", "merge_values"]
        assert _driver_run(True, "") == before
        assert _driver_run(False, pinned) == before
        assert _driver_run(True, pinned) == [
            "Config", "merge_values", "load_file", "merge", "four", "Config.copy"]
    finally:
        span_swap_step._LOADED.pop(pinned, None)
