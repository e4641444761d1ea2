"""A question is read once (`controller.question`): redacted, cut, respelled when the index's
vocabulary is handed in, routed; `respell` completes a reading made before the index was open."""

from __future__ import annotations

from controller.question import read_question, respell
from controller.report_cut import RETRIEVAL_CHARS
from helix.core.config import RetrievalSettings

SECRET = "AKIA" + "Q3EGRZ7XK2MPLT5W"  # an AWS access key id (built, never a literal)


def _spelled(word: str) -> str | None:
    return {"tokneizer": "tokenizer"}.get(word)


def test_a_pasted_secret_is_masked_before_anything_reads_it() -> None:
    question = read_question(f"why does login fail with key {SECRET}?", RetrievalSettings())
    assert SECRET not in question.asked and "[REDACTED" in question.asked
    assert SECRET not in question.plan.model_dump_json()


def test_a_long_paste_is_cut_and_says_what_it_kept() -> None:
    report = "Traceback (most recent call last):\n" + "noise line\n" * 4000
    question = read_question(report, RetrievalSettings())
    assert len(question.asked) <= RETRIEVAL_CHARS and question.cut is not None


def test_respelling_is_done_once_and_noted() -> None:
    settings = RetrievalSettings()
    early = read_question("where is the tokneizer defined?", settings)
    assert not early.respelt and early.note is None
    late = respell(early, settings, _spelled)
    assert late.respelt and late.read == (("tokneizer", "tokenizer"),)
    assert late.note is not None and "tokenizer" in late.note
    assert "tokenizer" in late.plan.model_dump_json()
    again = respell(late, settings, lambda word: "other")  # already read: not read again
    assert again == late
    assert read_question("where is the tokneizer defined?", settings,
                         spelled_as=_spelled) == late


def test_respelling_off_keeps_the_words_typed() -> None:
    settings = RetrievalSettings(respell=False)
    question = read_question("where is the tokneizer defined?", settings, spelled_as=_spelled)
    assert question.read == () and question.note is None
