"""The deterministic answer reads like an answer: it leads with the span that answers, says in
one sentence what kind of answer it is, then the rest, each with `path:line`; a changelog, a
license or an example command never leads; any subject reads grammatically; nothing found says
what was searched. (The same text on real fixture indexes: tests/test_answer_golden.py.)"""

from __future__ import annotations

import re

import pytest
from route_helpers import route_question

from controller.answer import build_answer
from controller.answer_text import quote
from helix.core.envelope import Clarify, ClarifyOption, EvidenceItem, EvidenceKind, SlotCoverage
from helix.synthesis.contract import extract_citations
from helix.synthesis.prompt import citation_refs

FULL = SlotCoverage(required=(), covered=(), missing=(), ratio=1.0)
CITE = re.compile(r"[\w./-]+\.\w+:\d+(?:-\d+)?|[A-Z]+:\d+(?:-\d+)?")


def _item(path: str, text: str, node_id: str, kind: EvidenceKind = "doc", start: int = 10,
          symbol: str | None = None, heading: str | None = None,
          reasons: tuple[str, ...] = (), codes: tuple[str, ...] = ()) -> EvidenceItem:
    end = start + max(0, len(text.splitlines()) - 1)
    return EvidenceItem(id=f"ev-{path}-{start}", path=path, start_line=start, end_line=end,
                        kind=kind, score=1.0, content_hash="sha256:0", node_id=node_id,
                        reasons=reasons, reason_codes=codes, text=text,
                        chunk_id=f"c-{path}-{start}",
                        symbol=symbol, heading=heading)


def _code(path: str, symbol: str, text: str, kind: EvidenceKind = "code",
          start: int = 10) -> EvidenceItem:
    return _item(path, text, f"def:{path}::{symbol}", kind, start, symbol=symbol)


def _doc(path: str, heading: str, text: str, start: int = 10,
         kind: EvidenceKind = "doc") -> EvidenceItem:
    return _item(path, text, f"sec:{path}#{start}", kind, start, heading=heading)


def _answer(question: str, evidence: list[EvidenceItem], coverage: SlotCoverage = FULL,
            clarify: Clarify | None = None) -> str:
    return build_answer(route_question(question), evidence, coverage, clarify)


DECIDE = _code("fetchy/retry.py", "decide_retry",
               "def decide_retry(attempt: int, status: int) -> float | None:\n"
               '    """Seconds to wait before the next attempt, or None to give up."""\n'
               "    return 0.5 * 2 ** attempt\n", start=9)
CHANGELOG = _doc("CHANGELOG.md", "Changelog > 1.2.0",
                 "## 1.2.0\n\n- The retry policy now doubles the delay after every attempt.\n",
                 start=3)
LICENSE = _item("LICENSE", "MIT License\n\nPermission to use, copy and retry the retry policy.\n",
                "file:LICENSE", "doc", 1)
README_COMMAND = _doc("README.md", "fetchy",
                      "# fetchy\n\nfetchy downloads files.\n\n```\n"
                      "$ fetchy get URL --retry-policy exponential\n```\n", start=1)
README_POLICY = _doc("README.md", "fetchy > Retry policy",
                     "## Retry policy\n\nThe retry policy decides how long to wait before the "
                     "next attempt.\n`decide_retry` doubles the delay.\n", start=11)


# --- quotes -----------------------------------------------------------------------------------


def test_doc_quotes_lose_bullets_headings_and_emphasis() -> None:
    assert quote("- **Tokenizer**: splits words", markdown=True) == "Tokenizer: splits words"
    assert quote("## Retry policy", markdown=True) == "Retry policy"
    assert quote("> 1. first __step__", markdown=True) == "first step"


def test_code_quotes_keep_every_character() -> None:
    for line in ("*ptr = value;", "- 1", "def f(a, *args, **kw):", "x = a ** b"):
        assert quote(line) == line


