"""The read-only acts of the continuity lanes that need the repository or the session log.

    open_span        show a span of a file (selection T3 / T5); never outside the root
    (graph follow-ups, T4, live in controller/continuity/graph_focus.py)
    meta_answer      a question about the last answer object (T8): from its envelope, no replay
    recap            did we talk about X (T9): from the stored turns only, never invented
    drift_recap      did anything change since I asked about X (T9): that turn's answer
                     re-run now and compared with its evidence (`helix drift` of one turn)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from controller.continuity.optionsets import SUBJECT_SLOTS
from controller.continuity.turn import TurnResult
from helix.core.changes import SPAN_WORDS, QuestionDrift
from helix.core.english import RECAP_WORDS, stems

RECAP_MAX_MATCHES = 5
META_MAX_PLACES = 8
_ONLY = re.compile(r"\bonly\b", re.I)


def meta_answer(answer_turn: TurnResult, question: str) -> tuple[str, str]:
    """(answer text, truth mode) about an earlier answer, from its stored envelope only."""
    env = answer_turn.envelope
    if env is None:
        listed = len(answer_turn.shown.items) if answer_turn.shown else 0
        return (f"Turn {answer_turn.turn_id} ({answer_turn.intent}) listed {listed} item(s) "
                "from the index graph; edges resolved by name can miss dynamic calls. Nothing "
                "was re-run.", "limited")
    defs = [e for e in env.evidence if e.kind == "definition"]
    places = defs or list(env.evidence)
    files = list(dict.fromkeys(e.path for e in env.evidence))
    kept = {e.chunk_id for e in env.evidence}
    unkept = [h for h in env.items.repo_search_hits if h.chunk_id not in kept]
    lines = [f"About turn {answer_turn.turn_id} (\"{env.question}\"), without re-running it:"]
    if not env.evidence:
        lines.append("That answer found no evidence, so it cannot say where anything is.")
        return "\n".join(lines), "unsupported"
    coverage = env.items.slot_coverage_report
    unanswered = [s for s in coverage.missing if s in SUBJECT_SLOTS]
    head = f"It rests on {len(env.evidence)} evidence span(s) in {len(files)} file(s)"
    if unanswered:  # the answer never found what was asked: its spans are near misses
        lines.append(f"That answer did not find what was asked ({', '.join(unanswered)} not in "
                     "the evidence): the spans it listed are the closest matches, not places "
                     "where it is.")
    elif _ONLY.search(question) and len(places) > 1:  # "is that the only place?": no first
        head = f"No. {head}"
    lines.append(f"{head}; {len(defs)} definition(s):" if defs else f"{head}:")
    lines += [f"  - {e.path}:{e.start_line}-{e.end_line}" + (f" {e.symbol}" if e.symbol else "")
              for e in places[:META_MAX_PLACES]]
    if len(places) == 1 and not unanswered:
        lines.append("So within the evidence it gathered, that is the only place.")
    scope = env.items.intent.scope
    if scope:
        lines.append(f"The search was limited to {scope}.")
    if unkept:
        lines.append(f"The controller also saw {len(unkept)} candidate(s) it did not keep, e.g. "
                     + ", ".join(f"{h.path}:{h.start_line}" for h in unkept[:3]) + ".")
    lines.append(f"Coverage {coverage.ratio:.2f} ({', '.join(coverage.missing) or 'no slot'} "
                 f"missing); stop reason {env.stop_reason}.")
    if env.answer_limits:
        lines.append("The answer itself noted what the evidence does not show: "
                     + "; ".join(env.answer_limits) + ".")
    truth = ("unsupported" if unanswered else "confirmed" if coverage.ratio >= 1.0
             and not coverage.missing and not env.answer_limits else "limited")
    return "\n".join(lines), truth


def topic_terms(topic: str) -> list[str]:
    words = re.findall(r"[a-z0-9_]+", topic.lower())
    return [stems(w, "suffix")[0] for w in words if w not in RECAP_WORDS and len(w) >= 3]


def _turn_text(turn: TurnResult) -> str:
    parts = [turn.text, turn.answer]
    if turn.envelope is not None:
        parts += [e.path for e in turn.envelope.evidence]
    if turn.shown is not None:
        parts += [f"{i.label} {i.sublabel}" for i in turn.shown.items]
    if turn.opened is not None:
        parts.append(turn.opened.path)
    return " ".join(parts).lower()


def recap(turns: Sequence[TurnResult], topic: str | None) -> tuple[str, list[int]]:
    """(answer, matching turn ids) from the stored turns only."""
    earlier = [t for t in turns if t.lane != "recap"]
    if not earlier:
        return "Nothing yet: this session has no earlier turns.", []
    if not topic:
        lines = [f"This session has {len(earlier)} earlier turn(s):"]
        lines += [f"  {t.turn_id}. \"{t.text}\" -> {t.lane} {t.transition}"
                  for t in earlier[-RECAP_MAX_MATCHES * 2:]]
        return "\n".join(lines), [t.turn_id for t in earlier]
    terms = topic_terms(topic)
    if not terms:
        return f"I cannot tell what \"{topic}\" refers to; no earlier turn was searched.", []
    hits = _about(earlier, terms)
    if not hits:
        return (f"No. None of the {len(earlier)} earlier turn(s) of this session mention "
                f"\"{topic}\".", [])
    lines = [f"Yes, \"{topic}\" came up in {len(hits)} turn(s):"]
    for turn in hits[-RECAP_MAX_MATCHES:]:
        where = ""
        if turn.envelope is not None:
            paths = [e.path for e in turn.envelope.evidence if any(
                term in e.path.lower() for term in terms)]
            if paths:
                where = f" (evidence: {', '.join(dict.fromkeys(paths[:3]))})"
        elif turn.opened is not None:
            where = f" (opened {turn.opened.path}:{turn.opened.start_line})"
        lines.append(f"  turn {turn.turn_id}: \"{turn.text}\"{where}")
    return "\n".join(lines), [t.turn_id for t in hits]


def _about(turns: Sequence[TurnResult], terms: Sequence[str]) -> list[TurnResult]:
    return [t for t in turns if all(term in _turn_text(t) for term in terms)]


def answered(turns: Sequence[TurnResult], topic: str | None) -> TurnResult | None:
    """The latest earlier answer (a turn with evidence) about `topic`, or the latest one."""
    earlier = [t for t in turns if t.lane != "recap" and t.envelope is not None
               and t.envelope.evidence]
    if topic:
        terms = topic_terms(topic)
        earlier = _about(earlier, terms) if terms else []
    return earlier[-1] if earlier else None


DRIFT_HEAD = {
    "changed": "Yes: lines that answer cited have changed.",
    "moved": "The code it cited moved (or was renamed, or only reformatted), but says the same.",
    "ranking": "The lines it cited are unchanged; only the ranking of its evidence moved.",
    "unchanged": "No: the evidence it cited is unchanged.",
    "unrecorded": "That answer kept no evidence to compare with.",
}
DRIFT_SPANS_SHOWN = 6
DRIFT_DIFF_LINES = 12


def drift_recap(turn: TurnResult, drifted: QuestionDrift) -> str:
    """The drift of an earlier turn's answer, in words, with the diff of cited lines."""
    question = turn.envelope.question if turn.envelope is not None else turn.text
    lines = [f"Since turn {turn.turn_id} (\"{question}\"), checked now: "
             f"{DRIFT_HEAD[drifted.severity]}"]
    moved = [s for s in drifted.spans if s.status != "same"]
    for span in moved[:DRIFT_SPANS_SHOWN]:
        name = f" {span.symbol}" if span.symbol else ""
        where = (f" -> {span.now_path}:{span.now_start}-{span.now_end}"
                 + (f" {span.now_symbol}" if span.now_symbol != span.symbol else "")
                 if span.now_path and span.status not in ("same", "vanished") else "")
        lines.append(f"  - {span.path}:{span.start_line}-{span.end_line}{name}: "
                     f"{SPAN_WORDS[span.status]}{where}")
        lines += [f"      {c.kind}: {c.detail}" for c in span.changes]
        lines += [f"      {line}" for line in span.diff[:DRIFT_DIFF_LINES]]
    if len(moved) > DRIFT_SPANS_SHOWN:
        lines.append(f"  ... {len(moved) - DRIFT_SPANS_SHOWN} more (helix drift lists all)")
    if drifted.severity == "ranking":
        lines.append(f"  evidence then: {', '.join(drifted.was)}")
        lines.append(f"  evidence now:  {', '.join(drifted.now)}")
    return "\n".join(lines)
