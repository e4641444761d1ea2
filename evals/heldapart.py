"""Held-apart follow-up sessions (data/evals/continuity/heldapart_*.jsonl), run the way a user
runs them and scored per follow-up.

Each session runs turn by turn through `helix.session.runner.run_turn` (dry run, a fresh
session, the fixture repository it names); every turn after the first is a follow-up, scored
right when its transition class and lane are the expected ones or one of the `alt` readings.
A T10 is a boundary whichever lane said it (Helix records which lane refused: a selection
boundary is lane `selection`), so a T10 is scored on its class alone.

A miss is counted by kind (`miss_kind`). A *silent new search* is a follow-up expected to be
anything but a new question (T1) that was routed as one (the routing event's intent is
`root_question`) with no announcement of how it was read (no `reading_announced` event): the
user saw a search for the follow-up's own words and nothing saying so.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from controller.continuity.turn import TurnResult
from evals.scenarios import SUITE_DIR, resolve_repo
from evals.suites import read_jsonl
from helix.core.config import HelixConfig, load_config
from helix.core.errors import ConfigError
from helix.core.hashing import short_id
from helix.core.ports import FakeClock

CLOCK_START = 1_700_000_000.0
ANNOUNCED = "reading_announced"
ROUTED = "turn_routed"


def load_sessions(path: Path) -> list[dict[str, Any]]:
    """The sessions of one held-apart file (a one-line error on a bad line)."""
    sessions = []
    for number, session in read_jsonl(path):
        turns = session.get("turns")
        if not session.get("id") or not turns or any(
                "text" not in t or "transition" not in t.get("expect", {}) for t in turns):
            raise ConfigError(f"{path.name}:{number}: a session needs 'id' and turns with "
                              "'text' and expect.transition")
        for turn in turns:  # a writer's `alt` beside `expect` (the training files' layout)
            if turn.get("alt"):
                turn["expect"] = {**turn["expect"],
                                  "alt": [*turn["expect"].get("alt", ()), *turn["alt"]]}
        sessions.append(session)
    return sessions


def readings(expect: dict[str, Any]) -> list[tuple[str, str]]:
    """The acceptable (transition, lane) readings of a turn: the expected one, then `alt`."""
    return [(e["transition"], e.get("lane", "")) for e in (expect, *expect.get("alt", ()))]


def got_reading(turn: TurnResult) -> tuple[str, str]:
    return turn.transition, "boundary" if turn.transition == "T10" else turn.lane


def routed_intent(turn: TurnResult) -> str:
    event = next((e for e in turn.events if e.name == ROUTED), None)
    return str(event.data.get("intent", "")) if event is not None else ""


def is_silent_search(turn: TurnResult, expect: dict[str, Any]) -> bool:
    """A follow-up (anything but a new question) searched for as a new question, unannounced."""
    follow_up = all(t != "T1" for t, _ in readings(expect))
    announced = any(e.name == ANNOUNCED for e in turn.events)
    return follow_up and routed_intent(turn) == "root_question" and not announced


GATED = "so its result is not carried into"  # the coverage gate's sentence (wording.py)


def miss_kind(turn: TurnResult, expect: dict[str, Any]) -> str:
    """Why a follow-up missed: the coverage gate refused to carry an answer it judged
    ungrounded; a T4 the writer meant on the answer's subject, taken by selecting the answer's
    lead (or a named item) first (T3, as the scenario suite requires); two readings offered;
    else the reading or its plan was wrong."""
    if any(GATED in r for r in turn.reasons):
        return "gate"
    if expect["transition"] == "T4" and turn.transition == "T3":
        return "t4_as_t3"
    return "clarifier" if turn.intent == "clarify_reading" else "reading"


def score_turn(turn: TurnResult, expect: dict[str, Any]) -> dict[str, Any]:
    got = got_reading(turn)
    ok = any(t == got[0] and (t == "T10" or lane == got[1]) for t, lane in readings(expect))
    return {"ok": ok, "got": f"{got[0]} {got[1]}", "intent": turn.intent,
            "miss": None if ok else miss_kind(turn, expect),
            "expected": f"{expect['transition']} {expect.get('lane', '')}",
            "silent_search": is_silent_search(turn, expect),
            "announced": any(e.name == ANNOUNCED for e in turn.events)}


TurnRunner = Callable[[str, str, FakeClock], TurnResult]


def session_runner(root: Path, config: HelixConfig) -> TurnRunner:
    """Run one turn of a session over `root` (dry run, the real session path); a session's
    first turn starts it afresh (a session of the same name is dropped first)."""
    from helix.session.runner import run_turn
    from helix.session.store import ensure_schema, reset_session
    from helix.store.db import open_db

    db = open_db()
    ensure_schema(db)
    started: set[str] = set()

    def run(name: str, text: str, clock: FakeClock) -> TurnResult:
        if name not in started:
            started.add(name)
            reset_session(db, name)
        return run_turn(name, text, root=root, config=config, dry_run=True, db=db,
                        clock=clock)

    return run


def run_session(session: dict[str, Any], run: TurnRunner) -> list[dict[str, Any]]:
    """Every follow-up of one session, scored (the first turn opens the session)."""
    name = f"heldapart-{short_id('heldapart', session)}"
    clock = FakeClock(start=CLOCK_START, step=0.001)
    rows = []
    for number, spec in enumerate(session["turns"], start=1):
        turn = run(name, spec["text"], clock)
        if number == 1:
            continue
        row = score_turn(turn, spec["expect"])
        rows.append({"session": session["id"], "turn": number, "text": spec["text"],
                     "style": session.get("style", ""), **row})
    return rows


def _rate(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _by_class_and_kind(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per expected class, the misses of each kind."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        if not row["ok"]:
            out[row["expected"]][row["miss"]] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def summarize(rows: Sequence[dict[str, Any]], *, with_texts: bool) -> dict[str, Any]:
    """Accuracy overall, by expected class and by style; silent new searches; the misses
    (their texts only when `with_texts`: the reported file's texts are never printed)."""
    by_class: dict[str, list[bool]] = defaultdict(list)
    by_style: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        by_class[row["expected"]].append(row["ok"])
        by_style[row["style"]].append(row["ok"])
    keep = ("session", "turn", "expected", "got", "intent", "announced", "miss")
    misses = [{k: r[k] for k in (*keep, "text") if with_texts or k != "text"}
              for r in rows if not r["ok"]]
    return {"turns": len(rows), "accuracy": _rate([r["ok"] for r in rows]),
            "silent_new_searches": sum(r["silent_search"] for r in rows),
            "announced": sum(r["announced"] for r in rows),
            "misses_by_kind": dict(sorted(Counter(r["miss"] for r in rows
                                                  if not r["ok"]).items())),
            "misses_by_class": _by_class_and_kind(rows),
            "by_class": {k: _rate(v) for k, v in sorted(by_class.items())},
            "by_style": {k: _rate(v) for k, v in sorted(by_style.items())},
            "misses": misses}


def run_file(path: Path, flags: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Every scored follow-up of one held-apart file under the settings `flags` (the index
    built without vectors: the router's own encoder is not the index's)."""
    from helix.session.warm import warm_reading

    sessions = load_sessions(path)
    runners: dict[str, TurnRunner] = {}
    for session in sessions:
        spec = str(session.get("repo", "fixture:continuity_repo"))
        if spec not in runners:
            root = resolve_repo(spec)
            runners[spec] = session_runner(root, load_config(root, flags={
                "index.embed_enabled": False, **(flags or {})}))
        with warm_reading():  # a router that reads many turns: the warm encoder
            rows = run_session(session, runners[spec])
        yield from rows


def heldapart_path(name: str) -> Path:
    return SUITE_DIR / f"{name}.jsonl"


def fresh_home(prefix: str = "helix-heldapart-") -> str:
    """A HELIX_HOME for one benchmark run (sessions and indexes of its own, ~300 MB with the
    encoder's caches), removed when the process exits: runs left 179 of them (60 GB) in the
    temp directory until the disk filled."""
    home = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    return home
