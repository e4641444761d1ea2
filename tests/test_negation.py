"""Negation by the sentence's structure (issue 32): clauses, and how far each cue of
helix/core/negation.toml reaches. The unit check reads every hand-written line of
data/evals/meaning/unit_lines.json right: 51 that deny the unit, 43 that state it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from controller.units import denies_unit, stated_instead, states_unit, unit_lines
from helix.core.negation import read
from helix.core.negation_cues import CUES_FILE

DATA = Path(__file__).resolve().parents[1] / "data" / "evals" / "meaning" / "unit_lines.json"
WRITTEN = json.loads(DATA.read_text(encoding="utf-8"))
LINES, QUANTITY = WRITTEN["lines"], (WRITTEN["quantity"],)
CUES = tomllib.loads(CUES_FILE.read_text(encoding="utf-8"))


def _denied_words(text: str) -> list[str]:
    reading = read(text)
    return [t.text for t, denied in zip(reading.tokens, reading.denied, strict=True) if denied]


def test_every_written_line_is_read_as_it_means() -> None:
    """Every line of the set (one test: the lines read wrong are reported together)."""
    wrong = []
    for line in LINES:
        found = unit_lines(line["text"], line["unit"], QUANTITY)
        if not found:
            wrong.append(("no unit line", line["text"]))
        elif any(f.states for f in found) != (line["reading"] == "states"):
            wrong.append((f"not read as it {line['reading']}", line["text"]))
        elif line["instead"] and (stated_instead(line["text"], line["unit"], QUANTITY)
                                  != line["instead"]):
            wrong.append((f"instead is not {line['instead']}", line["text"]))
    assert not wrong, wrong


def test_the_written_set_is_large_enough_both_ways() -> None:
    readings = [line["reading"] for line in LINES]
    assert readings.count("denies") >= 30 and readings.count("states") >= 30


@pytest.mark.parametrize("cue", CUES["cues"]["forward"])
def test_a_forward_cue_denies_what_follows_in_its_clause(cue: str) -> None:
    assert denies_unit(f"The value is {cue} in GPa.", "GPa"), cue
    # ... and not the clause after it
    assert states_unit(f"The value is {cue} in pascal; it is in GPa.", "GPa"), cue


@pytest.mark.parametrize("cue", CUES["cues"]["evaluative"])
def test_an_evaluative_predicate_denies_the_clause_before_it(cue: str) -> None:
    assert denies_unit(f"Giving the value in GPa is {cue}.", "GPa"), cue
    assert states_unit(f"Giving the value in pascal is {cue}; it is GPa.", "GPa"), cue


def test_an_evaluative_cue_reaches_by_its_place_in_the_clause() -> None:
    assert denies_unit("It is a common mistake to read the value as GPa.", "GPa")
    assert states_unit("Pascal is deprecated in favour of GPa.", "GPa")
    assert denies_unit("GPa is deprecated in favour of pascal.", "GPa")
    assert denies_unit("Some pages wrongly give the value in GPa.", "GPa")
    assert denies_unit("The deprecated GPa field is kept.", "GPa")


@pytest.mark.parametrize("cue", CUES["cues"]["past"])
def test_a_past_cue_denies_its_clause(cue: str) -> None:
    assert denies_unit(f"The value {cue} came in GPa.", "GPa"), cue


@pytest.mark.parametrize("marker", CUES["cues"]["superseded_by"])
def test_a_past_tense_is_over_when_the_sentence_says_what_holds_now(marker: str) -> None:
    assert denies_unit(f"The value was in GPa; {marker} it is given in pascal.", "GPa"), marker
    assert states_unit("The value was always given in GPa.", "GPa")


@pytest.mark.parametrize("tense", CUES["cues"]["past_tense"])
def test_every_past_tense_cue_is_over_with_now(tense: str) -> None:
    assert denies_unit(f"The value {tense} GPa, now pascal.", "GPa"), tense


@pytest.mark.parametrize("verb", CUES["cues"]["change_verbs"])
def test_a_change_from_one_unit_to_another_denies_the_first(verb: str) -> None:
    assert denies_unit(f"The value was {verb} from GPa to pascal.", "GPa"), verb
    assert states_unit(f"The value was {verb} from pascal to GPa.", "GPa"), verb


@pytest.mark.parametrize("negator", CUES["predicate"]["negators"])
def test_a_negated_predicate_denies_its_subject_not_a_prepositional_object(negator: str
                                                                           ) -> None:
    assert denies_unit(f"GPa is {negator} used for the value.", "GPa"), negator
    assert states_unit(f"Values in GPa are {negator} rounded.", "GPa"), negator
    assert "GPa" not in _denied_words("The value is GPa rather than pascal.")


@pytest.mark.parametrize("mark", [m for m in CUES["boundaries"]["punctuation"]
                                  if m not in ".!?"])
def test_punctuation_ends_a_scope(mark: str) -> None:
    assert states_unit(f"The value is not pascal{mark} it is GPa.", "GPa"), mark


@pytest.mark.parametrize("word", CUES["boundaries"]["words"])
def test_a_clause_word_ends_a_scope(word: str) -> None:
    assert states_unit(f"The value is not pascal {word} GPa is used.", "GPa"), word


@pytest.mark.parametrize("word", CUES["boundaries"]["predicate_starts"])
def test_and_with_a_new_predicate_ends_a_scope(word: str) -> None:
    assert states_unit(f"The value isn't clamped and {word} GPa.", "GPa"), word
    assert denies_unit("Neither GPa nor kPa is used.", "GPa")


def test_a_parenthetical_is_a_clause_inside_its_clause() -> None:
    assert denies_unit("Unlike the modulus (GPa), the value is in pascal.", "GPa")
    assert states_unit("The value is now in GPa (it was pascal before 2.0).", "GPa")
    assert denies_unit("in pascal (was GPa before the 2024 refactor)", "GPa")
    assert states_unit("The value (GPa) is never negative.", "GPa")


def test_a_negation_on_one_line_reaches_the_next_line_of_its_sentence() -> None:
    text = ('    """The value is returned in pascal; it is not\n'
            '    expressed in GPa. Another sentence.\n\n    Values in GPa\n    here."""\n')
    found = unit_lines(text, "GPa")
    assert [(f.offset, f.states, f.instead) for f in found] == [
        (1, False, "pascal"), (3, True, None)]


