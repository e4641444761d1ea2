"""The meaning router (issue 32): a turn read by its meaning, the exact rules feeding it, what it
says when unsure, its model as data with a manifest. Sessions run over the continuity fixture
repository (dry run); the classifier's vectors come from the deterministic fake embedder unless
a test is marked as using the real encoder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from talk_fixtures import Q, Talk, config, indexed_copy

from controller.continuity.meaning import (
    CLASSES,
    FEATURE_NAMES,
    FLAG_NAMES,
    MEANINGS,
    MeaningModel,
    ordinals_in,
)
from controller.continuity.turn_plan import Reading
from evals.router_train import FORBIDDEN, MODEL_DIR, ROUTER_DIR, TRAIN_FILES, label_of
from evals.scenarios import SUITE_DIR
from helix.core.hashing import digest, digest_file
from helix.core.ports import FakeEmbedder
from helix.session.reader import session_reader


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def _reading(turn) -> dict | None:
    return next(e.data.get("reading") for e in turn.events if e.name == "turn_routed")


def _routed(turn) -> str:
    return next(e.data["intent"] for e in turn.events if e.name == "turn_routed")


def fixed(meaning: str, confidence: float = 0.99, second: str = "new_question",
          p: float = 0.0, *, on: str | None = None):
    """A reader that reads the message `on` (every message: None) as `meaning`, and `second`
    with probability `p`; any other message the way the vocabulary rules did."""
    seen: list = []

    def read(features):
        seen.append(features)
        if on is not None and features.text != on:
            rules = features.rules if features.rules in CLASSES else "new_question"
            return Reading(meaning=rules, confidence=1.0)
        return Reading(meaning=meaning, confidence=confidence, alternatives=((second, p),))

    read.seen = seen  # type: ignore[attr-defined]
    return read


class ReaderTalk(Talk):
    """A Talk whose turns are read by `reader` (none: the session's default reader)."""

    def __init__(self, root: Path, reader=None, **kw) -> None:
        super().__init__(root, **kw)
        self.reader = reader

    def __call__(self, text: str, reply_to: int | None = None):
        from helix.session.runner import run_turn

        return run_turn(self.name, text, root=self.root, config=self.config,
                        reply_to=reply_to, clock=self.clock, dry_run=True, reader=self.reader)


# --- the model is data, with a manifest --------------------------------------------------------

def test_the_shipped_model_matches_its_manifest_and_the_code():
    manifest = json.loads((MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))
    for name, hashed in manifest["files"].items():
        assert digest((MODEL_DIR / name).read_bytes()) == hashed, name
    head = json.loads((MODEL_DIR / "head.json").read_text(encoding="utf-8"))
    assert tuple(head["features"]) == FEATURE_NAMES and tuple(head["classes"]) == CLASSES
    assert tuple(manifest["classes"]) == CLASSES == tuple(MEANINGS)
    model = MeaningModel.load()
    assert len(model.texts) == model.vectors.shape[0] == sum(manifest["exemplars"].values())
    assert manifest["model_key"] == model.model_key and manifest["metrics"]["cv_accuracy"] > 0


def test_an_earlier_model_with_fewer_features_loads_for_a_benchmark(tmp_path):
    """`router_heldapart --before-model` runs the model a retraining replaces: one trained
    before a feature existed loads with that feature weighing nothing; as the shipped model
    it would be refused."""
    import shutil

    from helix.core.errors import ConfigError

    for name in ("exemplars.jsonl", "exemplars.npy"):
        shutil.copy(MODEL_DIR / name, tmp_path / name)
    head = json.loads((MODEL_DIR / "head.json").read_text(encoding="utf-8"))
    dropped = FEATURE_NAMES.index("pronoun")
    head["features"] = [n for n in head["features"] if n != "pronoun"]
    head["weights"] = [w for i, w in enumerate(head["weights"]) if i != dropped]
    (tmp_path / "head.json").write_text(json.dumps(head), encoding="utf-8")
    earlier = MeaningModel.load(tmp_path, earlier=True)
    assert earlier.weights.shape == MeaningModel.load().weights.shape
    assert not earlier.weights[dropped].any()
    with pytest.raises(ConfigError):
        MeaningModel.load(tmp_path)


def test_the_model_was_trained_on_the_current_tuning_data_only():
    manifest = json.loads((MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))
    trained = manifest["training_data"]
    assert not set(trained) & FORBIDDEN and not FORBIDDEN & set(TRAIN_FILES)
    for name, hashed in trained.items():
        path = ROUTER_DIR / name.removeprefix("router/") if name.startswith("router/") \
            else SUITE_DIR / name
        assert digest_file(path) == hashed, f"{name} changed: python -m evals.router_train"


def test_the_trainer_reads_every_training_writers_file_and_the_model_was_trained_on_them():
    written = {p.name for p in SUITE_DIR.glob("train_writer*.jsonl")}
    assert written and written <= set(TRAIN_FILES)
    manifest = json.loads((MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))
    trained = {n for n in manifest["training_data"] if not n.startswith("router/")}
    assert trained == set(TRAIN_FILES)


def test_a_turn_is_labelled_from_its_transition_and_lane_or_the_overrides():
    session = {"id": "s", "turns": [{"text": "x", "expect": {"transition": "T4",
                                                             "lane": "graph"}}]}
    assert label_of("heldapart_tune.jsonl", session, 1, {}, "new_question") == "callers"
    assert label_of("heldapart_tune.jsonl", session, 1, {}, "tests") == "tests"  # rules agree
    overrides = {("heldapart_tune", "s", 1): {"text": "x", "meaning": "pick"}}
    assert label_of("heldapart_tune.jsonl", session, 1, overrides, "tests") == "pick"
    session["turns"][0]["expect"] = {"transition": "T10", "lane": "boundary"}
    assert label_of("heldapart_tune.jsonl", session, 1, {}, "new_question") is None


# --- the features: exact rules feed the classifier ---------------------------------------------

def test_numbers_and_ordinals_anywhere_are_exact_features():
    assert ordinals_in("open result 40") == [40]
    assert ordinals_in("the third one in that list") == [3]
    assert ordinals_in("number to") == [2] and ordinals_in("option won") == [1]
    assert ordinals_in("the two mirrors") == [] and ordinals_in("open bm25.py:27") == []


def test_the_classifier_sees_the_state_the_rules_and_the_words(repo):
    reader = fixed("reopen", on="pull that up again")
    talk = ReaderTalk(repo, reader)
    talk(Q)
    talk("open the second one")
    talk("pull that up again")
    f = reader.seen[-1]
    flags = dict(zip(FLAG_NAMES, f.flags, strict=True))
    assert f.text == "pull that up again" and f.rules == "new_question"
    assert flags["has_focus"] == flags["has_list"] == flags["last_T3"] == 1.0
    assert flags["pronoun"] == 1.0 and flags["first_turn"] == 0.0


# --- readings become plans by the state ----------------------------------------------------------

def test_a_reading_the_rules_missed_is_acted_on(repo):
    talk = ReaderTalk(repo, fixed("reopen", on="pull that up again"))
    talk(Q)
    opened = talk("open the second one")
    again = talk("pull that up again")  # the rules: a new question; the reading: reopen
    assert (again.transition, again.lane, again.retrieval) == ("T5", "selection", False)
    assert again.opened is not None and again.opened.path == opened.opened.path


def test_exact_rules_are_never_overridden(repo):
    talk = ReaderTalk(repo)
    talk("what is a cavity?")
    talk.reader = fixed("chat", 1.0)  # from now on every message is read as small talk
    assert talk("the first").transition == "T7"  # a strict answer to the pending clarifier
    assert talk("stop").intent == "cancel"
    assert talk("start over").intent == "reset"
    scoped = talk("from the evidence, what does build_bm25_index mean?")
    assert scoped.lane == "semantic"  # a source cue: the rules' semantic lane


def test_a_described_option_answers_the_pending_clarifier(repo):
    text = "the one about a memory slab, the storage kind"
    seen = fixed("pick", on=text)
    talk = ReaderTalk(repo, lambda f: seen(f).model_copy(update={
        "option_scores": (0.31, 0.58) if f.text == text else ()}))
    talk("what is a cavity?")
    options = talk.state().pending.expected_type
    turn = talk(text)  # no option's words: the option its description is nearest to
    assert (turn.transition, turn.lane) == ("T7", "clarify_resume")
    assert "storage" in options.split("|")[1] and "storage/" in talk.state().root_frame.sense


def test_leaving_a_folder_out_narrows_to_the_others(repo):
    talk = ReaderTalk(repo, fixed("narrow", on="leave out the docs please"))
    talk(Q)
    listed = {i.target.path.split("/")[0] + "/" for i in talk.state().active_option_set().items
              if "/" in (i.target.path or "")}
    turn = talk("leave out the docs please")
    assert (turn.transition, turn.intent) == ("T2", "scope_rerun")
    assert "docs/" in listed
    kept = set(talk.state().root_frame.path_scope.split(","))
    assert kept == listed - {"docs/"}


def test_a_narrowing_after_an_answer_that_missed_its_subject_is_asked_again_in_scope(repo):
    # the writers' T2 turns after an opening whose evidence lacked its subject ("onyl search
    # folder", "exlcude tests"): the question is asked again in the scope, never a boundary
    talk = ReaderTalk(repo, fixed("narrow", on="just the search folder please"))
    talk("where is the tokenizer cache configured?")
    assert talk.state().coverage_gate_state.carryover_eligibility == "object_only"
    turn = talk("just the search folder please")
    assert (turn.transition, turn.intent, turn.retrieval) == ("T2", "scope_rerun", True)
    assert talk.state().root_frame.path_scope == "search/"


def test_a_graph_question_naming_the_focused_method_by_its_own_name_acts_on_the_focus(repo):
    # "callers of carve" with CavityPool.carve open: the focused object, not a new pick of it
    talk = ReaderTalk(repo, fixed("callers", on="so who calls rebuild then"))
    talk(Q)
    talk("open the third one")
    assert talk.state().selected_object.focus_object_ref.symbol == "SearchEngine.rebuild"
    turn = talk("so who calls rebuild then")
    assert (turn.transition, turn.lane, turn.intent) == ("T4", "graph", "graph_callers")


def test_a_listed_name_typed_with_two_letters_swapped_is_that_name():
    from controller.continuity.item_names import name_like

    # the writers' "scroe method", "searhc method", "open crave": below difflib's ratio bar
    assert name_like("scroe", "score") and name_like("searhc", "search")
    assert name_like("crave", "carve") and name_like("engien.py", "engine.py")
    assert not name_like("scare", "score") and not name_like("sorce", "score")
    assert not name_like("mian", "main")  # too short to be read as a typo


def test_a_pick_of_a_thing_never_shown_is_a_boundary(repo):
    talk = ReaderTalk(repo, fixed("pick"))
    talk(Q)
    for text in ("open the yaml config you mentioned", "open result 40",
                 "open the 3rd screenshot"):
        turn = talk(text)
        assert (turn.transition, turn.opened) == ("T10", None), text



def test_a_misspelt_ordinal_picks_that_item(repo):
    """A pick whose ordinal word has a one-edit typo opens that item, as the rules read it."""
    talk = ReaderTalk(repo, fixed("pick", on="open the seocnd one"))
    talk(Q)
    second = talk("open the second one").opened
    talk("back to the list")
    turn = talk("open the seocnd one")
    assert (turn.transition, turn.lane) == ("T3", "selection")
    assert second is not None and turn.opened == second

def test_readings_that_would_do_the_same_add_up_against_the_bar(repo):
    """'any tests hitting it?' read as tests (0.40) and callers (0.38): neither alone passes
    the rescue bar against the rules' new question, but both follow the graph from the
    focused object: that is acted on (the tests), neither searched for nor asked about."""
    text = "any tests hittign it?"
    talk = ReaderTalk(repo, fixed("tests", 0.40, "callers", 0.38, on=text))
    talk(Q)
    talk("open the second one")
    turn = talk(text)
    assert (turn.transition, turn.lane, turn.intent) == ("T4", "graph", "graph_tests")


def test_a_new_question_and_a_follow_up_do_not_add_up(repo):
    """Follow-up readings of different actions (explain vs callers) are not summed: below the
    bar, the rules' new question stands (announced)."""
    text = "Now other topic. What is OpticalCavity?"
    talk = ReaderTalk(repo, lambda f: Reading(
        meaning="explain", confidence=0.28, alternatives=(("callers", 0.23),
                                                          ("new_question", 0.21)))
        if f.text == text else fixed("pick")(f))
    talk(Q)
    turn = talk(text)
    assert (turn.transition, turn.intent) == ("T1", "root_question")


def test_a_reading_the_state_rules_out_passes_its_probability_on(repo):
    """A narrowing that names no folder cannot be acted on; given that, the other sense of
    the question (0.30 of the remaining 0.50) is the reading: the root question again in the
    sense not chosen (T2)."""
    text = "now the light one too please"
    talk = ReaderTalk(repo, fixed("narrow", 0.50, "other", 0.30, on=text))
    talk("what is a cavity?")
    talk("the second one")
    chosen = talk.state().root_frame.sense
    turn = talk(text)
    assert (turn.transition, turn.lane, turn.intent) == ("T2", "root", "correct_choice")
    assert talk.state().root_frame.sense not in (None, chosen)


# --- saying what was understood ------------------------------------------------------------------

def test_a_follow_up_that_becomes_a_new_search_is_announced(repo):
    # the second reading below REREAD_FLOOR: the search that finds nothing stays a T10
    # (at 0.3 the turn is read again as showing the item again: tests/test_nothing_found_reread.py)
    talk = ReaderTalk(repo, fixed("new_question", 0.85, "reopen", 0.15, on="pull that up again"))
    talk(Q)
    talk("open the second one")
    turn = talk("pull that up again")
    assert _routed(turn) == "root_question"  # searched for (it finds nothing: a T10)
    first = turn.answer.splitlines()[0]
    assert first.startswith("Read as a new question: searching for 'pull that up again'.")
    assert "Say 'open it again'" in first
    assert "reading_announced" in {e.name for e in turn.events}


def test_a_source_cue_in_a_message_taken_for_a_new_question_is_read_not_exact(repo):
    """A source cue ("from tests") makes a turn exact only when the rules acted on it: in a
    message they took for a new question the reader reads it (a question about the answer:
    T8), and a search for its words is never silent (main searched, unannounced)."""
    text = "Where is that documented? Did you take it from tests?"
    talk = ReaderTalk(repo, fixed("meta", 0.9, on=text))
    talk(Q)
    turn = talk(text)
    assert (turn.transition, turn.lane) == ("T8", "meta")
    # a source cue in a message the rules take for a new question (no question about the
    # answer in it: since router24a the rules read "where is that documented?" as meta)
    asked = "Where is the stop word list kept? Answer from tests."
    unsure = ReaderTalk(repo, fixed("new_question", 0.6, "meta", 0.3, on=asked))
    unsure(Q)
    turn = unsure(asked)
    assert _routed(turn) == "root_question"
    assert "reading_announced" in {e.name for e in turn.events}


def test_a_sure_reading_the_rules_agree_with_is_not_announced(repo):
    talk = ReaderTalk(repo, fixed("pick", 0.95, on="open the second one"))
    talk(Q)
    turn = talk("open the second one")
    assert "reading_announced" not in {e.name for e in turn.events}
    assert not turn.answer.startswith("Read as")


def test_two_close_readings_are_offered_and_the_answer_rereads_the_message(repo):
    talk = ReaderTalk(repo, fixed("reopen", 0.45, "new_question", 0.42,
                                  on="pull that up again"))
    talk(Q)
    talk("open the second one")
    asked = talk("pull that up again")
    assert (asked.transition, asked.lane, asked.answer_mode) == ("T0", "clarify", "clarify")
    assert "1. showing what is in focus again" in asked.answer
    assert "2. a new question: searching for 'pull that up again'" in asked.answer
    state = talk.state()
    assert state.pending_clarifier_type == "repair" and state.pending.readings == (
        "reopen", "new_question")
    chosen = talk("the first")
    assert (chosen.transition, chosen.lane) == ("T5", "selection") and chosen.opened
    assert talk.state().pending is None


def test_the_rules_router_setting_reads_by_vocabulary_alone(repo):
    talk = Talk(repo, config(repo, **{"continuity.router": "rules"}))
    talk(Q)
    talk("open the second one")
    turn = talk("pull that up again")
    assert _reading(turn) is None and _routed(turn) == "root_question"
    assert "reading_announced" not in {e.name for e in turn.events}


# --- the session's reader: the Embedder port, deterministic -------------------------------------

def test_the_session_reader_with_a_fake_embedder_is_deterministic(repo):
    reader = session_reader(config(repo), repo, embedder=FakeEmbedder())
    assert reader is not None
    results = []
    for _ in range(2):
        talk = ReaderTalk(repo, reader, name=f"s{len(results)}")
        talk(Q)
        turn = talk("who calls it?")
        results.append((turn.transition, turn.lane, json.dumps(_reading(turn))))
    assert results[0] == results[1]


@pytest.mark.slow
def test_the_real_encoder_reads_everyday_follow_ups(repo):
    """The packaged sentence encoder and the shipped head, on wordings outside the
    vocabulary."""
    talk = Talk(repo)
    talk("what is a cavity?")
    chose = talk("the one with the two mirrors, the light thing")
    assert chose.transition == "T7" and "optics" in (talk.state().root_frame.sense or "")
    talk(Q)
    talk("open the second one")
    again = talk("could you pull that up again for me?")
    assert (again.transition, again.lane) == ("T5", "selection")
    how_sure = talk("how confident are you in that, honestly?")
    assert how_sure.transition == "T8"
    covered = talk("remind me what we went over so far")
    assert covered.transition == "T9"


def test_a_pending_clarifiers_options_are_embedded_once():
    """A pending sense clarifier's options are embedded the first turn that reads them, each
    alone (its vector depends on its text only); the next turns reuse them."""
    from helix.session.reader import option_vectors

    calls: list[list[str]] = []

    class Counting(FakeEmbedder):
        def embed(self, texts):
            calls.append(list(texts))
            return super().embed(texts)

    encoder = Counting()
    texts = ["cavity: the optics sense, two mirrors", "cavity: the storage sense, a slab"]
    first = option_vectors(encoder, texts)
    assert calls == [[texts[0]], [texts[1]]]
    calls.clear()
    again = option_vectors(encoder, list(reversed(texts)))
    assert calls == [] and (again[::-1] == first).all()
    assert (first[0] == FakeEmbedder().embed([texts[0]])[0]).all()


def _by_text(readings: dict[str, str]):
    """A reader that reads each message of `readings` as its class, sure; any other message
    the way the vocabulary rules did."""
    def read(features):
        meaning = readings.get(features.text)
        if meaning is None:
            rules = features.rules if features.rules in CLASSES else "new_question"
            return Reading(meaning=rules, confidence=1.0)
        return Reading(meaning=meaning, confidence=0.8, alternatives=(("new_question", 0.1),))

    return read


def test_a_file_named_by_its_name_picks_the_item_that_is_the_whole_file(repo):
    """'engine.py' names the listed item search/engine.py (the whole file), not the four
    definitions listed from the same file: no 'which one?'."""
    talk = ReaderTalk(repo, _by_text({"I want the engine.py.": "pick"}))
    talk("How the engine is constructed?")
    listed = [i for i in talk.state().active_option_set().items
              if i.target.path == "search/engine.py"]
    assert len(listed) > 1 and any(not i.target.symbol for i in listed)
    turn = talk("I want the engine.py.")
    assert (turn.transition, turn.lane) == ("T3", "selection")
    assert turn.opened is not None and turn.opened.path == "search/engine.py"
    assert turn.opened.target.symbol is None


def test_picking_what_is_in_focus_by_its_file_shows_it_again(repo):
    """A pick the rules read ('show me cli.py again') that names the focused object, or the
    file it is in, read as showing it again: T5 on the focus, not a new selection."""
    talk = ReaderTalk(repo, _by_text({"tests for main? any?": "tests",
                                      "show me cli.py again, I lost it": "reopen"}))
    talk("where's the cli entry point")
    talk("tests for main? any?")
    focus = talk.state().selected_object.focus_object_ref
    assert focus.path == "search/cli.py" and focus.symbol == "main"
    turn = talk("show me cli.py again, I lost it")
    assert (turn.transition, turn.lane, turn.intent) == ("T5", "selection", "select_focused")
    assert turn.opened is not None and turn.opened.target.symbol == "main"


def test_a_reading_is_acted_on_by_the_rescue_and_override_bars():
    from evals.router_curves import routed_class

    assert routed_class("meta", 0.3, "meta", 0.45, 0.9) == "meta"  # the rules agree
    assert routed_class("meta", 0.3, "new_question", 0.25, 0.9) == "meta"  # rescued
    assert routed_class("meta", 0.3, "new_question", 0.45, 0.9) == "new_question"
    assert routed_class("meta", 0.3, "boundary", 0.25, 0.9) == "meta"
    assert routed_class("meta", 0.8, "pick", 0.25, 0.9) == "pick"  # a rule's reading stands
    assert routed_class("meta", 0.95, "pick", 0.25, 0.9) == "meta"  # unless the reading is sure


def test_the_manifest_says_how_the_routing_settings_do_in_cross_validation():
    """The trainer writes, per (router_rescue, router_override) of its grid, how often the
    class the router acts on is right with the head's cross-validated readings (sessions
    left out), and the best pair; the shipped pair is on the grid."""
    from evals.router_curves import OVERRIDE_GRID, RESCUE_GRID, best_settings
    from helix.core.config import ContinuitySettings

    manifest = json.loads((MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))
    curve = manifest["metrics"]["cv_routed_by_rescue_override"]
    assert len(curve) == len(RESCUE_GRID) * len(OVERRIDE_GRID)
    s = ContinuitySettings()
    assert 0 < curve[f"{s.router_rescue:.2f}/{s.router_override:.2f}"] <= max(curve.values())
    assert manifest["metrics"]["cv_best"] == best_settings(curve)
    # among equals, the most cautious bars
    assert best_settings({"0.10/0.60": 0.9, "0.20/0.60": 0.9, "0.20/0.90": 0.8}) == {
        "router_rescue": 0.2, "router_override": 0.6, "cv_routed": 0.9}


def test_a_continuing_message_that_becomes_a_new_search_is_announced(repo):
    """'and what about X, same file?' read surely as a new question still says so: a message
    that opens by continuing the conversation never becomes a silent search."""
    text = "and what about the free spectral range, same file?"
    talk = ReaderTalk(repo, fixed("new_question", 0.95, "pivot", 0.02, on=text))
    talk("hello!")  # no root question yet: the rules take no pivot, only a new question
    turn = talk(text)
    assert turn.intent == "root_question"
    assert "reading_announced" in {e.name for e in turn.events}


def test_a_misspelt_message_that_becomes_a_new_search_is_announced(repo):
    """A message with words the classifier cannot read ('hapens', 'cavty': one edit from
    words it can) that becomes a search mid-conversation says so, however sure the reading
    of a new question: the reading is of the misspelt words' pieces, no evidence that the
    message stands alone (writer59's typist meant a follow-up; main searched, unannounced).
    The same message spelt right, or a name on screen ('carve'), is no slip."""
    text = "what hapens if no cavty fits"
    talk = ReaderTalk(repo, fixed("new_question", 0.95, "explain", 0.02, on=text))
    talk(Q)
    turn = talk(text)
    assert turn.intent == "root_question"
    assert "reading_announced" in {e.name for e in turn.events}
    assert turn.answer.startswith(f"Read as a new question: searching for '{text}'.")
    spelt = "what happens if no cavity fits"
    right = ReaderTalk(repo, fixed("new_question", 0.95, "explain", 0.02, on=spelt),
                       name="spelt")
    right(Q)
    assert "reading_announced" not in {e.name for e in right(spelt).events}
    from controller.continuity.spelling import misspelt_words

    assert [typed for typed, _ in misspelt_words(text)] == ["hapens", "cavty"]
    assert misspelt_words("explain the split in carve") == ()  # a base form ('carved')
    assert misspelt_words("who calss tokenize", frozenset({"tokenize"})) == (
        ("calss", "class"),)


_SEEDED_TALK = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from talk_fixtures import Q, Talk
talk = Talk(Path(sys.argv[1]))
out = []
for text in (Q, "open the second one", "could you pull that up again for me?",
             "how confident are you in that, honestly?", "just the docs folder pls",
             "remind me what we went over so far"):
    turn = talk(text)
    reading = next(e.data.get("reading") for e in turn.events if e.name == "turn_routed")
    out.append([turn.transition, turn.lane, reading])
print(json.dumps(out, sort_keys=True))
"""


@pytest.mark.slow
def test_the_same_text_and_state_route_the_same_under_two_hash_seeds(repo, tmp_path):
    """The packaged encoder and the shipped head in two fresh processes whose string hashing
    differs (PYTHONHASHSEED): every turn's route and reading, probabilities included, agree."""
    import os
    import subprocess
    import sys

    outputs = []
    for seed in ("1", "2"):
        home = tmp_path / f"home-{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "HELIX_HOME": str(home)}
        done = subprocess.run([sys.executable, "-c", _SEEDED_TALK, str(repo),
                               str(Path(__file__).parent)], env=env, capture_output=True,
                              text=True, check=True)
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert all(reading is not None for _, _, reading in outputs[0][1:])


def test_a_phrase_rule_yields_at_the_phrase_bar_an_exact_rule_only_at_the_override(repo):
    """The rules stay where they read something exact (a number in the list's range, a listed
    path or name, a quoted name): only a reading `router_override` sure replaces them. A rule
    that read the message from its phrases alone yields to a reading `router_phrase` sure."""
    cfg = config(repo, **{"continuity.router_phrase": 0.6})
    phrase = "is that the only place?"  # the vocabulary's meta phrase: nothing exact in it
    talk = ReaderTalk(repo, fixed("recap", 0.8, on=phrase), cfg=cfg)
    talk(Q)
    assert talk(phrase).transition == "T9"  # the reading (0.8 >= 0.6)
    talk.reader = fixed("meta", 0.8, on="open the second one")
    picked = talk("open the second one")  # an ordinal in the list's range: exact
    assert (picked.transition, picked.lane) == ("T3", "selection")
    strict = ReaderTalk(repo, fixed("recap", 0.8, on=phrase), cfg=config(
        repo, **{"continuity.router_phrase": 0.9}), name="s2")
    strict(Q)
    assert strict(phrase).transition == "T8"  # 0.8 < 0.9: the rule's reading stands


def test_routed_class_holds_a_phrase_rule_to_the_phrase_bar():
    from evals.router_curves import routed_class

    assert routed_class("meta", 0.7, "pick", 0.45, 0.9, 0.6, exact=False) == "meta"
    assert routed_class("meta", 0.7, "pick", 0.45, 0.9, 0.6, exact=True) == "pick"
    assert routed_class("meta", 0.5, "pick", 0.45, 0.9, 0.6, exact=False) == "pick"


def test_a_t2_label_after_a_sense_choice_naming_no_scope_is_the_other_sense():
    """HELDAPART.md: T2 is the same question in another scope, or the other sense after an
    answer. Writers counted the second as T2 like a narrowing; the trainer reads it as `other`
    when a sense was chosen and the message names no scope."""
    from controller.continuity.meaning import Features
    from evals.router_train import normalised

    def seen(text: str, sense: bool = True, path: bool = False) -> Features:
        named = {"choice_sense": sense, "path": path}
        return Features(text=text, flags=tuple(float(named.get(n, False)) for n in FLAG_NAMES),
                        rules="new_question")

    assert normalised("narrow", seen("now the storage one plz")) == "other"
    assert normalised("narrow", seen("Same question, but for the allocator sense.")) == "other"
    for scoped in ("code only", "only the search folder", "leave out the docs", "tests?"):
        assert normalised("narrow", seen(scoped)) == "narrow"
    assert normalised("narrow", seen("search/ only", path=True)) == "narrow"
    assert normalised("narrow", seen("now the storage one", sense=False)) == "narrow"
    assert normalised("pick", seen("now the storage one")) == "pick"


def test_the_manifest_says_how_each_writer_left_out_routes_at_the_shipped_bars():
    """Leave-one-writer-out: every writer's training file held out in turn, its class accuracy
    and the routed share per (router_rescue, router_phrase); the shipped pair is on the curve,
    at the override the curves hold."""
    from evals.router_curves import PHRASE_CURVE_OVERRIDE
    from evals.router_train import WRITER_FILES
    from helix.core.config import ContinuitySettings

    manifest = json.loads((MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))
    lowo = manifest["metrics"]["lowo"]
    assert set(lowo["by_writer"]) == {w.removesuffix(".jsonl") for w in WRITER_FILES}
    s = ContinuitySettings()
    assert s.router_override == PHRASE_CURVE_OVERRIDE
    key = f"{s.router_rescue:.2f}/{s.router_phrase:.2f}"
    assert 0 < lowo["mean_routed_by_rescue_phrase"][key] <= 1
    assert all(0 < w["accuracy"] <= 1 for w in lowo["by_writer"].values())


def test_a_new_question_both_readers_read_is_asked_not_clarified_and_said_when_unsure(repo):
    """The rules and the classifier both read a new question, the classifier unsure with a
    follow-up close behind: the question is searched (no two-readings clarifier), and how it
    was read is said."""
    question = "where is the tokenizer defined?"
    talk = ReaderTalk(repo, fixed("new_question", 0.42, "callers", 0.40, on=question))
    talk(Q)
    talk("open the second one")
    turn = talk(question)
    assert (turn.transition, turn.lane, turn.intent) == ("T1", "root", "root_question")
    assert "reading_announced" in {e.name for e in turn.events}
