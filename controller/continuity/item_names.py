"""The items of the list on screen named in a message: by their own name, their file's name, a
typo of either (`difflib`), or their position (`item_position`); what kind each item is (code,
test, document), and whether a named item is the focused object at another grain."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from controller.continuity import phrases as say
from controller.continuity.meaning import ordinals_in
from controller.continuity.pending import normalize, parse_ordinal
from controller.continuity.selection_match import parse_selection_input
from controller.continuity.spelling import respelled
from controller.continuity.state import OptionItem, OptionSet, TargetRef
from controller.continuity.turn_plan import ORDINAL_SHAPE_MAX, Turn
from controller.continuity.vocabulary_data import compiled, positions_said
from controller.route import VOCABULARY
from helix.core.english import (
    BEFORE_LAST_WORD,
    ENTRY_NOUNS,
    FUNCTION_WORDS,
    LAST_WORD,
    ORDINAL_WORDS,
    POINTING_WORDS,
    from_end,
    ordinal_value,
    stems,
)
from indexers.graph import is_test_path

_DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc")
_WORD = re.compile(r"[a-z0-9_]+")
MIN_NAME_CHARS = 3  # shorter names of a listed item are never matched
MIN_FUZZY_CHARS = 5  # a word this long may name an item with a typo
FUZZY_RATIO = 0.85  # how alike a typed word and a name must be (difflib ratio)


def item_kind(item: OptionItem) -> str:
    path = item.target.path or ""
    if is_test_path(path):
        return "test"
    if path.endswith(_DOC_SUFFIXES) or item.target.kind == "section":
        return "doc"
    return "code"


def listed_items(t: Turn) -> list[OptionItem]:
    pool = t.pool()
    return list(pool.items) if pool else []


def item_names(item: OptionItem) -> tuple[set[str], set[str]]:
    """(the names of the item itself: symbol, its last part, label, and the file's names when
    the item is the whole file ("engine.py" names the item search/engine.py before its
    definitions); the names of its file: file name, path). A stem ("bm25" of bm25.py) names no
    item: it names a file's part."""
    path = (item.target.path or "").lower()
    symbol = (item.target.symbol or "").lower()
    own = {symbol, symbol.rsplit(".", 1)[-1], item.label.lower()}
    files = {path.rsplit("/", 1)[-1], path} if "." in path.rsplit("/", 1)[-1] else {path}
    if not symbol and item.label.lower() == path:  # the item is the file: its name is the file's
        own |= files
    return ({n for n in own if len(n) >= MIN_NAME_CHARS},
            {n for n in files if len(n) >= MIN_NAME_CHARS})


def name_like(token: str, name: str) -> bool:
    """The same name, or a typo of it ("engien.py" for "engine.py"; two letters swapped in a
    short name, "scroe" for "score", which difflib's ratio puts below the bar)."""
    if token == name or len(token) < MIN_FUZZY_CHARS:
        return token == name
    matcher = SequenceMatcher(None, token, name)
    # the ratio's two upper bounds first (lengths alone, letters alone): most names are
    # ruled out without the ratio's own matching
    alike = matcher.real_quick_ratio() >= FUZZY_RATIO and matcher.quick_ratio() >= FUZZY_RATIO \
        and matcher.ratio() >= FUZZY_RATIO
    return alike or _swapped(token, name)


def _swapped(token: str, name: str) -> bool:
    """`name` with two neighbouring letters swapped."""
    if len(token) != len(name):
        return False
    diff = [i for i, (a, b) in enumerate(zip(token, name, strict=True)) if a != b]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and token[diff[0]] == name[diff[1]] \
        and token[diff[1]] == name[diff[0]]


_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def spelt_as_words(name: str, text: str) -> bool:
    """A code name of two parts or more written as its words in `text`, in order and side by
    side ("optical cavity" for OpticalCavity, "free spectral range" for free_spectral_range,
    "the cavity pools" for cavity_pool: a plural 's' on the last)."""
    parts = [p.lower() for p in _NAME_PART.findall(name)]
    if len(parts) < 2:
        return False
    words = re.findall(r"[a-z0-9]+", text.lower())
    return any(words[i:i + len(parts) - 1] == parts[:-1]
               and words[i + len(parts) - 1] in (parts[-1], parts[-1] + "s")
               for i in range(len(words) - len(parts) + 1))


