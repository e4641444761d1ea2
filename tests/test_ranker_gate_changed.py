"""benchmarks/ranker_gate.py names the suite cases whose ranks moved (round 15: the lead's
gate of round 14's pick said only that hit@5 fell; which case, and what pushed it, had to be
run again)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from ranker_gate import changed_cases


def _run(**ranks: tuple[int | None, int | None, int | None]) -> SimpleNamespace:
    cases = [SimpleNamespace(id=i, rank=r, file_rank=f, symbol_rank=s, top=(f"{i}.py:1-2",))
             for i, (r, f, s) in ranks.items()]
    return SimpleNamespace(suites=[SimpleNamespace(name="rich", cases=cases)])


def test_only_the_cases_whose_ranks_moved_are_listed() -> None:
    hand = _run(markup=(5, 5, 5), wrap=(1, 1, 8), same=(2, 2, None))
    cand = _run(markup=(6, 6, 6), wrap=(1, 1, 9), same=(2, 2, None))
    out = changed_cases(hand, cand)
    assert [c["id"] for c in out] == ["markup", "wrap"]
    assert out[0] == {"suite": "rich", "id": "markup", "rank": [5, 6], "file_rank": [5, 6],
                      "symbol_rank": [5, 6], "top": [["markup.py:1-2"], ["markup.py:1-2"]]}