def test_a_short_unit_name_is_matched_as_written() -> None:
    assert stated_instead("It is in s, not ms.", "ms") == "s"
    assert stated_instead("A value is given, not ms.", "ms") is None


@pytest.mark.parametrize("anaphor", CUES["cues"]["anaphora"])
def test_an_evaluative_predicate_of_an_anaphor_judges_the_clause_before(anaphor: str) -> None:
    # "if you see GPa there, that label is wrong": the judged clause is the one before
    subject = "" if anaphor == "which" else " label"
    assert denies_unit(f"If you see GPa next to it, {anaphor}{subject} is wrong.", "GPa"), anaphor
    assert states_unit(f"It is in GPa; the old{subject} is wrong.", "GPa"), anaphor
    # the judged clause is in the same sentence only
    assert states_unit(f"It is in GPa. Some say pascal, {anaphor}{subject} is wrong.", "GPa")


@pytest.mark.parametrize("reply", CUES["cues"]["negative_replies"])
def test_a_question_answered_no_is_denied(reply: str) -> None:
    assert denies_unit(f"kPa? {reply.capitalize()}: the value is pascal.", "kPa"), reply
    assert denies_unit(f"Is it in kPa? {reply.capitalize()}.", "kPa"), reply
    assert states_unit("kPa? Yes: the value is kPa.", "kPa")
    # a reply word that starts a statement is no reply
    assert states_unit("Which unit? No conversion: it stays in kPa.", "kPa")


def test_a_forward_cue_reaches_past_an_interjection() -> None:
    assert denies_unit("It is in pascal and not, as some comments say, in MPa.", "MPa")
    assert denies_unit("The value is not, however, in MPa.", "MPa")
    # a reply "No," opening its clause is no negation of what follows the interjection
    assert states_unit("No, the value, as stored, is in MPa.", "MPa")