def test_answer_shows_no_raw_markdown_bullet() -> None:
    doc = _doc("README.md", "Tokenizer",
               "## Tokenizer\n- **Tokenizer** splits words on case changes.")
    answer = _answer("How does the tokenizer split words?", [doc])
    assert "Tokenizer splits words on case changes." in answer
    assert "- -" not in answer and "**" not in answer


# --- the lead: the span that answers, in one plain sentence ---------------------------------


def test_a_definition_leads_with_its_signature_and_docstring() -> None:
    bm25 = _code("indexers/bm25.py", "BM25Index",
                 'class BM25Index:\n    """Eager BM25 scores in CSC form."""\n', "definition",
                 start=120)
    other = _code("indexers/reader.py", "Index._bm25",
                  "def _bm25(self) -> BM25Index:\n    return self._load()\n", start=160)
    lines = _answer("what is BM25Index?", [other, bm25]).splitlines()
    assert lines[0] == "`BM25Index` is a class defined in indexers/bm25.py:120-121:"
    assert lines[1] == "    class BM25Index - Eager BM25 scores in CSC form."
    assert "- `Index._bm25`: def _bm25(self) -> BM25Index [indexers/reader.py:160-161]" in lines


def test_a_doc_definition_leads_with_the_sentence_that_states_it() -> None:
    heading = _doc("docs/phase-lock.md", "Phase lock", "# Phase lock", start=1,
                   kind="definition")
    body = _doc("docs/phase-lock.md", "Phase lock > What phase lock means here",
                "## What phase lock means here\n\nLumen runs a feedback loop. In Lumen, *phase "
                "lock* is the state in which the laser\nfrequency is held on a resonance.\n",
                start=3)
    lines = _answer("What does phase lock mean?", [heading, body]).splitlines()
    assert lines[0] == ("The section “What phase lock means here” (docs/phase-lock.md:5-6) "
                        "defines phase lock:")
    assert lines[1] == ("    In Lumen, phase lock is the state in which the laser frequency "
                        "is held on a resonance.")


def test_a_location_sentence_echoes_the_question_subject_and_verb() -> None:
    module = _item("fetchy/client.py", '"""The client, retried as the retry policy decides."""',
                   "file:fetchy/client.py", "code", 1)
    answer = _answer("where is the retry policy decided?", [module, README_POLICY, DECIDE])
    assert answer.splitlines()[:2] == [
        "The retry policy is decided in `decide_retry`, fetchy/retry.py:9-11:",
        "    def decide_retry(attempt: int, status: int) -> float | None - Seconds to wait "
        "before the next attempt, or None to give up."]
    plural = _code("cfg/env.py", "read_environment_variables",
                   "def read_environment_variables():\n    return dict(os.environ)\n")
    first = _answer("where are environment variables read?", [plural]).splitlines()[0]
    assert first == ("Environment variables are read in `read_environment_variables`, "
                     "cfg/env.py:10-11:")


def test_an_explanation_leads_with_the_code_that_holds_the_question_words() -> None:
    tokenizer_doc = _doc("docs/search.md", "Search > Building the index",
                         "## Building the index\n\nIt tokenizes every document with the "
                         "tokenizer.\n")
    tokenize = _code("search/tokenizer.py", "tokenize",
                     'def tokenize(text: str) -> list[str]:\n    """Split text into lower-case '
                     'word tokens."""\n')
    lines = _answer("how does the tokenizer split words?", [tokenizer_doc, tokenize]).splitlines()
    assert lines[0] == "The code that does this is `tokenize`, in search/tokenizer.py:10-11:"
    assert "Documented in:" in lines


# --- what never leads --------------------------------------------------------------------------


