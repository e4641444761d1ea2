"""Resolving names inside the repository: module imports -> files, symbol names -> definitions.

Pure and deterministic: every choice among candidates is made by a stable rule (same file,
then imported files, then a unique or closest candidate, ties by path), never by input order.
Used by `indexers.graph` only.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from helix.core.schemas import SymbolDef

PY_EXTS = (".py", ".pyi")
JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
# File stems that stand for their directory (`pkg/__init__.py` is module `pkg`).
PACKAGE_STEMS = ("__init__", "index", "mod")
# Families of languages whose files may import each other.
FAMILIES: dict[str, tuple[str, ...]] = {
    "python": PY_EXTS,
    "js": JS_EXTS,
    "go": (".go",),
    "rust": (".rs",),
    "java": (".java", ".kt", ".scala"),
    "c": (".h", ".c", ".hh", ".hpp", ".hxx", ".h++", ".cc", ".cpp", ".cxx", ".c++"),
}
RUST_PREFIXES = ("crate", "self", "super")
JS_ALIAS_PREFIXES = ("@/", "~/", "#/")


def family_of(path: str) -> str | None:
    ext = posixpath.splitext(path)[1].lower()
    for family, exts in FAMILIES.items():
        if ext in exts:
            return family
    return None


def _common_prefix_len(a: str, b: str) -> int:
    parts_a, parts_b = a.split("/")[:-1], b.split("/")[:-1]
    count = 0
    for x, y in zip(parts_a, parts_b, strict=False):
        if x != y:
            break
        count += 1
    return count


def closest(candidates: Iterable[str], near: str) -> str | None:
    """The candidate path sharing the longest directory prefix with `near`, when that
    longest prefix is held by exactly one candidate; else None (ambiguous)."""
    best: list[str] = []
    best_len = -1
    for cand in sorted(set(candidates)):
        length = _common_prefix_len(cand, near)
        if length > best_len:
            best, best_len = [cand], length
        elif length == best_len:
            best.append(cand)
    return best[0] if len(best) == 1 else None


class ModuleIndex:
    """Maps module paths as written in imports to repository files.

    A repository whose root is itself a Python package (networkx indexed at its own
    directory: `__init__.py` at the root) imports itself by a name no path holds
    (`import networkx`, `from networkx.utils import x`): `root_package` is that name, learnt
    from the root `__init__.py`'s own imports (`learn_root_package`), and an import starting
    with it resolves from the root."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = frozenset(paths)
        self.root_package: str | None = None
        # (family, path segments suffix without extension) -> files
        self._by_suffix: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
        # (directory segments suffix) -> go files in that directory
        self._go_dirs: dict[tuple[str, ...], list[str]] = defaultdict(list)
        # C / C++: file name -> files (an #include names a file, extension included)
        self._by_basename: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.paths):
            family = family_of(path)
            if family is None:
                continue
            if family == "c":
                self._by_basename[posixpath.basename(path)].append(path)
                continue
            stem_path = posixpath.splitext(path)[0]
            segs = tuple(stem_path.split("/"))
            keys = [segs]
            if segs[-1] in PACKAGE_STEMS and len(segs) > 1:
                keys.append(segs[:-1])
            for key in keys:
                for start in range(len(key)):
                    self._by_suffix[(family, key[start:])].append(path)
            if family == "go" and not path.endswith("_test.go"):
                dir_segs = segs[:-1]
                for start in range(len(dir_segs)):
                    self._go_dirs[dir_segs[start:]].append(path)

    def _suffix(self, family: str, segs: Sequence[str], importer: str) -> str | None:
        cands = self._by_suffix.get((family, tuple(segs)))
        if not cands:
            return None
        exact = [c for c in cands if tuple(posixpath.splitext(c)[0].split("/")) == tuple(segs)
                 or posixpath.dirname(c).split("/") == list(segs)]
        if len(exact) == 1:
            return exact[0]
        return closest(cands, importer) if len(cands) > 1 else cands[0]

    def _exact(self, family: str, segs: Sequence[str]) -> str | None:
        base = "/".join(segs)
        for ext in FAMILIES[family]:
            if base + ext in self.paths:
                return base + ext
        for stem in PACKAGE_STEMS:
            for ext in FAMILIES[family]:
                candidate = f"{base}/{stem}{ext}" if base else f"{stem}{ext}"
                if candidate in self.paths:
                    return candidate
        return None

    def resolve(self, importer: str, module: str, name: str | None = None) -> list[str]:
        """Files of the repository that `importer`'s import of `module` (and `name`) means."""
        family = family_of(importer)
        if family is None or not module:
            return []
        if family == "python":
            found = self._python(importer, module, name)
        elif family == "js":
            found = self._js(importer, module)
        elif family == "go":
            return self._go(module)
        elif family == "rust":
            found = self._dotted(family, importer, _rust_segments(importer, module))
        elif family == "c":
            found = self._include(importer, module)
        else:  # java, kotlin: `import a.b.C` names the class C, in a/b/C.java
            segs = [s for s in module.split(".") if s != "*"]
            found = None
            if name and name != "*":
                found = self._suffix(family, [*segs, name], importer)
            found = found or self._dotted(family, importer, segs)
        return [found] if found and found != importer else []

    def learn_root_package(self, root_init_imports: Iterable[tuple[str, str | None]]) -> None:
        """Set `root_package` from the (module, name) imports of the root `__init__.py`: the
        first segment of absolute imports whose rest is a file from the root (`networkx` for
        `from networkx.utils import x` when utils/ is at the root), the most frequent one."""
        if "__init__.py" not in self.paths:
            return
        votes: dict[str, int] = defaultdict(int)
        for module, name in root_init_imports:
            segs = [s for s in module.split(".") if s]
            if not segs or module.startswith(".") or self._exact("python", segs[:1]):
                continue
            rest = segs[1:] if len(segs) > 1 else [name] if name and name != "*" else []
            if rest and self._exact("python", rest):
                votes[segs[0]] += 1
        if votes:
            self.root_package = min(votes, key=lambda seg: (-votes[seg], seg))

    def _python(self, importer: str, module: str, name: str | None) -> str | None:
        level = len(module) - len(module.lstrip("."))
        rest = [s for s in module[level:].split(".") if s]
        if not level and rest and rest[0] == self.root_package:
            inner = rest[1:]
            hit = self._exact("python", [*inner, name]) if name and name != "*" else None
            return hit or self._exact("python", inner)
        if level:
            base = importer.split("/")[:-1]
            up = level - 1
            if up > len(base):
                return None
            segs = base[: len(base) - up] + rest
            if name and name != "*":
                hit = self._exact("python", [*segs, name])
                if hit:
                    return hit
            return self._exact("python", segs) if segs else None
        if name and name != "*":
            hit = self._suffix("python", [*rest, name], importer)
            if hit:
                return hit
        return self._dotted("python", importer, rest)

    def _dotted(self, family: str, importer: str, segs: Sequence[str]) -> str | None:
        segs = list(segs)
        while segs:
            hit = self._suffix(family, segs, importer)
            if hit:
                return hit
            segs.pop()
        return None

    def _js(self, importer: str, module: str) -> str | None:
        if module.startswith("."):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
            if target.startswith(".."):
                return None
            if target in self.paths:
                return target
            return self._exact("js", [s for s in target.split("/") if s and s != "."])
        for prefix in JS_ALIAS_PREFIXES:
            if module.startswith(prefix):
                module = module[len(prefix):]
                break
        else:
            if "/" not in module:
                return None  # a package from node_modules
        segs = [s for s in posixpath.splitext(module)[0].split("/") if s]
        return self._suffix("js", segs, importer) if segs else None

    def _include(self, importer: str, module: str) -> str | None:
        """`#include "x/y.h"`: beside the includer, else from the root, else the one file
        (or the closest) whose path ends with it."""
        target = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
        for candidate in (target, posixpath.normpath(module)):
            if candidate in self.paths:
                return candidate
        cands = [p for p in self._by_basename.get(posixpath.basename(module), ())
                 if p == module or p.endswith("/" + module)]
        if len(cands) > 1:
            return closest(cands, importer)
        return cands[0] if cands else None

    def _go(self, module: str) -> list[str]:
        segs = [s for s in module.strip('"').split("/") if s]
        while segs:
            files = self._go_dirs.get(tuple(segs))
            if files:
                return sorted(files)
            segs = segs[1:]  # drop the host / module prefix
            if len(segs) < 1:
                break
        return []


