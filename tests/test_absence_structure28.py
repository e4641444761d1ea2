"""Absence claims by structure (issue 32, meaning28): "neither" the subject of a passive of
showing or answering by the material ("Neither is answered by a.py or b.md",
helix/synthesis/absence.py); a question opening with "when" asks a time, so a claim that "the
send times aren't given" names the asked thing (helix/synthesis/absence_asked.toml
`asked_measures`, `asked_proxies`); a subject opening with the wh-word the question opens with
restates it with one of its words ("who can transfer ownership ...?" / "who is allowed to start
it ... isn't described"); a sentence in another language that negates and then opens an
indirect question by an interrogative ("no aparece cuánto tiempo", "没有说明…哪种字体") says
the evidence lacks the asked thing (helix/synthesis/absence_language.toml `interrogatives`).
fresh27 (now a tune set) had 3 of 64 claims accepted, 0 after these and the head retrained on
them. Every case is a wording of no data set; each refused or claimed one fails on the code
before it, the others guard what the readings must leave alone."""

from __future__ import annotations

import pytest

from helix.core.envelope import EvidenceItem
from helix.core.hashing import digest, short_id
from helix.synthesis.absence import absence_claims
from helix.synthesis.absence_asked import asked_nouns
from helix.synthesis.absence_language import foreign_claim
from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
from helix.synthesis.prompt import citation_refs

KEYS = ("keys/rotate.py", 10, 18, "definition",
        "def rotate_key(actor, vault):\n    # only vault admins may rotate the signing key\n"
        "    if not actor.is_vault_admin:\n        raise PermissionError('vault admins only')\n"
        "    vault.retire(vault.current, keep_days=30)  # the old key is kept 30 days\n"
        "    return vault.issue()\n")
EXPORT = ("docs/export.md", 1, 6, "doc",
          "## Nightly export\n\nThe export job runs every night at 02:00 UTC and writes the "
          "rotation log to the archive. Admins can skip a night with `--skip-export`.\n")


def _evidence() -> tuple[EvidenceItem, ...]:
    return tuple(EvidenceItem(
        id=short_id(path, start, end, digest(text)), path=path, start_line=start,
        end_line=end, kind=kind, score=1.0, content_hash=digest(text), node_id=f"file:{path}",
        reasons=(), heading=None, symbol=None, text=text)
        for path, start, end, kind, text in (KEYS, EXPORT))


def _refused(text: str, question: str) -> bool:
    evidence = _evidence()
    result = check_answer(text, citation_refs(evidence), evidence=evidence, question=question)
    return result.reason == NO_EVIDENCE_CLAIM


@pytest.mark.parametrize(("text", "claim"), [
    ("Two things were asked. Neither is answered by keys/rotate.py or docs/export.md.", True),
    ("Neither is answered in [E1] or [E2].", True),
    ("Neither is explained by keys/rotate.py, sorry.", True),
    # a passive of another verb, or not by the material: no claim
    ("Neither is required; both default to 30 days [E1].", False),
    ("Neither is found in production configs.", False),
])
def test_neither_the_subject_of_a_passive_of_showing(text: str, claim: bool) -> None:
    assert bool(absence_claims(text)) is claim, text


def test_a_question_opening_with_when_asks_a_time() -> None:
    assert {"time", "timing", "schedule"} <= asked_nouns("when does the nightly export run?")
    # "when" inside the question asks nothing of its own
    assert "time" not in asked_nouns("does the export retry when the upload fails?")
    question = "when does the nightly export run, and can admins skip it?"
    assert _refused("The archive gets the rotation log [E2]. The run time isn't stated in what "
                    "was retrieved.", question)
    assert not _refused("The export runs every night at 02:00 UTC, and admins can skip a night "
                        "with `--skip-export` [E2].", question)


def test_a_subject_opening_with_the_questions_wh_word_restates_it() -> None:
    question = "who can rotate the signing key, and is the old key kept?"
    assert _refused("The vault issues a new one on each rotation [E1], but who is permitted to "
                    "trigger it for a key isn't described.", question)
    # the same wh-word, none of the question's words: a side detail
    assert not _refused("Only vault admins can rotate the signing key, and the old key is kept "
                        "30 days [E1]; who gets emailed afterwards isn't described.", question)
    assert not _refused("Only vault admins can rotate the signing key, and the old key is kept "
                        "for 30 days [E1].", question)


@pytest.mark.parametrize(("text", "claim"), [
    ("Lo siento, los fragmentos no indican cuándo se ejecuta la exportación.", True),
    ("Die Auszüge sagen nicht, wie lange der alte Schlüssel aufbewahrt wird.", True),
    ("提供的代码里没有说明导出任务在什么时间运行。", True),
    ("Les extraits ne disent pas combien de jours l'ancienne clé est conservée.", True),
    # a negation with no indirect question after it, a relative "cuando", English, a question
    ("La clave antigua no se borra: se conserva 30 días [E1].", False),
    ("No se exporta cuando el administrador usa --skip-export [E2].", False),
    ("The snippets don't say when the export runs.", False),
    ("¿No sabes cuándo se ejecuta?", False),
])
def test_a_claim_in_another_language_by_an_indirect_question(text: str, claim: bool) -> None:
    assert foreign_claim(text) is claim, text
