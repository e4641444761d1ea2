"""Names a commit removed as definitions that the project still binds another way: an alias
(`get = partialmethod(add, GET)`, `OldName = NewName`), a re-export (`export { LogLevel }
from './levels'`, `from .levels import LogLevel`), an import of another package's thing of
that name. A reader calling it still finds it: the name was not removed from the project.

    still_bound(work, names, member_files) -> the names some code file of the project (as
                                              the work tree has it) binds

A module-level name may be bound in any of the project's code files (`library`: not tests,
examples, docs or vendored code); a removed member (`Class.method`) only in the file its
class is in, where an alias of the method would be written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from helix.core.english import word_alternation
from helix.staledocs.history import WorkTree, library
from indexers.languages import classify

# JavaScript / TypeScript keywords that bind a name: `export { N }`, `const N = ...`
MODULE_WORDS = ("export", "import")
DECLARING = ("const", "let", "var", "type", "interface", "enum")


def _binders(name: str) -> re.Pattern[str]:
    n = re.escape(name)
    word = rf"(?<![\w.$]){n}(?![\w$])"
    return re.compile("|".join((
        # `name = ...`, `a, name = ...`, `name: Type = ...` (Python, a class's alias too)
        rf"^[ \t]*(?:[\w.]+[ \t]*,[ \t]*)*{n}[ \t]*(?::[^=\n]+)?=(?!=)",
        # `import name`, `from x import a, name`, `import x as name`
        rf"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t]+[^\n(]*{word}",
        rf"^[ \t]*from[ \t]+\S+[ \t]+import[ \t]*\([^)]*{word}",
        # JavaScript / TypeScript: `export { name }`, `import { name } from`, declarations
        rf"\b(?:{word_alternation(MODULE_WORDS)})(?:[ \t]+type)?[ \t]*\{{[^}}]*{word}",
        rf"\bimport[ \t]+(?:\*[ \t]+as[ \t]+)?{n}\b",
        rf"\b(?:{word_alternation(DECLARING)})[ \t]+{n}\b",
        rf"\bexports\.{n}[ \t]*=(?!=)",
        rf"\bmodule\.exports[ \t]*=[ \t]*\{{[^}}]*{word}",
    )), re.M)


def still_bound(work: WorkTree, names: Iterable[str],
                member_files: Mapping[str, set[str]]) -> set[str]:
    """The names of `names` the project's code still binds (see the module docstring);
    `member_files`: for a name removed only as a member, the files its classes are in."""
    wanted = sorted(set(names))
    if not wanted:
        return set()
    any_of = re.compile(r"(?<![\w$])(?:" + "|".join(map(re.escape, wanted)) + r")(?![\w$])")
    patterns = {name: _binders(name) for name in wanted}
    found: set[str] = set()
    for path in sorted(work.head):
        if classify(path)[0] != "code" or not library(path):
            continue
        text = work.text(path)
        if not text:
            continue
        for name in sorted(set(any_of.findall(text)) - found):
            files = member_files.get(name)
            if (files is None or path in files) and patterns[name].search(text):
                found.add(name)
    return found
