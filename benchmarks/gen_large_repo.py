"""A deterministic generator of a large mixed-language monorepo (the issue 13 benchmark input).

    python benchmarks/gen_large_repo.py OUT_DIR [--files 20000] [--seed 13] [--git]
        [--data-share 0.35]

Same arguments -> byte-identical tree (the digest printed at the end says so). Layout:

    packages/<pkg>/package.json, src/<area>/<module>.ts(x), src/index.ts, test/<module>.test.ts
    services/<svc>/<svc>/<module>.py, __init__.py, tests/test_<module>.py
    docs/knowledge/<concept>.md      one per concept: the file name is the concept
    docs/guides/<topic>.md           longer guides naming several concepts and symbols
    docs/knowledge/trees/<area>-tree.json   knowledge trees in the spec's format (index.trees)
    README.md, .helix.toml (trees glob), .gitignore (+ an ignored dist/ folder)

Mix by file count: ~38% TypeScript, ~27% Python, ~22% tests, ~10% Markdown, ~3% tree JSON.
Code files import each other (TS relative paths and `@/` package aliases, Python absolute
and relative modules), call imported functions, carry docstrings/JSDoc naming concepts; sizes
are drawn from a long-tailed distribution (most files 2-8 KB, a few 40-80 KB).
`concepts.json` at the top lists every concept with its document (bench questions use it).
With `--data-share F`, that fraction of the files are data files instead (fixtures, configs,
tables, lock files, snapshots: `gen_data_files.py`), as in a real monorepo; 0 (the default)
gives the tree the earlier benchmarks measured.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_data_files import data_files

ADJ = ("spectral", "quantum", "lattice", "harmonic", "orbital", "thermal", "causal", "sparse",
       "linear", "modal", "radial", "stellar", "tidal", "vector", "scalar", "tensor", "phase",
       "photon", "plasma", "ionic", "kinetic", "static", "dynamic", "adaptive", "coherent",
       "diffuse", "elastic", "fractal", "gradient", "inertial", "latent", "magnetic", "nodal",
       "optical", "polar", "resonant", "seismic", "sonic", "temporal", "viscous", "warped",
       "zonal", "acoustic", "binary", "chiral", "dipole", "entropic", "ferric", "geodesic",
       "helical", "isotropic", "jovian", "lunar", "metric", "nuclear", "oblique", "planar",
       "quartic", "rotary", "solar")
NOUN = ("ledger", "lattice", "cavity", "manifold", "router", "solver", "kernel", "buffer",
        "channel", "beacon", "anchor", "bridge", "cascade", "conduit", "engine", "filter",
        "gateway", "harbor", "index", "junction", "keystone", "lens", "mesh", "nexus", "oracle",
        "pulse", "quorum", "relay", "sensor", "tensor", "vault", "window", "atlas", "basin",
        "circuit", "drift", "envelope", "field", "grid", "horizon", "lantern", "mirror",
        "needle", "orbit", "prism", "ripple", "spindle", "tile", "vortex", "wave", "yoke",
        "ballast", "compass", "dial", "flux", "gyro", "hinge", "ingot", "jetty", "kiln")
VERB = ("compute", "resolve", "render", "load", "store", "sync", "merge", "split", "encode",
        "decode", "validate", "normalize", "project", "sample", "measure", "schedule", "route",
        "index", "filter", "reduce", "expand", "align", "couple", "damp", "launch", "probe",
        "calibrate", "shift", "scale", "trace")
AREAS = ("core", "ui", "api", "sim", "data", "net", "auth", "viz", "math", "io")
TS_TYPES = ("number", "string", "boolean", "number[]", "Record<string, number>")
PY_TYPES = ("int", "float", "str", "list[float]", "dict[str, float]")


def camel(*words: str) -> str:
    return words[0] + "".join(w.capitalize() for w in words[1:])


def pascal(*words: str) -> str:
    return "".join(w.capitalize() for w in words)


def snake(*words: str) -> str:
    return "_".join(words)


def _size_factor(rng: random.Random) -> float:
    """Long tail: most files small, some large (a Pareto draw capped at 12x)."""
    return min(12.0, rng.paretovariate(2.2))


class Plan:
    """What exists (concepts, packages, modules and their symbols) before any file is written,
    so imports and mentions always point at real things."""

    def __init__(self, files: int, seed: int) -> None:
        rng = random.Random(seed)
        self.rng = rng
        pairs = [(a, n) for a in ADJ for n in NOUN]
        rng.shuffle(pairs)
        n_docs = max(4, files // 10)
        n_trees = max(1, files // 35)
        n_ts = int(files * 0.38)
        n_py = int(files * 0.27)
        self.concepts = [f"{a}-{n}" for a, n in pairs[:max(4, n_docs * 8 // 10)]]
        self.guides = [f"{a}-{n}-guide" for a, n in pairs[len(self.concepts):n_docs]]
        self.n_trees = n_trees
        n_pkgs = max(1, n_ts // 150)
        n_svcs = max(1, n_py // 120)
        self.packages = [f"{ADJ[i % len(ADJ)]}-{NOUN[(i * 7) % len(NOUN)]}"
                         + (f"-{i // len(ADJ)}" if i >= len(ADJ) else "") for i in range(n_pkgs)]
        self.services = [f"{NOUN[(i * 11) % len(NOUN)]}_{ADJ[(i * 3) % len(ADJ)]}"
                         + (f"_{i // len(NOUN)}" if i >= len(NOUN) else "") for i in range(n_svcs)]
        self.ts_modules = self._modules(n_ts, self.packages, "ts")
        self.py_modules = self._modules(n_py, self.services, "py")

    def _modules(self, count: int, owners: list[str], lang: str) -> list[dict[str, object]]:
        rng = self.rng
        out: list[dict[str, object]] = []
        used: set[tuple[str, str]] = set()
        for i in range(count):
            owner = owners[i % len(owners)]
            area = AREAS[rng.randrange(len(AREAS))]
            name = ""
            for _attempt in range(50):
                words = (rng.choice(ADJ), rng.choice(NOUN))
                name = ("-" if lang == "ts" else "_").join(words)
                if (owner, f"{area}/{name}") not in used:
                    break
            else:
                name = f"{name}{i}"
            used.add((owner, f"{area}/{name}"))
            stem = name.replace("-", "_").split("_")
            n_funcs = max(1, int(rng.randint(1, 5) * _size_factor(rng)))
            funcs = sorted({(camel if lang == "ts" else snake)(rng.choice(VERB), *stem[-1:],
                                                             rng.choice(NOUN))
                            for _ in range(n_funcs)})
            cls = pascal(*stem) + rng.choice(("Model", "Store", "Service", "Engine", "View"))
            out.append({"owner": owner, "area": area, "name": name, "funcs": funcs,
                        "cls": cls, "methods": sorted({camel(rng.choice(VERB), rng.choice(NOUN))
                                                      for _ in range(rng.randint(2, 6))}),
                        "concept": rng.choice(self.concepts), "lang": lang, "tsx": lang == "ts"
                        and area in ("ui", "viz") and rng.random() < 0.5})
        return out


def _ts_path(m: dict[str, object]) -> str:
    ext = "tsx" if m["tsx"] else "ts"
    return f"packages/{m['owner']}/src/{m['area']}/{m['name']}.{ext}"


def _py_module(m: dict[str, object]) -> str:
    return f"{m['owner']}.{m['area']}.{m['name']}"


def _py_path(m: dict[str, object]) -> str:
    return f"services/{m['owner']}/{m['owner']}/{m['area']}/{m['name']}.py"


def _path(m: dict[str, object]) -> str:
    return _ts_path(m) if m["lang"] == "ts" else _py_path(m)


def _words(concept: str) -> str:
    return concept.replace("-", " ")


def ts_file(plan: Plan, m: dict[str, object], rng: random.Random) -> str:
    same = [o for o in plan.ts_modules if o["owner"] == m["owner"] and o is not m]
    others = rng.sample(same, min(len(same), rng.randint(1, 4)))
    lines = [f"// {m['name']}: part of the {_words(str(m['concept']))} pipeline.", ""]
    imported: list[str] = []
    for o in others:
        rel = f"../{o['area']}/{o['name']}" if o["area"] != m["area"] else f"./{o['name']}"
        fn = rng.choice(o["funcs"])  # type: ignore[arg-type]
        lines.append(f"import {{ {fn} }} from \"{rel}\";")
        imported.append(str(fn))
    if rng.random() < 0.3 and same:
        o = rng.choice(same)  # a package-root alias import (`@/` = the package's src/)
        lines.append(f"import {{ {o['cls']} }} from \"@/{o['area']}/{o['name']}\";")
    lines += ["", f"export interface {m['cls']}Options {{"]
    for word in rng.sample(NOUN, 4):
        lines.append(f"  {word}: {rng.choice(TS_TYPES)};")
    lines += ["}", "", "/**", f" * {m['cls']} keeps the {_words(str(m['concept']))} state.",
              f" * See docs/knowledge/{m['concept']}.md.", " */",
              f"export class {m['cls']} {{", f"  private readonly options: {m['cls']}Options;",
              "", f"  constructor(options: {m['cls']}Options) {{",
              "    this.options = options;", "  }"]
    for method in m["methods"]:  # type: ignore[attr-defined]
        lines += ["", f"  {method}(input: number[]): number {{", "    let total = 0;",
                  "    for (const value of input) {",
                  f"      total += value * {rng.randint(2, 99)};", "    }"]
        if imported and rng.random() < 0.5:
            lines.append(f"    total += {rng.choice(imported)}(total);")
        lines += ["    return total;", "  }"]
    lines.append("}")
    for fn in m["funcs"]:  # type: ignore[attr-defined]
        body = rng.randint(4, 24)
        lines.append("")
        if rng.random() < 0.4:
            lines += ["/**", f" * {fn}: {rng.choice(VERB)}s the "
                      f"{_words(rng.choice(plan.concepts))} {rng.choice(NOUN)}.", " */"]
        lines += [f"export function {fn}(value: number, scale = {rng.randint(1, 9)}): number {{"]
        for k in range(body):
            lines.append(f"  const {rng.choice(NOUN)}{k} = value * scale + {rng.randint(0, 999)};")
        if imported and rng.random() < 0.6:
            lines.append(f"  return {rng.choice(imported)}(value) + scale;")
        else:
            lines.append("  return value * scale;")
        lines.append("}")
    if m["tsx"]:
        jsx = f"<section className=\"{m['name']}\"><h2>{{props.title}}</h2></section>"
        lines += ["", f"export function {m['cls']}Panel(props: {{ title: string }}) {{",
                  f"  return {jsx};", "}"]
    return "\n".join(lines) + "\n"


def py_file(plan: Plan, m: dict[str, object], rng: random.Random) -> str:
    same = [o for o in plan.py_modules if o["owner"] == m["owner"] and o is not m]
    others = rng.sample(same, min(len(same), rng.randint(1, 4)))
    lines = [f'"""{m["name"]}: {_words(str(m["concept"]))} support for {m["owner"]}.', "",
             f"See docs/knowledge/{m['concept']}.md for what the concept means.", '"""', "",
             "from __future__ import annotations", ""]
    imported: list[str] = []
    for o in others:
        fn = rng.choice(o["funcs"])  # type: ignore[arg-type]
        if o["area"] == m["area"] and rng.random() < 0.5:
            lines.append(f"from .{o['name']} import {fn}")
        else:
            lines.append(f"from {_py_module(o)} import {fn}")
        imported.append(str(fn))
    lines += ["", f"DEFAULT_{str(m['name']).upper()} = {rng.randint(1, 500)}", "", "",
              f"class {m['cls']}:",
              f'    """Holds the {_words(str(m["concept"]))} state of one run."""', "",
              "    def __init__(self, size: int = 8) -> None:", "        self.size = size",
              "        self.values: list[float] = []"]
    for method in m["methods"]:  # type: ignore[attr-defined]
        name = snake(*[w.lower() for w in _split_camel(str(method))])
        lines += ["", f"    def {name}(self, value: float) -> float:",
                  f'        """{name.replace("_", " ").capitalize()}."""',
                  "        total = 0.0", "        for item in self.values:",
                  f"            total += item * {rng.randint(2, 99)}"]
        if imported and rng.random() < 0.5:
            lines.append(f"        total += {rng.choice(imported)}(total)")
        lines.append("        return total + value")
    for fn in m["funcs"]:  # type: ignore[attr-defined]
        lines += ["", "", f"def {fn}(value: {rng.choice(PY_TYPES)}, scale: int = 2) -> float:",
                  f'    """{str(fn).replace("_", " ").capitalize()} for the '
                  f'{_words(rng.choice(plan.concepts))}."""']
        for k in range(rng.randint(3, 22)):
            lines.append(f"    {rng.choice(NOUN)}_{k} = {rng.randint(0, 999)} * scale")
        if imported and rng.random() < 0.6:
            lines.append(f"    return float({rng.choice(imported)}(scale))")
        else:
            lines.append("    return float(scale)")
    return "\n".join(lines) + "\n"


