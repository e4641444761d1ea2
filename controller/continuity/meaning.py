"""What a turn means, read from its words and the session state: the meaning router's
classifier. Pure (numpy only; the sentence vectors are computed by the session's driver through
its Embedder port and handed in).

    features(t, rules_plan) -> Features     the state, the exact rules, the vocabulary
                                            router's own reading, the message
    MeaningModel.load()                     the shipped model (meaning_model/: classes,
                                            exemplars and their vectors, the head, a manifest)
    classify(model, features, vector, option_vectors) -> Reading

The text part of the features is, per class, the highest cosine similarity of the message to
that class's exemplars and the mean of its three highest; the head is a softmax regression over
those and the named flags (`FLAG_NAMES`). Deterministic: similarities and probabilities are
rounded (`ROUND`) before they are compared; ties go to the class listed first in
meanings.toml. Interface for the question parser of issue 30: text + state flags + vectors in,
(meaning, confidence, alternatives) out.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from controller.continuity import phrases as say
from controller.continuity.pending import SLOT_PREFIX, parse_ordinal
from controller.continuity.senses import sense_options
from controller.continuity.state import ContinuityState, OptionItem
from controller.continuity.turn_plan import ORDINAL_SHAPE_MAX, Reading, Turn, TurnPlan
from controller.continuity.vocabulary_data import positions_said
from helix.core.english import NUMBER_WORDS, ORDINAL_SUFFIX, ordinal_value
from helix.core.english import ORDINAL_WORDS as _ORDINALS
from helix.core.errors import ConfigError

MEANINGS: dict[str, dict[str, Any]] = tomllib.loads(
    resources.files("controller.continuity").joinpath("meanings.toml")
    .read_text(encoding="utf-8"))["classes"]
CLASSES: tuple[str, ...] = tuple(MEANINGS)
_BY_INTENT = {intent: name for name, spec in MEANINGS.items() for intent in spec["intents"]}
MODEL_DIR = "meaning_model"
ROUND = 4  # decimals of every similarity and probability before any comparison
TOP_K = 3  # the text feature averages this many best exemplars per class
BLAS_ROWS = 256  # exemplar rows per matrix-vector product (`similarities`)
TRANSITIONS = ("T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10")
WORD_BUCKETS = ((1, 1), (2, 3), (4, 7), (8, 10**6))
_IDENT = re.compile(r"`[^`]+`|\b[A-Za-z_]\w*(?:_\w+|\(\))|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*"
                    r"|\b\w+\.\w+\b")
_PATH = re.compile(r"[\w.-]+/[\w./-]*|\b[\w-]+\.[a-z]{1,5}\b")
_NUMBER = re.compile(rf"(?<![\w./:-])#?(\d{{1,6}}){ORDINAL_SUFFIX}?(?![\w/])")
_QUOTED = re.compile(r"[\"“‘'`][^\"“”‘’'`]{2,}[\"”’'`]")
_WORD = re.compile(r"[a-z0-9]+")
# words joined by hyphens: one word of their own ("third-party", "one-off", "first-class")
_COMPOUND = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")

STATE_FLAGS = ("first_turn", "has_root", "has_answer", "has_list", "list_options",
               "list_graph", "has_focus", "pending_sense", "pending_offer", "pending_choice",
               "pending_slot", "pending_reading", "pending_applied", "choice_sense",
               "choice_item", "explained", *(f"last_{t}" for t in TRANSITIONS))
EXACT_FLAGS = ("ordinal_whole", "ordinal_in_text", "ordinal_in_range", "number_out_of_range",
               "path", "path_listed", "identifier", "identifier_focus", "identifier_listed",
               "label_overlap", "quoted", "slash", "question_mark", "question_lead",
               "pronoun", *(f"words_{lo}" for lo, _ in WORD_BUCKETS))
RULE_FLAGS = (*(f"rule_{c}" for c in CLASSES), "rule_boundary")
# what makes a vocabulary rule's reading exact: a number in the list's range, a path or a name
# the list shows, a quoted name (against these the classifier needs `router_override`; against
# a rule that read the message from its phrases alone, `router_phrase`)
EXACT_RULE_FLAGS = ("ordinal_in_range", "path_listed", "identifier_listed", "quoted")
FLAG_NAMES = (*STATE_FLAGS, *EXACT_FLAGS, *RULE_FLAGS)
TEXT_NAMES = (*(f"sim_max_{c}" for c in CLASSES), *(f"sim_top_{c}" for c in CLASSES))
OPTION_NAMES = ("option_max", "option_margin")
FEATURE_NAMES = (*TEXT_NAMES, *OPTION_NAMES, *FLAG_NAMES)

# the words that name a position: ordinals and the numbers a list is counted with
ORDINAL_WORDS: frozenset[str] = frozenset(_ORDINALS) | frozenset(NUMBER_WORDS)  # words only


def said(meaning: str, text: str) -> str:
    """How a reading is said back ("a new question: searching for 'X'")."""
    return str(MEANINGS[meaning]["reads_as"]).format(text=text.strip()).removeprefix(
        "Read as ").rstrip(".")


# what a vocabulary rule's boundary (a T10: nothing to act on) meant
_RULE_MEANING = {"scope_rerun": "narrow", "correction": "other", "tell_me_more": "explain",
                 "selection": "pick", "graph": "callers", "semantic": "meaning",
                 "meta": "meta", "recap": "recap", "pivot": "pivot"}


def meaning_of(plan: TurnPlan) -> str:
    """The class the vocabulary router's plan means; a boundary means what its rule read
    ("boundary" when no rule says)."""
    if plan.transition == "T10":
        return _RULE_MEANING.get(plan.rule, "boundary")
    if plan.intent == "resume_clarified" and plan.pending.boolean is not None:
        return "yes"
    return _BY_INTENT.get(plan.intent, "new_question")


@dataclass(frozen=True)
class Features:
    """One turn as the classifier reads it (besides the vectors the driver computes)."""

    text: str
    flags: tuple[float, ...]  # FLAG_NAMES, in order
    rules: str  # the vocabulary router's reading (`meaning_of`)
    options: tuple[OptionItem, ...] = ()  # a pending clarifier's options (their texts embedded)
    # after a sense was chosen, the two senses a message speaking of one is compared with
    # (`senses.sense_options`: their texts embedded; never features of the head)
    senses: tuple[OptionItem, ...] = ()

    def flag(self, name: str) -> float:
        return self.flags[FLAG_NAMES.index(name)]

    @property
    def exact(self) -> bool:
        """The message holds something the rules read exactly (`EXACT_RULE_FLAGS`)."""
        return any(self.flag(n) for n in EXACT_RULE_FLAGS)


# None: no reading (the reader's model could not be loaded): the rules' plan stands
Reader = Callable[[Features], Reading | None]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def ordinals_in(text: str) -> list[int]:
    """Every number or ordinal word the message names ("open result 40", "the third one",
    a dictated "number to"), in order; never a word of a hyphenated compound ("the third-party
    notices" names no position; "the top one" names the first: `said_positions`)."""
    text = positions_said(text)
    words = _WORD.findall(_COMPOUND.sub(" ", text.lower()))
    found = [int(m.group(1)) for m in _NUMBER.finditer(text)]
    for before, word in zip(["", *words], words, strict=False):
        if word.isdigit() or word not in ORDINAL_WORDS | say.SPOKEN_NUMBERS.keys():
            continue
        # "number to", "option won"; not "that one for me", "the storage one too"
        listed = before in say.LIST_NOUNS and before not in ("one", "ones")
        value = ordinal_value(word)  # None for a dictated number ("to")
        if word in say.SPOKEN_NUMBERS and listed:  # "number to", "option won"
            found.append(say.SPOKEN_NUMBERS[word])
        elif value is not None and (listed or word not in say.CARDINALS):
            found.append(value)  # "the second", "number two", not "two mirrors"
    return found


def state_flags(t: Turn) -> dict[str, bool]:
    state, pending = t.state, t.state.pending
    active = state.active_option_set()
    expected = pending.expected_type if pending else ""
    frame = state.meta_frame_state
    choice = state.last_accepted_choice_id or ""
    flags = {
        "first_turn": state.turn_count == 0, "has_root": state.root_frame is not None,
        "has_answer": state.answer_context_state is not None, "has_list": active is not None,
        "list_options": active is not None and active.kind == "options",
        "list_graph": active is not None and active.kind in ("callers", "tests"),
        # an object the user chose or opened (an answer's lead is read as before: no focus)
        "has_focus": state.chosen_object is not None,
        "pending_sense": pending is not None and state.clarification_state is not None
        and expected.startswith("selection:"),
        "pending_offer": expected == "boolean",
        "pending_choice": pending is not None and state.clarification_state is None
        and pending.clarifier_type == "selection_disambiguation",
        "pending_slot": expected.startswith(SLOT_PREFIX),
        "pending_reading": pending is not None and pending.clarifier_type == "repair",
        "pending_applied": t.pending.status == "applied",
        "choice_sense": choice.startswith("sense:"), "choice_item": bool(choice)
        and not choice.startswith("sense:"),
        "explained": frame is not None and frame.referent_id is not None
        and frame.answered_turn_id == state.turn_count}
    flags.update({f"last_{c}": t.last_transition == c for c in TRANSITIONS})
    return flags


def _exact_flags(t: Turn) -> dict[str, bool]:
    text, state = t.text, t.state
    active = state.active_option_set()
    size = len(active.items) if active else 0
    numbers = ordinals_in(text)
    labels = [" ".join((i.label, i.target.symbol or "", i.target.path or "")).lower()
              for i in (active.items if active else ())]
    idents = [m.group(0).strip("`()").lower() for m in _IDENT.finditer(text)]
    paths = [m.group(0).lower() for m in _PATH.finditer(text)]
    focus = state.chosen_object.focus_object_ref if state.chosen_object else None
    focus_names = {x.lower() for x in (focus.symbol, focus.label) if x} if focus else set()
    content = {w for w in _words(t.body) if len(w) > 3}
    n_words = len(text.split())
    flags = {
        "ordinal_whole": parse_ordinal(t.body, ORDINAL_SHAPE_MAX) is not None,
        "ordinal_in_text": bool(numbers),
        "ordinal_in_range": any(1 <= n <= size for n in numbers),
        "number_out_of_range": any(n > size for n in numbers),
        "path": bool(paths), "path_listed": any(p in label for p in paths for label in labels),
        "identifier": bool(idents),
        "identifier_focus": any(i in focus_names or i.split(".")[-1] in focus_names
                                for i in idents),
        "identifier_listed": any(i.split(".")[-1] in label for i in idents for label in labels),
        "label_overlap": any(w in _words(label) for w in content for label in labels),
        "quoted": bool(_QUOTED.search(text)), "slash": text.lstrip().startswith("/"),
        "question_mark": text.rstrip().endswith("?"),
        "question_lead": bool(say.QUESTION_LEAD.match(t.body)),
        "pronoun": t.focus.pronoun_hint is not None or bool(say.DEICTIC.search(t.body))}
    flags.update({f"words_{lo}": lo <= n_words <= hi for lo, hi in WORD_BUCKETS})
    return flags


def pending_options(t: Turn) -> tuple[OptionItem, ...]:
    """The options of a pending sense clarifier (a few senses, each described by its span:
    "the one with the mirrors" is matched against them)."""
    return state_options(t.state)


def state_options(state: ContinuityState) -> tuple[OptionItem, ...]:
    """`pending_options` of the turn after `state` (the turn asking the clarifier embeds them
    in a warm process: `helix.session.reader.prepare_options`)."""
    pending = state.pending
    if pending is None or state.clarification_state is None \
            or not pending.expected_type.startswith("selection:"):
        return ()
    option_set = state.option_set(pending.option_set_id or "") or state.active_option_set()
    return option_set.items if option_set else ()


def features(t: Turn, rules_plan: TurnPlan) -> Features:
    rules = meaning_of(rules_plan)
    named = {**state_flags(t), **_exact_flags(t),
             **{f"rule_{c}": rules == c for c in (*CLASSES, "boundary")}}
    return Features(text=t.text, flags=tuple(float(named[n]) for n in FLAG_NAMES), rules=rules,
                    options=pending_options(t), senses=sense_options(t))


# --- the model ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class MeaningModel:
    """Exemplars (class, detail, vector) and the softmax head, as shipped in meaning_model/."""

    model_key: str
    texts: tuple[str, ...]
    labels: np.ndarray  # class index per exemplar
    details: tuple[str | None, ...]
    vectors: np.ndarray  # (exemplars, dim) float32, L2-normalised
    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)

    @functools.cached_property
    def bounds(self) -> tuple[tuple[int, int], ...]:
        """Per class, the [start, end) of its exemplars (grouped by class: `load`)."""
        if np.any(np.diff(self.labels) < 0):
            raise ConfigError("the meaning router's exemplars are not grouped by class")
        starts = np.searchsorted(self.labels, np.arange(len(CLASSES) + 1))
        return tuple((int(a), int(b)) for a, b in itertools.pairwise(starts))

    @functools.cached_property
    def detailed(self) -> tuple[np.ndarray, ...]:
        """Per class, the exemplars that have a detail (what a small-talk exemplar says
        back), in order."""
        has = np.array([bool(d) for d in self.details], dtype=bool)
        return tuple(np.flatnonzero((self.labels == c) & has) for c in range(len(CLASSES)))

    @classmethod
    def load(cls, root: Any = None, *, earlier: bool = False) -> MeaningModel:
        """The shipped model, or the one in directory `root`; `earlier`: a benchmark's earlier
        model, which may know fewer features (the ones it lacks weigh nothing)."""
        root = root or resources.files("controller.continuity").joinpath(MODEL_DIR)
        try:
            head = json.loads(root.joinpath("head.json").read_text(encoding="utf-8"))
            lines = root.joinpath("exemplars.jsonl").read_text(encoding="utf-8").splitlines()
            # one parse of all rows as an array (a cold process: a third of the per-line cost)
            rows = json.loads(f"[{','.join(line for line in lines if line.strip())}]")
            with root.joinpath("exemplars.npy").open("rb") as handle:
                vectors = np.load(handle, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"the meaning router's model cannot be read: {exc}") from None
        names = tuple(head["features"])
        if tuple(head["classes"]) != CLASSES or (names != FEATURE_NAMES and not (
                earlier and set(names) <= set(FEATURE_NAMES))):
            raise ConfigError("the meaning router's model was trained for other features or "
                              "classes: run `python -m evals.router_train`")
        weights = np.zeros((len(FEATURE_NAMES), len(CLASSES)), dtype=np.float64)
        weights[[FEATURE_NAMES.index(n) for n in names]] = np.array(head["weights"])
        index = {name: c for c, name in enumerate(CLASSES)}
        labels = np.array([index[r["meaning"]] for r in rows], dtype=np.int64)
        # the exemplars grouped by class, in their order within it (a stable sort): a class's
        # similarities are then one slice of the product (`class_features`); the rows are
        # gathered before they are widened (float16 -> float32: exact, the same bits)
        order = np.argsort(labels, kind="stable")
        return cls(model_key=head["model_key"], texts=tuple(rows[i]["text"] for i in order),
                   labels=labels[order], details=tuple(rows[i].get("detail") for i in order),
                   vectors=np.ascontiguousarray(vectors.take(order, axis=0), dtype=np.float32),
                   weights=weights,
                   bias=np.array(head["bias"], dtype=np.float64))

    def with_vectors(self, model_key: str, vectors: np.ndarray) -> MeaningModel:
        """The same model over another encoder's vectors of the same exemplar texts."""
        return MeaningModel(model_key=model_key, texts=self.texts, labels=self.labels,
                            details=self.details, vectors=vectors.astype(np.float32),
                            weights=self.weights, bias=self.bias)


