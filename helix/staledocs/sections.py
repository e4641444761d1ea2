"""The documentation sections `helix stale-docs` checks, and the code each is aligned to.

A section is a heading's span of a Markdown or RST file (a paragraph group of plain text), as
the index chunks it; it is aligned to the definitions it names by the rule the answers' proof
spans use (`controller.alignment.aligned_definitions`: a name bound only when it resolves to
exactly one definition). The distinctive names it mentions that nothing defines any more
(snake_case, CamelCase, dotted) are kept too: a definition removed after the section was
written is the plainest staleness there is.

Files that describe history rather than the code as it is (changelogs, release notes,
upgrading guides, the licence: `stale_docs.skip`) are never checked, nor sections under a
heading that says so ("Upgrading to 3.0", "Migrating from 2.x", "What's new", or a version
number: "4.13.3 / 2015-08-02"), nor release histories or an earlier version's documentation
under any name (`helix.staledocs.archives`), nor sections
rendered from the code's own docstrings (an mkdocstrings `::: module.Name` or a Sphinx
`.. autoclass::` directive). A name the section's own example defines (`class BaseSchema`)
is the example's, not a missing definition of the project; a test's definition is the tests'
(a document outside the tests is not aligned to it).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.alignment import aligned_definitions, distinctive, named_identifiers
from helix.core.errors import BadPathError
from helix.core.schemas import Chunk, SymbolDef
from helix.inputs import check_field
from helix.staledocs.archives import archived, older_versions, release_history, version_heading
from indexers.api import IndexReader
from indexers.chunkers import doc_sections, split_lines

DOC_SECTION = "doc_section"
GENERATED = re.compile(r"^\s*(?::::\s+\S|\.\. auto\w+::)", re.M)
HISTORICAL = re.compile(r"\b(?:upgrad\w*|migrat\w*|change ?log|release notes|what'?s new|"
                        r"deprecat\w*|backward[s -]compat\w*)\b", re.I)
# a name an example defines itself: `class Provider`, `function DisplayName()`, `const Context
# = ...`, `Provider = make_provider()` at the start of a line
OWN = re.compile(r"\b(?:class|def|func|function|fn|interface|struct|type|const|let|var)\s+"
                 r"([A-Za-z_$][\w$]*)|^[ \t]*(?:>>>[ \t]+)?([A-Za-z_]\w*)[ \t]*=(?!=)", re.M)
IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[A-Za-z_][\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)",
                    re.M)
# JavaScript: `import A, { B, C as D } from 'mod'`, `const { B } = require('mod')`
JS_IMPORT = re.compile(r"\bimport[ \t]+(?:type[ \t]+)?(?:([A-Za-z_$][\w$]*)[ \t]*,?[ \t]*)?"
                       r"(?:\{([^}]*)\})?[ \t]*from[ \t]*['\"]([^'\"]+)['\"]"
                       r"|\b(?:const|let|var)[ \t]*\{([^}]*)\}[ \t]*=[ \t]*require\([ \t]*"
                       r"['\"]([^'\"]+)['\"][ \t]*\)")
TEST_DIRS = frozenset({"test", "tests", "testing", "testsuite", "__tests__", "spec"})
TEST_ENDINGS = ("_test.py", "_test.go", ".test.ts", ".test.js", ".spec.ts", ".spec.js",
                ".test.tsx", ".test.jsx", ".spec.tsx", ".spec.jsx", ".test.mjs", ".test.cjs",
                "test.java", "tests.java", "_spec.rb", "_test.rs")
PACKAGE_NAME = re.compile(r'^\s*"name"\s*:\s*"([^"]+)"', re.M)
MIN_NAME = 2  # a name shorter (`_`, `x`) is no definition a document means


@dataclass(frozen=True)
class DocSection:
    path: str
    heading: tuple[str, ...]
    history_path: str  # where its history is: the target of a document that is a link
    occurrence: int  # the how-many-th section with this heading path in the file (0: first)
    start: int
    end: int
    aligned: tuple[SymbolDef, ...]  # the definitions it names, first named first
    # distinctive names it mentions that nothing defines, each with what qualifies it as
    # written (`ssl` of `ssl.SSLContext`; "" when bare)
    unresolved: tuple[tuple[str, str], ...]
    text: str  # the section as the index has it


def test_code(path: str) -> bool:
    """A file of the tests (a test directory, a test file's name): a user's document names
    the project's `createLogger`, not the test helper of that name."""
    parts = path.lower().split("/")
    name = parts[-1]
    return bool(TEST_DIRS & set(parts[:-1])) or name.startswith("test_") or any(
        name.endswith(end) for end in TEST_ENDINGS) or name == "conftest.py"


def skipped(path: str, patterns: Sequence[str]) -> bool:
    """`path` (or its file name) matches one of `patterns`, case aside on every system
    (`HISTORY*` is `docs/history.rst` too)."""
    path = path.lower()
    name = path.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(name, p.lower()) or fnmatch.fnmatchcase(path, p.lower())
               for p in patterns)


