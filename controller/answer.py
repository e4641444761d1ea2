"""A deterministic extractive answer from the evidence, one claim per line, each with a
`path:start-end` citation. Says plainly when nothing was found; never claims no evidence when
there is some."""

from __future__ import annotations

import re
from collections.abc import Sequence

from controller.route import RoutePlan
from controller.text import contains_phrase, lines_matching, token_set
from helix.core.envelope import Clarify, EvidenceItem, SlotCoverage

MAX_LIST = 5
DOC_NODES = ("sec:", "tree:")  # evidence whose node is a doc section or a concept-tree node
MAX_QUOTE_CHARS = 200
# What a missing slot means, in the reader's words.
SLOT_WORDS = {"term": "the term itself", "definition_span": "a definition of it",
              "target": "the thing asked about", "location": "code where it is",
              "topic": "the topic itself", "mechanism": "code that does it",
              "x": "the first side", "y": "the second side", "link": "one place naming both",
              "quantity": "the quantity", "unit_or_value": "its value or unit",
              "symbol": "the symbol", "call_sites": "call sites",
              "document": "the named document"}
MIN_CODE_CLAIMS = 3  # an explanation shows at least this many code spans when it has them


def cite(item: EvidenceItem, line: int | None = None) -> str:
    if line is not None:
        return f"{item.path}:{line}-{line}"
    return f"{item.path}:{item.start_line}-{item.end_line}"


# Markdown line furniture a quote does without: heading marks, quote marks, list bullets and
# numbers, table pipes; and emphasis (`**bold**`, `__bold__`).
_MD_LEAD = re.compile(r"^(?:[#>|]+\s*)*(?:(?:[-*+]|\d+[.)])\s+)?")
_MD_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def _quote(text: str, markdown: bool = False) -> str:
    """One line, whitespace collapsed and cut; a documentation line loses its Markdown marks
    (a code line keeps every character: `*p = x`, `- 1`)."""
    text = text.strip()
    if markdown:
        text = _MD_EMPHASIS.sub(r"\2", _MD_LEAD.sub("", text))
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUOTE_CHARS else text[:MAX_QUOTE_CHARS - 3] + "..."


def _first_line(item: EvidenceItem, phrases: Sequence[str]) -> tuple[str, int]:
    """The item's most telling line: the first mentioning a phrase, else its first non-blank."""
    lines = item.text.splitlines()
    markdown = item.node_id.startswith(DOC_NODES)
    hits = lines_matching(item.text, phrases)
    for number in hits:
        if lines[number].strip().strip("#").strip():
            return _quote(lines[number], markdown), item.start_line + number
    for number, line in enumerate(lines):
        if line.strip() and not line.strip().startswith("#"):
            return _quote(line, markdown), item.start_line + number
    return _quote(lines[0] if lines else "", markdown), item.start_line


_DEF_LINE = re.compile(
    r"(?:export\s+|pub(?:\([^)]*\))?\s+|public\s+|private\s+|protected\s+|static\s+|"
    r"abstract\s+|final\s+|async\s+)*"
    r"(?:def|class|fn|func|function|interface|struct|enum|trait|impl|module|type)\b")


def _docline(item: EvidenceItem) -> str:
    """For a code definition: its signature and the first docstring line."""
    lines = [ln.strip() for ln in item.text.splitlines() if ln.strip()]
    # decorators (`@...`, Rust `#[...]`, and their continuation lines) come before the
    # signature: the signature is the first line that opens a definition, else the first
    # line that is not a decorator
    at = next((i for i, ln in enumerate(lines) if _DEF_LINE.match(ln)),
              next((i for i, ln in enumerate(lines) if not ln.startswith(("@", "#["))), 0))
    sig = lines[at] if lines else ""
    doc = next((ln.strip("\"' ") for ln in lines[at + 1:at + 4]
                if ln.startswith(('"""', "'''", '"'))), "")
    return _quote(f"{sig} {doc}".strip())


def _mentions(item: EvidenceItem, phrases: Sequence[str]) -> bool:
    toks = token_set(f"{item.text} {item.heading or ''} {item.symbol or ''} {item.path}")
    return any(contains_phrase(toks, p) for p in phrases)


def _claim(item: EvidenceItem, phrases: Sequence[str]) -> str:
    # A definition span (whatever its evidence kind) is cited whole, signature included:
    # "where is X decided?" wants the `def`, not only the docstring line that matched.
    if item.symbol and item.node_id.startswith("def:"):
        return f"- `{item.symbol}`: {_docline(item)} [{cite(item)}]"
    text, line = _first_line(item, phrases)
    return f"- {text} [{cite(item, line)}]"


def _section(title: str, items: Sequence[EvidenceItem], phrases: Sequence[str]) -> list[str]:
    if not items:
        return []
    return [title, *(_claim(i, phrases) for i in items[:MAX_LIST])]


