"""Evidence: candidates found by the loop, their kinds, the envelope's item lists and hashes."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from controller import reasons as why
from controller.reasons import Reason
from controller.route import RoutePlan
from controller.text import is_identifier, phrase_tokens, symbol_variants, token_set
from helix.core.envelope import EvidenceItem, EvidenceKind, HitRef, Items, ProofSpan, SlotCoverage
from helix.core.hashing import hash_obj, short_id
from helix.core.schemas import Chunk, ChunkHead, Frozen
from indexers.graph import is_test_path

DOC_CHUNK_KINDS = ("doc_section", "tree_node", "text_window")
CODE_CHUNK_KINDS = ("code_def", "code_module")
_CONTRACT_TEXT = ("policy policie contract config configuration setting schema spec specification "
                  "protocol interface")
CONTRACT_WORDS = frozenset(_CONTRACT_TEXT.split())
ENTRYPOINT_FILES = frozenset(("__main__.py", "main.py", "cli.py", "app.py", "manage.py"))
ENTRYPOINT_MARKERS = re.compile(
    r"if __name__ == ['\"]__main__['\"]|@click\.(?:command|group)|@\w+\.(?:route|get|post)\(|"
    r"ArgumentParser\(|@app\.")
# Slots whose subject names the thing a definition span would define.
SUBJECT_SLOTS = ("term", "target", "symbol", "quantity", "owner", "x", "y", "topic")
ITEM_LISTS = ("intent", "selected_trees", "doc_section_hits", "repo_search_hits", "proof_spans",
              "slot_coverage_report")


class Candidate(Frozen):
    """A chunk the loop admitted as evidence, with its best fused score and every reason."""

    chunk: Chunk
    score: float
    reasons: tuple[Reason, ...]
    step: int


def evidence_id(chunk: Chunk) -> str:
    return _evidence_id(chunk.path, chunk.start_line, chunk.end_line, chunk.content_hash)


@functools.lru_cache(maxsize=65_536)  # a question asks it of the same chunks many times
def _evidence_id(path: str, start: int, end: int, content_hash: str) -> str:
    return "ev-" + short_id(path, start, end, content_hash, length=12)


def definition_names(plan: RoutePlan) -> frozenset[str]:
    """Lowercased names a definition of the question's subject could carry."""
    names: set[str] = set()
    for slot in SUBJECT_SLOTS:
        for phrase in plan.subjects.get(slot, ()):
            bare = phrase.strip("`")
            if is_identifier(bare) or " " not in bare:
                names.add(bare.lower().rsplit(".", 1)[-1])
            for variant in symbol_variants(bare):
                names.add(variant.lower())
    return frozenset(n for n in names if n)


def _norm(name: str) -> str:
    # A private name (`_chunk`) does not define the public term (`chunk`).
    return ("_" if name.startswith("_") else "") + name.lower().replace("_", "")


@functools.lru_cache(maxsize=1024)
def _wanted(names: frozenset[str]) -> dict[str, str]:
    """normalised name -> the name it stands for. Spellings of one name (`EdgeBetweenness`,
    `edge_betweenness`) normalise alike: the most specific (most words) stands for them,
    then the first in sorted order, whatever the set's iteration order in this process."""
    wanted: dict[str, str] = {}
    for name in sorted(names, key=lambda n: (-len(phrase_tokens(n.replace("_", " "))), n)):
        wanted.setdefault(_norm(name), name)
    return wanted


def defines(chunk: Chunk, names: Iterable[str]) -> str | None:
    """The name this chunk defines among `names`: a def/class, a heading, or an assignment."""
    wanted = _wanted(frozenset(names))
    if not wanted:
        return None
    if chunk.kind == "code_def" and chunk.symbol:
        last = _norm(chunk.symbol.rsplit(".", 1)[-1])
        if last in wanted:
            return wanted[last]
    if chunk.kind in DOC_CHUNK_KINDS and chunk.heading_path:
        heading = _norm(chunk.heading_path[-1].replace(" ", "").replace("-", ""))
        for key, name in sorted(wanted.items()):
            if heading == key:
                return name
    if chunk.kind in ("code_module", "code_def"):
        for assigned in _assigned(chunk.text):
            if assigned in wanted:
                return wanted[assigned]
    return None


_ASSIGNMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=")


@functools.lru_cache(maxsize=8192)
def _assigned(text: str) -> tuple[str, ...]:
    """The (normalised) names a chunk's lines assign, in line order (read once per text: the
    loop asks about the same chunks at every step)."""
    return tuple(_norm(m.group(1)) for line in text.splitlines()
                 if (m := _ASSIGNMENT.match(line)))


def _path_tokens(chunk: Chunk) -> frozenset[str]:
    return token_set(" ".join((chunk.path.replace("/", " "), " ".join(chunk.heading_path),
                               chunk.symbol or "")))