def wanted(path: str, prefixes: Sequence[str]) -> bool:
    """`path` is one the command was given (a file, or under a directory), or none was."""
    if not prefixes:
        return True
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)


def repo_paths(root: Path, given: Sequence[str]) -> list[str]:
    """PATH arguments as paths relative to the repository, each checked to be in it and to
    exist (a path outside it is a BadPathError, never read); the root itself means all."""
    out = []
    for value in given:
        check_field(value, "PATH")
        absolute = (root / value).resolve()
        if not absolute.is_relative_to(root):
            raise BadPathError(f"PATH {value} is outside the repository {root}")
        if not absolute.exists():
            raise BadPathError(f"PATH {value} does not exist in {root}")
        if absolute != root:
            out.append(absolute.relative_to(root).as_posix())
    return out


def doc_paths(index: IndexReader, prefixes: Sequence[str], skip: Sequence[str],
              history_dirs: Sequence[str] = ()) -> list[str]:
    """The documents to check: those asked for, but for history (`skip` by name,
    `archives.archived` by directory: history, or an earlier version's documentation)."""
    docs = [f.path for f in index.files() if f.kind == "doc"]
    older = older_versions(docs)
    return sorted(p for p in docs if wanted(p, prefixes) and not skipped(p, skip)
                  and not archived(p, history_dirs, older))


def _grouped(chunks: Sequence[Chunk]) -> list[list[Chunk]]:
    """A file's section chunks, by section (a long section is windowed into several)."""
    groups: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if chunk.kind == DOC_SECTION:
            groups.setdefault(chunk.node_id, []).append(chunk)
    return sorted(groups.values(), key=lambda g: (g[0].start_line, g[0].id))


def imported(text: str, packages: frozenset[str] = frozenset()) -> dict[str, str]:
    """The names an example imports, each with its module's top package
    (`from collections.abc import Iterable` -> Iterable: collections; `import { Provider }
    from 'react'` -> Provider: react): a name imported from the standard library or a
    dependency is that module's, whatever the project defines. A JavaScript import from the
    project's own package (`packages`: the names its package.json files give) or a relative
    one is the project's: no module is said."""
    out: dict[str, str] = {}
    for module, names in IMPORT.findall(text):
        for part in names.strip("()").split(","):
            words = part.split()
            if words and words[0].isidentifier():
                out.setdefault(words[-1] if len(words) == 3 and words[1] == "as" else words[0],
                               module.lstrip(".").split(".", 1)[0])
    for default, braced, module, required, required_from in JS_IMPORT.findall(text):
        spec = module or required_from
        top = "/".join(spec.split("/")[:2 if spec.startswith("@") else 1])
        if spec.startswith(".") or top in packages:
            continue
        for part in [default, *(braced or required).split(",")]:
            words = part.replace(":", " as ").split()
            if words and words[-1].isidentifier():
                out.setdefault(words[-1], top)
    return out