_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def own_name_parts(item: OptionItem) -> tuple[str, ...]:
    """The item's own names as written, for `spelt_as_words`: its symbol's last part, for a
    whole file its file name's stem ("cavity_pool" of storage/cavity_pool.py), for a section
    its heading's own words ("cavity pool" of "The cavity pool")."""
    symbol = (item.target.symbol or "").rsplit(".", 1)[-1]
    path = item.target.path or ""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0] if not symbol and item.label == path else ""
    heading = _ARTICLE.sub("", item.label.rsplit(" > ", 1)[-1]) \
        if item.target.kind == "section" else ""
    return tuple(n for n in (symbol, stem, heading) if n)


def message_tokens(text: str) -> set[str]:
    tokens = {m.strip(".,:;!?\"'`()").split(":")[0] for m in text.lower().split()}
    return tokens | set(_WORD.findall(text.lower()))


def named_item(t: Turn) -> OptionItem | None:
    """The one listed item the message names by its own name, else by its file (exactly)."""
    tokens, items = message_tokens(t.text), listed_items(t)
    for which in (0, 1):
        hits = [i for i in items if item_names(i)[which] & tokens]
        if hits:
            return hits[0] if len(hits) == 1 else None
    return None


def respelt_names(t: Turn) -> str | None:
    """The message with a mistyped name of a listed item written right ("engien.py one" ->
    "engine.py one"; a listed file's stem of `MIN_FUZZY_CHARS` letters or more: "the
    resinator file" -> "the resonator file"), for the selection lane's own matching; None when
    nothing was mistyped. A path ("search/tokenizer.py") is exact: never read as another file."""
    known = {n for i in listed_items(t) for names in item_names(i) for n in names if "/" not in n}
    known |= {n.split(".", 1)[0] for n in known if "." in n and len(n.split(".", 1)[0])
              >= MIN_FUZZY_CHARS and not n.startswith("_")}  # a file's stem: "the resonator"
    words = t.text.split()
    fixed = []
    for word in words:
        bare = word.lower().strip(".,:;!?\"'`()")
        near = [] if "/" in bare or bare in known else sorted(
            n for n in known if name_like(bare, n))
        fixed.append(near[0] if len(near) == 1 else word)
    return " ".join(fixed) if fixed != words else None


def focus_named(t: Turn) -> bool:
    """The message names the focused object: its symbol, the symbol's last part ("carve" of
    CavityPool.carve, as a listed item is named: `item_names`) or its label."""
    target = t.focused()
    if target is None:
        return False
    symbol = (target.symbol or "").lower()
    names = {n for n in (symbol, symbol.rsplit(".", 1)[-1], (target.label or "").lower())
             if len(n) >= MIN_NAME_CHARS}
    return bool(names & message_tokens(t.text))


def same_object(named: TargetRef, focus: TargetRef) -> bool:
    """A listed item that is the focused object at another grain: a definition inside the
    focused file or class ("who calls carve?" while storage/cavity_pool.py is open), or the
    file or class the focused definition is in. A short action on the selected object (T4)
    then, not a drilldown into another item."""
    if not named.path or named.path != focus.path or named.id == focus.id \
            or "section" in (named.kind, focus.kind):
        return False
    inner, outer = named.symbol or "", focus.symbol or ""
    return not inner or not outer or inner.startswith(f"{outer}.") \
        or outer.startswith(f"{inner}.")


# the words after which a bare number names an item of the list ("explain 3", "who calls 2",
# "tests for 4"): a request's verb or the preposition that takes its object
# the words a bare number names a position after ("explain 3", "tests for 2"); not "of": a number
# after it is what something is of ("the log of 1 plus", "a power of 2"): "callers of #1"
_ITEM_NUMBER_AFTER = frozenset({"open", "show", "explain", "calls", "call", "callers", "tests",
                                "test", "for", "on", "about", "into"})