def _split_camel(name: str) -> list[str]:
    out, word = [], ""
    for ch in name:
        if ch.isupper() and word:
            out.append(word)
            word = ch
        else:
            word += ch
    return [*out, word]


def test_file(plan: Plan, m: dict[str, object], rng: random.Random, lang: str) -> str:
    funcs = list(m["funcs"])  # type: ignore[call-overload]
    if lang == "ts":
        source = f"../src/{m['area']}/{m['name']}"
        lines = [f"import {{ {', '.join(funcs[:3])} }} from \"{source}\";", ""]
        for fn in funcs[:3]:
            lines += [f"describe(\"{fn}\", () => {{", "  it(\"scales\", () => {",
                      f"    expect({fn}({rng.randint(1, 9)})).toBeGreaterThan(0);", "  });", "});",
                      ""]
        return "\n".join(lines)
    lines = [f"from {_py_module(m)} import {', '.join(funcs[:3])}", "", ""]
    for fn in funcs[:3]:
        lines += [f"def test_{fn}() -> None:", f"    assert {fn}({rng.randint(1, 9)}) >= 0", "", ""]
    return "\n".join(lines).rstrip() + "\n"


def concept_doc(plan: Plan, concept: str, rng: random.Random) -> str:
    title = _words(concept).capitalize()
    users = [m for m in (*plan.ts_modules, *plan.py_modules) if m["concept"] == concept][:4]
    near = rng.sample(plan.concepts, 3)
    lines = [f"# {title}", "", f"A {_words(concept)} is how this repository "
             f"{rng.choice(VERB)}s {rng.choice(NOUN)} data across {rng.choice(AREAS)} "
             f"boundaries. It is related to the {_words(near[0])} and differs from the "
             f"{_words(near[1])}.", ""]
    for section in ("Definition", "Inputs and outputs", "Where it is used", "Pitfalls"):
        lines += [f"## {section}", ""]
        for _ in range(rng.randint(1, 3)):
            lines.append(" ".join(f"The {rng.choice(ADJ)} {rng.choice(NOUN)} "
                                  f"{rng.choice(VERB)}s the {rng.choice(NOUN)}."
                                  for _ in range(rng.randint(2, 6))))
            lines.append("")
        if section == "Where it is used":
            for m in users:
                lines.append(f"- `{m['cls']}` in `{_path(m)}`")
            lines.append(f"- see also [{_words(near[2])}](./{near[2]}.md)")
            lines.append("")
    return "\n".join(lines)