def test_a_changelog_or_license_never_leads_when_a_span_answers() -> None:
    answer = _answer("how does the retry policy work?",
                     [CHANGELOG, LICENSE, README_POLICY, DECIDE])
    first = answer.splitlines()[0]
    assert "CHANGELOG" not in first and "LICENSE" not in first
    assert first == "The section “Retry policy” (README.md:13-14) explains the retry policy:"
    assert "LICENSE" not in answer.split("\n\n", 1)[0]
    # the changelog even states it ("X is ..."); the README defines it by its heading
    stating = CHANGELOG.model_copy(update={"text": "## 1.2.0\n\n- The retry policy is now "
                                           "exponential.\n", "kind": "definition"})
    heading = README_POLICY.model_copy(update={"kind": "definition"})
    definition = _answer("what is the retry policy?", [stating, heading])
    assert definition.splitlines()[0].startswith("The section “Retry policy” (README.md:13-14)")


def test_a_changelog_the_question_names_may_lead() -> None:
    answer = _answer("what does the changelog say about the retry policy?",
                     [CHANGELOG, README_POLICY],
                     SlotCoverage(required=("document", "topic"), covered=("document", "topic"),
                                  missing=(), ratio=1.0,
                                  by_slot={"document": (CHANGELOG.id,),
                                           "topic": (CHANGELOG.id,)}))
    assert answer.splitlines()[0] == ("CHANGELOG.md says this about the retry policy, in the "
                                      "section “1.2.0” (CHANGELOG.md:5):")


def test_documented_in_lists_prose_about_the_subject_never_a_command_line() -> None:
    answer = _answer("where is the retry policy decided?", [DECIDE, README_COMMAND,
                                                           README_POLICY])
    documented = answer.split("Documented in:", 1)[1]
    assert "README.md:13" in documented and "The retry policy decides" in documented
    assert "$ fetchy" not in answer and "--retry-policy" not in answer


def test_a_location_answer_does_not_call_a_test_documentation() -> None:
    test = _code("tests/test_build.py", "test_search_index_built",
                 "def test_search_index_built():\n    assert True\n", "test")
    doc = _doc("README.md", "Search index", "## Search index\nThe search index is built by "
               "build().")
    answer = _answer("where is the search index built?", [test, doc])
    assert "tests/test_build.py" not in answer
    assert answer.startswith("No code that names the search index was found")


# --- grammar for any subject -----------------------------------------------------------------

LONG_QUESTION = ("When I run the ask command on a repository that has a changelog and a "
                 "license the answer leads with a line of the changelog instead of the code "
                 "that splits words, and the heading repeats my whole question, what is going "
                 "on with the tokenizer and the ranking of the evidence")


@pytest.mark.parametrize("question", [
    "where are environment variables read?",
    "what are tiles?",
    "what is the retry policy of the HTTP client in this repository?",
    "how does the tokenizer split words?",
    "explain the ingest pipeline",
    LONG_QUESTION,
])
def test_no_sentence_pastes_a_long_subject_or_a_placeholder(question: str) -> None:
    evidence = [README_POLICY, DECIDE, CHANGELOG]
    answer = _answer(question, evidence)
    sentences = [ln for ln in answer.splitlines() if ln and not ln.startswith(("- ", "    "))]
    for sentence in sentences:
        prose = CITE.sub("", sentence)
        assert "the question:" not in prose and " is (best first)" not in prose, sentence
        assert len(prose) <= 140, sentence
    words = LONG_QUESTION.lower().split()
    runs = {" ".join(words[i:i + 7]) for i in range(len(words) - 6)}
    assert not any(run in answer.lower() for run in runs)
    # a topic assembled from a long question's words is never pasted as a phrase
    topic = route_question(question).subjects.get("topic", ("",))[0]
    if len(topic.split()) > 3 and topic.lower() not in question.lower():
        assert topic.lower() not in answer.lower()


