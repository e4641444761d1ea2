"""A claim that the asked thing is not shown, in a passive or short wording (issue 32,
meaning19; helix.synthesis.absence_asked): the clause's subject names the noun the question
asks for, or a noun standing for it, while the evidence holds the answer -> refused; a clause
whose subject is a side detail, or one after the answer was given, stays a note. Wordings
written here, none from a data set."""

from __future__ import annotations

from helix.core.envelope import EvidenceItem
from helix.core.hashing import digest, short_id
from helix.synthesis.contract import NO_EVIDENCE_CLAIM, check_answer
from helix.synthesis.prompt import citation_refs


def _item(path: str, text: str, kind: str = "code") -> EvidenceItem:
    lines = text.count("\n") + 1
    return EvidenceItem(id=short_id(path, 1, lines, digest(text)), path=path, start_line=1,
                        end_line=lines, kind=kind, score=1.0, content_hash=digest(text),
                        node_id=f"file:{path}", reasons=(), text=text)


EVIDENCE = (
    _item("indexer/pool.py", "WORKER_THREADS = 6\n\ndef start_pool(queue):\n"
          "    # the indexer starts WORKER_THREADS worker threads at launch\n"
          "    return [Thread(target=drain, args=(queue,)) for _ in range(WORKER_THREADS)]"),
    _item("docs/indexer.md", "## Threads\nThe indexer starts a fixed pool of worker threads "
          "when it launches; the pool size is WORKER_THREADS (6).", kind="doc"),
)
HOW_MANY = "how many worker threads does the indexer start?"
WHAT_NOUN = "what pool size does the indexer use for its worker threads?"


def _refused(text: str, question: str) -> bool:
    return check_answer(text, citation_refs(EVIDENCE), evidence=EVIDENCE,
                        question=question).reason == NO_EVIDENCE_CLAIM


def test_a_proxy_of_how_many_said_not_shown_is_refused() -> None:
    assert _refused("`start_pool` launches worker threads at startup, but their number is "
                    "not stated.", HOW_MANY)
    assert _refused("The pool is started by `start_pool` [E1]; the count isn't given.",
                    HOW_MANY)


def test_the_asked_noun_after_but_not_is_refused() -> None:
    assert _refused("docs/indexer.md describes the thread pool but not the pool size.",
                    WHAT_NOUN)


def test_a_whether_clause_naming_the_asked_noun_is_refused() -> None:
    assert _refused("Threads are started by `start_pool`, clearly, but whether that is "
                    "fixed (the real pool size) isn't specified.", WHAT_NOUN)


def test_the_question_itself_said_unanswerable_is_refused() -> None:
    assert _refused("`start_pool` and docs/indexer.md are about startup, so the question "
                    "can't be answered from these.", HOW_MANY)


def test_a_restated_question_then_a_subjectless_not_in_is_refused() -> None:
    assert _refused("pool size? not in these excerpts, they cover `start_pool` only",
                    WHAT_NOUN)


def test_a_side_detail_said_not_shown_stays_a_note() -> None:
    # the subject names something the question does not ask for
    assert not _refused("The indexer starts 6 worker threads (`WORKER_THREADS` [E1]); the "
                        "thread names are not stated.", HOW_MANY)
    # a proxy noun qualified by something else: the reason, not the number
    assert not _refused("`WORKER_THREADS` is 6 [E1]; the reason for that number is not "
                        "documented.", HOW_MANY)


def test_a_clause_after_the_answer_was_given_stays_a_note() -> None:
    assert not _refused("The pool size is 6 [E1]; the pool size under test runs is not "
                        "shown.", WHAT_NOUN)
    # a number given before a quantity's proxy: the count asked was given
    assert not _refused("6 worker threads [E1]; the number per CPU core is not stated.",
                        HOW_MANY)


def test_a_question_whose_wh_word_is_a_subject_asks_no_noun() -> None:
    from helix.synthesis.absence_asked import asked_nouns

    itself = asked_nouns("why?")  # the nouns naming the question itself, asked always
    assert {"question", "answer"} <= itself
    assert asked_nouns("which module starts the worker threads?") == itself
    assert asked_nouns("how does the indexer pick its worker count?") == itself
    assert {"size", "pool"} <= asked_nouns("what's the pool size the indexer uses?")
    assert {"number", "count", "thread", "threads"} <= asked_nouns(HOW_MANY)
    assert {"first", "order"} <= asked_nouns("in what order do the workers drain queues?")


def test_how_long_asks_for_a_duration_not_for_its_subject() -> None:
    from helix.synthesis.absence_asked import asked_nouns

    # meaning20: "how long" and "how often" ask for a measure (data, absence_asked.toml
    # asked_measures): its proxies are asked, the words after it are its subject
    asked = asked_nouns("how long does the indexer keep its worker threads?")
    assert {"duration", "lifetime", "time"} <= asked  # main: none of them
    assert not {"indexer", "worker", "threads"} & asked
    assert {"interval", "frequency"} <= asked_nouns("how often does the pool restart?")
    question = "how long do the indexer's worker threads start for?"
    assert _refused("`start_pool` launches the worker threads [E1], but their lifetime is not "
                    "stated.", question)  # main: accepted
    # a side remark after the answer was given (a number of the evidence) stays a note
    assert not _refused("The indexer starts 6 worker threads [E1]; how long each one lives "
                        "is not stated.", HOW_MANY)