def guide_doc(plan: Plan, topic: str, rng: random.Random) -> str:
    lines = [f"# {_words(topic).capitalize()}", "", "How the pieces fit together.", ""]
    for k in range(rng.randint(3, 10)):
        concept = rng.choice(plan.concepts)
        m = rng.choice(plan.py_modules or plan.ts_modules)
        lines += [f"## Step {k + 1}: {_words(concept)}", "",
                  f"Call `{rng.choice(m['funcs'])}()` from `{m['cls']}` to "  # type: ignore[arg-type]
                  f"{rng.choice(VERB)} the {_words(concept)}.", ""]
        lines += ["```", f"{rng.choice(VERB)} --{rng.choice(NOUN)} {rng.randint(1, 99)}", "```", ""]
    return "\n".join(lines)


def tree_json(plan: Plan, index: int, rng: random.Random) -> str:
    area = f"{AREAS[index % len(AREAS)]}-{index}"
    root = f"{area}-tree"
    members = rng.sample(plan.concepts, min(len(plan.concepts), rng.randint(4, 9)))
    nodes: list[dict[str, object]] = [{
        "id": root, "slug": root, "title": f"{area.capitalize()} tree",
        "excerpt": f"Routes questions about {', '.join(_words(c) for c in members[:3])}.",
        "bodyMD": "This tree binds the area's concepts to their code.",
        "tags": [AREAS[index % len(AREAS)], "knowledge"], "children": members,
        "links": [{"rel": "see-also", "to": members[0], "edgeType": "association"}],
        "nodeType": "concept", "deterministic": True, "dependencies": [],
        "evidence": [{"type": "doc", "path": f"docs/knowledge/trees/{root}.json"}]}]
    for concept in members:
        m = rng.choice(plan.ts_modules or plan.py_modules)
        nodes.append({
            "id": concept, "slug": concept, "title": _words(concept).title(),
            "excerpt": f"The {_words(concept)} as {area} uses it.",
            "bodyMD": f"See `{m['cls']}` and docs/knowledge/{concept}.md.",
            "children": [], "links": [{"rel": "parent", "to": root}],
            "inputs": [{"name": rng.choice(NOUN), "value": rng.choice(ADJ)}],
            "outputs": [{"name": rng.choice(NOUN), "value": rng.choice(ADJ)}],
            "assumptions": [f"The {rng.choice(NOUN)} is {rng.choice(ADJ)}."],
            "validity": {"mode": "diagnostic"}, "deterministic": rng.random() < 0.7,
            "tolerance": {"target": "qualitative"}, "environment": {"n": rng.randint(1, 9)},
            "dependencies": [], "evidence": [{"type": "code", "symbol": m["cls"]}]})
    return json.dumps({"version": 1, "rootId": root, "nodes": nodes}, indent=2) + "\n"