_TOKEN = re.compile(r"#?[a-z0-9_]+(?:\.[0-9]+)?")


# a number that opens the message, set off from the request after it
_POSITION_FIRST = re.compile(r"^\s*#?(\d{1,3})\s*(?:[,:;\u2013\u2014]|-\s|\.\s)")


_DECIMAL = re.compile(r"\d*[.,]\d+")


# a position counted from the end of a list: "the last one", "the penultimate entry", "open
# the last" (`said_positions` reads "the bottom one", "the final item", "second to last")
_FROM_END = re.compile(rf"\b({LAST_WORD}|{BEFORE_LAST_WORD})\b(?=\s+(?:{'|'.join(ENTRY_NOUNS)})s?\b"
                       r"|\W*$)", re.I)


def position_named(t: Turn, count: int) -> int | None:
    """The list position the message names (`number_named`), or one counted from the end of
    a list of `count` ("the bottom one", "the second-to-last entry")."""
    number = number_named(t)
    if number is not None:
        return number
    found = _FROM_END.search(positions_said(t.text))
    value = ordinal_value(found.group(1)) if found else None
    return from_end(value, count) if value is not None and count + value >= 0 else None


def number_named(t: Turn) -> int | None:
    """The first number or ordinal the message names, an ordinal word misspelt by one edit
    read as that word ("the seocnd one"), as the rules read it. A decimal ("why 0.75 for b?",
    "is 1.5 a default") is a value, and a list counts from 1: neither is a position."""
    text = _DECIMAL.sub(" ", t.text)
    found = [n for n in ordinals_in(text) or ordinals_in(respelled(text)[0]) if n > 0]
    return found[0] if found else None


# a kind of listed item a position may count among ("the 12th test", "test #3", "2nd doc");
# "document" is left out: people call any listed file a document ("the first document you
# listed")
_KINDS_SAID = {"test": "test", "tests": "test", "doc": "doc", "docs": "doc"}
_COUNTED_KIND = (re.compile(r"(?P<n>\w+)\s+(?P<k>tests?|docs?)\b"),
                 re.compile(r"\b(?P<k>test|doc)\s*(?:#|number\s+|no\.?\s*)(?P<n>\w+)"))


def kind_position(text: str, items: tuple[OptionItem, ...] | list[OptionItem],
                  number: int) -> tuple[str, int, int | None] | None:
    """When the message counts `number` among the listed items of one kind ("the 12th test",
    "open test #3", "the second doc"): (the kind, how many of it the list shows, the list
    position of that kind's `number`-th item, None when the list shows fewer). None when the
    position counts over the whole list ("the 12th one", "the second")."""
    for match in (m for pattern in _COUNTED_KIND for m in pattern.finditer(text.lower())):
        said, kind = match.group("n"), _KINDS_SAID[match.group("k")]
        if ordinal_value(said) != number:
            continue
        positions = [n for n, item in enumerate(items, start=1) if item_kind(item) == kind]
        return kind, len(positions), positions[number - 1] if number <= len(positions) else None
    return None


def kind_counted(text: str, items: tuple[OptionItem, ...] | list[OptionItem],
                 number: int | None) -> tuple[int | None, str | None]:
    """A list position the message names (`number`) as a position in the whole list, and why
    there is none when it counts among the items of a kind the list shows fewer of ("there is
    no test 12: the list has 9 items, 4 of them tests"): `kind_position`."""
    counted = kind_position(text, items, number) if number is not None else None
    if counted is None or counted[2] is not None:
        return (counted[2] if counted else number), None
    return number, (f"there is no {counted[0]} {number}: the list has {len(items)} items, "
                    f"{counted[1]} of them {counted[0]}s")


def list_position(t: Turn, items: tuple[OptionItem, ...] | list[OptionItem]
                  ) -> tuple[int | None, str | None]:
    """The position a pick names in a list of `items`, and why there is none: a number or
    ordinal counted among the items of its kind when it names one ("the 12th test":
    `kind_counted`), else a position counted from the end ("the bottom one": `position_named`)."""
    named = number_named(t)
    if named is not None:
        return kind_counted(t.text, items, named)
    return position_named(t, len(items)), None


