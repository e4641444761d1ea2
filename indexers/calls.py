"""Calls edges: each reference resolved to the definition it means, by import and receiver.

A reference is a name, where it sits (its enclosing definition) and, for a member access, its
receiver as written (`indexers.symbols.receiver_of`). It resolves by what the receiver is:

    no receiver (`f()`)       a definition in the same file (enclosing scopes, then the module
                              level), else a name this file imports (`from m import f`, a star
                              import, followed through re-exports), else by language:
                              GLOBAL_NAMES (C, C++, Ruby, PHP, C#) a repository-unique name,
                              PACKAGE_DIRS (Go, Java, Kotlin) a unique one in the same
                              directory (package); Python, JS/TS and Rust nothing (a name
                              neither defined nor imported is a builtin or outside code)
    self / this / cls ...     a method of the enclosing class, else of its bases (the classes
                              its file names at class level: `class C(Base)`), else nothing;
                              super / base / parent: the bases only
    an imported module        the definition of that name in the module's file (or a file it
      (`json.dumps`, `nx.f`)  re-exports from, nearest first), else nothing; a module from
                              outside the repository: nothing
    a class (`Cart.add`)      that class's method, else nothing
    anything else             a method of that name in exactly one class of this file and the
      (`x.index()`)           files it imports (Go: its package), else nothing; never a plain
                              function

Only definitions that are not methods answer a bare or module-level lookup (a method needs
its object), except in IMPLICIT_SELF languages inside their own class. Pure and deterministic:
ties are never broken by input order (an ambiguous name resolves to nothing).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from helix.core.schemas import SymbolDef, node_id_def, node_id_file
from indexers.builtin_members import BUILTIN_MEMBERS
from indexers.languages import classify
from indexers.resolve import PACKAGE_STEMS, DefIndex, ModuleIndex

CLASS_KINDS = frozenset({"class", "struct", "interface", "enum", "type", "module"})
GLOBAL_NAMES = frozenset({"c", "cpp", "ruby", "php", "csharp"})
PACKAGE_DIRS = frozenset({"go", "java", "kotlin"})
IMPLICIT_SELF = frozenset({"java", "kotlin", "csharp", "cpp", "ruby"})
# Languages where importing a name from a package may import a module of that name.
MODULE_FILES = frozenset({"python", "rust"})
# Languages whose methods may be defined outside their type's file (Go, Rust impl blocks,
# C++ out-of-line definitions, C# partial classes, Ruby reopened classes, Kotlin extensions).
SPLIT_TYPES = frozenset({"go", "rust", "cpp", "csharp", "ruby", "kotlin"})
SELF_WORDS: dict[str, frozenset[str]] = {
    "python": frozenset({"self", "cls"}),
    "rust": frozenset({"self", "Self"}),
    "php": frozenset({"$this", "self", "static"}),
    "ruby": frozenset({"self"}),
}
SUPER_WORDS: dict[str, frozenset[str]] = {
    "csharp": frozenset({"base"}),
    "php": frozenset({"parent"}),
    "python": frozenset({"super()"}),
}
THIS = frozenset({"this"})
SUPER = frozenset({"super"})
EXPORT_HOPS = 6  # re-export chains followed from a module (networkx: 3)
BASE_DEPTH = 3  # base classes followed from a class of the same file
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")
_SEPARATORS = re.compile(r"::|->|\\|\.")


class Binding(NamedTuple):
    """What an import binds a local name to: `module` as written and the `name` imported
    from it (None: the module itself)."""

    module: str
    name: str | None


def split_receiver(receiver: str) -> list[str] | None:
    """`a.b::C` -> ["a", "b", "C"]; None when it is not a chain of names (a call, an index)."""
    segs = _SEPARATORS.split(receiver)
    return segs if all(_NAME.match(s) for s in segs) else None


def receiver_words(receiver: str) -> list[str]:
    """Every segment of a receiver (`a.b::C` -> a, b, C), names or not: a superset of what
    `split_receiver` gives, so a filter on it keeps every reference `depends_on` can name."""
    return _SEPARATORS.split(receiver)


# Languages whose definitions can name each other (a C file calls C++, a .ts file .js).
KIN = {"cpp": "c", "typescript": "javascript", "tsx": "javascript", "kotlin": "java"}


def lang_of(path: str) -> str:
    return classify(path)[1] or ""


def kin_of(path: str) -> str:
    lang = lang_of(path)
    return KIN.get(lang, lang)


def _module_named(path: str, name: str) -> bool:
    """Whether `path` is the module `name` (`pkg/name.py`, `pkg/name/__init__.py`)."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    if stem in PACKAGE_STEMS:
        stem = posixpath.basename(posixpath.dirname(path))
    return stem == name


