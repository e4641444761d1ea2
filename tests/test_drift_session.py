"""A session asks "did anything change since I asked about X?" and gets that turn's drift: a
T9 recap with the diff of the cited lines (issue 34)."""

from __future__ import annotations

from pathlib import Path

import pytest
from talk_fixtures import Talk, config

from tests import change_fixtures as cf

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py


def test_a_recap_of_what_changed_since_a_turn(tmp_path: Path) -> None:
    repo, shas = cf.build(tmp_path)
    talk = Talk(repo, config(repo))
    first = talk(cf.QUESTIONS["default"])
    assert first.envelope is not None and first.envelope.evidence
    same = talk("did anything change since I asked about the timeout?")
    assert (same.lane, same.transition) == ("recap", "T9")
    assert "No: the evidence it cited is unchanged." in same.answer
    assert f"Since turn {first.turn_id}" in same.answer
    cf.change(repo, shas)
    changed = talk("has anything changed since I asked about the timeout")
    assert (changed.lane, changed.transition) == ("recap", "T9")
    assert "Yes: lines that answer cited have changed." in changed.answer
    assert "-    def __init__(self, timeout=5.0, retries=3):" in changed.answer
    assert "+    def __init__(self, timeout=10.0, retries=3):" in changed.answer
    assert "defaults: timeout: 5.0 -> 10.0" in changed.answer
    (event,) = [e for e in changed.events if e.name == "memory_recap"]
    assert event.data["drift"] == "changed" and event.data["matching_turns"] == [first.turn_id]
    unknown = talk("is the answer about the tokenizer still valid?")
    assert unknown.lane == "recap"
    assert "No earlier answer about \"tokenizer\" in this session" in unknown.answer
    plain = talk("did we talk about the timeout?")  # a plain recap is not a drift check
    assert "Yes," in plain.answer and "checked now" not in plain.answer