@pytest.mark.parametrize("cue", CUES["cues"]["relatives_after"])
def test_a_relative_clause_after_a_contrasted_phrase_is_denied_with_it(cue: str) -> None:
    assert denies_unit(f"{cue.capitalize()} the gauges, which use bar, the value is pascal.",
                       "bar"), cue
    # after an ordinary negation the relative clause is a new statement
    assert states_unit("The value is not rounded, which keeps it in bar.", "bar")


def test_a_sentence_that_states_and_denies_the_unit_does_not_state_it() -> None:
    line = "Although the constants are tabulated in GPa, the value itself is never in GPa."
    assert denies_unit(line, "GPa")
    assert stated_instead(line, "GPa") is None
    assert states_unit("The constants are tabulated in GPa. The value is never in pascal.",
                       "GPa")


def test_a_line_that_also_states_another_unit_of_the_dimension_states_neither() -> None:
    line = "It comes back in pascal; people who want bar convert it themselves."
    assert not states_unit(line, "bar") and stated_instead(line, "bar") == "pascal"
    # a value is no rival ("1 GPa = 1e9 Pa"), nor a unit of another dimension, nor another line
    assert states_unit("The value is in GPa (1 GPa = 1e9 Pa).", "GPa")
    assert states_unit("The pressure is in GPa and the gap in nm.", "GPa")
    assert states_unit("It returns the pressure in pascals (Pa).", "pascals")  # one unit
    found = unit_lines("The value is in GPa.\nThe ambient value is in bar.\n", "GPa")
    assert [(f.offset, f.states) for f in found] == [(0, True)]


@pytest.mark.parametrize("phrase", CUES["cues"]["elliptical"])
def test_a_clause_that_is_only_a_negation_denies_the_clause_before(phrase: str) -> None:
    assert denies_unit(f"The value used bar in the beta, {phrase}.", "bar"), phrase
    assert states_unit(f"The value was pascal, {phrase}; it is bar.", "bar"), phrase


@pytest.mark.parametrize("negator", CUES["predicate"]["negators"])
def test_a_negated_predicate_denies_its_whole_subject_noun_phrase(negator: str) -> None:
    # the unit as a modifier of the subject's head ("Bar readings"), up to a determiner
    assert denies_unit(f"Bar readings are {negator} what the pressure returns.", "bar"), negator
    assert denies_unit(f"The GPa readings are {negator} used.", "GPa"), negator
    # never past a preposition ("values in GPa" is not the subject) nor a coordinator
    assert states_unit(f"The values in GPa are {negator} rounded.", "GPa"), negator
    assert states_unit(f"It is given in GPa and pressure is {negator} clamped.", "GPa"), negator


@pytest.mark.parametrize("mark", CUES["predicate"]["label_marks"])
def test_a_negated_predicate_after_a_label_denies_the_label(mark: str) -> None:
    assert denies_unit(f"psi {mark} not used for the pressure.", "psi"), mark
    assert denies_unit(f"Bar {mark} never accepted by the parser.", "bar"), mark
    # a noun after the negation is what is denied, not the label
    assert states_unit(f"pascal {mark} not GPa.", "pascal"), mark
    assert denies_unit(f"pascal {mark} not GPa.", "GPa"), mark
    # a whole clause before the mark is no label
    assert states_unit(f"The pressure is given in kPa {mark} not rounded.", "kPa"), mark


@pytest.mark.parametrize("mark", CUES["predicate"]["label_marks"])
def test_an_evaluative_predicate_after_a_label_denies_the_label(mark: str) -> None:
    assert denies_unit(f"MPa {mark} deprecated for the pressure.", "MPa"), mark
    assert denies_unit(f"# bar {mark} obsolete here", "bar"), mark
    # a unit after a preposition before the mark is no label
    assert states_unit(f"The pressure is given in kPa {mark} deprecated since 2.0.", "kPa"), mark


def test_an_evaluative_cue_before_a_prepositional_to_judges_the_clause_before() -> None:
    # "unrelated to the pressure": "to" is a preposition, not an infinitive
    assert denies_unit("GPa is unrelated to the tile pressure; it belongs to the modulus.", "GPa")
    assert denies_unit("It is a mistake to read the value as GPa.", "GPa")


