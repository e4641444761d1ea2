"""docs/architecture.md cannot drift: every file, code name and setting it names is checked.

The doc's convention (stated at its top): inside backticks,
- a path from the repository root (`indexers/bm25.py`, `benchmarks/results/qa_dev.json`,
  `indexers/queries/`, `helix/core/secret_*.py`) must exist; a bare `bm25.py` is refused;
- `path.py:Name` or `path.py:Class.member` must be defined in that file;
- a dotted name under a package (`helix.service.ask`, `indexers.bm25.BM25Index`) must be a
  module, or a module followed by a name defined in it (an import does not count);
- a call of a bare name (`bm25_text_for(chunk)`) must be defined somewhere in the code;
- a bare CamelCase or snake_case name (`ReplyGuard`, `dense_state`) must be spelt somewhere
  in the code (a definition, field, attribute or string), unless it is listed as another
  library's (OUTSIDE below);
- a setting (`index.max_files`, `retrieval.routing.long_question_words = 15`) must be a field
  of the settings model of that section (the sections are HelixConfig's fields, in
  helix/core/config.py; the models they nest are read from helix/core/).
Everything is read with `ast`; nothing of Helix is imported.
"""

from __future__ import annotations

import ast
import functools
import glob
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
MAX_BYTES = 32 * 1024  # a third of the 99 KB the hand-written log of tries had grown to
PACKAGES = ("helix", "indexers", "controller", "evals")
TOP_DIRS = (*PACKAGES, "benchmarks", "scripts", "tests", "data", "docs", "requirements")
ROOT_FILES = ("README.md", "pyproject.toml")


def _sections() -> dict[str, str]:
    """The config's sections and their models: the fields of HelixConfig (helix/core/config.py)."""
    tree = ast.parse((ROOT / "helix" / "core" / "config.py").read_text(encoding="utf-8"))
    config = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "HelixConfig")
    return {s.target.id: s.annotation.id for s in config.body if isinstance(s, ast.AnnAssign)
            and isinstance(s.target, ast.Name) and isinstance(s.annotation, ast.Name)}


SECTIONS = _sections()

_PACKAGES = "|".join(PACKAGES)
_ROOT_FILES = "|".join(map(re.escape, ROOT_FILES))
PATH = re.compile(rf"^(?:{'|'.join(TOP_DIRS)})/[\w./*-]*$|^(?:{_ROOT_FILES})$")
PATH_NAME = re.compile(rf"^((?:{_PACKAGES})/[\w/]+\.py):([A-Za-z_][\w.]*)$")
DOTTED = re.compile(rf"^(?:{_PACKAGES})(?:\.[A-Za-z_]\w*)+$")
CALL = re.compile(r"^([A-Za-z_][\w.]*)\([^()`]*\)$")
SETTING = re.compile(rf"^({'|'.join(SECTIONS)})((?:\.[a-z_]\w*)+)(?:\s*=.*)?$")
BARE_FILE = re.compile(r"^[\w.-]+\.py$")
# A bare code-shaped name (`ReplyGuard`, `dense_state`, `coverage_ok`): CamelCase or snake_case.
BARE_NAME = re.compile(r"^(?=\w*(?:_|[a-z][A-Z]|^[A-Z]))[A-Za-z_]\w*$")
# Code-shaped names the doc uses that are not Helix's: other libraries' and examples.
OUTSIDE = frozenset({"analyze_string", "MultiDiGraph", "getUserName", "PYTHONHASHSEED"})


def _scope_names(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names a module or class body defines (defs, classes, assignments), descending into
    `if` / `try` / `with` blocks; imports are not definitions."""
    names: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names[leaf.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.If | ast.Try | ast.With):
            inner = list(node.body) + list(getattr(node, "orelse", []))
            inner += [s for h in getattr(node, "handlers", []) for s in h.body]
            names.update(_scope_names(inner + list(getattr(node, "finalbody", []))))
    return names


def _members(cls: ast.ClassDef) -> dict[str, ast.AST]:
    """A class's own names plus the attributes its methods assign on `self`."""
    names = _scope_names(cls.body)
    for node in ast.walk(cls):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id == "self"):
            names.setdefault(node.attr, node)
    return names


