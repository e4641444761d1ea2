"""The question model's extra columns: words that bridge a description to code (pure).

Questions written like SWE-QA's hide names behind role descriptions ("the base class for
parsers of manifest elements that hold several segment definitions"): what can match them is
what the code says of itself in words, not its names. `controller.rank_features` already has the
question's words in the name, owner, path, first line, comment lines and body; these columns add
what it leaves out, computed only for a model whose manifest lists them (`QUESTION_FEATURES`):

- `doc_all_cov`: the question's words in the whole of the candidate's comments and docstrings
  (every line of a multi-line docstring or block comment; `doc_cov` reads only the lines that
  begin with a comment mark, so a Python docstring's middle lines were never read);
- `doc_idf_share`, `body_idf_share`: the idf-weighted share of the question's words those
  comments, and the whole body, hold (name-word idf: a word every name holds counts little);
- `scope_cov`: its words in what encloses it: the owner's name and the owner's comments and
  docstring (the class a method belongs to, when the owner is a candidate or in a first file),
  and the file's stem;
- `file_doc_cov`: its words in the comments and docstrings of every candidate of the same file
  (what the file says of itself), the same for every candidate of a file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from controller.rank_features import FEATURES, Pooled, RankInputs
from controller.text import name_tokens, token_set
from helix.core.schemas import Chunk

BRIDGE_FEATURES: tuple[str, ...] = ("doc_all_cov", "doc_idf_share", "body_idf_share",
                                    "scope_cov", "file_doc_cov")
QUESTION_FEATURES: tuple[str, ...] = (*FEATURES, *BRIDGE_FEATURES)

_LINE_MARKS = ("#", "//", "*", "/*", "///", "//!", "--")
_QUOTES = ('"""', "'''")
_DOCS: dict[str, frozenset[str]] = {}
_DOCS_KEPT = 50_000


def comment_text(text: str) -> str:
    """Every comment and docstring line of `text`: lines that begin with a comment mark, and
    every line of a triple-quoted string or a `/* ... */` block, from its first to its last."""
    out: list[str] = []
    quote = ""  # the open triple quote, if any
    block = False  # inside /* ... */
    for line in text.splitlines():
        stripped = line.strip()
        if quote:
            out.append(line)
            if quote in stripped:
                quote = ""
            continue
        if block:
            out.append(line)
            if "*/" in stripped:
                block = False
            continue
        opened = next((q for q in _QUOTES if q in stripped), "")
        if opened:
            out.append(line)
            if stripped.count(opened) % 2 == 1:
                quote = opened
            continue
        if stripped.startswith("/*"):
            out.append(line)
            block = "*/" not in stripped[2:]
            continue
        if stripped.startswith(_LINE_MARKS):
            out.append(line)
    return "\n".join(out)


def doc_words(chunk: Chunk) -> frozenset[str]:
    """The words of `chunk`'s comments and docstrings (kept per chunk id)."""
    found = _DOCS.get(chunk.id)
    if found is None:
        if len(_DOCS) >= _DOCS_KEPT:
            _DOCS.clear()
        found = _DOCS[chunk.id] = token_set(comment_text(chunk.text))
    return found


def _weighted(found: frozenset[str], words: frozenset[str], idf: Mapping[str, float],
              unseen: float) -> float:
    # fsum over a sorted list: exact and the same whatever order a set iterates in
    total = math.fsum(idf.get(w, unseen) for w in sorted(words))
    if not total:
        return 0.0
    return math.fsum(idf.get(w, unseen) for w in sorted(found & words)) / total


def _owners(chunks: Iterable[Chunk]) -> dict[tuple[str, str], Chunk]:
    out: dict[tuple[str, str], Chunk] = {}
    for chunk in chunks:
        if chunk.symbol and chunk.kind == "code_def":
            out.setdefault((chunk.path, chunk.symbol), chunk)
    return out


def bridge_rows(inputs: RankInputs, pooled: Sequence[Pooled], words: frozenset[str]
                ) -> list[list[float]]:
    """One row of `BRIDGE_FEATURES` per candidate, in order (`words`: the question's, as
    `controller.file_defs.question_tokens` reads them)."""
    q = len(words) or 1
    known = [p.chunk for p in pooled] + [c for path in sorted(inputs.file_chunks)
                                         for c in inputs.file_chunks[path]]
    owners = _owners(known)
    file_docs: dict[str, set[str]] = {}
    for chunk in known:
        file_docs.setdefault(chunk.path, set()).update(doc_words(chunk) & words)
    rows: list[list[float]] = []
    for p in pooled:
        chunk = p.chunk
        docs = doc_words(chunk)
        body = token_set(chunk.text)
        owner_name = (chunk.symbol or "").rpartition(".")[0]
        scope = set(name_tokens(owner_name)) if owner_name else set()
        owner = owners.get((chunk.path, owner_name)) if owner_name else None
        if owner is not None:
            scope |= doc_words(owner)
        scope |= token_set(chunk.path.rsplit("/", 1)[-1].rsplit(".", 1)[0])
        rows.append([len(docs & words) / q,
                     _weighted(docs, words, inputs.idf, inputs.idf_unseen),
                     _weighted(body, words, inputs.idf, inputs.idf_unseen),
                     len(scope & words) / q,
                     len(file_docs.get(chunk.path, set())) / q])
    return rows
