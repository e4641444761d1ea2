"""The selection lane's deterministic half: reading the turn, the scoped pool, the matcher.

`parse_selection_input` reads cues from the text (interrupt, question intent, command verb,
explicit scope cue, ordinal, pronoun, "the test one", paths, the explanation clause of a mixed
turn). `scoped_pool` picks the ONE candidate pool the turn may act on: an explicit scope cue
first (`from the evidence`, `from the options`, `from the answer`, `in tests/`), else the active
option set; pools are never mixed across scopes. `resolve_deterministic` finds a winner only when
it is unique and the arbitration context is the active one (same option-set id, same scope) or
was named explicitly by a scope cue.
"""

from __future__ import annotations

import re
from typing import Literal

from controller.continuity.fingerprint import normalize_label
from controller.continuity.state import ContinuityState, OptionItem, OptionSet, OptionSetKind
from controller.continuity.vocabulary_data import compiled, filler, positions_said
from helix.core.english import (
    ORDINAL_SUFFIX,
    from_end,
    ordinal_alternation,
    ordinal_value,
)
from helix.core.schemas import Frozen
from indexers.graph import is_test_path

UnresolvedReason = Literal["resolved", "no_deterministic_match", "ambiguous", "collision",
                           "stale_option_set", "scope_mismatch", "loop_guard_conflict",
                           "not_command_like"]

_INTERRUPT = compiled("SELECT_INTERRUPT")
_POLITE_PREFIX = compiled("SELECT_POLITE_PREFIX")
_QUESTION_START = compiled("SELECT_QUESTION_START")
_COMMAND = compiled("SELECT_COMMAND")
# "open 2 and explain why" -> command "open 2", clause "explain why"
_MIXED = compiled("SELECT_MIXED")
_SCOPE_NAMED = compiled("SELECT_SCOPE_NAMED")
_SCOPE_PATH = re.compile(r"\b(?:in|under|within|inside) ((?:[\w.-]+/)+)", re.I)
_FILLER = filler("label")
_ORDINAL = re.compile(rf"(?<![\w./-])(?:#\s*)?({ordinal_alternation(numbers=False)}|\d{{1,2}})"
                      rf"{ORDINAL_SUFFIX}?(?![\w./-])", re.I)
_PRONOUN = compiled("SELECT_PRONOUN")
# "the other one": the one that is not the choice just turned down
_OTHER = compiled("SELECT_OTHER")
_KIND_WORD = compiled("SELECT_KIND_WORD")
_PATH_TOKEN = re.compile(r"(?<![\w])([\w-]*(?:[./][\w-]+)+/?)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc")
_CUE_KINDS: dict[str, tuple[OptionSetKind, ...]] = {
    "answer": ("answer", "evidence"), "evidence": ("evidence",), "options": ("options",),
    "callers": ("callers",), "tests": ("tests",), "tree": ("tree",)}


class SelectionCues(Frozen):
    text: str
    command_text: str  # without the mixed-intent explanation clause
    key_text: str  # normalised command text: the loop-guard / cycle key
    interrupt: bool = False
    question_intent: bool = False
    command_like: bool = False
    followup_clause: str | None = None
    scope_kind: str | None = None  # "evidence", "options", "answer", "list", ...
    path_scope: str | None = None  # "tests/"
    scope_phrase: str = ""
    ordinal: int | None = None  # 1-based, -1 = last, -2 = the one before
    pronoun: bool = False
    other: bool = False  # "the other one"
    kind_word: str | None = None  # "test", "doc", "code"
    path_tokens: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    remainder: str = ""  # normalised text left after verbs, cues and filler (label match)


