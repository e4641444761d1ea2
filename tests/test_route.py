from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from route_helpers import route_question

from controller.route import SLOTS

MATRIX = [
    ("What does solar restoration mean in this repo?", "definition", "term", "solar restoration"),
    ("Define TS_ratio in this repo.", "definition", "term", "TS_ratio"),
    ("Is the Casimir tile pressure in GPa?", "value_check", "quantity", "Casimir tile pressure"),
    ("How does Natario warp bubble relate to Casimir tiles?", "relation", "x",
     "Natario warp bubble"),
    ("What does the ideology tree say about stewardship?", "doc_summary", "topic", "stewardship"),
    ("Explain the Helix Ask reasoning pipeline.", "explanation", "topic",
     "Helix Ask reasoning pipeline"),
    ("What is a cavity?", "definition", "term", "cavity"),
    ("where is the retry policy decided?", "location", "target", "retry policy"),
    ("which file defines the Envelope?", "location", "target", "Envelope"),
    ("who calls `tokenize`?", "usage", "symbol", "tokenize"),
    ("how is hash_obj used?", "usage", "symbol", "hash_obj"),
    ("examples of run_controller", "usage", "symbol", "run_controller"),
    ("what is the default value of max_steps?", "value_check", "quantity", "max_steps"),
]


# what a message says around its question (fillers, greetings, a polite frame, a courtesy), the
# embedded word order such a frame leaves, a verb before its subject, misspelt question words:
# the subject is the same as the plain question's (before: "ok then" or "could you tell me"
# kept any pattern from matching, and the subject was every content word of the message)
CONVERSATIONAL = [
    ("ok then, where is the retry policy decided?", "location", "target", "retry policy"),
    ("Hello — where would I find the session store?", "location", "target", "session store"),
    ("Sorry, first: where is defined RetryPolicy?", "location", "target", "RetryPolicy"),
    ("could you tell me where the session store is created, please?", "location", "target",
     "session store"),
    ("Do you know where ledger entries are posted?", "location", "target", "ledger entries"),
    ("I'd like to know where parse_header is tested.", "location", "target", "parse_header"),
    ("Where is raised TimeoutError?", "location", "target", "TimeoutError"),
    ("where is the decode_frame function defined", "location", "target",
     "decode_frame function"),
    ("ok where's ConfigLoader defined", "location", "target", "ConfigLoader"),
    ("Would you be able to tell me what a ledger is?", "definition", "term", "ledger"),
    ("could you explain what a frame means here?", "definition", "term", "frame"),
    ("whats teh retry policy", "definition", "term", "retry policy"),
    ("um so how dose the decoder work", "explanation", "topic", "decoder"),
    ("whre is the ledger built", "location", "target", "ledger"),
    ("I was wondering where the frame decoder is actually built?", "location", "target",
     "frame decoder"),
    ("I've been wondering where parse_header is tested", "location", "target", "parse_header"),
    ("i wondered where the decoder is really defined", "location", "target", "decoder"),
    ("If possible, could you show me where the frame decoder is built?", "location", "target",
     "frame decoder"),
    ("if you can, where is parse_header tested", "location", "target", "parse_header"),
]


@pytest.mark.parametrize(("question", "route", "slot", "subject"), CONVERSATIONAL)
def test_the_question_inside_a_conversational_message_is_routed(question: str, route: str,
                                                                slot: str, subject: str) -> None:
    plan = route_question(question)
    assert (plan.intent.route, plan.subjects[slot]) == (route, (subject,))


def test_a_subject_is_also_read_without_its_code_kind_noun() -> None:
    from controller.route import with_bare_names

    assert with_bare_names(("decode_frame function",)) == ("decode_frame function",
                                                           "decode_frame")
    assert with_bare_names(("retry policy",)) == ("retry policy",)


def test_a_message_of_conversational_words_only_is_kept_whole() -> None:
    from controller.route import question_core

    assert question_core("thanks") == "thanks"
    assert question_core("ok, thanks!") == "ok, thanks!"
    assert question_core("well-formed input handling") == "well-formed input handling"


@pytest.mark.parametrize(("question", "route", "slot", "subject"), MATRIX)
def test_matrix_routes_and_slots(question: str, route: str, slot: str, subject: str) -> None:
    plan = route_question(question)
    assert plan.intent.route == route
    assert plan.intent.slots == SLOTS[route]
    assert plan.subjects[slot] == (subject,)


def test_relation_has_both_sides_and_link() -> None:
    plan = route_question("How does Natario warp bubble relate to Casimir tiles?")
    assert plan.subjects["y"] == ("Casimir tiles",)
    assert plan.subjects["link"] == ("Natario warp bubble", "Casimir tiles")


def test_value_check_unit() -> None:
    assert route_question("Is the Casimir tile pressure in GPa?").unit == "GPa"


