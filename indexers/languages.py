"""What a file is: its kind (code / doc / text) and language, decided by its name alone.

Code languages are the ones `indexers.symbols` ships tree-sitter queries for (their names are the
`tree_sitter_language_pack` names); documentation is Markdown, reStructuredText and plain text;
everything else (including `.json`, config files and source in languages without a query) is
"text" and falls back to line windows.
"""

from __future__ import annotations

from helix.core.schemas import FileKind

CODE_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".rb": "ruby",
    ".cs": "csharp",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
}

DOC_EXTENSIONS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".rst": "rst",
    ".rest": "rst",
    ".txt": "text",
    ".text": "text",
}

# Extension-less files that are prose by convention (compared upper-case).
DOC_STEMS = frozenset(
    {"README", "CHANGELOG", "CHANGES", "HISTORY", "NEWS", "AUTHORS", "CONTRIBUTORS",
     "CONTRIBUTING", "LICENSE", "LICENCE", "COPYING", "NOTICE", "TODO", "INSTALL"}
)

CODE_LANGUAGES = frozenset(CODE_EXTENSIONS.values())
DOC_LANGUAGES = frozenset(DOC_EXTENSIONS.values())


def classify(path: str) -> tuple[FileKind, str | None]:
    """Kind and language of a repository-relative POSIX path, by extension (case-insensitive)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    suffix = name[dot:].lower() if dot > 0 else ""
    if suffix in CODE_EXTENSIONS:
        return "code", CODE_EXTENSIONS[suffix]
    if suffix in DOC_EXTENSIONS:
        return "doc", DOC_EXTENSIONS[suffix]
    if not suffix and name.upper() in DOC_STEMS:
        return "doc", "text"
    return "text", None