def parse_selection_input(text: str) -> SelectionCues:
    raw = text.strip()
    if _OTHER.match(raw):
        return SelectionCues(text=raw, command_text=raw, key_text=normalize_label(raw),
                             other=True)
    interrupt = bool(_INTERRUPT.match(raw))
    body = _POLITE_PREFIX.sub("", raw)
    command_like = bool(_COMMAND.match(body))
    followup = None
    mixed = _MIXED.search(body)
    if mixed and command_like:
        followup = mixed.group(1).strip()
        body = body[: mixed.start()]
    question = not command_like and (bool(_QUESTION_START.match(body))
                                     or raw.rstrip().endswith("?"))
    rest = body
    scope_kind = path_scope = None
    phrase = ""
    named = _SCOPE_NAMED.search(rest)
    if named:
        scope_kind, phrase = named.group(1).lower(), named.group(0)
        rest = rest[: named.start()] + " " + rest[named.end():]
    scoped = _SCOPE_PATH.search(rest)
    if scoped:
        path_scope = scoped.group(1)
        phrase = phrase or scoped.group(0)
        rest = rest[: scoped.start()] + " " + rest[scoped.end():]
    rest = positions_said(_COMMAND.sub("", rest))  # "the top one": the first
    paths = tuple(m.group(1) for m in _PATH_TOKEN.finditer(rest))
    kind = _KIND_WORD.search(rest)
    kind_word = None
    if kind:
        word = kind.group(1).lower()
        kind_word = {"tests": "test", "docs": "doc", "documentation": "doc", "readme": "doc",
                     "definition": "code"}.get(word, word)
        rest = rest[: kind.start()] + " " + rest[kind.end():]
    ordinal = None
    found = _ORDINAL.search(rest)  # never inside a path token (look-arounds)
    if found:
        ordinal = ordinal_value(found.group(1))
        rest = rest[: found.start()] + " " + rest[found.end():]
    no_paths = _PATH_TOKEN.sub(" ", rest)
    pronoun = bool(_PRONOUN.search(no_paths))
    remainder = normalize_label(_FILLER.sub(" ", _PRONOUN.sub(" ", rest)))
    return SelectionCues(
        text=raw, command_text=body.strip(), key_text=normalize_label(body),
        interrupt=interrupt, question_intent=question, command_like=command_like,
        followup_clause=followup, scope_kind=scope_kind, path_scope=path_scope,
        scope_phrase=phrase.strip(), ordinal=ordinal, pronoun=pronoun, kind_word=kind_word,
        path_tokens=paths,
        words=tuple(w.lower() for w in (*_WORD.findall(no_paths), *paths)),
        remainder=remainder)


def _newest(sets: list[OptionSet]) -> OptionSet | None:
    return max(sets, key=lambda s: (s.origin_turn_id, s.id)) if sets else None


def scoped_pool(state: ContinuityState, cues: SelectionCues) -> tuple[
        OptionSet | None, tuple[OptionItem, ...], str | None]:
    """The one option set and candidate pool this turn may act on, and its scope key."""
    active = state.active_option_set()
    option_set = active
    if cues.scope_kind and cues.scope_kind != "list":
        option_set = None
        for kind in _CUE_KINDS[cues.scope_kind]:
            same = [s for s in state.option_sets if s.kind == kind]
            option_set = active if active is not None and active in same else _newest(same)
            if option_set is not None:
                break
    if option_set is None:
        return None, (), None
    pool, scope = option_set.items, option_set.scope
    if cues.path_scope:
        prefix = cues.path_scope
        pool = tuple(i for i in pool if (i.target.path or "").startswith(prefix))
        scope = f"{option_set.scope}|path:{prefix}"
        if not pool:
            return None, (), None
    return option_set, pool, scope


class Resolution(Frozen):
    winner: OptionItem | None = None
    safe: bool = False
    reason: UnresolvedReason = "no_deterministic_match"
    narrowed: tuple[OptionItem, ...] = ()
    signals: tuple[str, ...] = ()
    collision: bool = False


def _kind_of(item: OptionItem) -> str:
    path = item.target.path or ""
    if is_test_path(path) or "test" in item.sublabel.lower().split():
        return "test"
    if path.endswith(_DOC_SUFFIXES) or item.target.kind == "section":
        return "doc"
    return "code"


_MIN_WORD = 3


def _searchable(item: OptionItem, with_path: bool) -> str:
    target = item.target
    return normalize_label(" ".join((item.label, target.symbol or "",
                                     target.path or "" if with_path else "")))


def _path_match(item: OptionItem, token: str) -> bool:
    path = item.target.path or ""
    token = token.rstrip("/")
    return bool(path) and (path == token or path.endswith("/" + token)
                           or path.rsplit("/", 1)[-1] == token)


def _symbol_names(item: OptionItem) -> set[str]:
    symbol = item.target.symbol or ""
    parts = re.split(r"[.:]+", symbol)
    return {p.lower() for p in parts if p} | ({symbol.lower()} if symbol else set())


