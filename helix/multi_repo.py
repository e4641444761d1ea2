"""One question across several repositories (`--repo` given more than once).

Each repository is asked with its own index and settings (the same dry run as a one-repository
question); the evidence lists are fused by reciprocal rank (`1 / (k + rank)`, the controller's
`rrf_k`), ties broken by the order the repositories were named, then by rank: deterministic,
whatever finished first. Every evidence item names its repository (`repo`) and its path carries
it (`repo:path`), so citations read `repo:path:line` and the one synthesis call (with a model)
cites across repositories like any other evidence. The run log keeps the fused run once, its
`repo_root` naming every repository.

`--repos GROUP|all` (`ask_group`) first ranks the registered repositories of the group by their
summaries (`helix.cluster.summary.rank`: names, README headings, top-level identifiers and
their docs), then asks the best `cluster.repos_top` as above; the envelope's `repo_routing`
says which were searched and why. The repositories are retrieved in parallel (one thread
each) and fused in their ranking's order, whichever finished first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helix.core.config import HelixConfig
from helix.core.envelope import Envelope, EvidenceItem, RepoRouting
from helix.core.errors import UserError
from helix.core.hashing import hash_obj

MAX_REPOS = 8
SEPARATOR = "; "  # between repository roots in the fused envelope's repo_root


def repo_names(roots: Sequence[Path]) -> list[str]:
    """Each repository's name: its directory name, numbered when two share one."""
    names: list[str] = []
    for root in roots:
        name, n = root.name or "repo", 2
        while name in names:
            name, n = f"{root.name}-{n}", n + 1
        names.append(name)
    return names


def _tagged(item: EvidenceItem, name: str) -> EvidenceItem:
    return item.model_copy(update={"repo": name, "path": f"{name}:{item.path}",
                                   "id": f"{name}:{item.id}"})


def fuse(named: Sequence[tuple[str, Envelope]], rrf_k: int, limit: int) -> list[EvidenceItem]:
    """The repositories' evidence as one list (see the module docstring)."""
    scored: list[tuple[float, int, int, EvidenceItem]] = []
    for order, (name, envelope) in enumerate(named):
        for rank, item in enumerate(envelope.evidence, start=1):
            scored.append((1.0 / (rrf_k + rank), order, rank, _tagged(item, name)))
    scored.sort(key=lambda t: (-t[0], t[1], t[2]))
    return [item.model_copy(update={"score": round(score, 9)})
            for score, _, _, item in scored[:limit]]


def fused_answer(named: Sequence[tuple[str, Envelope]]) -> str:
    """The deterministic answer across repositories: each one's own answer, under its name,
    its citations written `repo:path:lines`."""
    parts = []
    for name, envelope in named:
        if not envelope.evidence:
            parts.append(f"{name}: nothing in this repository matches.")
            continue
        places = sorted({f"{item.path}:{item.start_line}" for item in envelope.evidence},
                        key=len, reverse=True)
        pattern = re.compile(r"(?<![\w:/.-])(" + "|".join(map(re.escape, places)) + r")")
        text = pattern.sub(lambda m, name=name: f"{name}:{m.group(1)}",  # type: ignore[misc]
                           envelope.answer.strip())
        parts.append(f"{name}:\n{text}")
    return "\n\n".join(parts)


def fused_envelope(question: str, named: Sequence[tuple[str, Envelope]],
                   config: HelixConfig) -> Envelope:
    """One envelope for the question across `named` repositories (dry-run shape)."""
    first = named[0][1]
    evidence = fuse(named, config.retrieval.rrf_k,
                    config.retrieval.max_evidence * max(1, len(named)))
    steps = tuple(step for _, env in named for step in env.controller_steps)
    return first.model_copy(update={
        "question": question,
        "repo_root": SEPARATOR.join(env.repo_root for _, env in named),
        "repo_rev": SEPARATOR.join(env.repo_rev for _, env in named),
        "index_rev": hash_obj([env.index_rev for _, env in named]),
        "evidence": tuple(evidence),
        "item_hashes": {**{f"{name}:{key}": value for name, env in named
                           for key, value in env.item_hashes.items()},
                        "evidence": hash_obj(list(evidence))},
        "controller_steps": steps,
        "stop_reason": first.stop_reason,
        "answer": fused_answer(named),
        "clarify": None,
        "references": (),
        "citations": (),
        "timings_ms": {"total": round(sum(env.timings_ms.get("total", 0.0)
                                          for _, env in named), 3)},
    })