def _call_sites(evidence: Sequence[EvidenceItem], symbol: str) -> list[str]:
    """One claim per line that calls `symbol` (not its own `def`), with that line's number."""
    bare = re.escape(symbol.strip("`").split(".")[-1])
    call = re.compile(rf"(?<![\w]){bare}\s*\(")
    seen: set[tuple[str, int]] = set()
    out: list[str] = []
    for item in evidence:
        for offset, line in enumerate(item.text.splitlines()):
            stripped = line.strip()
            if not call.search(line) or stripped.startswith(("def ", "class ", "async def ")):
                continue
            where = (item.path, item.start_line + offset)
            if where not in seen:
                seen.add(where)
                out.append(f"- {_quote(line)} [{item.path}:{where[1]}-{where[1]}]")
    return out


def _route_lines(plan: RoutePlan, evidence: Sequence[EvidenceItem]) -> list[str]:
    subjects = plan.subjects
    main = subjects.get(plan.intent.slots[0], ()) or tuple(plan.intent.terms)
    subject = main[0] if main else "the question"
    route = plan.intent.route
    relevant = [e for e in evidence if _mentions(e, main)] or list(evidence)
    if route == "definition":
        defs = [e for e in relevant if e.kind == "definition"] or relevant[:1]
        rest = [e for e in relevant if e not in defs]
        return [*_section(f"Definition of {subject}:", defs[:2], main),
                *_section("Also relevant:", rest[:3], main)]
    if route == "usage":
        defs = [e for e in relevant if e.kind == "definition"]
        sites = _call_sites(evidence, subject)
        return [*_section(f"{subject} is defined at:", defs[:2], main),
                *([f"{subject} is used at:", *sites[:MAX_LIST]] if sites else [])]
    if route == "location":
        named = [e for e in evidence if any("(named in " in r for r in e.reasons)]
        code = [e for e in dict.fromkeys([*relevant, *named])
                if not e.node_id.startswith(DOC_NODES) and e.kind != "test"]
        code.sort(key=lambda e: (e.kind != "definition", -e.score, e.path, e.start_line))
        docs = [e for e in relevant if e not in code and e.node_id.startswith(DOC_NODES)]
        return [*_section(f"Where {subject} is (best first):", code, main),
                *_section("Documented in:", docs[:2], main)]
    if route == "relation":
        x, y = (subjects.get("x", ("",))[0], subjects.get("y", ("",))[0])
        both = [e for e in evidence if _mentions(e, (x,)) and _mentions(e, (y,))]
        return [*_section(f"How {x} and {y} connect:", both[:2], (x, y)),
                *_section(f"{x}:", [e for e in evidence if _mentions(e, (x,))
                                    and e not in both][:2], (x,)),
                *_section(f"{y}:", [e for e in evidence if _mentions(e, (y,))
                                    and e not in both][:2], (y,))]
    if route == "value_check":
        unit = plan.unit
        quantity = subjects.get("quantity", main)
        with_unit = [e for e in relevant if unit and re.search(
            rf"(?i)(?<![\w]){re.escape(unit)}(?![\w])", e.text)]
        head = (f"{subject} appears with the unit {unit} in the evidence:" if with_unit else
                f"The evidence for {subject} does not state {unit}; what it says:" if unit else
                f"Values stated for {subject}:")
        return _section(head, with_unit or relevant, (*quantity, *([unit] if unit else [])))
    if route == "doc_summary":
        topic = subjects.get("topic", main)
        return _section(f"What the document says about {topic[0]}:", relevant, topic)
    docs = [e for e in relevant if e.kind in ("doc", "tree", "contract")]
    code = [e for e in relevant if e not in docs]
    # A question that never names its function ("how do I ...") is rarely matched word for
    # word: show the best-ranked other code too, under its own heading, up to three claims.
    more = [e for e in evidence if e not in relevant and e.kind != "test"
            and not e.node_id.startswith(DOC_NODES)][:max(0, MIN_CODE_CLAIMS - len(code))]
    return [*_section(f"{subject}, as documented:", docs[:3], main),
            *_section("Where it is implemented:", code[:4], main),
            *_section("Also found (best first):", more, main)]


def build_answer(plan: RoutePlan, evidence: Sequence[EvidenceItem], coverage: SlotCoverage,
                 clarify: Clarify | None) -> str:
    if clarify is not None:
        lines = [clarify.question]
        for number, option in enumerate(clarify.options, start=1):
            where = ", ".join(cite(e) for e in option.evidence[:2])
            lines.append(f"{number}. {option.label} [{where}]")
        return "\n".join(lines)
    if not evidence:
        terms = ", ".join(plan.intent.terms) or "the question's words"
        return f"Nothing in the repository matched {terms}: no evidence was found."
    lines = _route_lines(plan, evidence)
    if coverage.missing:
        missing = ", ".join(SLOT_WORDS.get(slot, slot) for slot in coverage.missing)
        lines.append(f"(Not shown by the evidence: {missing}.)")
    return "\n".join(lines)