def test_a_reported_question_then_only_what_is_missing_is_a_claim() -> None:
    # meaning20 (helix/synthesis/absence_report.py): an opening that reports the question back
    # answers nothing; what follows says only what the material lacks
    assert _refused("You're asking how many threads the indexer starts. The excerpts [E1][E2] "
                    "are about draining the queue; the startup policy itself isn't included.",
                    HOW_MANY)  # main: accepted
    assert _refused("Restating: you want the indexer's thread setup. The snippets [E1][E2] talk "
                    "about the drain loop, and the launch policy is not described there.",
                    HOW_MANY)
    # a later sentence gives the evidence's value plainly: an answer with a note
    assert not _refused("You asked how many threads the indexer starts. It starts 6 "
                        "(`WORKER_THREADS` [E1]). The docs don't say why 6.", HOW_MANY)
    # no report of the question: left to the other checks
    assert not _refused("The indexer starts 6 worker threads [E1].", HOW_MANY)


def test_a_relative_clause_speaks_of_the_noun_before_its_pronoun() -> None:
    from helix.synthesis.absence import evidence_words
    from helix.synthesis.absence_asked import asked_missing

    words = evidence_words(e.text for e in EVIDENCE)
    assert not asked_missing("6 at launch; extra worker threads follow the scheduler's "
                             "defaults, which are not shown.", HOW_MANY, words)


def test_a_condition_on_the_asked_thing_is_behaviour_not_a_claim() -> None:
    assert not _refused("If the count isn't given, `start_pool` falls back to "
                        "`WORKER_THREADS` [E1].", HOW_MANY)


def _refused_by_a_head_that_refuses_all(text: str, question: str) -> bool:
    """The contract with a head that refuses every answer (and a fake encoder): only what
    the contract decides after the head can accept."""
    from helix.core.config import HelixConfig
    from helix.core.ports import FakeEmbedder
    from helix.synthesis.absence_head import FEATURES, AbsenceHead
    from helix.synthesis.absence_meaning import AbsenceMeaning

    n = len(FEATURES)
    head = AbsenceHead(features=FEATURES, mean=(0.0,) * n, scale=(1.0,) * n,
                       weights=(20.0,) + (0.0,) * n, threshold=0.5, mode="stack")
    meaning = AbsenceMeaning(FakeEmbedder(), HelixConfig().synthesis.absence)
    return check_answer(text, citation_refs(EVIDENCE), evidence=EVIDENCE, meaning=meaning,
                        question=question, head=head).reason == NO_EVIDENCE_CLAIM


def test_a_plain_answer_then_side_notes_closing_on_the_answer_is_accepted() -> None:
    text = ("`start_pool` launches `WORKER_THREADS` threads, 6 of them [E1]. The excerpts don't "
            "show who drains the queue, but the thread count itself is plain.")
    assert not _refused_by_a_head_that_refuses_all(text, HOW_MANY)
    result = check_answer(text, citation_refs(EVIDENCE), evidence=EVIDENCE, question=HOW_MANY)
    assert result.ok and result.limits  # the note is kept as a limit


def test_a_side_note_may_close_on_a_negation_of_behaviour() -> None:
    # meaning20: the note before the contrast negates (it is the claim on a side detail); what
    # the contrast closes on negates how the code behaves, no claim about the material
    text = ("`start_pool` launches `WORKER_THREADS` threads, 6 of them [E1]. The excerpts don't "
            "show who drains the queue, but the pool can't grow past that.")
    assert not _refused_by_a_head_that_refuses_all(text, HOW_MANY)  # main: refused
    # the contrast's clause is itself a claim about the material: refused still
    assert _refused_by_a_head_that_refuses_all(
        "`start_pool` launches 6 threads [E1]. The excerpts don't show who drains the queue, "
        "but nothing here says how long they live either.", HOW_MANY)
    # the claim comes after the contrast, the words before it negate nothing: refused still
    assert _refused_by_a_head_that_refuses_all(
        "I read `start_pool` and docs/indexer.md. They mention the pool, but the thread count "
        "isn't given, so I can't say.", HOW_MANY)


def test_a_restatement_or_a_note_on_the_asked_thing_is_no_side_note() -> None:
    # the first sentence restates the question: nothing was answered
    assert _refused_by_a_head_that_refuses_all(
        "You want how many worker threads the indexer starts. The excerpts don't show it, "
        "but `start_pool` is there.", HOW_MANY)
    # the note is about the asked thing (its count)
    assert _refused_by_a_head_that_refuses_all(
        "`start_pool` starts the pool. The excerpts don't show the thread count, but the pool "
        "is plain.", HOW_MANY)
    # no contrast closing the note on the answer
    assert _refused_by_a_head_that_refuses_all(
        "`start_pool` launches 6 threads. The excerpts don't show who drains the queue.",
        HOW_MANY)


def test_a_possessive_subject_names_what_the_code_name_before_it_names() -> None:
    question = "which worker threads does the indexer start?"
    assert _refused("`WORKER_THREADS` is referenced, but their names are not shown.", question)
    # the owner is no asked thing: a side detail
    assert not _refused("`start_pool` starts the worker threads [E1], but its docstring is "
                        "not shown.", question)