def is_test(chunk: Chunk | ChunkHead) -> bool:
    """A test file by the index's own rule (the one that draws `tests` edges), or a test def."""
    return is_test_path(chunk.path) or bool(
        chunk.symbol and chunk.symbol.rsplit(".", 1)[-1].lower().startswith("test"))


def classify(chunk: Chunk, names: frozenset[str],
             reasons: Sequence[Reason] = ()) -> EvidenceKind:
    if chunk.kind == "tree_node":
        return "tree"
    if is_test(chunk):
        return "test"
    if defines(chunk, names) or why.has(reasons, "symbol_exact"):
        return "definition"
    name = chunk.path.rsplit("/", 1)[-1]
    if (name in ENTRYPOINT_FILES or "cli" in chunk.path.split("/")[:-1]
            or (chunk.kind in CODE_CHUNK_KINDS and ENTRYPOINT_MARKERS.search(chunk.text))):
        return "entrypoint"
    if _path_tokens(chunk) & CONTRACT_WORDS:
        return "contract"
    if chunk.kind in DOC_CHUNK_KINDS:
        return "doc"
    return "code"


def to_item(candidate: Candidate, names: frozenset[str], text: str | None = None) -> EvidenceItem:
    chunk = candidate.chunk
    kind = classify(chunk, names, candidate.reasons)
    return EvidenceItem(
        id=evidence_id(chunk), path=chunk.path, start_line=chunk.start_line,
        end_line=chunk.end_line, kind=kind, score=round(candidate.score, 6),
        content_hash=chunk.content_hash, node_id=chunk.node_id,
        reasons=why.render_all(candidate.reasons), reason_codes=why.codes(candidate.reasons),
        heading=" > ".join(chunk.heading_path) or None, symbol=chunk.symbol,
        text=chunk.text if text is None else text, chunk_id=chunk.id)


def _agreement(c: Candidate) -> float:
    """Sum of 1/rank over every list the candidate was found in, each weighted alike: among
    equal fused scores, the one more lists put near their top."""
    return round(sum(1.0 / r.rank for r in c.reasons if r.code == "rank" and r.rank > 0), 9)


def rank(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Best first: score, then (a tie) agreement of the lists, then a total order on
    position."""
    return sorted(candidates, key=lambda c: (-c.score, -_agreement(c), c.chunk.path,
                                             c.chunk.start_line, c.chunk.id))


def rank_for_route(plan: RoutePlan, candidates: Iterable[Candidate],
                   code_first: bool, source_first: bool = False,
                   tests_asked: bool = False) -> list[Candidate]:
    """`rank`, then with `code_first` (the route's policy: location questions) the code
    definitions that name the question's terms first (their order kept): "where is X
    decided?" asks for the code, and the docs that say where it is are support."""
    ranked = rank(candidates)
    if source_first:
        # where a reported problem lives: source code first (tests too when asked for)
        def source(c: Candidate) -> bool:
            return c.chunk.kind in CODE_CHUNK_KINDS and (tests_asked or not is_test(c.chunk))

        return [c for c in ranked if source(c)] + [c for c in ranked if not source(c)]
    if not code_first:
        return ranked
    terms = plan.term_words

    def answers(c: Candidate) -> bool:
        return c.chunk.kind == "code_def" and bool(
            terms & token_set(f"{c.chunk.symbol or ''} {c.chunk.text}"))

    return [c for c in ranked if answers(c)] + [c for c in ranked if not answers(c)]


def _hit_ref(candidate: Candidate) -> HitRef:
    chunk = candidate.chunk
    channels = why.channels(candidate.reasons)
    return HitRef(chunk_id=chunk.id, path=chunk.path, start_line=chunk.start_line,
                  end_line=chunk.end_line, score=round(candidate.score, 6),
                  channels=tuple(channels), heading=" > ".join(chunk.heading_path) or None,
                  symbol=chunk.symbol)


def build_items(plan: RoutePlan, ranked: Sequence[Candidate], selected_trees: Sequence[str],
                proof_spans: Sequence[ProofSpan], coverage: SlotCoverage) -> Items:
    docs = tuple(_hit_ref(c) for c in ranked if c.chunk.kind in DOC_CHUNK_KINDS)
    code = tuple(_hit_ref(c) for c in ranked if c.chunk.kind not in DOC_CHUNK_KINDS)
    spans = tuple(sorted(proof_spans, key=lambda p: (p.doc_chunk_id, p.relation, p.path,
                                                     p.start_line, p.symbol)))
    return Items(intent=plan.intent, selected_trees=tuple(selected_trees),
                 doc_section_hits=docs, repo_search_hits=code, proof_spans=spans,
                 slot_coverage_report=coverage)


def item_hashes(items: Items, evidence: Sequence[EvidenceItem]) -> dict[str, str]:
    """One hash per item list (and one for the evidence list): equal inputs, equal hashes."""
    out = {name: hash_obj(getattr(items, name)) for name in ITEM_LISTS}
    out["evidence"] = hash_obj(list(evidence))
    return out