def item_position(t: Turn) -> int | None:
    """The list position a question about an object names: a message that is only a position
    ("2", "the second"), a position with its ordinal form ("the second", "2nd", "the third
    result"), a number after a list noun or '#' ("number 2", "item 3", "#2"), or a bare number
    right after the request's verb or preposition ("explain 3", "tests for 2"). Any other
    number in a sentence is a value the question is about ("why does it return 2", "the +0.5
    bit", "why 1 - r in the denominator", "is 10 always?", "why log of 1 plus?"), never a
    position."""
    whole = parse_ordinal(t.body, ORDINAL_SHAPE_MAX)
    if whole is not None:
        return whole
    said_first = _POSITION_FIRST.match(t.text)
    if said_first:  # "2, explain", "1 — what does it do": the position, then the request
        return int(said_first.group(1))
    typed = t.text.lower()
    for text in dict.fromkeys((typed, respelled(t.text)[0].lower())):
        words = _TOKEN.findall(text)
        for before, word, after in zip(["", *words[:-1]], words, [*words[1:], ""], strict=True):
            bare = word.lstrip("#")
            value = ordinal_value(bare) if "." not in bare else None  # "0.5" is a value
            listed = before in say.LIST_NOUNS and before not in ("one", "ones")
            if listed and bare in say.SPOKEN_NUMBERS:
                return say.SPOKEN_NUMBERS[bare]  # a dictated "number to"
            if value is None:
                continue
            if bare.isdigit():
                if word.startswith("#") or listed or before in _ITEM_NUMBER_AFTER:
                    return value
            elif not bare.isalpha():
                return value  # "2nd"
            elif bare in ORDINAL_WORDS or (bare == LAST_WORD and text == typed):
                if before == "the" or listed or after in say.LIST_NOUNS:
                    return value  # "the second", "number two", "second one"
            elif listed:
                return value  # a number word after a list noun: "option two"
    return None


_DESCRIBED = compiled("DESCRIBED_ITEM")
_IN_IT = ("in", "inside", "there")  # "with read_text in it": where the words are, no pointer


def described_item(t: Turn) -> str | None:
    """What an entry of the list is picked by when the message says what it holds or does
    instead of its name ("open the one that says 'retry after'", "the result with parse_args
    in it", "the test that checks empty input", typed "teh one with ..." too): those words.
    None for a clause that only points back ("the test that covers it": the object in focus)
    or while a sense clarifier waits (its options are described so: the clarifier's answer)."""
    if t.state.clarification_state is not None and t.state.pending is not None:
        return None
    for text in dict.fromkeys((t.text, respelled(t.text)[0])):
        found = _DESCRIBED.search(normalize(text))
        if found is None:
            continue
        words = _WORD.findall(found.group("what"))
        while len(words) > 1 and words[-1] in POINTING_WORDS and words[-2] in _IN_IT:
            words = words[:-2]
        content = [w for w in words if w not in FUNCTION_WORDS]
        if len(content) > 1 or (content and words[-1] not in POINTING_WORDS):
            return " ".join(content)
    return None


_OPENS_ENTRY, _NARROWS = compiled("OPENS_ENTRY"), compiled("NARROWS")


def opens_an_entry(t: Turn) -> bool:
    """A message read as a narrowing that asks to open one entry of the list on screen ("the
    doc file of storage, open it please", "the one in the search folder, open that"): an
    open verb or one entry named by kind or place, no word of a narrowing (`NARROWS`: "only",
    "leave out", "same"), and a list to pick from. A pick (T3), not the question re-asked.
    Without the verb, once a sense was chosen, "the memory one" may ask for the other sense."""
    found = list(_OPENS_ENTRY.finditer(t.text))
    sensed = any(c.startswith("sense:") for c in t.state.recent_accepted_choice_ids)
    return t.pool() is not None and not _NARROWS.search(t.text) \
        and any(m.group("verb") or not sensed for m in found)


