"""The meaning router's reader for a session turn: the driver side of
`controller.continuity.meaning`.

    session_reader(config, root, embedder=None) -> Reader | None

The message, and the options of a pending clarifier (each described by its label and the first
lines of the span it stands for, read inside the repository), are embedded through the Embedder
port; the pure classifier does the rest. The encoder is the packaged sentence model's first layers
the shipped model names (all-MiniLM-L6-v2's numpy forward pass, `indexers.first_layers`: no
torch on this path; a search keeps the whole model), loaded once per process; its exemplar
vectors ship with the model. A long-lived process (`helix.session.warm`) reads
with ONNX Runtime instead wherever that is certain to give the same reading
(`helix.session.certain`). Another embedder (a test's fake) gets the exemplars
embedded by itself, once. None (the vocabulary rules alone) when `continuity.router` is
"rules"; the model and encoder are loaded by the first read (`session_reader`). In a warm
process the turn that asks a sense clarifier embeds its options (`prepare_options`): the
turn answering it does not. After a sense was chosen, a message speaking of a sense in words no
option's label says is scored against both senses' descriptions (`Features.senses`,
`sense_scores`; read by the numpy encoder: `senses.sense_by_meaning` compares the scores with a
margin).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np

from controller.continuity.meaning import (
    Features,
    MeaningModel,
    Reader,
    classify,
    products,
    similarities,
    state_options,
)
from controller.continuity.spelling import respelt_against
from controller.continuity.state import ContinuityState, OptionItem
from controller.continuity.turn_plan import Reading
from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import BadPathError, HelixError
from helix.core.ports import Embedder
from helix.session.warm import loaded_encoder, note_read, note_unsure, warm_encoder

OPTION_LINES = 6  # lines of an option's span that describe it
OPTION_VECTORS = 64  # option descriptions whose vectors are kept (a clarifier is re-read)
_REFITTED: dict[str, MeaningModel] = {}
_OPTION_CACHE: dict[tuple[str, str, str], np.ndarray] = {}


@functools.lru_cache(maxsize=1)
def shipped_model() -> MeaningModel:
    """The shipped model, its exemplar bank mapped from the models directory once it has been
    laid out there (`helix.session.meaning_bank`: the same arrays)."""
    from helix.session.meaning_bank import shipped

    return shipped()


def router_embedder() -> Embedder:
    """The packaged sentence encoder the shipped exemplars were embedded with: of the first
    layers the shipped model's key names (`indexers.first_layers`), else the whole model's (as
    a search's queries)."""
    from indexers.first_layers import layers_of

    return encoder_of(layers_of(shipped_model().model_key))


def encoder_of(layers: int | None) -> Embedder:
    """The numpy query encoder of the packaged model's first `layers` layers (None: the whole
    model); the whole model where it has no numpy forward pass (the exemplars are then
    embedded again by it: `model_for`). The trainer embeds with `ENCODER_LAYERS`."""
    from indexers.encoder import default_model_path, model_dir, numpy_compatible, query_embedder
    from indexers.first_layers import shared_first_layers_encoder

    settings = IndexSettings()
    path = default_model_path(settings)
    if layers is not None and numpy_compatible(model_dir(path)):
        return shared_first_layers_encoder(path, layers)
    return query_embedder(settings)


def model_for(embedder: Embedder) -> MeaningModel:
    """The shipped model, its exemplars re-embedded when `embedder` is another encoder."""
    model = shipped_model()
    if embedder.model_key == model.model_key:
        return model
    if embedder.model_key not in _REFITTED:
        _REFITTED[embedder.model_key] = model.with_vectors(
            embedder.model_key, embedder.embed(list(model.texts)))
    return _REFITTED[embedder.model_key]


def describe(root: Path, option: OptionItem, max_bytes: int) -> str:
    """An option as words: its label, its sublabel and the first lines of its span."""
    from helix.session.lane_driver import open_span

    lines = ""
    try:
        opened = open_span(root, option.target, OPTION_LINES, max_bytes)
    except (BadPathError, OSError):
        pass
    else:
        lines = " ".join(line.strip().split("  ", 1)[-1].strip()
                         for line in opened.text.splitlines())
    return " ".join(x for x in (option.label, option.sublabel, lines) if x)


def session_reader(config: HelixConfig, root: Path,
                   embedder: Embedder | None = None) -> Reader | None:
    """The reader of a session's turns. Its encoder and model are loaded by its first read, not
    here: a process whose turn the rules decide alone (a strict answer to a pending question,
    "start over", "stop") loads neither. A read whose load failed reads nothing (None), and the
    rules' plan stands, as with `continuity.router = "rules"`."""
    if config.continuity.router != "meaning":
        return None
    loaded: list[tuple[Embedder, MeaningModel] | None] = []

    def load() -> tuple[Embedder, MeaningModel] | None:
        if not loaded:
            try:
                encoder = embedder or router_embedder()
                loaded.append((encoder, model_for(encoder)))
            except (HelixError, ImportError, OSError):
                loaded.append(None)
        return loaded[0]

    def read(f: Features) -> Reading | None:
        ready = load()
        if ready is None:
            return None
        encoder, model = ready

        def exact(f: Features) -> Reading:  # the numpy encoder's reading
            vector = encoder.embed([f.text])[0]
            texts = [describe(root, o, config.index.max_file_bytes) for o in f.options]
            options = option_vectors(encoder, texts) if texts else None
            answer = answer_vector(encoder, f.text, texts)
            reading = classify(model, f, vector, options, answer)
            senses = [describe(root, o, config.index.max_file_bytes) for o in f.senses]
            return reading.model_copy(update={
                "sense_scores": sense_scores(encoder, f.text, vector, senses)}) \
                if senses else reading

        note_read()
        # a message compared with the senses of the question (rare) is read exactly: its
        # scores decide against a margin, with no rounding boundary to be unsure of
        warm = warm_encoder(encoder, model) if embedder is None and not f.senses else None
        if warm is None:
            return exact(f)
        found = warm_readings(warm, model, f, [describe(root, o, config.index.max_file_bytes)
                                               for o in f.options])
        # several: routed with each (`helix.session.warm.route_turn`), else read exactly
        if found is None or (len(found) > 1 and not note_unsure(found[1:], exact)):
            return exact(f)
        return found[0]

    return read


def warm_readings(warm: Embedder, model: MeaningModel, f: Features,
                  texts: list[str]) -> tuple[Reading, ...] | None:
    """Every reading the numpy encoder could make of the turn, from `warm`'s vectors
    (`helix.session.certain`); None when too many similarities are unsure."""
    from helix.session.certain import candidate_readings

    vector = warm.embed([f.text])[0]
    answer = answer_vector(warm, f.text, texts)
    options = products(option_vectors(warm, texts), vector if answer is None else answer) \
        if texts else None
    return candidate_readings(model, f, products(model.vectors, vector), options)


def sense_scores(encoder: Embedder, text: str, vector: np.ndarray,
                 texts: list[str]) -> tuple[float, ...]:
    """The message's cosine to each sense's description (`texts`), rounded as the classifier
    rounds; a slip of a description's word read as that word (`answer_vector`)."""
    answer = answer_vector(encoder, text, texts)
    scored = vector if answer is None else answer
    return tuple(float(s) for s in similarities(option_vectors(encoder, texts), scored))


def answer_vector(encoder: Embedder, text: str, texts: list[str]) -> np.ndarray | None:
    """The message as an answer to the options described by `texts`, when a word of it is a
    slip of one of their words ("the memroy one": `spelling.respelt_against`): its vector,
    which the options are scored against instead of the message's (a word read in pieces
    scores near no option). None when no word was read otherwise."""
    if not texts:
        return None
    words = frozenset(w for t in texts for w in re.findall(r"[a-z]+", t.lower()))
    respelt = respelt_against(text, words)
    return None if respelt is None else encoder.embed([respelt])[0]


def option_vectors(encoder: Embedder, texts: list[str]) -> np.ndarray:
    """The vectors of a clarifier's option descriptions, each embedded alone (its vector
    depends on its text only) and kept for the process (a pending clarifier is read again
    each turn)."""
    # by runtime too: ONNX Runtime's vectors share the numpy encoder's key, not its bits
    kind, key = type(encoder).__name__, encoder.model_key
    for text in texts:
        if (kind, key, text) not in _OPTION_CACHE:
            if len(_OPTION_CACHE) >= OPTION_VECTORS:
                _OPTION_CACHE.pop(next(iter(_OPTION_CACHE)))
            _OPTION_CACHE[(kind, key, text)] = encoder.embed([text])[0]
    return np.stack([_OPTION_CACHE[(kind, key, t)] for t in texts])


def prepare_options(config: HelixConfig, root: Path, before: ContinuityState,
                    after: ContinuityState) -> None:
    """The options of a sense clarifier the turn from `before` to `after` asked, embedded now
    by the warm encoder into `option_vectors`' cache: the turn answering it, a router turn
    (issue 32: at most 15 ms warm), reads their vectors instead of embedding each option's
    description (label and the first lines of its span: ONNX Runtime takes such a text about
    as long as the rest of the turn). The asking turn pays, after its retrieval
    (benchmarks/router_stages.py, `prepared`). Nothing unless the process is warm and an
    earlier read loaded the warm encoder (a one-shot process's next turn is another process;
    nothing is loaded here), with `continuity.router` "meaning" and a clarifier new in `after`."""
    if config.continuity.router != "meaning" or after.pending is None \
            or after.pending == before.pending:
        return
    encoder = loaded_encoder()
    options = state_options(after) if encoder is not None else ()
    if encoder is not None and options:
        option_vectors(encoder, [describe(root, o, config.index.max_file_bytes)
                                 for o in options])