def test_a_unit_written_as_a_product_is_the_unit_asked() -> None:
    """A product of units written with a middle dot (Pa·s, kW·h, N⋅m) is one unit: the
    question is a unit check, not a definition of the quantity (whose gate confirmed it
    whatever the line said)."""
    for question, unit in (("Is the viscosity in Pa·s?", "Pa·s"),
                           ("is the energy measured in kW·h?", "kW·h"),
                           ("Is the moment in N⋅m?", "N⋅m")):
        plan = route_question(question)
        assert (plan.intent.route, plan.unit) == ("value_check", unit), question


def test_terms_identifiers_kept_whole_and_stopwords_dropped() -> None:
    plan = route_question('what does `os.path.join` do with "retry budget" and TS_ratio?')
    assert plan.intent.terms[:2] == ("os.path.join", "retry budget")
    assert "TS_ratio" in plan.intent.terms
    assert "what" not in plan.intent.terms and "does" not in plan.intent.terms


def test_possessive_apostrophes_quote_nothing() -> None:
    """"the class's dependency ... the protocol's parser": no phrase between the two
    apostrophes becomes a term; a quoted phrase beside a possessive still does."""
    plan = route_question("What is the impact of the event class's dependency on the "
                          "browser protocol's parser?")
    assert all(" " not in term for term in plan.intent.terms)
    assert "dependency" in plan.intent.terms and "protocol" in plan.intent.terms
    plan = route_question("How does Reflex's 'state manager' pick a backend?")
    assert plan.intent.terms[0] == "state manager"


def test_path_hints_and_scope() -> None:
    plan = route_question("what does indexers/bm25.py say about ties?")
    assert plan.intent.path_hints == ("indexers/bm25.py",)
    assert route_question("what does the README say about setup?").intent.path_hints == (
        "README",)
    scoped = route_question("how is hash_obj used in tests/?")
    assert scoped.intent.scope == "tests/"
    assert route_question("where is X", scope="indexers/").intent.scope == "indexers/"


def test_ambiguity_only_for_bare_one_word_terms() -> None:
    assert route_question("What is a cavity?").ambiguous_term == "cavity"
    assert route_question("cavity").ambiguous_term == "cavity"
    assert not route_question("cavity").sense_check_only
    assert route_question("What is the optical cavity in this repo?").ambiguous_term is None
    assert route_question("Define TS_ratio").ambiguous_term is None


@pytest.mark.parametrize("question", [
    "Where is cavity defined in this project?", "Please explain me the cavity",
    "so the cavity what is that about", "cavity. what is it.",
    "Could you show me where cavities are defined?"])
def test_a_question_about_one_plain_word_checks_its_senses(question: str) -> None:
    """Asked in other words than a bare definition, a question whose only search term is one
    plain word still gets the sense check (a split asks which sense; controller.loop)."""
    plan = route_question(question)
    assert plan.sense_check_only
    assert plan.ambiguous_term is not None and plan.ambiguous_term.startswith("cavit")


@pytest.mark.parametrize("question", [
    "where is the optical cavity defined?", "who calls `tokenize`?", "where is carve_cave defined",
    "where is cavity defined in storage/?", "what does storage/cavity_pool.py say about cavity?"])
def test_no_sense_check_for_two_words_a_name_a_path_or_a_scope(question: str) -> None:
    plan = route_question(question)
    assert not plan.sense_check_only
    assert plan.ambiguous_term is None


@pytest.mark.parametrize("question", [
    "hmm, random question: what exactly is a cavity here?",
    "anyway, separate topic — where is cavity defined in the optics project?",
    "the cavity stuff, could you explain it please",
    "oh wait, different thing: what does cavity mean in this codebase?",
    "quick one, honestly: cavity, what's the idea?",
    "would you help me understand cavity, if possible?"])
def test_fillers_asides_and_repository_scope_do_not_hide_the_one_word(question: str) -> None:
    """Fillers, hedges, asides, politeness, "thing"/"stuff" nouns and a phrase naming the whole
    repository are no search terms for the sense check (route_phrases.toml sense_asides): the
    question is still about one plain word (main counted them and searched as asked)."""
    plan = route_question(question)
    assert plan.sense_check_only
    assert plan.ambiguous_term == "cavity"


@pytest.mark.parametrize("question", [
    "um, where is the optical cavity defined in this codebase, please?",
    "what is cavity in the parser code?", "quick one: who calls cavity_mode?",
    "anyway, cavity tests?"])
def test_a_second_real_word_still_keeps_the_sense_check_off(question: str) -> None:
    assert not route_question(question).sense_check_only


@pytest.mark.parametrize("question", [
    "What is a cavity? I saw this word in two places.",
    "I am a bot in the team's chat. A user asks: what is a cavity?",
    'Working for the user, I need to know: what does "cavity" refer to in this codebase?'])