def test_a_subject_no_span_names_leads_with_the_closest_span_never_an_absence() -> None:
    from helix.synthesis.absence import absence_claims

    answer = _answer("where is the zyxwvut flux capacitor configured?", [DECIDE, README_POLICY])
    lines = answer.splitlines()
    assert lines[0] == "The closest match for the zyxwvut flux capacitor is fetchy/retry.py:9-11:"
    assert lines[1].strip().startswith("def decide_retry(")  # its answering lines, quoted
    assert "README.md:13" in answer
    assert "Not shown by the evidence" not in answer
    assert absence_claims(answer) == []  # an answer citing evidence never claims absence


def test_nothing_defines_a_term_no_span_defines() -> None:
    mention = _doc("README.md", "Intro", "# Intro\n\nWe talk about widgets here.\n", start=1)
    answer = _answer("what is a frobnicator?", [mention])
    assert answer.startswith("The closest match for a frobnicator is README.md:")


# --- every route -------------------------------------------------------------------------------


def test_usage_counts_the_call_sites_and_shows_the_definition() -> None:
    caller = _code("fetchy/client.py", "fetch", "def fetch(url):\n    delay = decide_retry(0, "
                   "503)\n    return delay\n", start=12)
    definition = DECIDE.model_copy(update={"kind": "definition"})
    lines = _answer("who calls decide_retry?", [definition, caller]).splitlines()
    assert lines[:2] == ["The evidence shows 1 call of `decide_retry`:",
                         "- delay = decide_retry(0, 503) (in `fetch`) [fetchy/client.py:13]"]
    assert "`decide_retry` is defined in fetchy/retry.py:9-11:" in lines


def test_relation_names_the_span_with_both_sides() -> None:
    both = _doc("docs/search.md", "Building the index", "## Building the index\n\nThe BM25 "
                "index is built from the tokenizer's tokens.\n")
    lines = _answer("how does the tokenizer relate to the BM25 index?", [both]).splitlines()
    assert lines[0] == ("Both the tokenizer and the BM25 index appear in the section “Building "
                        "the index” (docs/search.md:12):")


def test_value_check_quotes_the_line_with_the_unit() -> None:
    method = _code("lumen/cavity.py", "OpticalCavity.radiation_pressure",
                   "def radiation_pressure(self) -> Quantity:\n    \"\"\"Pressure on a mirror, in "
                   "pascals.\"\"\"\n    return Quantity(p, 'Pa')\n", start=37)
    lines = _answer("Is the mirror radiation pressure in pascals?", [method]).splitlines()
    assert lines[:2] == ["The evidence gives the mirror radiation pressure in pascals, in "
                         "`OpticalCavity.radiation_pressure`, lumen/cavity.py:38:",
                         "    Pressure on a mirror, in pascals."]


def test_a_default_value_is_its_assignment() -> None:
    constants = _item("lumen/constants.py", '"""Constants."""\n\nFINESSE_TARGET = 1200\n',
                      "file:lumen/constants.py", "definition", 4)
    lines = _answer("what is the default finesse target?", [constants]).splitlines()
    assert lines[:2] == ["The value of the finesse target is set in lumen/constants.py:6:",
                         "    FINESSE_TARGET = 1200"]


def test_the_clarifier_says_what_each_sense_is() -> None:
    optics = _doc("docs/optics.md", "Cavity", "## Cavity\n\nA cavity in optics is a resonator: "
                  "two mirrors.\n")
    storage = _doc("docs/storage.md", "Cavity", "## Cavity\n\nIn storage a cavity is a free "
                   "region of a slab.\n")
    clarify = Clarify(question="'cavity' means different things in this repository: which one?",
                      options=(ClarifyOption(label="cavity: optics", sense="a", evidence=(optics,)),
                               ClarifyOption(label="cavity: storage", sense="b",
                                             evidence=(storage,))),
                      searched_terms=("cavity",), top_candidates=())
    lines = _answer("what is a cavity?", [optics, storage], clarify=clarify).splitlines()
    assert lines == [clarify.question,
                     "1. cavity: optics: A cavity in optics is a resonator: two mirrors. "
                     "[docs/optics.md:10-12]",
                     "2. cavity: storage: In storage a cavity is a free region of a slab. "
                     "[docs/storage.md:10-12]"]


