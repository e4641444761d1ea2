"""A small repository with a known history around a pinned revision R, for the corpus tests.

Before R: the initial import and one change (its message holds the word "antediluvian", so a
test can tell whether anything read it). After R: one commit per rule of the corpus, each
named by the rule it exercises, plus a merge.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from evals.corpus.repos import PIN_RULE_TEXT, SPLIT_RULE_TEXT, assign_splits
from tests.history_helpers import DAY, EPOCH, commit, git

CORE = '''"""A key-value store."""

import os


class Store:
    """Values by key."""

    def __init__(self):
        self.items = {}

    def get(self, key, default=None):
        if key in self.items:
            return self.items[key]
        return default

    def put(self, key, value):
        self.items[key] = value
        return value


def helper(a, b):
    total = a + b
    return total
'''

UTIL = '''"""Text helpers."""


def slugify(title):
    words = title.lower().split()
    return "-".join(words)
'''

MANY = "".join(f"\n\ndef step_{i}(x):\n    return x + {i}\n" for i in range(7))


def _edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def build_corpus_repo(root: Path) -> tuple[Path, dict[str, str]]:
    """(work tree, commit name -> sha); `shas["R"]` is the revision to pin."""
    repo = root / "toy"
    repo.mkdir()
    git(repo, "init", "-q")
    s: dict[str, str] = {}
    day = iter(range(EPOCH, EPOCH + 100 * DAY, DAY))
    s["init"] = commit(repo, "Initial import of the store and text helpers",
                       {"pkg/core.py": CORE, "pkg/util.py": UTIL, "pkg/steps.py": MANY,
                        "vendor/lib.py": "def vendored():\n    return 1\n",
                        "README.md": "# toy\n"}, next(day))
    core = _edit(CORE, "        return default\n", "        return default  # antediluvian\n")
    s["prior"] = commit(repo, "Mark the antediluvian default branch of Store.get clearly",
                        {"pkg/core.py": core}, next(day))
    s["R"] = commit(repo, "Describe the toy project in the README for new readers",
                    {"README.md": "# toy\n\nA store.\n"}, next(day))
    core2 = _edit(core, "        if key in self.items:\n", "        if key in self.items.keys():\n")
    s["method"] = commit(repo, "Store.get looks the key up among the stored keys explicitly",
                         {"pkg/core.py": core2}, next(day))
    core3 = _edit(core2, "        self.items[key] = value\n",
                  "        self.items[str(key)] = value\n")
    s["mapped"] = commit(repo, "Keys are kept as strings when a value is put into the store",
                         {"pkg/core.py": core3}, next(day))
    core4 = _edit(core3, "    total = a + b\n", "    total = a + b\n    total = int(total)\n")
    s["insertion"] = commit(repo, "The helper sum is always converted into an integer value",
                            {"pkg/core.py": core4}, next(day))
    util2 = UTIL + "\n\ndef slugify_all(titles):\n    return [slugify(t) for t in titles]\n"
    s["new_function"] = commit(repo, "Add slugify_all to turn many titles into slugs at once",
                               {"pkg/util.py": util2}, next(day))
    util3 = _edit(util2, "    return [slugify(t) for t in titles]\n",
                  "    return [slugify(t) for t in titles if t]\n")
    s["changed_new"] = commit(repo, "slugify_all skips empty titles instead of making empty slugs",
                              {"pkg/util.py": util3}, next(day))
    util4 = _edit(util3, "    words = title.lower().split()\n",
                  "    words  =  title.lower().split()   \n")
    s["whitespace"] = commit(repo, "Tidy the spacing of the word list in slugify for readers",
                             {"pkg/util.py": util4}, next(day))
    s["revert"] = commit(repo, 'Revert "Tidy the spacing of the word list in slugify"',
                         {"pkg/util.py": util3}, next(day))
    s["vendored"] = commit(repo, "Update the vendored library to return two from vendored",
                           {"vendor/lib.py": "def vendored():\n    return 2\n",
                            "pkg/util.py": util3.replace("lower()", "casefold()")}, next(day))
    s["short"] = commit(repo, "fix it", {"pkg/util.py": util3.replace("if t]", "if t ]")},
                        next(day))
    many = MANY
    for i in range(7):
        many = many.replace(f"return x + {i}\n", f"return x - {i}\n")
    s["many"] = commit(repo, "Every step subtracts its number instead of adding it now",
                       {"pkg/steps.py": many}, next(day))
    for name in ("a", "b", "c"):
        commit(repo, f"Add the {name} module for the rename test",
               {f"pkg/{name}.py": f"X = '{name}'\n"}, next(day))
    for name in ("a", "b", "c"):
        git(repo, "mv", f"pkg/{name}.py", f"pkg/{name}_mod.py")
    s["bulk_rename"] = commit(repo, "Move the letter modules to names ending in mod",
                              {}, next(day))
    git(repo, "checkout", "-q", "-b", "side")
    core5 = _edit(core4, "        return value\n", "        return self.items[str(key)]\n")
    s["side"] = commit(repo, "Store.put hands back the stored value rather than its argument",
                       {"pkg/core.py": core5}, next(day))
    git(repo, "checkout", "-q", "main")
    s["duplicate"] = commit(repo, "Store.get looks the key up among the stored keys explicitly",
                            {"pkg/core.py": _edit(core4, "self.items.keys()",
                                                  "list(self.items)")}, next(day))
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch side", "side", when=next(day))
    s["merge"] = git(repo, "rev-parse", "HEAD").strip()
    s["U"] = s["merge"]
    return repo, s


def mirror_of(repo: Path, mirrors: Path, owner_name: str = "toy/proj") -> Path:
    """A bare snapshot of `repo` in the fetch layout under `mirrors`."""
    target = mirrors / owner_name.replace("/", "+") / "repo"
    target.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(target)], check=True)
    return target


def repo_list(path: Path, shas: dict[str, str], seed: int = 5,
              source: str = "github:toy/proj") -> Path:
    """A one-repository list for the toy repository, its split by the rule."""
    split = assign_splits([(source, "python")], seed)[source]
    path.write_text(json.dumps({
        "description": "toy", "split_rule": SPLIT_RULE_TEXT, "split_seed": seed,
        "pin_rule": PIN_RULE_TEXT,
        "repos": [{"name": "toy", "source": source, "language": "python",
                   "revision": shas["R"], "until": shas["U"], "split": split}]}),
        encoding="utf-8")
    return path
