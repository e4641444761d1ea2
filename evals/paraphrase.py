"""A paraphrase suite for the continuity router, generated systematically rather than written
phrase by phrase: for each intent a person has in a conversation, its wordings (synonyms and
ellipsis) times the ways people dress a message (politeness, fillers, a typo, punctuation,
upper case). Every generated turn follows a fixed set-up on the continuity fixture and
expects its transition class and lane.

    python -m evals.paraphrase            writes data/evals/continuity/paraphrase_tune.jsonl
                                          and paraphrase_report.jsonl

The split is by a hash of each (intent, wording) pair, alternating within an intent, so both
halves hold every intent and never the same wording: tune the router on `paraphrase_tune`,
report `paraphrase_report` only.
`helix eval continuity/paraphrase_tune continuity/paraphrase_report` scores both; the README
states the router's accuracy on each (`benchmarks/results/paraphrase_router.json`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

OUT_DIR = Path(__file__).resolve().parent.parent / "data" / "evals" / "continuity"
REPO = "fixture:continuity_repo"
ROOT_Q = "where is the BM25 index built?"
SETUPS: dict[str, list[dict[str, Any]]] = {
    "none": [],
    "answered": [{"text": ROOT_Q, "expect": {"transition": "T1"}}],
    "opened": [{"text": ROOT_Q, "expect": {"transition": "T1"}},
               {"text": "open the build_bm25_index one", "expect": {"transition": "T3"}}],
}

# intent -> (set-up, expected transition, expected lane, wordings)
INTENTS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "small_talk": ("answered", "T0", "chat", (
        "thanks", "thank you so much", "cheers", "great, thanks", "ok cool", "hello",
        "nice", "got it")),
    "root_question": ("none", "T1", "root", (
        "where is the tokenizer defined", "how does the search engine rank documents",
        "what does the cavity pool store", "which module builds the BM25 index",
        "where are documents tokenized", "how is the resonator modelled")),
    "scope_rerun": ("answered", "T2", "root", (
        "same question but only in tests/", "same question for docs/",
        "ask that again but only in search/", "only in tests/", "same thing in storage/",
        "repeat that for tests/")),
    "select_ordinal": ("answered", "T3", "selection", (
        "open the second one", "show me the 2nd one", "open number 2", "the second one",
        "open the first one", "show the third one", "open item 2")),
    "select_label": ("answered", "T3", "selection", (
        "open the SearchEngine one", "open the build_bm25_index one", "show me the BM25Index one",
        "the SearchEngine one")),
    "open_focused": ("opened", "T5", "selection", (
        "open it", "show it again", "open that", "show me that again", "open it again")),
    "callers": ("opened", "T4", "graph", (
        "who calls it", "what calls this", "where is it used", "who uses that",
        "show me the callers of it", "where is it called from")),
    "tests": ("opened", "T4", "graph", (
        "is it tested", "where is it tested", "what tests cover it", "which tests check it",
        "show me the tests for it")),
    "cancel": ("answered", "T6", "interrupt", (
        "never mind", "stop", "forget it", "cancel", "nvm", "forget about it")),
    "pivot": ("answered", "T6", "root", (
        "what about the tokenizer", "how about the search engine", "and the tokenizer",
        "what about the cavity pool")),
    "meta": ("answered", "T8", "meta", (
        "is that the only place", "are there others", "anything else", "are you sure",
        "how sure are you", "is that all")),
    "recap": ("answered", "T9", "recap", (
        "did we talk about the tokenizer", "have we discussed the cavity pool",
        "do you remember the tokenizer", "did we look at the search engine")),
    "start_over": ("answered", "T1", "interrupt", (  # a hard interrupt: reset
        "start over", "let's start over", "start again", "reset", "new topic")),
}

# how people dress a message: (name, function)
_POLITE_LEADS = ("please ", "could you ", "can you please ", "hey, ")


def _typo(text: str) -> str:
    """The longest word with its two middle letters swapped ("tokenizer" -> "tokneizer")."""
    words = text.split()
    longest = max(range(len(words)), key=lambda i: (len(words[i]), -i))
    word = words[longest]
    if len(word) < 5 or not word.isalpha():
        return text
    middle = len(word) // 2
    words[longest] = word[:middle - 1] + word[middle] + word[middle - 1] + word[middle + 1:]
    return " ".join(words)


TRANSFORMS: tuple[tuple[str, Any], ...] = (
    ("plain", lambda t, i: t),
    ("question_mark", lambda t, i: t + "?"),
    ("polite_lead", lambda t, i: _POLITE_LEADS[i % len(_POLITE_LEADS)] + t),
    ("polite_tail", lambda t, i: t + " please"),
    ("filler", lambda t, i: ("hmm, ", "ok so ", "right, ")[i % 3] + t),
    ("typo", lambda t, i: _typo(t)),
    ("upper_first", lambda t, i: t[:1].upper() + t[1:] + "!"),
)
# transforms that change what a message means for an intent (a plain "hello" is not a
# question; a polite lead on "stop" reads as a request)
_SKIP = {("small_talk", "polite_lead"), ("small_talk", "polite_tail"),
         ("small_talk", "question_mark"), ("cancel", "question_mark"),
         ("start_over", "question_mark"), ("small_talk", "filler")}


def _halves(intent: str, wordings: tuple[str, ...]) -> dict[str, str]:
    """wording -> half: the intent's wordings in the order of a hash of each, alternating, so
    each half gets about half of every intent's wordings and none of the other's."""
    ranked = sorted(wordings, key=lambda w: hashlib.sha256(f"{intent}\0{w}".encode())
                    .hexdigest())
    return {w: ("tune", "report")[i % 2] for i, w in enumerate(ranked)}


def generate() -> Iterator[tuple[str, dict[str, Any]]]:
    """(half, case) for every generated turn, in a stable order."""
    for intent, (setup, transition, lane, wordings) in INTENTS.items():
        halves = _halves(intent, wordings)
        for n, wording in enumerate(wordings):
            half = halves[wording]
            for name, transform in TRANSFORMS:
                if (intent, name) in _SKIP:
                    continue
                text = transform(wording, n)
                if name != "plain" and text == wording:
                    continue
                case_id = f"para-{intent}-{n}-{name}"
                turns = [*SETUPS[setup], {"text": text, "expect": {"transition": transition,
                                                                   "lane": lane}}]
                yield half, {"id": case_id, "repo": REPO, "intent": intent,
                             "transform": name, "turns": turns}


def write(out_dir: Path = OUT_DIR) -> dict[str, int]:
    halves: dict[str, list[str]] = {"tune": [], "report": []}
    for half, case in generate():
        halves[half].append(json.dumps(case, sort_keys=True))
    for half, lines in halves.items():
        (out_dir / f"paraphrase_{half}.jsonl").write_text("\n".join(lines) + "\n",
                                                           encoding="utf-8")
    return {half: len(lines) for half, lines in halves.items()}


if __name__ == "__main__":
    print(json.dumps(write()))