def _continuity_referent(state: ContinuityState, pool: tuple[OptionItem, ...],
                         option_set: OptionSet) -> tuple[OptionItem | None, str]:
    """'it' / 'that': the focused object, else the last accepted choice, only if in the pool
    of the same option set (stale option sets never resurrect a referent)."""
    focus = state.focus.object_ref
    if focus is not None:
        hits = [i for i in pool if focus.id in (i.id, i.target.id)]
        if len(hits) == 1:
            return hits[0], "focus"
    last = state.last_resolved_action
    if (state.last_accepted_choice_id and last is not None
            and last.option_set_id == option_set.id):
        hits = [i for i in pool if i.id == state.last_accepted_choice_id]
        if len(hits) == 1:
            return hits[0], "last accepted choice"
    return None, ""


def resolve_deterministic(cues: SelectionCues, pool: tuple[OptionItem, ...],
                          state: ContinuityState, option_set: OptionSet, scope: str, *,
                          explicit: bool, use_continuity: bool) -> Resolution:
    """Filters narrow (kind word, path, symbol), selectors pick (ordinal, label, pronoun).
    A winner is `safe` only if unique, uncontested and in the active (or named) context."""
    if cues.other and use_continuity:  # every candidate but the ones turned down
        return _the_other_one(pool, state, option_set, explicit=explicit)
    narrowed, signals = _narrowed(cues, pool)
    picks = _picks(cues, narrowed, state, option_set, use_continuity=use_continuity)
    signals += sorted(picks)
    selectable = cues.command_like or bool(picks) or bool(signals)
    by_id = {i.id: i for i in narrowed}
    chosen, collision = _chosen(cues, pool, narrowed, picks, signals,
                                use_continuity=use_continuity)
    if collision:
        return Resolution(reason="collision", narrowed=narrowed, signals=tuple(signals),
                          collision=True)
    if len(chosen) != 1:
        # a cue that matched several candidates is ambiguity; matching nothing is not
        ambiguous = len(chosen) > 1 or (bool(signals) and not picks and len(narrowed) > 1)
        reason: UnresolvedReason = "ambiguous" if ambiguous else "no_deterministic_match"
        shown = tuple(by_id[i] for i in sorted(chosen, key=lambda c: by_id[c].index)) or narrowed
        return Resolution(reason=reason, narrowed=shown, signals=tuple(signals))
    winner = by_id[next(iter(chosen))]
    return _checked(winner, tuple(signals), state, option_set, scope, selectable=selectable,
                    explicit=explicit, use_continuity=use_continuity)


def _the_other_one(pool: tuple[OptionItem, ...], state: ContinuityState, option_set: OptionSet,
                   *, explicit: bool) -> Resolution:
    """"The other one": every candidate but the ones turned down, resolved when one is left."""
    turned_down = {*state.recent_rejected_choice_ids, state.last_accepted_choice_id}
    narrowed = tuple(i for i in pool if i.id not in turned_down)
    if len(narrowed) != 1:
        return Resolution(reason="ambiguous" if narrowed else "no_deterministic_match",
                          narrowed=narrowed, signals=("the other one",))
    winner = narrowed[0]
    if not explicit and option_set.id != state.active_option_set_id:
        return Resolution(winner=winner, reason="stale_option_set",
                          signals=("the other one",))
    return Resolution(winner=winner, safe=True, reason="resolved", narrowed=(winner,),
                      signals=("the other one",))


def _narrowed(cues: SelectionCues,
              pool: tuple[OptionItem, ...]) -> tuple[tuple[OptionItem, ...], list[str]]:
    """The filters (kind word, path, symbol name, words of the name): the candidates left and
    the signals that narrowed them."""
    narrowed, signals = pool, []
    if cues.kind_word:
        narrowed = tuple(i for i in narrowed if _kind_of(i) == cues.kind_word)
        signals.append(f"the {cues.kind_word} one")
    for token in cues.path_tokens:
        by_path = tuple(i for i in narrowed if _path_match(i, token))
        if by_path or any(_path_match(i, token) for i in pool):
            narrowed = by_path
            signals.append(f"path {token}")
    symbol_hits = tuple(i for i in narrowed if _symbol_names(i) & set(cues.words))
    if symbol_hits and len(symbol_hits) < len(narrowed):
        narrowed = symbol_hits
        signals.append("symbol name")
    words = [w for w in cues.remainder.split() if len(w) >= _MIN_WORD]
    if words and not cues.ordinal:  # "the bm25 one": the items whose name (else path) says it
        word_hits = tuple(i for i in narrowed if all(w in _searchable(i, False) for w in words))
        word_hits = word_hits or tuple(i for i in narrowed
                                       if all(w in _searchable(i, True) for w in words))
        if word_hits and len(word_hits) < len(narrowed):
            narrowed = word_hits
            signals.append("words " + " ".join(words))
    named = _file_named(cues, narrowed) if len(narrowed) > 1 else None
    if named is not None:
        narrowed = (named,)
        signals.append(f"the file {named.label}")
    return narrowed, signals