def test_no_evidence_says_what_was_searched_bounded() -> None:
    plan = route_question("where is the " + " ".join(f"zq{i}word" for i in range(12))
                          + " configured in tests/?")
    answer = build_answer(plan, [], FULL, None)
    lines = answer.splitlines()
    assert lines[0] == "Nothing in the repository matched the question: no evidence was found."
    assert lines[1].startswith("Searched the documentation and code under tests/ (word search, "
                               "symbol and file names) for “zq0word”, “zq1word”")
    assert lines[1].endswith("“zq7word” and 4 more.") and "zq8word" not in answer
    ran = build_answer(plan, [], FULL, None, channels=["symbol", "bm25", "bm25", "path"])
    assert ran.splitlines()[1].startswith("Searched the documentation and code under tests/ for")
    assert ran.splitlines()[2] == "Channels: bm25, path, symbol."


def test_missing_slots_are_said_in_plain_words() -> None:
    doc = _doc("README.md", "Tokenizer", "## Tokenizer\nSplits words.")
    cov = SlotCoverage(required=("topic", "mechanism"), covered=("topic",),
                       missing=("mechanism",), ratio=0.5)
    answer = _answer("How does the tokenizer split words?", [doc], cov)
    assert answer.endswith("(Not shown by the evidence: code that does it.)")


# --- signatures ----------------------------------------------------------------------------


def test_a_decorated_definition_is_quoted_by_its_signature() -> None:
    code = _code("algo/weighted.py", "negative_edge_cycle",
                 '@nx._dispatchable(edge_attrs="weight")\n'
                 'def negative_edge_cycle(G, weight="weight"):\n'
                 '    """Returns True if there exists a negative edge cycle anywhere in G."""\n'
                 "    return False\n", "definition")
    answer = _answer("what is negative_edge_cycle?", [code])
    assert answer.splitlines()[1] == ('    def negative_edge_cycle(G, weight="weight") - Returns '
                                      "True if there exists a negative edge cycle anywhere in G.")
    assert "@nx" not in answer


def test_a_multi_line_decorator_and_signature_are_joined_to_one_line() -> None:
    code = _code("cli/index_cmd.py", "index", "@click.command()\n@click.option(\n"
                 '    "--index-dir",\n    help="Where the index lives.")\n'
                 "def index(\n    path: str,\n    index_dir: str,\n) -> None:\n"
                 "    \"\"\"Index a repository.\"\"\"\n", "definition")
    answer = _answer("where is the index command?", [code])
    assert answer.splitlines()[1] == ("    def index(path: str, index_dir: str,) -> None - Index "
                                      "a repository.")


# --- citations the contract accepts ----------------------------------------------------------


@pytest.mark.parametrize("question", [
    "where is the retry policy decided?", "how does the retry policy work?",
    "what is the retry policy?", "who calls decide_retry?",
])
def test_every_citation_names_sent_evidence(question: str) -> None:
    evidence = [DECIDE, README_POLICY, README_COMMAND, CHANGELOG]
    answer = _answer(question, evidence)
    _, citations, removed = extract_citations(answer, citation_refs(evidence))
    assert citations and removed == ()
    assert len(citations) == len({m.group(0) for m in CITE.finditer(answer)})


# --- found on the networkx questions ----------------------------------------------------------


def test_a_wrapped_docstring_gives_its_whole_first_sentence() -> None:
    code = _code("algo/simple_paths.py", "shortest_simple_paths",
                 'def shortest_simple_paths(G, source, target):\n'
                 '    """Generate all simple paths in the graph G from source to target,\n'
                 '    starting from shortest ones.\n\n    A simple path has no repeated nodes.\n'
                 '    """\n', "definition")
    lines = _answer("what is shortest_simple_paths?", [code]).splitlines()
    assert lines[1] == ("    def shortest_simple_paths(G, source, target) - Generate all simple "
                        "paths in the graph G from source to target, starting from shortest ones.")


