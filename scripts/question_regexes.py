"""Count the regular expressions that read a question's text on the path `helix ask` takes.

    python scripts/question_regexes.py [--list] [--json]

Measured, not guessed: before Helix is imported, `re`'s functions are wrapped so that every
pattern compiled or applied by Helix's own code (controller/, helix/, indexers/) remembers the
line that wrote it; then a fixed set of questions (every route, scopes, quotes, a traceback, a
change request, a long question) goes through `helix.service.ask` (dry run, no model) over the
fixture repository data/fixtures/matrix_repo. A pattern "reads the question" when it is applied
to the question's text or a piece of it (a string whose words are, in order, words of the
question, and which is not text of the repository: evidence that repeats the question's words
is not the question). Patterns are counted by the source line that writes them (a pattern
built per call from the question's words is one line, one regex).

Grouped by where they are written:
    vocabulary   the route vocabulary and its compiler (`controller/vocabulary.py` and the
                 data it compiles): where question words are meant to be matched
    text         general text machinery that reads every text, the question among them: the
                 index tokenizer, identifier shapes, secret masking
    question     everything else: the regexes the target counts

Google RE2 (the secret prefilter) is not `re` and is not counted.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "helix", "indexers")
VOCABULARY = ("controller/vocabulary.py", "controller/route_phrases.toml")
TEXT = ("indexers/tokenize.py", "controller/text.py", "helix/core/secret", "helix/core/english.py",
        "helix/core/visible.py", "helix/core/escapes.py", "helix/core/lookalike.py",
        "indexers/")

QUESTIONS = (
    "What does phase lock mean in this repo?",
    "Define FINESSE_TARGET",
    "what is a cavity",
    "where is the retry policy decided?",
    "which file holds the tokenizer?",
    "find the config loader",
    "how does the phase lock loop work?",
    "explain the readout pipeline",
    "what does compute_backoff do?",
    "how does the cavity relate to the laser?",
    "difference between finesse and linewidth",
    "who calls lock_phase?",
    "how is `read_config` used in tests/",
    "examples of compute_backoff",
    "is the laser wavelength in nm?",
    "what is the default value of the timeout",
    "what timeout does connect use by default?",
    "what does docs/concepts/phase-lock.md say about drift?",
    "summarize the README",
    "where is lock_phase tested?",
    "where are the units of \"wavelength\" checked under src/",
    "Traceback (most recent call last):\n  File \"src/lock.py\", line 3, in lock_phase\n"
    "    raise ValueError('no lock')\nValueError: no lock",
    "Add a retry limit to the phase lock so that it stops after five attempts",
    "The phase lock does not work when the cavity drifts: the readout shows noise and the "
    "loop never settles, and the error grows with every attempt the controller makes",
)


class Seen:
    """Pattern definition sites and the strings each was applied to."""

    def __init__(self) -> None:
        self.sites: dict[str, str] = {}  # site -> pattern text
        self.applied: dict[str, list[str]] = {}  # site -> strings

    def site(self) -> str | None:
        for frame in reversed(traceback.extract_stack()[:-2]):
            path = Path(frame.filename).resolve()
            try:
                rel = path.relative_to(ROOT).as_posix()
            except ValueError:
                continue
            if rel.startswith(tuple(f"{p}/" for p in PACKAGES)):
                return f"{rel}:{frame.lineno}"
            if rel.startswith("scripts/"):
                return None
        return None


SEEN = Seen()
_real = {name: getattr(re, name) for name in
         ("compile", "match", "search", "fullmatch", "findall", "finditer", "sub", "subn",
          "split")}
_APPLY = ("match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split")


def _record(site: str | None, pattern: Any, string: Any) -> None:
    if site is None:
        return
    SEEN.sites.setdefault(site, str(getattr(pattern, "pattern", pattern))[:120])
    if isinstance(string, str):
        SEEN.applied.setdefault(site, []).append(string)


class Pattern:
    """A compiled pattern that remembers the line that compiled it."""

    def __init__(self, real: re.Pattern[str], site: str) -> None:
        self._real = real
        self._site = site

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if name not in _APPLY:
            return attr

        def apply(*args: Any, **kwargs: Any) -> Any:
            text = args[1] if name in ("sub", "subn") and len(args) > 1 else (
                args[0] if args else kwargs.get("string"))
            _record(self._site, self._real, text)
            return attr(*args, **kwargs)

        return apply

    def __eq__(self, other: object) -> bool:
        return self._real == getattr(other, "_real", other)

    def __hash__(self) -> int:
        return hash(self._real)


def _unwrap(pattern: Any) -> Any:
    return pattern._real if isinstance(pattern, Pattern) else pattern


def _compile(pattern: Any, flags: int = 0) -> Any:
    real = _real["compile"](_unwrap(pattern), flags)
    site = SEEN.site()
    if site is not None and site.startswith(VOCABULARY):  # one line compiles every phrase
        site = f"{site} #{_real['compile'](r'[^A-Za-z]+').sub('', real.pattern)[:24]}"
    return real if site is None else Pattern(real, site)


def _function(name: str) -> Callable[..., Any]:
    def wrapped(pattern: Any, *args: Any, **kwargs: Any) -> Any:
        text = args[1] if name in ("sub", "subn") and len(args) > 1 else (
            args[0] if args else kwargs.get("string"))
        site = getattr(pattern, "_site", None) or SEEN.site()
        _record(site, _unwrap(pattern), text)
        return _real[name](_unwrap(pattern), *args, **kwargs)

    return wrapped


def install() -> None:
    re.compile = _compile  # type: ignore[assignment]
    for name in _APPLY:
        setattr(re, name, _function(name))


_WORDS = _real["compile"](r"\S+")


def _words(text: str) -> list[str]:
    return [w.lower().strip("`'\"?.!,:;()") for w in _WORDS.findall(text)]


def from_question(string: str, question: str, corpus: str) -> bool:
    """The string is the question or a piece of it: its words, in order, are question words
    (a scope clause or an article may have been removed in between), and it is not text of
    the repository (evidence that happens to repeat the question's words)."""
    words = [w for w in _words(string) if w]
    if not words or len(string.strip()) < 2:
        return False
    if " ".join(string.lower().split()) in corpus:
        return False
    asked = [w for w in _words(question) if w]
    at = 0
    for word in words:
        while at < len(asked) and asked[at] != word:
            at += 1
        if at == len(asked):
            return False
        at += 1
    return True


def group(site: str) -> str:
    path = site.rsplit(":", 1)[0]
    if path.startswith(VOCABULARY):
        return "vocabulary"
    if path.startswith(TEXT):
        return "text"
    return "question"


def measure() -> dict[str, Any]:
    install()
    import os
    import shutil

    home = Path(tempfile.mkdtemp(prefix="helix-regexes-"))
    os.environ["HELIX_HOME"] = str(home)
    os.environ["HELIX_NO_SERVER"] = "1"
    repo = home / "repo"
    shutil.copytree(ROOT / "data" / "fixtures" / "matrix_repo", repo)
    import sqlite_utils

    from helix.core.config import load_config
    from helix.runlog import RunLog
    from helix.service import ask

    corpus = "\n".join(" ".join(p.read_text(encoding="utf-8", errors="replace").lower().split())
                       for p in sorted(repo.rglob("*")) if p.is_file())
    config = load_config(repo, flags={"index.embed_enabled": False})
    log = RunLog(sqlite_utils.Database(memory=True))
    ask("warm up", root=repo, config=config, dry_run=True, runlog=log,
        notify=lambda message: None)
    SEEN.applied.clear()
    reads: dict[str, set[str]] = {}
    for question in QUESTIONS:
        before = {site: len(strings) for site, strings in SEEN.applied.items()}
        ask(question, root=repo, config=config, dry_run=True, runlog=log,
            notify=lambda message: None)
        for site, strings in SEEN.applied.items():
            if any(from_question(s, question, corpus)
                   for s in strings[before.get(site, 0):]):
                reads.setdefault(site, set()).add(question)
    shutil.rmtree(home, ignore_errors=True)
    rows = sorted(reads)
    groups: dict[str, list[str]] = {"question": [], "text": [], "vocabulary": []}
    for site in rows:
        groups[group(site)].append(site)
    return {"questions": len(QUESTIONS),
            "counts": {name: len(sites) for name, sites in groups.items()},
            "sites": {name: {s: SEEN.sites.get(s, "") for s in sites}
                      for name, sites in groups.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="List every pattern by its line.")
    parser.add_argument("--json", action="store_true", help="Print the result as JSON.")
    args = parser.parse_args(argv)
    result = measure()
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
        return 0
    for name, count in result["counts"].items():
        print(f"{name}: {count}")
        if args.list:
            for site, pattern in result["sites"][name].items():
                print(f"    {site}  {pattern}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
