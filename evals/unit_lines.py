"""A unit check answered over one evidence line (issue 32), as the controller and the session
gate see it: the benchmark (benchmarks/unit_denials.py) and the tests judge lines with it.

    judge(line, quantity, threshold) -> the answer's lead, whether it gives the quantity in the
                                        asked unit, and the gate's truth mode

The line is the one evidence span of "Is the <quantity> in <unit>?": a doc section under the
quantity's heading, or a line of a code definition named after the quantity (`def
tile_pressure(gap):` for "tile pressure", `def request_timeout(gap):` for "request timeout";
before meaning7 it was `tile_pressure` whatever the quantity). Coverage is
`controller.coverage.measure`, the answer `controller.answer.build_answer`, the gate
`coverage_of` (what a session records).
"""

from __future__ import annotations

import re
from typing import Any


def _evidence(text: str, kind: str, quantity: str) -> Any:
    from controller.evidence import Candidate
    from helix.core.hashing import digest
    from helix.core.schemas import Chunk

    code = kind == "code"
    name = "_".join(re.findall(r"[a-z0-9]+", quantity.lower()))  # tile pressure -> tile_pressure
    path = "lumen/tiles.py" if code else "docs/units.md"
    body = (f"def {name}(gap):\n    {text}\n    return 1.0\n" if code
            else f"## {quantity.capitalize()}\n\n{text}\n")
    chunk = Chunk(id=f"c-{digest(body)[7:19]}", path=path, kind="code_def" if code
                  else "doc_section", lang="python" if code else "markdown", start_line=4,
                  end_line=4 + body.count("\n") - 1, text=body, content_hash=digest(body),
                  heading_path=() if code else (quantity.capitalize(),),
                  symbol=name if code else None,
                  node_id=f"def:lumen/tiles.py::{name}" if code
                  else "sec:docs/units.md#4")
    return Candidate(chunk=chunk, score=1.0, reasons=(), step=0)


def _envelope(question: str, plan: Any, item: Any, coverage: Any, answer: str) -> Any:
    from helix.core.envelope import Envelope, Intent, Items, TreeWalk

    intent = Intent(route=plan.intent.route, slots=plan.intent.slots, terms=())
    return Envelope(
        question=question, repo_root="/repo", repo_rev="r", index_rev="i", config_hash="c",
        route=plan.intent.route, slots=plan.intent.slots, controller_steps=(),
        stop_reason="coverage_ok" if not coverage.missing else "no_new_evidence",
        items=Items(intent=intent, selected_trees=(), doc_section_hits=(), repo_search_hits=(),
                    proof_spans=(), slot_coverage_report=coverage),
        item_hashes={}, evidence=(item,), tree_walk=TreeWalk(
            mode="root->anchor", anchors=(), nodes=(), binding_rate=0.0),
        answer_mode="deterministic", answer=answer)


def judge(line: dict[str, Any], quantity: str, threshold: float) -> dict[str, Any]:
    from controller.answer import build_answer
    from controller.continuity.optionsets import coverage_of
    from controller.coverage import measure
    from controller.evidence import definition_names, to_item
    from controller.route import route_question
    from helix.core.config import RetrievalSettings

    unit = line["unit"]
    question = f"Is the {quantity} in {unit}?"
    plan = route_question(question, routing=RetrievalSettings().routing)
    candidate = _evidence(line["text"], line["kind"], quantity)
    coverage = measure(plan, [candidate])
    item = to_item(candidate, definition_names(plan))
    answer = build_answer(plan, [item], coverage, None)
    lead = answer.splitlines()[0] if answer else ""
    gate = coverage_of(_envelope(question, plan, item, coverage, answer), threshold)
    gives_unit = (lead.startswith("The evidence gives") and f" in {unit}, in " in lead
                  and f"not in {unit}, in " not in lead)
    instead = re.match(r"The evidence gives .* in (.+?), not in ", lead)  # "megabytes per second"
    return {"text": line["text"], "reading": line["reading"], "unit": unit, "lead": lead,
            "truth_mode": gate.truth_mode, "confirmed": gate.truth_mode == "confirmed",
            "gives_unit": gives_unit, "instead": instead.group(1) if instead else None}