def _rust_segments(importer: str, module: str) -> list[str]:
    segs = [s for s in re.split(r"::", module) if s and s != "*" and not s.startswith("{")]
    out: list[str] = []
    base = importer.split("/")[:-1]
    for position, seg in enumerate(segs):
        if position == len(out) and seg in RUST_PREFIXES:
            if seg == "super" and base:
                base = base[:-1]
            continue
        out.append(seg)
    return out


class DefIndex:
    """Definitions by bare name, qualname and (path, name)."""

    def __init__(self, defs: Iterable[SymbolDef]) -> None:
        ordered = sorted(defs, key=lambda d: (d.path, d.start_line, d.qualname, d.node_id))
        self.by_name: dict[str, list[SymbolDef]] = defaultdict(list)
        self.by_qualname: dict[str, list[SymbolDef]] = defaultdict(list)
        self.by_path_name: dict[tuple[str, str], list[SymbolDef]] = defaultdict(list)
        self.by_path: dict[str, list[SymbolDef]] = defaultdict(list)
        for d in ordered:
            self.by_path[d.path].append(d)
            self.by_name[d.name].append(d)
            self.by_qualname[d.qualname].append(d)
            self.by_path_name[(d.path, d.name)].append(d)

    def in_file(self, path: str, name: str, scope: str | None) -> SymbolDef | None:
        """A definition of `name` in `path`: the one in the reference's enclosing class or
        function first, then a module-level one, then the first by line."""
        cands = self.by_path_name.get((path, name))
        if not cands:
            return None
        if scope:
            parts = scope.split(".")
            for depth in range(len(parts), 0, -1):
                enclosing = ".".join(parts[:depth])
                for d in cands:
                    if d.scope == enclosing:
                        return d
        for d in cands:
            if d.scope is None:
                return d
        return cands[0]

    def named(self, mention: str, near: str) -> SymbolDef | None:
        """A definition a document names: exact qualname (`Class.method`), else the bare
        name when unique repo-wide or held by one definition closest to `near`."""
        if "." in mention:
            parts = mention.split(".")
            for start in range(len(parts) - 1):
                qual = ".".join(parts[start:])
                cands = self.by_qualname.get(qual)
                if cands:
                    return self._pick(cands, near)
            mention = parts[-1]
        cands = self.by_name.get(mention)
        return self._pick(cands, near) if cands else None

    @staticmethod
    def _pick(cands: Sequence[SymbolDef], near: str) -> SymbolDef | None:
        if len(cands) == 1:
            return cands[0]
        by_path: dict[str, list[SymbolDef]] = defaultdict(list)
        for d in cands:
            by_path[d.path].append(d)
        path = closest(by_path, near)
        if path is None or _common_prefix_len(path, near) == 0:
            return None
        group = by_path[path]
        return group[0] if len(group) == 1 else None