def generate(out: Path, files: int, seed: int, data_share: float = 0.0) -> dict[str, str]:
    """path -> text of every file (plus ignored ones), deterministic for the arguments."""
    n_data = int(files * data_share)
    data = data_files(n_data, random.Random(seed + 2)) if n_data else {}
    files -= len(data)
    plan = Plan(files, seed)
    rng = random.Random(seed + 1)
    tree: dict[str, str] = {
        "README.md": f"# Generated monorepo\n\n{files} files, seed {seed}.\n",
        ".helix.toml": '[helix.index]\ntrees = ["docs/knowledge/trees/*.json"]\n',
        ".gitignore": "dist/\nnode_modules/\n*.log\n",
        "dist/bundle.js": "// ignored build output\n" * 200,
    }
    for pkg in plan.packages:
        tree[f"packages/{pkg}/package.json"] = json.dumps(
            {"name": f"@mono/{pkg}", "version": "1.0.0", "main": "src/index.ts"}, indent=2) + "\n"
    for m in plan.ts_modules:
        tree[_ts_path(m)] = ts_file(plan, m, rng)
    for svc in plan.services:
        tree[f"services/{svc}/{svc}/__init__.py"] = f'"""The {svc} service."""\n'
    for m in plan.py_modules:
        tree[_py_path(m)] = py_file(plan, m, rng)
        init = f"services/{m['owner']}/{m['owner']}/{m['area']}/__init__.py"
        tree.setdefault(init, "")
    for concept in plan.concepts:
        tree[f"docs/knowledge/{concept}.md"] = concept_doc(plan, concept, rng)
    for topic in plan.guides:
        tree[f"docs/guides/{topic}.md"] = guide_doc(plan, topic, rng)
    for k in range(plan.n_trees):
        text = tree_json(plan, k, rng)
        tree[f"docs/knowledge/trees/{json.loads(text)['rootId']}.json"] = text
    tree["concepts.json"] = json.dumps(
        {c: f"docs/knowledge/{c}.md" for c in plan.concepts}, indent=1, sort_keys=True) + "\n"
    n_tests = files - sum(1 for p in tree if not p.startswith("dist/"))
    for k in range(max(0, 3 * n_tests)):  # tests fill the count up (a module has one at most)
        if n_tests <= 0:
            break
        if k % 2 == 0 and plan.ts_modules:
            m = plan.ts_modules[(k // 2) % len(plan.ts_modules)]
            path = f"packages/{m['owner']}/test/{m['name']}.test.ts"
            lang = "ts"
        elif plan.py_modules:
            m = plan.py_modules[(k // 2) % len(plan.py_modules)]
            path = f"services/{m['owner']}/tests/test_{m['area']}_{m['name']}.py"
            lang = "py"
        else:
            continue
        if path not in tree:
            tree[path] = test_file(plan, m, rng, lang)
            n_tests -= 1
    tree.update(data)
    return tree


def write(out: Path, tree: dict[str, str]) -> str:
    """Write the tree under `out` (which must not exist or be empty); return its digest."""
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        raise SystemExit(f"gen_large_repo: {out} is not empty")
    h = hashlib.sha256()
    for path in sorted(tree):
        data = tree[path].encode("utf-8")
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        h.update(path.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def git_commit(out: Path) -> None:
    env = {"GIT_AUTHOR_NAME": "gen", "GIT_AUTHOR_EMAIL": "gen@example.invalid",
           "GIT_COMMITTER_NAME": "gen", "GIT_COMMITTER_EMAIL": "gen@example.invalid",
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
           "PATH": "/usr/bin:/bin"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "generated"]):
        subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=out, env=env,
                       check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--git", action="store_true", help="commit the tree (git init)")
    parser.add_argument("--data-share", type=float, default=0.0,
                        help="fraction of the files that are data files (default 0)")
    args = parser.parse_args(argv)
    if args.files < 20:
        parser.error("--files must be at least 20")
    if not 0.0 <= args.data_share < 0.9:
        parser.error("--data-share must be in [0, 0.9)")
    tree = generate(args.out, args.files, args.seed, args.data_share)
    digest = write(args.out, tree)
    if args.git:
        git_commit(args.out)
    size = sum(len(t.encode("utf-8")) for t in tree.values())
    print(json.dumps({"out": str(args.out), "files": len(tree), "bytes": size,
                      "digest": digest}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