@pytest.mark.parametrize("request_", ["Stop reporting", "Quit giving", "Refrain from giving"])
def test_a_request_to_stop_denies_what_follows(request_: str) -> None:
    assert denies_unit(f"{request_} the pressure in psi.", "psi"), request_
    assert states_unit(f"{request_} the pump; the pressure is in psi.", "psi"), request_


def test_a_subject_with_nothing_to_do_with_the_quantity_is_denied() -> None:
    assert denies_unit("The MPa column has nothing to do with the pressure.", "MPa")


def test_a_negation_inside_a_negation_states_what_it_reaches() -> None:
    assert states_unit("We never stopped returning GPa.", "GPa")
    assert states_unit("No value is in anything other than GPa.", "GPa")
    assert denies_unit("The value stopped being GPa.", "GPa")


def test_a_negation_that_joins_a_list_still_denies_inside_another() -> None:
    assert denies_unit("It is never in GPa and not in kPa.", "kPa")
    assert denies_unit("It is in neither GPa nor kPa.", "kPa")
    assert denies_unit("It is not GPa or kPa.", "kPa")


def test_a_unit_in_a_sentence_that_denies_the_asked_quantity_is_not_its_unit() -> None:
    quantity = ("tile pressure",)
    assert denies_unit("psi is for the inlet, not for the tile pressure.", "psi", quantity)
    assert denies_unit("bar has nothing to do with tile_pressure.", "bar", quantity)
    assert states_unit("The tile pressure isn't clamped; it is in psi.", "psi", quantity)
    assert states_unit("No caller gets the tile pressure in anything other than psi.", "psi",
                       quantity)
    assert states_unit("psi is for the inlet, not for the tile pressure.", "psi")  # not asked


# Mechanisms of the meaning6 round (issue 32), each in wordings of no data set: polarity
# composes (a negation of a negative predicate states), an exception or a verb of doubt is a
# negation, and the structure of a line (a decimal, a question and its answer on the next
# line, a diff, a rejecting condition, a label heading the sentence, a manner naming back)
# decides what a negation reaches. Each case read wrong on the code before.
@pytest.mark.parametrize(("text", "states"), [
    ("Reading the value as GPa is not a mistake.", True),  # a negated evaluative predicate
    ("It would not be wrong to quote the value in GPa.", True),
    ("GPa is not deprecated.", True),
    ("No unit except GPa is accepted.", True),  # an exception inside a negation
    ("All units apart from GPa are accepted.", False),  # an exception alone
    ("No one ever doubted that the value is in GPa.", True),  # a negated verb of doubt
    ("The team disputes that the value is in GPa.", False),
    ('expected "2.5 MPa", not "2.5 GPa"', False),  # a decimal ends no sentence
    ("Obsolete: GPa values for the pressure.", False),  # an evaluative label heads it
    ("Older notes quote GPa; the value is not stored like that.", False),  # manner names back
    ("Q: Is the value in GPa?\nA: Nope.", False),  # the answer on the next line
    ("- unit = 'GPa'\n+ unit = 'MPa'", False),  # a diff's removed line
    ('if unit == "GPa":\n    raise ValueError("bad unit")', False),  # a rejecting condition
    ('if unit == "GPa":\n    return value', True),
    ("Don't rescale the tile pressure; it is stored in GPa.", True),  # "it" names it back
])
def test_negation_composes_and_the_line_structure_decides_its_reach(text: str,
                                                                    states: bool) -> None:
    assert states_unit(text, "GPa", QUANTITY) is states, text


@pytest.mark.parametrize(("text", "states"), [
    ("We never moved the value away from GPa.", True),  # a negated change keeps the unit
    ("The value moved away from GPa.", False),  # the change's verb further from "from"
    ("expect(value.unit).not.toBe('GPa')", False),  # a member access is no clause end
    ("Is the value in GPa? No way.", False),
    ("The value in GPa is a thing of the past.", False),
    ("Stating the value in GPa is no longer possible.", False),  # a validity predicate
    ("Passing GPa for the value fails validation.", False),  # a predicate of harm
    ("The value was once GPa.", False),  # a past that is over
    ("We plan to drop GPa for the value.", False),  # removing it
    ("We didn't drop GPa for the value.", True),  # ... negated: kept
    ("There is no doubt the value is in GPa.", True),  # doubt, negated
    ("Setting the value in GPa raises a ValueError.", False),  # raising an error is harm
    ("Returns the value in GPa; raises ValueError if the gap is negative.", True),
])
def test_a_negated_change_or_removal_keeps_the_unit_and_code_reads_as_one_clause(
        text: str, states: bool) -> None:
    assert states_unit(text, "GPa", QUANTITY) is states, text


