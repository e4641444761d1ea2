"""The usage route's answer: "who calls X" lists every call the index resolved
(`Envelope.references`), grouped by the definition it stands in, with the count stated once;
"where is X used" every reference, imports included; without resolved references, the call
lines the evidence shows."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from controller.answer_spans import Answer, indented
from controller.answer_text import is_code, mentions, quote
from helix.core.envelope import EvidenceItem
from helix.core.visible import visible_field


def _call_sites(evidence: Sequence[EvidenceItem], symbol: str) -> list[str]:
    """One claim per line that calls `symbol` (not its own `def`), with that line's number.
    A call through a receiver (`x.index(`) counts only in a span the index resolved as a
    reference to the symbol (refs channel): `[1, 2].index(1)` is a list's method."""
    bare = re.escape(symbol.strip("`").split(".")[-1])
    call = re.compile(rf"(?<![\w]){bare}\s*\(")
    plain = re.compile(rf"(?<![\w.]){bare}\s*\(")
    seen: set[tuple[str, int]] = set()
    out: list[str] = []
    for item in evidence:
        if not is_code(item):
            continue
        resolved = "reference" in item.reason_codes
        for offset, line in enumerate(item.text.splitlines()):
            stripped = line.strip()
            if not call.search(line) or stripped.startswith(("def ", "class ", "async def ")):
                continue
            if not resolved and not plain.search(line):
                continue
            where = (item.path, item.start_line + offset)
            if where not in seen:
                seen.add(where)
                owner = f" (in `{item.symbol}`)" if item.symbol else ""
                out.append(f"- {quote(line)}{owner} [{visible_field(item.path)}:{where[1]}]")
    return out


_KIND_WORDS = {"call": ("call", "calls"), "import": ("import", "imports")}


def _line_text(evidence: Sequence[EvidenceItem], path: str, line: int) -> str:
    """The text of `path`'s line `line` when an evidence item holds it, else ""."""
    for item in evidence:
        if item.path == path and item.start_line <= line <= item.end_line:
            lines = item.text.splitlines()
            offset = line - item.start_line
            if offset < len(lines):
                return lines[offset].strip()
    return ""


def _references(a: Answer, shown: str) -> list[str]:
    """Every resolved reference, grouped by the definition (or file) it stands in: the count
    stated once, each group with its lines."""
    sites = a.references
    kinds = sorted({site.kind for site in sites})
    one, many = _KIND_WORDS.get(kinds[0], ("reference", "references")) if len(kinds) == 1 \
        else ("reference", "references")
    groups: dict[tuple[str, str], list[int]] = {}
    for site in sites:
        caller = "import" if site.kind == "import" else f"`{site.caller}`" if site.caller \
            else "module level"
        groups.setdefault((site.path, caller), []).append(site.line)
    callers = len(groups)
    head = (f"{len(sites)} {one if len(sites) == 1 else many} of {shown}, in {callers} "
            f"{'place' if callers == 1 else 'places'}:")
    lines = [head]
    limit = a.policy.max_list * 4
    for (path, caller), numbers in sorted(groups.items())[:limit]:
        counted = Counter(numbers)
        at = ", ".join(f"{n} (x{counted[n]})" if counted[n] > 1 else str(n)
                       for n in sorted(counted))
        said = _line_text(a.evidence, path, min(counted))
        lines.append(f"- {caller} [{path}:{at}]" + (f": {quote(said)}" if said else ""))
    if callers > limit:
        lines.append(f"- ... and {callers - limit} more places (`helix find` lists them all)")
    return lines


def usage_answer(a: Answer) -> list[str]:
    symbol = a.main[0] if a.main else ""
    shown = a.subject or "it"
    defs = [e for e in a.evidence if e.kind == "definition" and mentions(e, a.main)
            and is_code(e)]
    sites = _call_sites(a.evidence, symbol) if symbol else []
    lines: list[str] = []
    if a.references:
        a.shown.add("call_sites")
        lines = _references(a, shown)
    elif sites:
        a.shown.add("call_sites")
        count = len(sites)
        more = " (the first ones)" if count > a.policy.max_list + 1 else ""
        lines = [f"The evidence shows {count} call{'s' if count != 1 else ''} of {shown}"
                 f"{more}:", *sites[:a.policy.max_list + 1]]
    if defs:
        at, said = a.lead(defs[0])
        where = f"{shown} is defined in {at}:" if shown.startswith("`") else (
            f"The definition of {shown} is in {at}:")
        lines += ["", where, indented(said)] if lines else [
            where, indented(said), "", f"No call of {shown} appears in the evidence."]
    if not lines:
        mentioned = [e for e in a.ordered(a.evidence) if mentions(e, a.main)]
        if not mentioned:
            return a.nothing("defines or calls")
        lines = [f"No call of {shown} appears in the evidence; it is mentioned in:",
                 *(a.claim(e) for e in mentioned[:a.policy.max_list])]
    return lines