# Identifier-like mentions in prose: `code`, CamelCase, snake_case, foo().
_BACKTICK = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\(\))?`")
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+\b|\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]\b")
_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\(\)")


def mentioned_symbols(text: str) -> list[str]:
    """Identifier-like names a prose text mentions, sorted, unique."""
    found: set[str] = set()
    for pattern in (_BACKTICK, _CALL):
        found.update(m.group(1) for m in pattern.finditer(text))
    for pattern in (_CAMEL, _SNAKE):
        found.update(m.group(0) for m in pattern.finditer(text))
    return sorted(found)


FUZZY_MAX_NAMES = 10
FUZZY_CUTOFF = 0.6


def fuzzy_names(name: str, keys: Sequence[str], limit: int) -> list[str]:
    """Close names: case-insensitive exact and substring matches first, then difflib's
    ratio; deterministic (ties by name)."""
    lowered = name.lower()
    exactish = [k for k in keys if k.lower() == lowered]
    contains = [k for k in keys if lowered in k.lower() and k not in exactish]
    contains.sort(key=lambda k: (len(k), k))
    close = [k for k in difflib.get_close_matches(name, keys, n=limit, cutoff=FUZZY_CUTOFF)
             if k not in exactish and k not in contains]
    return (exactish + contains + sorted(close))[:limit]