def text_features(labels: np.ndarray, sims: np.ndarray,
                  keep: np.ndarray | None = None) -> np.ndarray:
    """Per class: the best similarity and the mean of the TOP_K best (`keep`: the exemplars
    that may count; the trainer leaves out a turn's own session)."""
    out = np.zeros(2 * len(CLASSES), dtype=np.float64)
    for c in range(len(CLASSES)):
        mask = labels == c if keep is None else (labels == c) & keep
        mine = np.sort(sims[mask])[::-1]
        if mine.size:
            out[c] = mine[0]
            out[len(CLASSES) + c] = mine[:TOP_K].mean()
    return np.round(out, ROUND)


def class_features(sims: np.ndarray, bounds: Sequence[tuple[int, int]]) -> np.ndarray:
    """`text_features` of exemplars grouped by class (`MeaningModel.bounds`), the same
    numbers: each class's best TOP_K found by a partition of its slice, not a mask and a sort
    of the whole bank per class (a warm turn's cost would grow with classes x exemplars)."""
    out = np.zeros(2 * len(CLASSES), dtype=np.float64)
    for c, (lo, hi) in enumerate(bounds):
        if hi <= lo:
            continue
        part = sims[lo:hi]
        best = np.partition(part, hi - lo - TOP_K)[-TOP_K:] if hi - lo > TOP_K else part
        mine = sorted(best.tolist(), reverse=True)
        out[c] = mine[0]
        out[len(CLASSES) + c] = sum(mine) / len(mine)  # numpy's mean of so few: the same bits
    return np.round(out, ROUND)