def ask_across(question: str, roots: Sequence[Path], *, config_for: Any, dry_run: bool,
               notify: Any = None, names: Sequence[str] | None = None,
               index_dirs: Sequence[Path | None] | None = None,
               routing: RepoRouting | None = None) -> tuple[Envelope, str]:
    """(fused envelope, run id): every repository asked (in parallel), the evidence fused, one
    synthesis call when a model is configured and `dry_run` is off, one run-log row. `names`
    and `index_dirs`: the registry's, when the repositories come from it. The question is
    read once (`controller.question`); each repository's index respells it
    (`helix.service.retrieve`, the first half of the one entry point)."""
    from concurrent.futures import ThreadPoolExecutor

    from controller.question import read_question
    from helix.core import notices
    from helix.core.ports import SystemClock
    from helix.service import contract_embedders, default_llm, open_runlog, retrieve
    from helix.synthesis.answer import deterministic_citations, synthesize
    from helix.synthesis.prompt import citation_refs
    from indexers.build import declined_embeddings

    if len(roots) > MAX_REPOS:
        raise UserError(f"at most {MAX_REPOS} repositories in one question, got {len(roots)}")
    clock = SystemClock()
    dirs = list(index_dirs) if index_dirs is not None else [None] * len(roots)
    configs = [declined_embeddings(root, config_for(root), index_dir, quiet=True)
               for root, index_dir in zip(roots, dirs, strict=True)]
    read = read_question(question, configs[0].retrieval)  # once; each index respells it

    def one(root: Path, config: HelixConfig, index_dir: Path | None) -> Envelope:
        asked = (read if config.retrieval == configs[0].retrieval
                 else read_question(question, config.retrieval))  # its own routing settings
        return retrieve(asked, root=root, config=config, clock=clock, index_dir=index_dir,
                        quiet=True)[0]

    with ThreadPoolExecutor(max_workers=max(1, len(roots))) as pool:
        found = list(pool.map(one, roots, configs, dirs))
    named = list(zip(list(names) if names is not None else repo_names(roots), found,
                     strict=True))
    envelope = fused_envelope(read.asked, named, configs[0]).model_copy(
        update={"repo_routing": routing})
    log = open_runlog(notify or notices.notify)
    try:
        run_id = log.start(envelope, created=clock.now(), dry_run=dry_run)
        if dry_run:
            envelope = envelope.model_copy(update={"citations": deterministic_citations(
                envelope.answer, citation_refs(envelope.evidence))})
            log.finish(run_id, envelope, updated=clock.now())
            return envelope, run_id
        config = configs[0]
        encoder, exemplars = contract_embedders()
        result = synthesize(envelope, llm=default_llm(config), settings=config.synthesis,
                            clock=clock, notify=notify or notices.notify, embedder=encoder,
                            exemplar_embedder=exemplars)
        log.finish(run_id, result.envelope, updated=clock.now(),
                   prompt_tokens=result.prompt_tokens,
                   completion_tokens=result.completion_tokens, attempts=result.attempts,
                   redactions=result.redactions.counts, error=result.error)
        return result.envelope, run_id
    finally:
        log.close()


def ask_group(question: str, group: str, *, config_for: Any, dry_run: bool,
              notify: Any = None) -> tuple[Envelope, str]:
    """`--repos GROUP|all`: the group's best repositories for `question` by their summaries,
    asked across (see the module docstring)."""
    from helix.cluster.summary import rank
    from helix.core.config import resolve_config
    from helix.core.errors import NotFoundError
    from helix.store.repos import Registry

    registry = Registry()
    try:
        rows = registry.rows(group)
    finally:
        registry.close()
    if not rows:
        raise NotFoundError(f"no repositories registered in '{group}' (helix repos lists them;"
                            " helix index --repos-file FILE registers them)")
    top = resolve_config(None)[0].cluster.repos_top
    routing = rank(question, {row.name: row.summary for row in rows}, top, group)
    by_name = {row.name: row for row in rows}
    chosen = [by_name[choice.name] for choice in routing.searched]
    return ask_across(question, [Path(row.root) for row in chosen], config_for=config_for,
                      dry_run=dry_run, notify=notify, names=[row.name for row in chosen],
                      index_dirs=[Path(row.index_dir) for row in chosen], routing=routing)