@functools.cache
def _module(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def defined(path: Path, qualname: str) -> bool:
    """`qualname` (`Name` or `Class.member`) is defined in the Python file `path`."""
    scope: dict[str, ast.AST] = _scope_names(_module(path).body)
    parts = qualname.split(".")
    for i, part in enumerate(parts):
        node = scope.get(part)
        if node is None:
            return False
        if i < len(parts) - 1:
            if not isinstance(node, ast.ClassDef):
                return False
            scope = _members(node)
    return True


def _module_file(dotted: str) -> Path | None:
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _check_dotted(dotted: str) -> str | None:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = _module_file(".".join(parts[:cut]))
        if module is None:
            continue
        rest = ".".join(parts[cut:])
        if not rest or defined(module, rest):
            return None
        return f"{rest} is not defined in {module.relative_to(ROOT)}"
    return "no such module"


@functools.cache
def _code_names() -> tuple[frozenset[str], frozenset[str]]:
    """The names the code defines (functions, classes), and every name the code spells:
    definitions, fields, variables, attributes, and string constants shaped like a name (route
    names, stop reasons, report keys); each module parsed and walked once for both."""
    defined: set[str] = set()
    names: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(_module(path)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    defined.add(node.name)
                    names.add(node.name)
                elif isinstance(node, ast.Name):
                    names.add(node.id)
                elif isinstance(node, ast.Attribute):
                    names.add(node.attr)
                elif isinstance(node, ast.arg):
                    names.add(node.arg)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                        and node.value.isidentifier():
                    names.add(node.value)
    return frozenset(defined), frozenset(names)


def _all_code_names() -> frozenset[str]:
    return _code_names()[0]


def _all_identifiers() -> frozenset[str]:
    return _code_names()[1]


@functools.cache
def _settings_classes() -> dict[str, dict[str, ast.expr]]:
    """Every class of helix/core: its annotated fields and their annotations."""
    classes: dict[str, dict[str, ast.expr]] = {}
    for path in (ROOT / "helix" / "core").glob("*.py"):
        for node in _module(path).body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = {
                    s.target.id: s.annotation for s in node.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    return classes


def _check_setting(section: str, keys: list[str]) -> str | None:
    classes = _settings_classes()
    current: str | None = SECTIONS[section]
    i = 0
    while i < len(keys):
        fields = classes.get(current or "", {})
        if keys[i] not in fields:
            return f"{current} has no field {keys[i]}"
        annotation = fields[keys[i]]
        i += 1
        if isinstance(annotation, ast.Subscript) and ast.unparse(annotation).startswith("dict"):
            i += 1  # a key of the mapping (a route name), then its value's fields
            value = annotation.slice.elts[-1] if isinstance(annotation.slice, ast.Tuple) \
                else annotation.slice
            annotation = value
        current = annotation.id if isinstance(annotation, ast.Name) else None
        if i < len(keys) and current not in classes:
            return f"{'.'.join(keys[:i])} has no fields"
    return None


def check_token(token: str) -> str | None:
    """None when what the backticked `token` names exists; else why not."""
    token = token.strip()
    call = CALL.match(token)
    if call:
        name = call.group(1)
        if DOTTED.match(name):
            return _check_dotted(name)
        if "." not in name:
            return None if name in _all_code_names() else f"{name} is defined nowhere"
        return None
    match = PATH_NAME.match(token)
    if match:
        path = ROOT / match.group(1)
        if not path.is_file():
            return "no such file"
        return None if defined(path, match.group(2)) else \
            f"{match.group(2)} is not defined in {match.group(1)}"
    if PATH.match(token):
        return None if glob.glob(str(ROOT / token.rstrip("/"))) else "no such path"
    if DOTTED.match(token):
        return _check_dotted(token)
    setting = SETTING.match(token)
    if setting:
        return _check_setting(setting.group(1), setting.group(2)[1:].split("."))
    if BARE_FILE.match(token):
        return "a file is named by its path from the repository root"
    if BARE_NAME.match(token) and token not in OUTSIDE and token not in _all_identifiers():
        return "the code spells no such name"
    return None


def problems(text: str) -> list[str]:
    prose = re.sub(r"(?ms)^```.*?^```", "", text)  # command examples are not claims
    tokens = re.findall(r"``([^`]+)``|`([^`]+)`", prose)
    found = []
    for token in sorted({" ".join((a or b).split()) for a, b in tokens}):
        why = check_token(token)
        if why:
            found.append(f"`{token}`: {why}")
    return found


def test_every_named_file_function_and_setting_exists() -> None:
    assert problems(DOC.read_text(encoding="utf-8")) == []


def test_the_doc_names_enough_to_be_checked() -> None:
    """The check is not vacuous: the doc names many files and definitions it checks."""
    text = DOC.read_text(encoding="utf-8")
    tokens = {a or b for a, b in re.findall(r"``([^`]+)``|`([^`]+)`", text)}
    assert sum(bool(PATH_NAME.match(t) or DOTTED.match(t)) for t in tokens) >= 40
    assert sum(bool(PATH.match(t)) for t in tokens) >= 60


def test_the_doc_is_at_most_a_third_of_what_it_was() -> None:
    assert len(DOC.read_bytes()) <= MAX_BYTES


def test_a_misspelt_name_fails_the_check() -> None:
    right = ("`indexers/bm25.py`, `indexers/bm25.py:BM25Index`, `indexers.bm25.BM25Index`, "
             "`bm25_text_for(chunk)`, `index.max_files`, `retrieval.routing.long_question_words`, "
             "`retrieval.routes.issue.rrf_k = 20`, `helix.core.secrets`, `indexers/queries/`, "
             "`ReplyGuard`, `dense_state`, `coverage_ok`")
    assert problems(right) == []
    wrong = ["`indexers/bm52.py`", "`indexers/bm25.py:BM25Indx`", "`indexers.bm25.BM25Indx`",
             "`indexers.bm25.BM25Index.no_such_method`", "`bm25_text_fro(chunk)`",
             "`index.max_filez`", "`retrieval.routing.long_question_wordz`",
             "`helix.core.secretz`", "`bm25.py`", "`indexers/no_such_dir/`",
             "`helix.core.secrets.json`", "`ReplyGaurd`", "`dense_stat`"]
    for token in wrong:
        assert len(problems(token)) == 1, token


def test_an_imported_name_is_not_a_definition() -> None:
    """`helix.service` imports names it does not define: the doc must cite where they live."""
    tree = _module(ROOT / "helix" / "service.py")
    imported = [a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom)
                for a in n.names if (a.asname or a.name)[:1].isalpha()]
    assert imported and problems(f"`helix.service.{imported[0]}`")


def test_docs_tries_is_generated_from_the_data() -> None:
    """docs/tries.md is exactly what scripts/tries_doc.py makes of data/tries.json and the
    benchmark results it quotes."""
    spec = importlib.util.spec_from_file_location("tries_doc", ROOT / "scripts" / "tries_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "tries.md").read_text(encoding="utf-8") == module.render()
    for problem in module.problems():
        raise AssertionError(problem)