def option_features(scores: Sequence[float]) -> np.ndarray:
    ranked = sorted(scores, reverse=True)
    best = ranked[0] if ranked else 0.0
    return np.round(np.array([best, best - (ranked[1] if len(ranked) > 1 else 0.0)]), ROUND)


def probabilities(weights: np.ndarray, bias: np.ndarray, x: np.ndarray) -> np.ndarray:
    logits = x @ weights + bias
    logits = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(logits)
    return np.round(exp / exp.sum(axis=-1, keepdims=True), ROUND)


def products(vectors: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """The float32 products of `vector` with each row, before rounding. Taken `BLAS_ROWS` rows
    at a time: one matrix-vector product over a few thousand exemplars wakes BLAS's threads,
    whose spinning doubled a warm router turn's CPU time on two cores (10 -> 21 ms); each
    row's product is the same bits either way."""
    v = vector.astype(np.float32)
    parts = [vectors[i:i + BLAS_ROWS] @ v for i in range(0, len(vectors), BLAS_ROWS)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)


def rounded(product: np.ndarray) -> np.ndarray:
    """Products as the classifier compares them (`ROUND` decimals, then float64)."""
    return np.round(product, ROUND).astype(np.float64)


def similarities(vectors: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Cosines of `vector` to each row, rounded (`products`, `rounded`)."""
    return rounded(products(vectors, vector))


def classify(model: MeaningModel, f: Features, vector: np.ndarray,
             option_vectors: np.ndarray | None = None,
             answer: np.ndarray | None = None) -> Reading:
    """The reading of the message's `vector`; a pending clarifier's options scored against
    `answer` when given (the message with a slip of an option's word read as that word)."""
    sims = similarities(model.vectors, vector)
    scored = vector if answer is None else answer
    scores = (tuple(float(s) for s in similarities(option_vectors, scored))
              if option_vectors is not None and len(option_vectors) else ())
    return classify_rounded(model, f, sims, scores)


def classify_rounded(model: MeaningModel, f: Features, sims: np.ndarray,
                     scores: tuple[float, ...]) -> Reading:
    """`classify` from the rounded similarities to the exemplars and to the options."""
    return classify_text(model, f, class_features(sims, model.bounds), sims, scores)


def classify_text(model: MeaningModel, f: Features, text: np.ndarray, sims: np.ndarray,
                  scores: tuple[float, ...]) -> Reading:
    """`classify_rounded` given `text = class_features(sims, model.bounds)` (the certainty
    check of a warm read: only the classes whose similarities it varies are computed again)."""
    x = np.concatenate([text, option_features(scores), np.array(f.flags, dtype=np.float64)])
    probs = probabilities(model.weights, model.bias, x)
    order = sorted(range(len(CLASSES)), key=lambda c: (-probs[c], c))
    top = order[0]
    # the detail of the most similar exemplar of the class read that has one (the first such
    # exemplar among equals); found without sorting the whole bank (a sort and a Python scan of
    # a few thousand exemplars cost a warm turn about a millisecond)
    mine = model.detailed[top]
    best = int(mine[np.argmax(sims[mine])]) if mine.size else None
    return Reading(meaning=CLASSES[top], confidence=float(probs[top]),
                   alternatives=tuple((CLASSES[c], float(probs[c])) for c in order[1:3]),
                   option_scores=scores, detail=model.details[best] if best is not None else None)