def _unresolved(index: IndexReader, texts: Sequence[str], known: set[str],
                packages: frozenset[str] = frozenset(), roots: frozenset[str] = frozenset()
                ) -> list[tuple[str, str]]:
    """The names the texts mention that nothing defines: distinctive ones, or any a
    project's package qualifies (`pendulum.create`: `roots`), each with its qualifier's top
    package."""
    out: list[tuple[str, str]] = []
    # the example's own definitions
    seen: set[str] = {a or b for a, b in OWN.findall("\n".join(texts))}
    imports = imported("\n".join(texts), packages)
    for name in (n for text in texts for n in named_identifiers(text)):
        qualifier, _, base = name.rpartition(".")
        if not qualifier and base in imports:
            qualifier = imports[base]
        ours = bool(qualifier) and qualifier.split(".", 1)[0] in roots
        if name in seen or name in known or base in known or not (
                distinctive(base) or ours) or len(base.strip("_")) < MIN_NAME:
            continue
        seen.add(name)
        if not index.find_definitions(name, limit=1) and not index.find_definitions(
                base, limit=1):
            out.append((base, qualifier.split(".", 1)[0]))
    return list(dict.fromkeys(out))


def history_path(root: Path, path: str) -> str:
    """Where a document's history is: itself, or the file it links to inside the root."""
    target = root / path
    if not target.is_symlink():
        return path
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError):
        return path
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else path


def _past(heading: Sequence[str]) -> bool:
    """A heading path that is about the past on purpose: upgrading, what's new, or one
    release's entry ("4.13.3 / 2015-08-02 > Bug fixes")."""
    return any(HISTORICAL.search(h) or version_heading(h) for h in heading)


def sections_of(index: IndexReader, path: str, limit: int, history: str | None = None,
                min_version_headings: int = 0, packages: frozenset[str] = frozenset(),
                roots: frozenset[str] = frozenset()) -> list[DocSection]:
    """The sections of one documentation file as the index has it, each with its code (none
    in a release history: `min_version_headings` headings that are versions, 0: never)."""
    out: list[DocSection] = []
    seen: dict[tuple[str, ...], int] = {}
    groups = _grouped(index.chunks_for_path(path))
    releases = min_version_headings > 0 and release_history(
        (g[0].heading_path for g in groups), min_version_headings)
    for group in groups:
        heading = group[0].heading_path
        occurrence = seen.get(heading, 0)
        seen[heading] = occurrence + 1
        aligned: dict[str, SymbolDef] = {}
        names: set[str] = set()
        text = "\n".join(c.text for c in group)
        if releases or GENERATED.search(text) or _past(heading):
            # written from the code's docstrings, or about the past on purpose
            out.append(DocSection(path=path, heading=heading, occurrence=occurrence,
                                  history_path=history or path, start=group[0].start_line,
                                  end=group[-1].end_line, aligned=(), unresolved=(),
                                  text=text))
            continue
        for chunk in group:
            for name, definition in aligned_definitions(index, chunk):
                names.add(name)
                if definition.path != path and len(aligned) < limit and (
                        not test_code(definition.path) or test_code(path)):
                    aligned.setdefault(definition.node_id, definition)
        unresolved = _unresolved(index, [c.text for c in group], names, packages, roots)
        out.append(DocSection(path=path, heading=heading, occurrence=occurrence,
                              history_path=history or path,
                              start=group[0].start_line, end=group[-1].end_line,
                              aligned=tuple(aligned.values()), unresolved=tuple(unresolved),
                              text=text))
    return out


def section_texts(path: str, lang: str | None, text: str, window_lines: int
                  ) -> dict[tuple[tuple[str, ...], int], str]:
    """(heading path, occurrence) -> the section's text, for one version of a document."""
    lines = split_lines(text)
    out: dict[tuple[tuple[str, ...], int], str] = {}
    seen: dict[tuple[str, ...], int] = {}
    for start, end, heading in doc_sections(path, lang, lines, window_lines):
        occurrence = seen.get(heading, 0)
        seen[heading] = occurrence + 1
        out[(heading, occurrence)] = "\n".join(lines[start - 1:end])
    return out


def js_packages(work_files: Sequence[str], read: Callable[[str], str | None]) -> frozenset[str]:
    """The names the project's package.json files give its packages (`"name": "redux"`):
    an example importing from one imports the project's code."""
    out: set[str] = set()
    for path in work_files:
        if path.rsplit("/", 1)[-1] != "package.json" or test_code(path) or any(
                part in ("node_modules", "examples", "example", "fixtures")
                for part in path.split("/")):
            continue
        found = PACKAGE_NAME.search(read(path) or "")
        if found:
            out.add(found.group(1))
    return frozenset(out)