MIN_THING_CHARS = 4  # a shorter word of a thing asked for says nothing of what it is
# the kinds of code a command may name its thing by ("the tokenize function")
KIND_NOUNS = frozenset(VOCABULARY.lists["kind_nouns"])


def unshown_thing(t: Turn, pool: OptionSet) -> str | None:
    """What a command asks to see when no word of it names anything listed or in focus ("show
    me the pie chart of cavity sizes", "open the Makefile target that runs its tests" over a
    list of code and docs): the thing was never shown (T10), not an item for the lane to ask
    about; a command to show something again ("show the max line again") means something
    shown before, perhaps in an earlier list. Its words are the command's object up to the
    first function word ("pie chart": not "cavity sizes" after "of"); a position, a word of a
    listed name (or a slip of one), a kind or a part of an item ("the test one", "the section
    on carving") or a word for a list's entries ("the third result") is no such thing."""
    command = say.COMMAND.match(t.core)
    if command is None or say.AGAIN.search(t.body) \
            or position_named(t, len(pool.items)) is not None \
            or parse_selection_input(t.core.rstrip("?")).kind_word is not None:
        return None
    words = _WORD.findall(command.group("rest"))
    while words and words[0] in FUNCTION_WORDS:
        words = words[1:]
    thing = words[:next((i for i, w in enumerate(words) if w in FUNCTION_WORDS), len(words))]
    if any(w in say.SCOPE_KIND or stems(w)[0] in say.SCOPE_KIND or w in KIND_NOUNS
           or w in say.ITEM_PARTS for w in thing):
        return None  # a kind or a part of an item ("the class", "the section on carving")
    content = [w for w in thing if len(w) >= MIN_THING_CHARS and w.isalpha()
               and w not in say.LIST_NOUNS]
    if not content:
        return None
    target = t.focused()
    shown = " ".join([f"{i.label} {i.sublabel} {i.target.path or ''} {i.target.symbol or ''}"
                      for i in pool.items] + ([f"{target.label} {target.path or ''}"]
                                              if target else [])).lower()
    names = {n for i in pool.items for group in item_names(i) for n in group}
    if any(w[:MIN_THING_CHARS] in shown or any(name_like(w, n) for n in names)
           for w in (*content, *respelled(" ".join(content))[0].split())):  # "the enigne one"
        return None  # a word of a listed name, or a slip of one ("the resontor")
    return " ".join(thing)


def unmentioned_thing(t: Turn) -> str | None:
    """A thing the message says the assistant mentioned or showed ("the plot of the resonances
    you mentioned", "the tokenizer benchmark plot you showed") whose head noun (the last word
    before a function word: "plot") was never in the conversation: no list it showed, no answer
    it gave, no question asked in it names it (T10: it was never shown). A kind or a part of an
    item ("the carve code you showed", "the section you cited") is something listed."""
    match = say.MENTIONED_THING.match(t.core)
    if match is None or t.state.turn_count == 0:
        return None
    words = _WORD.findall(match.group("thing"))
    while words and words[0] in FUNCTION_WORDS:
        words = words[1:]
    thing = words[:next((i for i, w in enumerate(words) if w in FUNCTION_WORDS), len(words))]
    if not thing or len(thing[-1]) < MIN_THING_CHARS or not thing[-1].isalpha() or any(
            w in say.SCOPE_KIND or stems(w)[0] in say.SCOPE_KIND or w in KIND_NOUNS
            or w in say.ITEM_PARTS or w in say.LIST_NOUNS for w in thing):
        return None
    state = t.state
    said = [f"{i.label} {i.sublabel} {i.target.path or ''} {i.target.symbol or ''}"
            for pool in state.option_sets for i in pool.items]
    said += [state.last_assistant_explanation, *state.investigation_state.root_questions]
    if state.answer_context_state is not None:
        said.append(state.answer_context_state.answer_excerpt)
    seen = {stems(w)[0] for w in _WORD.findall(" ".join(said).lower())}
    return None if stems(thing[-1])[0] in seen else " ".join(thing)