def test_where_is_x_tested_leads_with_the_tests() -> None:
    code = _code("algo/weighted.py", "dijkstra_path", 'def dijkstra_path(G):\n    """One of '
                 'the weighted shortest path functions."""\n', "definition")
    test = _code("algo/tests/test_weighted.py", "TestWeighted",
                 'class TestWeighted:\n    """Tests of the weighted shortest path functions."""\n'
                 "    def test_dijkstra_path(self):\n        pass\n", "test")
    lines = _answer("where are the weighted shortest path functions tested?",
                    [code, test]).splitlines()
    assert lines[0] == ("The weighted shortest path functions are tested in `TestWeighted`, "
                        "algo/tests/test_weighted.py:10-13:")


def test_a_location_of_a_name_does_not_repeat_it() -> None:
    code = _code("algo/weighted.py", "dijkstra_path", 'def dijkstra_path(G):\n    """Path."""\n',
                 "definition", start=81)
    first = _answer("Where is dijkstra_path defined?", [code]).splitlines()[0]
    assert first == "`dijkstra_path` is defined in algo/weighted.py:81-82:"


def test_a_verb_the_route_does_not_know_is_not_part_of_the_subject() -> None:
    code = _code("algo/distance.py", "diameter", 'def diameter(G):\n    """The diameter of a '
                 'graph."""\n', "definition")
    first = _answer("Where is the diameter of a graph calculated?", [code]).splitlines()[0]
    assert first == "The diameter of a graph is calculated in `diameter`, algo/distance.py:10-11:"


def test_module_code_is_cited_with_in() -> None:
    module = _item("algo/dag.py", '"""Algorithms for directed acyclic graphs (DAGs)."""\n',
                   "file:algo/dag.py", "code", 1)
    first = _answer("How do I find the longest path in a directed acyclic graph?",
                    [module]).splitlines()[0]
    assert first in ("The code that does this is in algo/dag.py:1:",
                     "The closest code is in algo/dag.py:1:")


def test_a_shown_definition_is_not_also_reported_missing() -> None:
    error = _code("exception.py", "NetworkXNoPath",
                  'class NetworkXNoPath(NetworkXUnfeasible):\n    """No path."""\n', "definition")
    cov = SlotCoverage(required=("term", "definition_span"), covered=(),
                       missing=("term", "definition_span"), ratio=0.0)
    answer = _answer("What is NetworkXNoPath and what does it inherit from?", [error], cov)
    assert answer.splitlines()[0] == "`NetworkXNoPath` is a class defined in exception.py:10-11:"
    assert "Not shown by the evidence" not in answer


def test_a_default_is_the_keyword_default_of_the_owner_not_a_decorator() -> None:
    other = _code("algo/bipartite.py", "birank", "def birank(G, alpha=None):\n    return G\n")
    pagerank = _code("algo/pagerank_alg.py", "pagerank",
                     '@nx._dispatchable(edge_attrs="weight")\ndef pagerank(\n    G,\n'
                     "    alpha=0.85,\n    weight=\"weight\",\n):\n    return G\n", start=8)
    lines = _answer("What is the default damping factor alpha in pagerank?",
                    [other, pagerank]).splitlines()
    assert lines[:2] == ["The closest statement of the damping factor alpha is in `pagerank`, "
                         "algo/pagerank_alg.py:11:", "    alpha=0.85,"]


def test_an_explanation_leads_with_the_class_the_question_spells() -> None:
    helper = _code("algo/cycles.py", "_NeighborhoodCache",
                   'class _NeighborhoodCache(dict):\n    """Store the adjacency of a graph."""\n')
    graph = _item("classes/graph.py", 'class Graph:\n    """A graph."""\n',
                  "def:classes/graph.py::Graph", "definition", 10, symbol="Graph",
                  reasons=("symbol:exact",), codes=("symbol_exact",))
    first = _answer("How does Graph store its adjacency?", [helper, graph]).splitlines()[0]
    assert "`Graph`, in classes/graph.py:10-11" in first


