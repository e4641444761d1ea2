"""From the function the evidence leads with, the callee that does the work (pure).

"How does X work" and "where is X decided" often land on an entry point whose body only
delegates: the condition or the work the question names sits one call down. For each of the
first `leads` functions or methods of the ranked evidence, the definitions it calls (the
graph's resolved `calls` edges) are scored like in-file definitions
(`controller.file_defs.definition_score`) on the question's words less the caller's own name
(what the question asks of it, not what it names); the best one joins the evidence right after
its caller when it scores at least `min_score` and at least `ratio` times its caller.
Off by default (`retrieval.callees`): see `helix.core.policy.CalleesPolicy` for what it moved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.file_defs import definition_score, is_header
from controller.text import name_tokens
from helix.core.policy import CalleesPolicy, FileDefsPolicy
from helix.core.schemas import Chunk

CalleesOf = Callable[[Chunk], Sequence[Chunk]]


def promotions(question: frozenset[str], ranked: Sequence[Chunk], callees_of: CalleesOf,
               policy: CalleesPolicy, scoring: FileDefsPolicy) -> list[tuple[int, Chunk]]:
    """(position in `ranked` of the caller, callee) for each of the first `policy.leads`
    function-like definitions whose best callee answers the question at least as well."""
    out: list[tuple[int, Chunk]] = []
    present = {c.id for c in ranked}
    leads = 0
    for position, chunk in enumerate(ranked):
        if leads >= policy.leads:
            break
        if chunk.kind != "code_def" or is_header(chunk):
            continue
        leads += 1
        rest = question - name_tokens(chunk.symbol or "")  # what the question asks of it
        own = definition_score(rest, chunk, scoring)
        scored = sorted(((definition_score(rest, c, scoring), c.path, c.start_line, c.id, c)
                         for c in callees_of(chunk) if c.id not in present
                         and c.kind == "code_def"),
                        key=lambda t: (-t[0], t[1], t[2], t[3]))
        if not scored:
            continue
        best, callee = scored[0][0], scored[0][4]
        if best >= policy.min_score and best >= policy.ratio * own:
            out.append((position, callee))
            present.add(callee.id)
    return out


def across(question: frozenset[str], shown: Sequence[Chunk], callees_of: CalleesOf,
           count: int, scoring: FileDefsPolicy) -> list[tuple[Chunk, Chunk]]:
    """(callee, its caller) for the `count` best definitions in other files that the code
    items `shown` call, each answering the question at least `scoring.reach_min`
    (`definition_score` on every question word), best first (ties by path, line, id). The
    in-file picks stop at a file's edge; a question about a component often answers in what
    the component calls (the tag's prop helpers, the exception a validator raises)."""
    if count <= 0 or not question:
        return []
    present = {c.id for c in shown}
    paths = {c.path for c in shown}
    found: dict[str, tuple[Chunk, Chunk]] = {}
    for caller in shown:
        if caller.kind != "code_def":
            continue
        for callee in callees_of(caller):
            if (callee.kind == "code_def" and callee.path not in paths
                    and callee.id not in present and callee.id not in found):
                found[callee.id] = (callee, caller)
    scored = sorted(((definition_score(question, c, scoring), c.path, c.start_line, c.id)
                     for c, _ in found.values()), key=lambda t: (-t[0], t[1], t[2], t[3]))
    return [found[t[3]] for t in scored[:count] if t[0] >= scoring.reach_min]
