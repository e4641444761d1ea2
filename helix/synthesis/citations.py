"""Citations in a model's answer (the contract's third check, `helix.synthesis.contract`):
`[E3]`, `path:10-20`, `path:12` must name evidence that was sent: an id the prompt defined, or a
path + line range inside a sent span. Others are removed from the text and recorded: a path
that was not sent, an absolute path (`/etc/passwd:1-5`), one that climbs out (`../x.py:3`), a
range outside the sent span. Look-alike characters are read as what they look like first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from helix.core.envelope import Citation
from helix.core.lookalike import canonical, without_format
from helix.synthesis.prompt import CitationRef

__all__ = ["canonical_citations", "extract_citations"]

# [E3], [E3, E5], [E3; E5], [e3]
_REF_GROUP_RE = re.compile(r"\[\s*E\d+(?:\s*[,;\-–]\s*E\d+)*\s*\]", re.I)
_REF_RANGE_RE = re.compile(r"E(\d+)(?:\s*[\-–]\s*E(\d+))?", re.I)
MAX_REF_RANGE = 50  # [E1-E9999] is not a citation of 9999 items
# path:10-20, path:12, path:L10-L20, optionally in backticks; not part of a URL. A leading
# `/`, `~/`, `./` or `../` is part of the path (so an absolute or climbing path is a citation of
# something that was not sent, and is removed).
_PATH_CITE_RE = re.compile(
    r"(?<![\w/.@:~-])`?(?P<path>(?:~?/|\.\.?/)*[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*)`?"
    r":L?(?P<start>\d+)(?:\s*[-–]\s*L?(?P<end>\d+))?(?![\d\w])"
)
_FILE_EXT_RE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")


def _citation(ref: CitationRef, start: int | None = None, end: int | None = None) -> Citation:
    return Citation(ref=ref.ref, evidence_id=ref.evidence_id, path=ref.path,
                    start_line=ref.start_line if start is None else start,
                    end_line=ref.end_line if end is None else end)


def _resolve_path(path: str, refs: Sequence[CitationRef]) -> str | None:
    """The sent path this citation names: exact, else the unique sent path ending in it."""
    paths = sorted({r.path for r in refs})
    if path in paths:
        return path
    suffixed = [p for p in paths if p.endswith("/" + path)]
    return suffixed[0] if len(suffixed) == 1 else None


def _looks_like_path(path: str) -> bool:
    return "/" in path or bool(_FILE_EXT_RE.search(path))


def _path_citation(match: re.Match[str], refs: Sequence[CitationRef]) -> Citation | bool | None:
    """A Citation when valid; None when it names unsent evidence; False when not a citation."""
    raw_path = match.group("path")
    start = int(match.group("start"))
    end = int(match.group("end") or start)
    if raw_path.startswith(("/", "~", "../")) or "/../" in raw_path:
        return None  # outside the repository: never evidence that was sent
    path = _resolve_path(raw_path.removeprefix("./"), refs)
    if path is None:
        return None if _looks_like_path(raw_path) else False
    if end < start:
        return None
    for ref in refs:
        if ref.path == path and ref.start_line <= start and end <= ref.end_line:
            return _citation(ref, start, end)
    return None


def _ref_ids(group: str) -> list[str]:
    """`[E1, E3-E5]` -> E1, E3, E4, E5."""
    ids: list[str] = []
    for first, last in _REF_RANGE_RE.findall(group):
        lo, hi = int(first), int(last or first)
        if hi < lo or hi - lo > MAX_REF_RANGE:
            hi = lo
        ids += [f"E{n}" for n in range(lo, hi + 1)]
    return ids


_BRACKETISH = re.compile(r"[\[［【〔⟦⁅][^\]］】〕⟧⁆\n]{1,60}[\]］】〕⟧⁆]")
_PATHISH = re.compile(r"[^\s`'\"()\[\]<>]{1,300}[:：]\s?[LＬ]?[0-9０-９]+"
                      r"(?:\s?[-–—－]\s?[LＬ]?[0-9０-９]+)?")


def _canonical(fragment: str) -> str:
    """A citation as it reads (`helix.core.lookalike`), doubled slashes folded."""
    return re.sub(r"(?<!:)/{2,}", "/", canonical(fragment, entities=False))


def canonical_citations(text: str) -> str:
    """Citations written with look-alike characters in their canonical form, so that they are
    validated like any other: full-width or other brackets, letters from other scripts
    (Cyrillic `Е`), zero-width or other invisible characters, doubled slashes. Only what then
    reads as a citation changes; the rest of the answer is left as written."""
    text = without_format(text)

    def bracket(match: re.Match[str]) -> str:
        canonical = _canonical(match.group(0))
        canonical = "[" + canonical[1:-1] + "]"
        return canonical if _REF_GROUP_RE.fullmatch(canonical) else match.group(0)

    def path(match: re.Match[str]) -> str:
        raw = match.group(0)
        if raw.isascii() and "//" not in raw:
            return raw
        canonical = _canonical(raw)
        return canonical if _PATH_CITE_RE.fullmatch(canonical) else raw

    return _PATHISH.sub(path, _BRACKETISH.sub(bracket, text))


def extract_citations(text: str, refs: Sequence[CitationRef]
                      ) -> tuple[str, tuple[Citation, ...], tuple[str, ...]]:
    """(text without invalid citations, valid citations in order of appearance, removed).
    Look-alike citations are read as what they look like first (`canonical_citations`)."""
    text = canonical_citations(text)
    by_id = {r.ref.upper(): r for r in refs}
    found: list[tuple[int, Citation]] = []
    removed: list[str] = []

    def replace_group(match: re.Match[str]) -> str:
        ids = _ref_ids(match.group(0))
        good = [i for i in ids if i in by_id]
        removed.extend(f"[{i}]" for i in ids if i not in by_id)
        for position, ref_id in enumerate(good):
            found.append((match.start() * 1000 + position, _citation(by_id[ref_id])))
        return "".join(f"[{i}]" for i in good)

    text = _REF_GROUP_RE.sub(replace_group, text)

    def replace_path(match: re.Match[str]) -> str:
        result = _path_citation(match, refs)
        if result is False:
            return match.group(0)
        if result is None:
            removed.append(match.group(0).strip("`"))
            return ""
        assert isinstance(result, Citation)
        found.append((match.start() * 1000, result))
        return match.group(0)

    text = _PATH_CITE_RE.sub(replace_path, text)
    if removed:
        text = _tidy(text)
    unique: list[Citation] = []
    seen: set[tuple[str, int, int]] = set()
    for _, citation in sorted(found, key=lambda pair: pair[0]):
        key = (citation.ref, citation.start_line, citation.end_line)
        if key not in seen:
            seen.add(key)
            unique.append(citation)
    return text, tuple(unique), tuple(removed)


def _tidy(text: str) -> str:
    """Remove the empty brackets and doubled spaces left where citations were cut out."""
    text = re.sub(r"\(\s*(?:[,;]\s*)*\)|\[\s*\]", "", text)
    text = re.sub(r"[ \t]+([,.;:])", r"\1", text)
    for _ in range(2):  # "see a and [E9]." -> "see a."; "[E1], see [E9]." -> "[E1]."
        text = re.sub(r"(?:,|\s+(?:and|or|see|in|at))([.;:])", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()
