"""Inside the files the evidence leads with, the definition whose name and body hold the
question's words joins the evidence (`controller.file_defs`, `retrieval.file_defs`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.file_defs import best_definitions, definition_score, promotions
from controller.text import name_tokens, spelled_out
from helix.core.policy import FileDefsPolicy
from helix.core.schemas import Chunk

POLICY = FileDefsPolicy(enabled=True)


def _chunk(path: str, symbol: str | None, text: str, start: int, def_kind: str = "method"
           ) -> Chunk:
    return Chunk(id=f"{path}:{start}", path=path, kind="code_def", lang="python",
                 start_line=start, end_line=start + text.count("\n"), text=text,
                 content_hash="sha256:0", symbol=symbol, def_kind=def_kind,  # type: ignore[arg-type]
                 node_id=f"def:{path}::{symbol}")


HEADER = _chunk("reflow/config.py", "ReflowConfig",
                'class ReflowConfig:\n    """Configuration of the reflow: spacing and indent."""\n',
                10, def_kind="class")
MERGE = _chunk("reflow/config.py", "ReflowConfig.merge_spacing",
               "def merge_spacing(self, other):\n    \"\"\"Merge spacing values: a later value "
               "overrides an earlier one.\"\"\"\n    return {**self.spacing, **other}\n", 40)
OTHER = _chunk("reflow/config.py", "ReflowConfig.from_dict",
               "def from_dict(cls, data):\n    return cls(**data)\n", 60)


def test_name_parts_are_split_and_stemmed() -> None:
    assert name_tokens("ReflowConfig.merge_spacings") == {"reflow", "config", "merge", "spacing"}


def test_the_method_that_does_the_work_leads_before_its_class() -> None:
    question = frozenset({"merge", "spacing", "value", "override"})
    assert definition_score(question, MERGE, POLICY) > definition_score(question, HEADER, POLICY)
    promoted = promotions(question, [HEADER], {"reflow/config.py": [HEADER, MERGE, OTHER]},
                          POLICY)
    assert promoted == [(0, MERGE)]


def test_a_names_short_words_answer_the_words_they_stand_for() -> None:
    """"the browser context identifier" is `BrowserContextID`; "as a dictionary", `to_dict`."""
    ident = _chunk("cdp/browser.py", "BrowserContextID.from_json",
                   "def from_json(cls, json):\n    return cls(json)\n", 21)
    other = _chunk("cdp/browser.py", "BrowserContext.close",
                   "def close(self):\n    self.closed = True\n", 40)
    question = frozenset({"browser", "context", "identifier", "json"})
    spelled, literal = (POLICY.model_copy(update={"long_forms": on}) for on in (True, False))
    assert definition_score(question, ident, spelled) > definition_score(question, ident, literal)
    assert definition_score(question, other, spelled) == definition_score(question, other,
                                                                          literal)
    assert best_definitions(question, [other, ident], spelled, 1)[0][3] == ident
    assert spelled_out(frozenset({"to", "dict"})) == {"to", "dict", "dictionary", "dictionarie"}
    assert spelled_out(frozenset({"dir"})) == {"dir", "directory", "directorie"}  # plural stem


def test_nothing_joins_when_the_evidence_already_shows_the_best() -> None:
    question = frozenset({"merge", "spacing"})
    assert promotions(question, [MERGE], {"reflow/config.py": [HEADER, MERGE, OTHER]},
                      POLICY) == []
    assert promotions(frozenset({"unrelated"}), [HEADER],
                      {"reflow/config.py": [HEADER, MERGE, OTHER]}, POLICY) == []


def test_a_file_led_by_a_function_keeps_what_retrieval_chose() -> None:
    question = frozenset({"merge", "spacing", "value", "override"})
    assert promotions(question, [OTHER], {"reflow/config.py": [HEADER, MERGE, OTHER]},
                      POLICY) == []


def test_the_next_best_definitions_of_the_first_files_are_picked_for_the_tail() -> None:
    from controller.file_defs import depth_picks

    deep = POLICY.model_copy(update={"depth": 1, "depth_files": 1})
    question = frozenset({"merge", "spacing", "value", "override"})
    picked = depth_picks(question, [HEADER, MERGE],
                         {"reflow/config.py": [HEADER, MERGE, OTHER]}, deep)
    assert picked == []  # OTHER holds none of the question's words: nothing below min_score
    spacing = _chunk("reflow/config.py", "ReflowConfig.spacing_value",
                     "def spacing_value(self):\n    return self.spacing\n", 80)
    picked = depth_picks(question, [HEADER], {"reflow/config.py": [HEADER, MERGE, OTHER,
                                                                    spacing]}, deep)
    assert picked == [MERGE]  # the best one not in the evidence yet; one per file (depth 1)
    assert depth_picks(question, [HEADER], {"reflow/config.py": [MERGE]},
                       POLICY.model_copy(update={"depth": 0})) == []


_WORDS = ["spacing", "Spacing", "merge", "mergeSpacings", "indent", "values", "ΣΑΣ", "K", "x"]


@given(st.lists(st.tuples(st.lists(st.sampled_from(_WORDS), max_size=6),
                          st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3)),
                max_size=12),
       st.frozensets(st.sampled_from(["spacing", "merge", "indent", "value", "σας", "k"]),
                     min_size=1, max_size=4),
       st.integers(1, 3), st.sampled_from([0.0, 0.25, 0.6]))
def test_bounded_scoring_keeps_what_scoring_every_definition_keeps(
        shapes: list[tuple[list[str], list[str]]], question: frozenset[str], count: int,
        min_score: float) -> None:
    """Definitions whose bound cannot reach the kept ones are never tokenized, and the picks
    are those of scoring all of them and sorting (ties by line, then id)."""
    policy = FileDefsPolicy(enabled=True, min_score=min_score)
    defs = [_chunk("m.py", "_".join(name), " ".join(body), 10 + 5 * i)
            for i, (body, name) in enumerate(shapes)]
    everything = sorted(((definition_score(question, c, policy), c.start_line, c.id, c)
                         for c in defs), key=lambda t: (-t[0], t[1], t[2]))
    expected = [t for t in everything[:count] if t[0] >= min_score]
    assert best_definitions(question, defs, policy, count) == expected


# a descriptive question: a dozen content words (`FileDefsPolicy.descriptive_words`)
DESCRIPTIVE = frozenset({"json", "deserialization", "factory", "method", "browser", "context",
                         "identifier", "type", "wrapper", "instead", "direct", "constructor"})
FROM_JSON = _chunk("cdp/browser.py", "BrowserContextID.from_json",
                   "def from_json(cls, json):\n    return cls(json)\n", 25)
CANCEL = _chunk("cdp/browser.py", "cancel_download",
                "def cancel_download(guid, browser_context_id=None):\n    \"\"\"Cancel a "
                "download in the browser context.\"\"\"\n    return {'guid': guid}\n", 423,
                def_kind="function")


def test_a_descriptive_question_gets_the_files_best_definition_before_its_function() -> None:
    """A file led by a function a few shared words chose: for a descriptive question its
    definition the question's words name goes first when it scores `over_lead` times more;
    a short question keeps what retrieval chose."""
    files = {"cdp/browser.py": [CANCEL, FROM_JSON]}
    assert len(DESCRIPTIVE) >= POLICY.descriptive_words
    assert definition_score(DESCRIPTIVE, FROM_JSON, POLICY) >= POLICY.over_lead * \
        definition_score(DESCRIPTIVE, CANCEL, POLICY)
    assert promotions(DESCRIPTIVE, [CANCEL], files, POLICY, True) == [(0, FROM_JSON)]
    # the same words as a report or a commit message (not a question): retrieval's choice
    assert promotions(DESCRIPTIVE, [CANCEL], files, POLICY, False) == []
    short = frozenset({"browser", "context", "identifier", "json"})
    assert promotions(short, [CANCEL], files, POLICY, True) == []
    off = POLICY.model_copy(update={"over_lead": 0.0})
    assert promotions(DESCRIPTIVE, [CANCEL], files, off, True) == []
    higher = POLICY.model_copy(update={"over_lead": 100.0})
    assert promotions(DESCRIPTIVE, [CANCEL], files, higher, True) == []


def test_the_definition_route_picks_in_files_for_descriptive_questions_only() -> None:
    from controller.file_defs import applies

    assert applies(DESCRIPTIVE, "definition", POLICY, True)
    assert not applies(DESCRIPTIVE, "definition", POLICY, False)  # a statement, not a question
    assert not applies(frozenset({"cavity"}), "definition", POLICY, True)
    assert applies(frozenset({"cavity"}), "explanation", POLICY, False)
    assert not applies(DESCRIPTIVE, "usage", POLICY, True)
    assert not applies(DESCRIPTIVE, "explanation", POLICY.model_copy(update={"enabled": False}),
                       True)


def test_the_first_files_best_answering_run_leads_a_descriptive_question() -> None:
    """Among the first files' leading runs, the one whose best definition scores highest
    (less `lead_rank_cost` a place down) leads; retrieval's first file keeps its place when
    the question anchors it (an exact name, a path) or names its file."""
    from controller.file_defs import lead_choice

    trade = _chunk("fx/FxNdfTrade.java", "FxNdfTrade.Builder.product",
                   "Builder product(FxNdf product) { return this; }\n", 389)
    runs = [[CANCEL], [OTHER], [FROM_JSON]]
    assert lead_choice(DESCRIPTIVE, runs, False, frozenset(), POLICY) == 2
    assert lead_choice(DESCRIPTIVE, runs, True, frozenset(), POLICY) == 0  # anchored
    assert lead_choice(DESCRIPTIVE, [[FROM_JSON], [CANCEL]], False, frozenset(), POLICY) == 0
    assert lead_choice(DESCRIPTIVE, [[CANCEL]], False, frozenset(), POLICY) == 0
    # a cost per place larger than any score difference keeps retrieval's order
    costly = POLICY.model_copy(update={"lead_rank_cost": 10.0})
    assert lead_choice(DESCRIPTIVE, runs, False, frozenset(), costly) == 0
    # the question spells the first file's name: `FxNdf` keeps FxNdf.java first
    ndf = _chunk("fx/FxNdf.java", "FxNdf.equals", "boolean equals(Object o) {}\n", 255)
    words = frozenset({"fxndf", "builder", "product", "pattern", "serialization"})
    assert lead_choice(words, [[ndf], [trade]], False, frozenset(), POLICY) == 1
    assert lead_choice(words, [[ndf], [trade]], False, frozenset({"fxndf"}), POLICY) == 0


def test_the_driver_moves_the_answering_run_first_and_keeps_the_rest_in_order() -> None:
    from controller.driver import _file_lead
    from controller.evidence import Candidate
    from controller.file_defs import question_tokens
    from controller.reasons import Reason
    from controller.route import route_question
    from helix.core.policy import RoutingPolicy

    plan = route_question("Why is a JSON deserialization factory method implemented in a "
                          "browser context identifier type wrapper instead of using direct "
                          "deserialization through the class constructor?",
                          routing=RoutingPolicy())
    question = question_tokens(plan)
    assert len(question) >= POLICY.descriptive_words
    found = Reason(code="rank", channel="bm25", rank=1)
    ranked = [Candidate(chunk=c, score=1.0 - i / 10, reasons=(found,), step=1)
              for i, c in enumerate([CANCEL, OTHER, MERGE, FROM_JSON, HEADER])]
    # FROM_JSON shares cdp/browser.py with CANCEL: the runs are CANCEL, OTHER+MERGE, FROM_JSON
    order = [c.chunk for c in _file_lead(plan, question, ranked, POLICY)]
    assert order == [CANCEL, OTHER, MERGE, FROM_JSON, HEADER]  # CANCEL's file holds the best
    moved = [ranked[1], ranked[2], ranked[3]]
    order = [c.chunk for c in _file_lead(plan, question, moved, POLICY)]
    assert order == [FROM_JSON, OTHER, MERGE]
    exact = Reason(code="symbol_exact", name="from_json")
    anchored = [moved[0].model_copy(update={"reasons": (exact,)}), *moved[1:]]
    assert _file_lead(plan, question, anchored, POLICY) == anchored


def test_a_file_both_whole_file_channels_rank_first_keeps_the_lead() -> None:
    """Round 21: retrieval's first file keeps its place when both whole-file channels (`files`
    and `file_bm25`) rank it first (`lead_agreed`); one of them alone does not hold it, and
    with `lead_agreed` off the answering run of another file leads as before."""
    from controller.driver import _file_lead
    from controller.evidence import Candidate
    from controller.file_defs import question_tokens, whole_file_first
    from controller.reasons import Reason
    from controller.route import route_question
    from helix.core.policy import RoutingPolicy

    plan = route_question("Why is a JSON deserialization factory method implemented in a "
                          "browser context identifier type wrapper instead of using direct "
                          "deserialization through the class constructor?",
                          routing=RoutingPolicy())
    question = question_tokens(plan)
    files, file_bm25 = (Reason(code="rank", channel=ch, rank=1) for ch in ("files", "file_bm25"))
    second = Reason(code="rank", channel="file_bm25", rank=2)
    on = POLICY.model_copy(update={"lead_agreed": True})  # off by default since round 22
    assert whole_file_first([files, file_bm25], on)
    assert not whole_file_first([files, second], on)
    assert not whole_file_first([files], on)
    assert not whole_file_first([files, file_bm25], POLICY)

    def ranked(*lead: Reason) -> list[Candidate]:
        found = Reason(code="rank", channel="bm25", rank=2)
        return [Candidate(chunk=OTHER, score=1.0, reasons=(found, *lead), step=1),
                Candidate(chunk=MERGE, score=0.9, reasons=(found,), step=1),
                Candidate(chunk=FROM_JSON, score=0.8, reasons=(found,), step=1)]

    agreed = ranked(files, file_bm25)
    assert _file_lead(plan, question, agreed, on) == agreed
    assert [c.chunk for c in _file_lead(plan, question, agreed, POLICY)] == [
        FROM_JSON, OTHER, MERGE]
    one = ranked(files, second)
    assert [c.chunk for c in _file_lead(plan, question, one, on)] == [FROM_JSON, OTHER, MERGE]


def test_the_first_files_next_best_definition_can_reach_the_first_five() -> None:
    """Round 14: the depth picks (the first files' next best definitions) went to the tail,
    where 16 of the validation set's 44 span misses inside a leading file had the answering
    definition; `depth_lead` of them go to place `depth_at` + 1, the rest stay at the tail."""
    from controller.file_defs import with_picks

    ranked, picks = ["a", "b", "c", "d", "e", "f"], ["p1", "p2", "q1"]
    assert with_picks(ranked, picks, 0, 4) == ranked + picks  # off: all at the tail
    out = with_picks(ranked, picks, 1, 4)
    assert out == ["a", "b", "c", "d", "p1", "e", "f", "p2", "q1"]
    assert with_picks(ranked, picks, 1, 1)[:3] == ["a", "p1", "b"]
    assert with_picks(["a"], picks, 1, 4) == ["a", "p1", "p2", "q1"]  # shorter than the place


def test_a_depth_pick_enters_the_first_five_only_over_a_weaker_item() -> None:
    """The first file's next best definition takes place `depth_at` + 1 when it answers the
    question at least as well as the item it pushes out of that place (`picks_ahead`)."""
    from controller.file_defs import picks_ahead

    question = frozenset({"merge", "spacing", "value", "override"})
    lead = POLICY.model_copy(update={"depth_lead": 1, "depth_at": 1})
    assert picks_ahead(question, [MERGE], [HEADER, OTHER], lead) == 1  # OTHER: no word shared
    assert picks_ahead(question, [OTHER], [HEADER, MERGE], lead) == 0  # MERGE answers better
    assert picks_ahead(question, [MERGE], [HEADER], lead) == 0  # nothing there to push out
    assert picks_ahead(question, [MERGE], [HEADER, OTHER],
                       lead.model_copy(update={"depth_lead": 0})) == 0
    assert picks_ahead(question, [MERGE], [OTHER, HEADER], lead) == 1
    assert picks_ahead(question, [MERGE], [OTHER, HEADER],
                       lead.model_copy(update={"depth_over": 100.0})) == 0
    in_tests = MERGE.model_copy(update={"path": "tests/test_config.py"})
    assert picks_ahead(question, [in_tests], [HEADER, OTHER], lead) == 0  # a test's: the tail
    assert picks_ahead(question, [in_tests], [HEADER, OTHER],
                       lead.model_copy(update={"depth_tests": True})) == 1


def test_round_14s_first_file_pick_reaches_place_five() -> None:
    """Round 14's candidate: one depth pick at place 5 (fails before round 14: all at the
    tail)."""
    from controller.file_defs import picks_ahead, with_picks

    question = frozenset({"merge", "spacing", "value", "override"})
    ranked = [HEADER, OTHER, OTHER, OTHER, OTHER, OTHER]
    assert picks_ahead(question, [MERGE], ranked, POLICY) == POLICY.depth_lead
    on = POLICY.model_copy(update={"depth_lead": 1})
    lead = picks_ahead(question, [MERGE], ranked, on)
    assert lead == 1 and with_picks(ranked, [MERGE], lead, POLICY.depth_at)[4] == MERGE


def test_a_depth_pick_pushes_out_only_a_repeat_of_a_shown_file() -> None:
    """Round 15 (`depth_repeats`): at place 5 the pick pushed a later file's only place in
    the first five out of them (the eval suites: rich's markup.py 5 -> 6) and every later
    place one down; it now enters only over an item whose file is shown above it."""
    from controller.file_defs import picks_ahead

    question = frozenset({"merge", "spacing", "value", "override"})
    lead = POLICY.model_copy(update={"depth_lead": 1, "depth_at": 2, "depth_repeats": True})
    cli, web = (_chunk(f"reflow/{name}.py", "main", "def main():\n    run()\n", 5)
                for name in ("cli", "web"))
    assert picks_ahead(question, [MERGE], [HEADER, cli, web], lead) == 0  # web.py's only place
    assert picks_ahead(question, [MERGE], [HEADER, cli, OTHER], lead) == 1  # config.py again
    assert picks_ahead(question, [MERGE], [HEADER, cli, web],
                       lead.model_copy(update={"depth_repeats": False})) == 1


def test_the_first_file_pick_is_on_by_default_over_a_repeat_only() -> None:
    """Round 15's default: one pick at place 5 over an item whose file is shown above it
    (dev and validation up, the eval suites' gate holds); never over a file's only place."""
    from controller.file_defs import picks_ahead

    question = frozenset({"merge", "spacing", "value", "override"})
    cli, web, api, net = (_chunk(f"reflow/{name}.py", "main", "def main():\n    run()\n", 5)
                          for name in ("cli", "web", "api", "net"))
    assert picks_ahead(question, [MERGE], [HEADER, cli, web, api, OTHER], POLICY) == 1
    assert picks_ahead(question, [MERGE], [HEADER, cli, web, api, net], POLICY) == 0