def test_a_retracted_diff_line_names_the_unit_that_replaced_it() -> None:
    assert stated_instead("- unit = 'GPa'\n+ unit = 'kPa'", "GPa") == "kPa"
    assert stated_instead("Rather than GPa, the log uses millibar.", "GPa") == "millibar"


@pytest.mark.parametrize("word", CUES["cues"]["conditions"])
def test_a_harm_after_a_conditional_denies_what_the_condition_supposes(word: str) -> None:
    # meaning7: the condition opening the sentence is what does the harm
    text = f"{word.capitalize()} you read the tile pressure as GPa, the solver will fault."
    assert "GPa" in _denied_words(text)
    assert "GPa" not in _denied_words(f"{word.capitalize()} the tile pressure is in GPa, "
                                      "the solver reports it.")


@pytest.mark.parametrize("word", CUES["boundaries"]["factives"])
def test_a_factives_complement_is_not_reached_by_its_negation(word: str) -> None:
    # meaning7: "nobody should be surprised that ... GPa" states GPa; "nobody said that" does not
    assert "GPa" not in _denied_words(f"Nobody {word} that tile pressure is in GPa.")
    assert "GPa" in _denied_words("Nobody said that tile pressure is in GPa.")


# (meaning11) a demonstrative names back the sentence before when it opens its sentence or a
# complement: an evaluative predicate of it, or a negated truth, judges that sentence (both
# fail on the code before meaning11, which judged only a clause of the same sentence)
@pytest.mark.parametrize("demonstrative", CUES["cues"]["demonstratives"])
def test_a_demonstrative_opening_a_sentence_names_back_the_sentence_before(
        demonstrative: str) -> None:
    head = demonstrative.capitalize()
    verb = "" if demonstrative.endswith("'s") else " is"
    assert denies_unit(f"Some notes give kPa. {head}{verb} wrong.", "kPa"), demonstrative
    assert denies_unit(f"Some notes give kPa. {head}{verb} not true any more.", "kPa")
    assert denies_unit(f"Some notes give kPa. We agreed that {demonstrative}{verb} not "
                       "correct.", "kPa"), demonstrative
    # a negation of anything but its truth leaves the sentence before alone
    assert states_unit(f"It is in kPa. {head}{verb} not configurable.", "kPa"), demonstrative


@pytest.mark.parametrize("truth", CUES["cues"]["truths"])
def test_a_negated_truth_of_a_demonstrative_judges_what_it_names_back(truth: str) -> None:
    assert denies_unit(f"Old posts say kPa. That stopped being {truth} in 2.0.", "kPa"), truth
    assert denies_unit(f"It was kPa, but that is no longer {truth} here.", "kPa"), truth
    assert states_unit(f"It is kPa. The old rule is not {truth} here.", "kPa"), truth


@pytest.mark.parametrize(("text", "states"), [
    # meaning23: "but" after "anything" / "everything" takes the unit out of the set, as
    # "except" does: no new clause. Alone it denies; inside a negation it states.
    ("You can't set torque in anything but N·m; there is no unit option.", True),
    ("Torque can be given in anything but N·m.", False),
    ("The tool accepts everything but N·m for torque.", False),
    ("Torque is never given in anything but N·m.", True),
    # a "but" opening a clause still ends a scope
    ("Torque is never N·m but anything is accepted.", False),
    ("Torque is in N·m but anything else is rejected.", True),
])
def test_a_but_inside_an_exception_phrase_opens_no_clause(text: str, states: bool) -> None:
    assert states_unit(text, "N·m", ("torque",)) is states, text