def _is_file(item: OptionItem) -> bool:
    """A listed file as a whole (its label is its path), not a definition in it."""
    return not item.target.symbol and bool(item.target.path) and item.label == item.target.path


def _file_named(cues: SelectionCues, narrowed: tuple[OptionItem, ...]) -> OptionItem | None:
    """The one listed file the message names by its file name or its module name ("open
    resonator.py", "test_cli", "the test cli one") among candidates that are that file and
    definitions in it: naming the file means the file, not one of its definitions. The file
    listed as a whole more than once (two spans of search/cli.py, "the cli.py one") is one
    referent, not an ambiguity: the span the list puts first. Two definitions in the named
    file with the file not listed as a whole stay a choice (which definition is meant)."""
    names = {t.rstrip("/").rsplit("/", 1)[-1].lower() for t in cues.path_tokens} | set(cues.words)
    said = names | ({cues.kind_word} if cues.kind_word else set())

    def named(item: OptionItem) -> bool:
        base = (item.target.path or "").rsplit("/", 1)[-1].lower()
        stem = base.rsplit(".", 1)[0]
        parts = {p for p in stem.split("_") if p}
        return bool(base) and (base in names or stem in names or (
            len(parts) > 1 and parts <= said))

    files = [i for i in narrowed if _is_file(i) and named(i)]
    if len({i.target.path for i in files}) == 1:  # one file, listed as a whole once or more
        return min(files, key=lambda i: i.index)
    return None


def _picks(cues: SelectionCues, narrowed: tuple[OptionItem, ...], state: ContinuityState,
           option_set: OptionSet, *, use_continuity: bool) -> dict[str, set[str]]:
    """The selectors (ordinal, label, else a pronoun's referent): selector -> the ids it picks."""
    picks: dict[str, set[str]] = {}
    if cues.ordinal is not None and narrowed:
        index = from_end(cues.ordinal, len(narrowed))
        picks["ordinal"] = {narrowed[index - 1].id} if 1 <= index <= len(narrowed) else set()
    if cues.remainder:
        labels = {i.id for i in narrowed if cues.remainder in
                  (normalize_label(i.label), normalize_label(i.sense or ""))}
        if labels:
            picks["label"] = labels
    if cues.pronoun and use_continuity and "ordinal" not in picks and "label" not in picks:
        referent, how = _continuity_referent(state, narrowed, option_set)
        if referent is not None:
            picks[f"pronoun ({how})"] = {referent.id}
    return picks


def _chosen(cues: SelectionCues, pool: tuple[OptionItem, ...], narrowed: tuple[OptionItem, ...],
            picks: dict[str, set[str]], signals: list[str], *,
            use_continuity: bool) -> tuple[set[str], bool]:
    """The ids the selectors agree on (or the one left by the filters, or the pool's only
    item for a bare "open it"), and whether two selectors contradict each other."""
    if picks:
        sets = list(picks.values())
        chosen = set.intersection(*sets)
        collision = len(sets) > 1 and not chosen
        return (set() if any(not s for s in sets) else chosen), collision
    if signals and len(narrowed) == 1:
        return {narrowed[0].id}, False
    if (len(pool) == 1 and (cues.pronoun or cues.command_like) and not signals
            and not cues.remainder):  # "open it" with one candidate; never an unmatched label
        return ({pool[0].id} if use_continuity else set()), False
    return set(), False


def _checked(winner: OptionItem, signals: tuple[str, ...], state: ContinuityState,
             option_set: OptionSet, scope: str, *, selectable: bool, explicit: bool,
             use_continuity: bool) -> Resolution:
    """The unique winner, safe only if the turn was a selection in the active (or named)
    list and scope and the winner was not turned down."""
    if not selectable:
        return Resolution(winner=winner, reason="not_command_like", signals=signals)
    if not explicit and option_set.id != state.active_option_set_id:
        return Resolution(winner=winner, reason="stale_option_set", signals=signals)
    if not explicit and scope != state.active_scope:
        return Resolution(winner=winner, reason="scope_mismatch", signals=signals)
    if use_continuity and winner.id in state.recent_rejected_choice_ids:
        return Resolution(winner=winner, reason="loop_guard_conflict", signals=signals)
    return Resolution(winner=winner, safe=True, reason="resolved", narrowed=(winner,),
                      signals=signals)
