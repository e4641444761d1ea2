"""A warm process embeds a sense clarifier's options on the turn that asks it
(helix.session.reader.prepare_options, issue 32's warm cost): the turn answering it, a router
turn, finds their vectors and embeds none of them; a one-shot process, or one whose warm
encoder no read has loaded, embeds nothing early (nothing is loaded for it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from talk_fixtures import Talk, indexed_copy

import helix.session.runner as runner
from controller.continuity.meaning import state_options
from controller.continuity.turn_plan import Reading
from helix.core.ports import FakeEmbedder
from helix.session import reader, warm


class Counting(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Any) -> Any:
        self.texts.extend(texts)
        return super().embed(texts)


@pytest.fixture
def talk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Talk:
    """A session whose turns are read by the default reader's path, its reading fixed (the
    classifier is not under test: what is embedded when is)."""
    monkeypatch.setattr(reader, "_OPTION_CACHE", {})
    monkeypatch.setattr(runner, "session_reader", lambda config, root: (
        lambda f: Reading(meaning=f.rules if f.rules != "boundary" else "new_question",
                          confidence=1.0)))
    warm.forget()
    yield Talk(indexed_copy(tmp_path))
    warm.forget()


def _descriptions(t: Talk) -> list[str]:
    return [reader.describe(t.root, o, t.config.index.max_file_bytes)
            for o in state_options(t.state())]


def test_the_turn_asking_a_sense_clarifier_embeds_its_options(
        talk: Talk, monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = Counting()
    monkeypatch.setitem(warm._LOADED, "encoder", encoder)  # an earlier read loaded it
    with warm.warm_reading():
        talk("what is a cavity?")
    texts = _descriptions(talk)
    assert len(texts) == 2 and encoder.texts == texts  # each alone, on the asking turn
    encoder.texts.clear()
    reader.option_vectors(encoder, texts)  # as the answering turn's read
    assert encoder.texts == []
    with warm.warm_reading():
        talk("hmm")  # the clarifier still pending: not asked again, nothing embedded
    assert encoder.texts == []


def test_nothing_is_embedded_early_outside_a_warm_process_or_before_a_read_loaded_it(
        talk: Talk, monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = Counting()
    monkeypatch.setitem(warm._LOADED, "encoder", encoder)
    talk("what is a cavity?")  # not warm: the next turn is another process
    assert encoder.texts == [] and len(_descriptions(talk)) == 2
    warm.forget()
    with warm.warm_reading():
        talk("start over")
        talk("what is a cavity?")
    assert warm._LOADED == {}  # no read loaded it, and prepare_options loads nothing