def test_an_echoed_subject_is_the_one_the_route_cleaned_never_a_garbled_path() -> None:
    loader = _code("helix/cli/common.py", "load_settings",
                   "def load_settings():\n    return read('helix/core/config.py')\n",
                   "definition")
    first = _answer("where is helix/core/config.py loaded?", [loader]).splitlines()[0]
    assert "Helix core" not in first and "helix core config" not in first.lower()
    named = _code("a/b.py", "BM25Index", "class BM25Index:\n    pass\n", "definition")
    assert _answer("where is the BM25Index class defined?", [named]).splitlines()[0] == (
        "The BM25Index class is defined in a/b.py:10-11:")


def test_a_unit_the_evidence_denies_is_not_the_unit_it_states() -> None:
    from controller.coverage import measure
    from controller.units import denies_unit, stated_instead, states_unit

    method = _code("lumen/cavity.py", "OpticalCavity.modulus",
                   "def modulus(self) -> float:\n    \"\"\"Young's modulus of the mirror, given in "
                   "pascal (not GPa).\"\"\"\n    return self._modulus\n", start=37)
    lines = _answer("Is the mirror modulus in GPa?", [method]).splitlines()
    assert lines[0] == ("The evidence gives the mirror modulus in pascal, not in GPa, in "
                        "`OpticalCavity.modulus`, lumen/cavity.py:38:")
    assert not lines[0].startswith("The evidence gives the mirror modulus in GPa")
    # the slot the session gate reads: not covered, so the answer is never `confirmed`
    from controller.evidence import Candidate
    from helix.core.schemas import Chunk

    plan = route_question("Is the mirror modulus in GPa?")
    chunk = Chunk(id="c1", path=method.path, kind="code_def", lang="python",
                  start_line=method.start_line, end_line=method.end_line, text=method.text,
                  content_hash="sha256:0", symbol=method.symbol, node_id=method.node_id)
    candidate = Candidate(chunk=chunk, score=1.0, reasons=(), step=0)
    assert "unit_or_value" in measure(plan, [candidate]).missing
    assert states_unit("timeout in ms", "ms") and not states_unit("in s, never ms", "ms")
    assert denies_unit("(not in GPa)", "GPa") and stated_instead("in pascal (not GPa)", "GPa")


def test_a_section_that_introduces_a_list_is_summarised_with_its_items() -> None:
    section = _doc("docs/deploy.md", "Deployment > Rollbacks",
                   "## Rollbacks\n\nRollbacks restore the previous release:\n\n- run `deploy "
                   "rollback` with the release id\n- the database migrations are reverted first\n"
                   "- caches are flushed after the switch\n\nSee also monitoring.\n", start=20)
    answer = _answer("what does the deployment guide say about rollbacks?", [section])
    assert ("Rollbacks restore the previous release: run `deploy rollback` with the release "
            "id; the database migrations are reverted first; caches are flushed after the "
            "switch [docs/deploy.md:22-26]") in answer


def test_a_window_of_decorators_without_its_definition_line_shows_no_string_fragment() -> None:
    """A long decorated definition is cut into windows; the first may hold only decorators,
    whose continuation lines are strings: none of them is taken for a docstring."""
    head = _code("cli/index_cmd.py", "index",
                 '@click.command()\n@click.option("--cluster", metavar="ADDRESS",\n'
                 '              help="Index every repository as a task (`local`: one "\n'
                 '                   "started on this machine); see docs/deploy.md.")\n'
                 '@click.option("--force", is_flag=True, help="Rebuild from scratch.")\n',
                 start=97)
    lines = _answer("where is the index command?", [head]).splitlines()
    assert "started on this machine" not in "\n".join(lines)
    assert any("@click.command()" in line for line in lines)