def _is_package(path: str) -> bool:
    return posixpath.splitext(posixpath.basename(path))[0] in PACKAGE_STEMS


def _is_member(d: SymbolDef) -> bool:
    """A method, or a function defined under a type's name outside it (C++ `void C::m()`,
    JS `C.prototype.m = function`)."""
    return d.kind == "method" or (d.kind == "function" and d.scope is None and "." in d.qualname)


class Resolver:
    """What every file's resolution shares: the definitions, the module map and the
    file-level import graph (`imports`: file -> the repository files it imports)."""

    def __init__(self, defs: DefIndex, modules: ModuleIndex,
                 imports: Mapping[str, Iterable[str]]) -> None:
        self.defs = defs
        self.modules = modules
        self.imports = {path: sorted(set(targets)) for path, targets in imports.items()}
        self._dirs: dict[str, set[str]] = defaultdict(set)
        for path in modules.paths:
            self._dirs[posixpath.dirname(path)].add(path)
        self._distances: dict[tuple[str, ...], dict[str, int]] = {}
        self._visible: dict[str, frozenset[str]] = {}
        self._exports: dict[tuple[tuple[str, ...], str], SymbolDef | None] = {}

    def same_dir(self, path: str) -> set[str]:
        return self._dirs.get(posixpath.dirname(path), set())

    def visible_from(self, path: str) -> frozenset[str]:
        """The file, the files it imports, and what imported packages re-export: the files
        a package file (`__init__.py`, `index.js`, `mod.rs`) imports, through packages only
        (`import networkx` reaches classes/graph.py through networkx/__init__.py and
        classes/__init__.py)."""
        if path not in self._visible:
            seen = {path, *self.imports.get(path, ())}
            frontier = [p for p in seen if p != path]
            for _ in range(EXPORT_HOPS):
                frontier = [t for p in frontier if _is_package(p)
                            for t in self.imports.get(p, ()) if t not in seen]
                seen.update(frontier)
            self._visible[path] = frozenset(seen)
        return self._visible[path]

    def _distance(self, files: tuple[str, ...]) -> dict[str, int]:
        """Import hops from `files` (0) to every file they reach within EXPORT_HOPS."""
        if files not in self._distances:
            dist = dict.fromkeys(files, 0)
            frontier = list(files)
            for hop in range(1, EXPORT_HOPS + 1):
                nxt = []
                for path in frontier:
                    for target in self.imports.get(path, ()):
                        if target not in dist:
                            dist[target] = hop
                            nxt.append(target)
                frontier = nxt
            self._distances[files] = dist
        return self._distances[files]

    def submodules_of(self, files: Sequence[str], name: str) -> list[str]:
        """The module `name` a module made of `files` may hold as an attribute: the nearest
        files it reaches by imports that are modules of that name (`nx.community`:
        algorithms/community/__init__.py, imported by algorithms/__init__.py, and
        generators/community.py, as near; a name looked up in them must be in one only)."""
        dist = self._distance(tuple(sorted(set(files))))
        named = [(hops, path) for path, hops in dist.items() if hops and _module_named(path, name)]
        if not named:
            return []
        nearest = min(hops for hops, _ in named)
        return sorted(path for hops, path in named if hops == nearest)

    def export_of(self, files: Sequence[str], name: str) -> SymbolDef | None:
        """The module-level definition `name` of the module made of `files`, or of the
        nearest file it imports from (re-exports: `from .core import *`); None when absent
        or when two files at the same distance define it."""
        key = (tuple(sorted(set(files))), name)
        if key not in self._exports:
            dist = self._distance(key[0])
            best: list[SymbolDef] = []
            best_hops = EXPORT_HOPS + 1
            for d in self.defs.by_name.get(name, ()):
                hops = dist.get(d.path)
                if hops is None or d.scope is not None or _is_member(d):
                    continue
                if hops < best_hops:
                    best, best_hops = [d], hops
                elif hops == best_hops:
                    best.append(d)
            self._exports[key] = best[0] if len({d.path for d in best}) == 1 else None
        return self._exports[key]