def test_the_one_clause_that_asks_is_sense_checked(question: str) -> None:
    """A message of several clauses of which one asks (a question mark ends it, or it follows
    a colon) asks about what that clause asks: the same sense check as asked alone (main
    counted the other clauses' words as search terms and answered)."""
    plan = route_question(question)
    assert plan.sense_check_only and plan.ambiguous_term == "cavity"


@pytest.mark.parametrize("question", [
    "What is a cavity? And where is it defined in storage/?",
    "I saw cavity twice. Where is the optical cavity defined?",
    "Some context: the pool. Where is carve_cave defined?"])
def test_a_clause_that_asks_about_more_than_one_word_is_no_sense_check(question: str) -> None:
    assert not route_question(question).sense_check_only


@pytest.mark.parametrize("question", [
    "The pool hands out the same cavity twice after a release. Where does that happen?",
    "My search results come back in a different order each run. What controls it?",
    "Stop words are dropped from queries but not from documents. Is this intended?",
    "Ranking ignores the title field completely. Who decides that?"])
def test_a_short_question_pointing_back_at_a_report_is_no_sense_check(question: str) -> None:
    """A few sentences of what the user saw, then a short question pointing back at them
    ("that", "it", "this"): the sentences are part of what is asked. main sense-checked the
    clause's one word ('happen', 'controls', 'intended') and searched for it alone (writer65's
    reports cut to under 30 words: 66 of 114 did; file@1 0.456 -> 0.500)."""
    plan = route_question(question)
    assert not plan.sense_check_only and plan.ambiguous_term is None
    assert plan.intent.route == "issue" or len(plan.intent.terms) > 1


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_routing_is_total_and_deterministic(question: str) -> None:
    a = route_question(question)
    b = route_question(question)
    assert a == b
    assert a.intent.route in SLOTS
    assert a.intent.slots == SLOTS[a.intent.route]


@pytest.mark.parametrize(("question", "action"), [
    ("where is the BM25 index built?", "build"),
    ("Where is the retry policy decided?", "decide"),
    ("where are sessions stored", "store"),
    ("Where is dijkstra_path defined?", None),  # "defined" only says where
    ("Where does http.client send the request headers?", None),
    ("How is the index built?", None),  # not a location question
])
def test_location_action_is_the_trailing_verbs_base_form(question: str,
                                                         action: str | None) -> None:
    assert route_question(question).action == action


@pytest.mark.parametrize(("question", "route", "subject"), [
    ("What method does shortest_path use by default?", "value_check", "shortest_path method"),
    ("How many iterations does spring_layout run by default?", "value_check",
     "spring_layout iterations"),
    ("What format does digest return?", "value_check", "digest format"),
    ("What does the not_implemented_for decorator do?", "explanation",
     "not_implemented_for decorator"),
])
def test_default_questions_check_a_value_and_what_x_does_explains(question: str, route: str,
                                                                  subject: str) -> None:
    plan = route_question(question)
    assert plan.intent.route == route
    assert plan.subjects[SLOTS[route][0]] == (subject,)


LONG = ("How does the search engine rank the documents of its corpus when the BM25 index is "
        "built again?")


def test_a_long_question_keeps_its_route_and_is_retrieved_like_a_report() -> None:
    """A question as long as a report (`routing.long_question_words`) runs the `long_question`
    policy (file-level fusion, docs first); its route, slots and answer stay its own."""
    plan = route_question(LONG)
    assert plan.intent.route == "explanation" and plan.policy_route == "long_question"
    assert plan.policy_name == "long_question"
    short = route_question("How does the search engine rank documents?")
    assert short.policy_route is None and short.policy_name == "explanation"
    usage = route_question("Who calls the function that builds the BM25 index over every "
                           "document of the corpus when the engine starts up again?")
    assert usage.intent.route == "usage" and usage.policy_route is None  # its own policy


def test_the_long_question_policy_runs_and_reads_docs_first() -> None:
    from controller_helpers import ask, files_index

    files = {"search/engine.py": "class SearchEngine:\n    \"\"\"Ranks the documents of a "
                                 "corpus with BM25.\"\"\"\n\n    def rank(self, query):\n"
                                 "        return sorted(self.docs)\n",
             "docs/search.md": "# Search\n\nThe search engine ranks the documents of its "
                               "corpus; the BM25 index is built again when it changes.\n"}
    from helix.core.config import HelixConfig

    index = files_index(files)
    env = ask(index, LONG)
    assert env.route == "explanation"
    assert {"path_words", "test_targets"} <= set(env.controller_steps[0].channels)
    assert any(e.path == "docs/search.md" for e in env.evidence)  # the docs are still read
    assert env.evidence[0].path == "search/engine.py"
    config = HelixConfig.model_validate(
        {"retrieval": {"routing": {"long_question_words": 100}}})
    plain = ask(index, LONG, config)  # the explanation route's own policy: no report channels
    assert plain.route == "explanation"
    assert "test_targets" not in plain.controller_steps[0].channels
