"""Absence claims across languages and "neither" (issue 32, meaning25). An answer in another
language that negates nothing and asks nothing gives what it says: the contract accepts it
whatever the learned head reads from its few English words (helix/synthesis/absence_language.py);
a claim in another language negates, and stays refused. "Neither" as the subject of a verb of
telling, after the files it names, is a claim (helix/synthesis/absence.py). Wordings written
here, none from a data set; each case marked "main" fails on the code before meaning25."""

from __future__ import annotations

import pytest

from helix.synthesis.absence import absence_claims
from helix.synthesis.absence_language import foreign, negates, plain_foreign
from tests.test_absence_asked import HOW_MANY, _refused, _refused_by_a_head_that_refuses_all

ANSWERS = [
    "L'indexeur démarre six fils de travail au lancement (WORKER_THREADS).",
    "O indexador inicia seis threads de trabalho quando é lançado, conforme WORKER_THREADS.",
    "El indexador arranca seis hilos de trabajo al iniciarse; el tamaño es WORKER_THREADS.",
    "Der Indexer startet beim Start sechs Worker-Threads (WORKER_THREADS = 6).",
    "インデクサは起動時に WORKER_THREADS 個、つまり 6 個のワーカースレッドを開始します。",
    "索引器启动时会创建 6 个工作线程（WORKER_THREADS）。",
]
CLAIMS = [
    "Les extraits fournis ne disent pas combien de fils l'indexeur démarre.",
    "Os trechos fornecidos não mostram quantas threads o indexador inicia em cada execução.",
    "Die Ausschnitte enthalten keine Angabe zur Anzahl der Threads.",
    "提供的文件中没有说明索引器启动多少个线程。",
    "資料にはスレッド数の記載が見当たりません。",
    "Il n'y a rien sur le nombre de threads dans ces fichiers.",
]


@pytest.mark.parametrize("text", ANSWERS)
def test_an_answer_in_another_language_is_plain(text: str) -> None:
    assert foreign(text) and not negates(text) and plain_foreign(text), text


@pytest.mark.parametrize("text", CLAIMS)
def test_a_claim_in_another_language_negates(text: str) -> None:
    assert foreign(text) and negates(text) and not plain_foreign(text), text


@pytest.mark.parametrize("text", [
    "The indexer starts six worker threads at launch [E1].",  # English: never foreign
    "- pool.py: WORKER_THREADS\n- indexer.md: ✔ threads\n- count: ?",  # a list, ASCII words
    "Quel fichier voulez-vous que je regarde, celui du pool ou la documentation ?",  # asks
])
def test_english_or_a_question_is_not_a_plain_foreign_answer(text: str) -> None:
    assert not plain_foreign(text), text


@pytest.mark.parametrize(("text", "refused"), [
    *((t, False) for t in ANSWERS),  # main: refused (the head's verdict stood)
    *((t, True) for t in CLAIMS),  # guards
])
def test_the_contract_accepts_a_plain_answer_in_another_language(text: str,
                                                                 refused: bool) -> None:
    assert _refused_by_a_head_that_refuses_all(text, HOW_MANY) is refused, text


@pytest.mark.parametrize("text", [
    # main: no claim found (the rules knew "neither of the files ... mention" only)
    "I looked at indexer/pool.py and docs/indexer.md; neither states how many worker threads "
    "start.",
    "pool.py shows the pool and indexer.md the launch, but neither one gives the thread count.",
    "Both excerpts are about the indexer; neither seems to specify the thread count.",
])
def test_neither_telling_is_a_claim(text: str) -> None:
    assert absence_claims(text), text
    assert _refused(text, HOW_MANY), text


def test_neither_elsewhere_is_no_claim() -> None:
    """Guards: "neither" joining two things the answer gives, or a side note's subject."""
    assert not absence_claims("Contacts with neither an e-mail nor a phone are imported as new.")
    assert not absence_claims("Drafts don't show up, and neither do private posts [E1].")
    assert not _refused("Six threads (WORKER_THREADS = 6) [E1]; neither file mentions a way to "
                        "change it at run time.", HOW_MANY)