class FileScope:
    """One file's view: its import bindings and its classes' bases, and how each of its
    references resolves."""

    def __init__(self, path: str, refs: Sequence[Any], resolver: Resolver) -> None:
        self.path = path
        self.lang = lang_of(path)
        self.r = resolver
        self.defs = resolver.defs
        self.bindings: dict[str, list[Binding]] = defaultdict(list)
        self.dotted: list[str] = []  # python `import a.b.c` (binds `a`, used as `a.b.c.f`)
        self.stars: list[str] = []  # modules imported with `*`
        self.bases: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
        own = {d.qualname: d for d in self.defs.by_path.get(path, ())}
        self.classes = {q for q, d in own.items() if d.kind in CLASS_KINDS}
        self.own = own
        for ref in refs:
            if ref.kind == "import":
                self._bind(ref)
            elif ref.kind == "type" and ref.scope in self.classes:
                self.bases[ref.scope].append((ref.name, ref.receiver))
        self.imported = resolver.imports.get(path, [])
        self.self_words = SELF_WORDS.get(self.lang, THIS)
        self.super_words = SUPER_WORDS.get(self.lang, SUPER)
        self._memo: dict[tuple[str, str | None, str | None], SymbolDef | None] = {}

    def _bind(self, ref: Any) -> None:
        module, name, alias = ref.module or ref.name, ref.name, ref.receiver
        if name == "*":
            if alias:  # js `import * as ns`
                self.bindings[alias].append(Binding(module, None))
            else:
                self.stars.append(module)
        elif name == module:  # `import a.b`, `require("./x")`, `using A.B`, an include
            if alias:
                self.bindings[alias].append(Binding(module, None))
            elif self.lang == "python":
                self.dotted.append(module)
        elif self.lang == "go":
            self.bindings[alias or name].append(Binding(module, None))
        else:
            self.bindings[alias or name].append(Binding(module, name))

    # ---- what a reference depends on (for the incremental graph update) -----------------

    def depends_on(self, ref: Any) -> set[str]:
        """Every definition name the resolution of `ref` may look up."""
        names = {ref.name}
        head = ref.name
        if ref.receiver:
            segs = split_receiver(ref.receiver) or []
            names.update(segs)
            head = segs[0] if segs else ""
            if ref.receiver in self.self_words or ref.receiver in self.super_words:
                names.update(n for pairs in self.bases.values() for n, _ in pairs)
        names.update(b.name for b in self.bindings.get(head, ()) if b.name)
        return names

    # ---- resolution -----------------------------------------------------------------------

    def resolve(self, ref: Any) -> SymbolDef | None:
        key = (ref.name, ref.scope, ref.receiver)
        if key not in self._memo:
            self._memo[key] = self._resolve(ref.name, ref.scope, ref.receiver)
        return self._memo[key]

    def _resolve(self, name: str, scope: str | None, receiver: str | None) -> SymbolDef | None:
        if receiver is None:
            return self.bare(name, scope)
        if receiver in self.self_words:
            return self.own_method(name, scope, with_self=True)
        if receiver in self.super_words or (self.lang == "python"
                                            and receiver.startswith("super(")):
            return self.own_method(name, scope, with_self=False)
        kind, target = self.receiver_target(receiver, scope)
        if kind == "module":
            return self.r.export_of(target[1], name)
        if kind == "class":
            return self.member(target, name, 0)
        if kind == "outside":
            return None
        return self.any_method(name)

    def bare(self, name: str, scope: str | None) -> SymbolDef | None:
        found = self.in_file(name, scope)
        if found is not None:
            return found
        bound = self.bindings.get(name)
        if bound:
            for module, original in bound:
                kind, target = self._bound(module, original, items=True)
                if kind == "module":
                    return None  # a module is not a definition
                if kind == "item":
                    found = self.r.export_of(target, name if original is None else original)
                    if found is not None:
                        return found
            if self.lang not in GLOBAL_NAMES:
                return None  # imported from outside the repository (or not found there)
        star_files = sorted({f for m in self.stars for f in self.r.modules.resolve(self.path, m)})
        if star_files:
            found = self.r.export_of(star_files, name)
            if found is not None:
                return found
        if self.lang in GLOBAL_NAMES:
            found = self._unique_among(name, self.imported) or self._unique_among(name, None)
        elif self.lang in PACKAGE_DIRS:
            found = self._unique_among(name, self.r.same_dir(self.path))
        return found

    def _is_module(self, path: str, name: str) -> bool:
        return self.lang in MODULE_FILES and _module_named(path, name)

    def _unique_among(self, name: str, paths: Iterable[str] | None) -> SymbolDef | None:
        allowed = None if paths is None else set(paths)
        kin = kin_of(self.path)
        cands = [d for d in self.defs.by_name.get(name, ())
                 if not _is_member(d) and (allowed is None or d.path in allowed)
                 and kin_of(d.path) == kin]
        top = [d for d in cands if d.scope is None]
        for group in (top, cands):
            if len({d.path for d in group}) == 1 and len(group) == 1:
                return group[0]
        return None

    def in_file(self, name: str, scope: str | None) -> SymbolDef | None:
        """`name` as seen from `scope` in this file: a definition in an enclosing scope (in a
        class only from its own body, or from its methods in IMPLICIT_SELF languages), else a
        module-level one that is not a method."""
        cands = self.defs.by_path_name.get((self.path, name))
        if not cands:
            return None
        if scope:
            parts = scope.split(".")
            for depth in range(len(parts), 0, -1):
                enclosing = ".".join(parts[:depth])
                if (enclosing in self.classes and enclosing != scope
                        and self.lang not in IMPLICIT_SELF):
                    continue
                for d in cands:
                    if d.scope == enclosing:
                        return d
        for d in cands:
            if d.scope is None and not _is_member(d):
                return d
        return None

    def enclosing_class(self, scope: str | None) -> str | None:
        """The qualname of the class a reference at `scope` is inside (a method defined
        apart from its type, Go or an impl block: the type named by its qualname)."""
        if not scope:
            return None
        parts = scope.split(".")
        for depth in range(len(parts), 0, -1):
            enclosing = ".".join(parts[:depth])
            if enclosing in self.classes:
                return enclosing
        own = self.own.get(scope)
        if own is not None and own.kind == "method" and "." in scope:
            return scope.rpartition(".")[0]
        return None

    def own_method(self, name: str, scope: str | None, with_self: bool) -> SymbolDef | None:
        cls = self.enclosing_class(scope)
        if cls is None:
            return None
        if with_self:
            found = self._method_of(cls, self.path, name)
            if found is not None:
                return found
        return self._in_bases(cls, name, 0)

    def _method_of(self, cls: str, path: str, name: str) -> SymbolDef | None:
        qualname = f"{cls}.{name}"
        cands = self.defs.by_qualname.get(qualname, ())
        for d in cands:
            if d.path == path:
                return d
        if self.lang in SPLIT_TYPES:
            allowed = self.r.same_dir(path) if self.lang == "go" else None
            group = [d for d in cands if allowed is None or d.path in allowed]
            if len({d.path for d in group}) == 1:
                return group[0]
        return None

    def _in_bases(self, cls: str, name: str, depth: int) -> SymbolDef | None:
        found: dict[str, SymbolDef] = {}
        for base_name, base_receiver in self.bases.get(cls, ()):
            target = self._class_named(base_name, base_receiver, cls)
            if target is None or (target.qualname == cls and target.path == self.path):
                continue
            hit = self.member(target, name, depth + 1)
            if hit is not None:
                found[hit.node_id] = hit
        return next(iter(found.values())) if len(found) == 1 else None

    def _class_named(self, name: str, receiver: str | None, scope: str | None
                     ) -> SymbolDef | None:
        if receiver is None:
            found = self.bare(name, scope)
            return found if found is not None and found.kind in CLASS_KINDS else None
        kind, target = self.receiver_target(f"{receiver}.{name}", scope)
        return target if kind == "class" else None

    def member(self, cls: SymbolDef, name: str, depth: int) -> SymbolDef | None:
        """`name` in class (or namespace, module) `cls`, else in its bases (when `cls` is in
        this file: its bases are named here)."""
        found = self._method_of(cls.qualname, cls.path, name)
        if found is not None or depth >= BASE_DEPTH or cls.path != self.path:
            return found
        return self._in_bases(cls.qualname, name, depth)

    def any_method(self, name: str) -> SymbolDef | None:
        """A method `name` of exactly one class in this file and the files it imports (with
        what imported packages re-export; Go, Java, Kotlin: its package too). Not for a name
        the language's own types have (`append`, `get`, `push`: `builtin_members`)."""
        if name in BUILTIN_MEMBERS.get(self.lang, ()):
            return None
        visible: Container[str] = self.r.visible_from(self.path)
        if self.lang in PACKAGE_DIRS:
            visible = self.r.visible_from(self.path) | self.r.same_dir(self.path)
        owners: dict[tuple[str, str], SymbolDef] = {}
        for d in self.defs.by_name.get(name, ()):
            if d.path in visible and _is_member(d):
                owners.setdefault((d.path, d.qualname.rpartition(".")[0]), d)
        return next(iter(owners.values())) if len(owners) == 1 else None

    def receiver_target(self, receiver: str, scope: str | None) -> tuple[str, Any]:
        """What a receiver names: ("module", files), ("class", SymbolDef), ("outside", None)
        for a module or name imported from outside the repository, ("unknown", None)."""
        segs = split_receiver(receiver)
        if not segs:
            return "unknown", None
        kind, target, rest = self._head(segs, scope)
        for seg in rest:
            if kind == "module":
                kind, target = self._module_member(target, seg)
            elif kind == "class":
                nested = self._method_of(target.qualname, target.path, seg)
                kind, target = (("class", nested) if nested is not None
                                and nested.kind in CLASS_KINDS else ("unknown", None))
            else:
                break
        return kind, target

    def _head(self, segs: list[str], scope: str | None) -> tuple[str, Any, list[str]]:
        head = segs[0]
        if self.lang == "python":  # `import a.b.c` then `a.b.c.f()`: the longest module named
            joined = ".".join(segs)
            for module in sorted(self.dotted, key=len, reverse=True):
                if joined == module or joined.startswith(module + "."):
                    files = self.r.modules.resolve(self.path, module)
                    return (("module", (module, files), segs[module.count(".") + 1:]) if files
                            else ("outside", None, []))
        found = self.in_file(head, scope)
        if found is not None:
            if found.kind in CLASS_KINDS:
                return "class", found, segs[1:]
            return "unknown", None, []
        bound = self.bindings.get(head)
        if bound:
            for module, original in bound:
                kind, target = self._bound(module, original, items=False)
                if kind != "outside":
                    return kind, target, segs[1:]
            if self.lang not in GLOBAL_NAMES:
                return "outside", None, []
        found = self.bare(head, scope)
        if found is not None and found.kind in CLASS_KINDS:
            return "class", found, segs[1:]
        return "unknown", None, []

    def _bound(self, module: str, original: str | None, items: bool) -> tuple[str, Any]:
        """What an import binding names: ("module", (module, files)), ("outside", None) for
        something from outside the repository, and an item of a module: ("item", files) when
        `items`, else what `_item` makes of it (a class or unknown)."""
        modules = self.r.modules
        if original is None:
            files = modules.resolve(self.path, module)
            return ("module", (module, files)) if files else ("outside", None)
        if self.lang in MODULE_FILES:
            sep = "::" if self.lang == "rust" else "" if module.endswith(".") else "."
            as_module = f"{module}{sep}{original}"
            files = modules.resolve(self.path, as_module)
            if (files and self._is_module(files[0], original)
                    and files != modules.resolve(self.path, module)):
                return "module", (as_module, files)
        files = modules.resolve(self.path, module, original)
        if not files:
            return "outside", None
        return ("item", files) if items else self._item(files, original)

    def _item(self, files: Sequence[str], name: str) -> tuple[str, Any]:
        found = self.r.export_of(files, name)
        if found is not None and found.kind in CLASS_KINDS:
            return "class", found
        return "unknown", None

    def _module_member(self, target: tuple[str, list[str]], seg: str) -> tuple[str, Any]:
        module, files = target
        sub = f"{module}{'' if module.endswith('.') else '.'}{seg}"
        if self.lang == "python":
            found = self.r.modules.resolve(self.path, sub)
            if found and _module_named(found[0], seg):
                return "module", (sub, found)
        kind, item = self._item(files, seg)
        if kind == "unknown" and self.lang in MODULE_FILES:
            held = self.r.submodules_of(files, seg)
            if held:
                return "module", (sub, held)
        return kind, item


def file_calls(path: str, refs: Iterable[Any], resolver: Resolver, nodes: Container[str],
               sources: Container[str] | None = None) -> Iterator[tuple[str, str]]:
    """(source node, target def node) calls of one file's references, in reference order;
    `sources`: only these source nodes (None: all)."""
    refs = list(refs)
    scope = FileScope(path, refs, resolver)
    file_node = node_id_file(path)
    by_name = resolver.defs.by_name
    for ref in refs:
        if ref.kind == "import" or (ref.name not in by_name and ref.name not in scope.bindings):
            continue  # most references name builtins or outside code: no definition here
        source = node_id_def(path, ref.scope) if ref.scope else file_node
        if source not in nodes:
            source = file_node
        if sources is not None and source not in sources:
            continue
        target = scope.resolve(ref)
        if target is not None and source != target.node_id:
            yield source, target.node_id
