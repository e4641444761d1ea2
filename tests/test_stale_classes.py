"""False alarms of `helix stale-docs` by class (issue 34, rules v4), each on a repository
built here: the change is one a reader of the section would not see, or the section does not
describe that definition. Each test also keeps an alarm the class must not swallow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import run
from tests.history_helpers import DAY, EPOCH, commit, git

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, "code and its guide", files, EPOCH)
    return repo


def _alarms(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, list[tuple[str, str]]]:
    code, out, err = run(["stale-docs", "--repo", str(repo), "--json"], capsys)
    assert code in (0, 1), err
    report: dict[str, Any] = json.loads(out)
    return {s["heading"][-1]: [(d["symbol"], c["kind"]) for d in s["definitions"]
                               for c in d["changes"]] for s in report["stale"]}


CHECK = '''def check_value(value):
    if value is None:
        raise ValueError("no value")
    return value
'''


def test_overload_stubs_are_not_the_definition(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/checks.py": CHECK, "docs/guide.md": (
        "# Guide\n\n## Checking\n\n`check_value(None)` raises `ValueError`.\n")})
    commit(repo, "typed overloads", {"pkg/checks.py": (
        "from typing import overload\n\n\n@overload\ndef check_value(value: int) -> int: ...\n"
        "@overload\ndef check_value(value: str) -> str: ...\n" + CHECK)}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {}
    commit(repo, "check no more", {"pkg/checks.py": (
        "from typing import overload\n\n\n@overload\ndef check_value(value: int) -> int: ...\n"
        "def check_value(value):\n    return value\n")}, EPOCH + 2 * DAY)
    assert _alarms(repo, capsys) == {"Checking": [("check_value", "raises")]}


CONFIGURATOR = '''class Configurator:
    def add_view(self, view):
        self.commit()

    def commit(self):
        return True
'''


def test_a_member_moved_into_a_base_is_not_removed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/config.py": CONFIGURATOR, "docs/guide.md": (
        "# Guide\n\n## Committing\n\nA `Configurator` applies the views on "
        "`Configurator.commit()`, or `Configurator.flush()`.\n")})
    commit(repo, "actions in a mixin", {
        "pkg/actions.py": "class ActionsMixin:\n    def commit(self):\n        return True\n",
        "pkg/config.py": ("from pkg.actions import ActionsMixin\n\n\n"
                          "class Configurator(ActionsMixin):\n    def add_view(self, view):\n"
                          "        self.commit()\n")}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {}
    commit(repo, "no commit at all", {
        "pkg/actions.py": "class ActionsMixin:\n    def begin(self):\n        return True\n"},
        EPOCH + 2 * DAY)
    assert _alarms(repo, capsys) == {"Committing": [("Configurator", "members")]}


LINE_ERROR = '''class LineError:
    def input_value(self):
        return self.value

    def location(self):
        return self.loc
'''


def test_a_bare_name_is_a_removed_member_only_beside_its_class(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"core/errors.py": LINE_ERROR, "docs/guide.md": (
        "# Guide\n\n## Output\n\nThe error prints `input_value=3, input_type=int`.\n\n"
        "## Errors\n\nEach `LineError` tells its `input_value`.\n")})
    commit(repo, "drop input_value", {"core/errors.py": LINE_ERROR.replace(
        "input_value", "given")}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Errors": [("LineError", "members"),
                                                ("LineError.input_value", "removed")]}


def test_a_name_an_example_imports_is_its_modules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = "class Iterable:\n    pass\n\n\nclass Sequence:\n    pass\n"
    repo = _repo(tmp_path, {"core/input_abstract.py": code, "docs/guide.md": (
        "# Guide\n\n## Iterables\n\nAny `Iterable` will do:\n\n```python\n"
        "from collections.abc import Iterable\n\n"
        "def first(items: Iterable): ...\n```\n\n## Sequences\n\n```python\n"
        "from core.input_abstract import Sequence\n\nSequence()\n```\n")})
    commit(repo, "inputs are protocols now", {"core/input_abstract.py": "VERSION = 2\n"},
           EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Sequences": [("Sequence", "removed")]}


CONNECT = '''def open_connection(host, timeout=5, size=512):
    return host, timeout, size
'''


def test_a_default_counts_where_the_section_states_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/net.py": CONNECT, "docs/guide.md": (
        "# Guide\n\n## Calling\n\n```python\nopen_connection('db', timeout=5)\n```\n\n"
        "## Buffers\n\nThe `open_connection` `size` defaults to 512 bytes.\n\n"
        "## Timeouts\n\nThe `open_connection` `timeout` defaults to 5 seconds.\n")})
    commit(repo, "a longer timeout, the buffer size chosen in the body", {
        "pkg/net.py": ("_DEFAULT = object()\n\n\n"
                       "def open_connection(host, timeout=10, size=_DEFAULT):\n"
                       "    return host, timeout, 512 if size is _DEFAULT else size\n")},
        EPOCH + DAY)
    # a call passing timeout=5 passes it whatever the default; size's value moved to the body
    assert _alarms(repo, capsys) == {"Timeouts": [("open_connection", "defaults")]}


SETTINGS = '''class ConfigError(Exception):
    pass


def load_settings(path):
    if not path:
        raise ConfigError("no path")
    return parse_settings(path)


def parse_settings(path):
    return path
'''


def test_a_raise_counts_when_one_the_section_mentions_is_gone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/settings.py": SETTINGS, "docs/guide.md": (
        "# Guide\n\n## Loading\n\n`load_settings('')` raises `ConfigError`.\n\n"
        "## Parsing\n\n`parse_settings()` reads the file that `load_settings` checked "
        "(a `ConfigError` when there is none).\n")})
    commit(repo, "parse_settings checks the path too", {"pkg/settings.py": SETTINGS.replace(
        "    return path", '    if path == "-":\n        raise ConfigError("stdin")\n'
        "    return path")}, EPOCH + DAY)
    # an error it mentions, raised for one more cause: the section misses nothing
    assert _alarms(repo, capsys) == {}
    commit(repo, "no config error", {"pkg/settings.py": SETTINGS.replace(
        'raise ConfigError("no path")', "return None", 1)}, EPOCH + 2 * DAY)
    # both say load_settings raises it
    assert _alarms(repo, capsys) == {"Loading": [("load_settings", "raises")],
                                     "Parsing": [("load_settings", "raises")]}


VIEWS = '''class view_config:
    def __init__(self, **settings):
        self.settings = settings


class view_defaults(view_config):
    def __call__(self, cls):
        cls.defaults = self.settings
        return cls
'''


def test_a_lost_base_counts_on_a_line_naming_the_definition(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/view.py": VIEWS, "docs/guide.md": (
        "# Guide\n\n## Defaults\n\nPut `@view_defaults(route='x')` on the class.\n\n"
        "Each method takes `@view_config(method='GET')`.\n\n"
        "## Kinds\n\n`view_defaults` is a `view_config` too.\n")})
    commit(repo, "view_defaults: a function", {"pkg/view.py": VIEWS.split("\n\n\n")[0] + (
        "\n\n\ndef view_defaults(**settings):\n    def wrap(cls):\n"
        "        cls.defaults = settings\n        return cls\n    return wrap\n")},
        EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Kinds": [("view_defaults", "signature")]}


def test_a_vendored_bundle_is_not_the_projects_code(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {
        ".yarn/releases/yarn-4.1.0.cjs": "function useEffect(f) { return f(); }\n",
        "app/static/js/coreapi-0.1.1.js": "function LinkHeader(url) { return url; }\n",
        "src/store.js": "export function createLegacyStore(r) { return r; }\n",
        "docs/guide.md": ("# Guide\n\n## Effects\n\nSubscribe in `useEffect` and read the "
                          "`LinkHeader`.\n\n## Stores\n\nCall `createLegacyStore(reducer)`.\n")})
    commit(repo, "yarn 4.2, no bundled client, no legacy store", {
        ".yarn/releases/yarn-4.1.0.cjs": None, "app/static/js/coreapi-0.1.1.js": None,
        ".yarn/releases/yarn-4.2.0.cjs": "const version = 2;\n",
        "src/store.js": "export const VERSION = 2;\n"}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Stores": [("createLegacyStore", "removed")]}


def test_announcements_and_proposals_are_history(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "# Design\n\n## Spiders\n\nCall `start_requests()` first.\n"
    repo = _repo(tmp_path, {
        "pkg/spider.py": "def start_requests(spider):\n    return []\n",
        "docs/community/3.0-announcement.md": text, "sep/sep-018.rst": (
            "SEP 18\n======\n\nSpiders\n-------\n\nCall ``start_requests()`` first.\n"),
        "docs/guide.md": text})
    commit(repo, "drop start_requests", {"pkg/spider.py": "VERSION = 2\n"}, EPOCH + DAY)
    code, out, err = run(["stale-docs", "--repo", str(repo), "--json"], capsys)
    assert code == 1 and [s["doc_path"] for s in json.loads(out)["stale"]] == [
        "docs/guide.md"], err


def test_overloaded_constructors_and_typescript_signatures_are_stubs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = ("class TraceConfig:\n    def __init__(self, ctx_factory=dict):\n"
             "        self.factory = ctx_factory\n")
    store = ("export function createStore(reducer: R, preloaded?: S): Store {\n"
             "  if (!reducer) {\n    throw new TypeError('reducer')\n  }\n"
             "  return make(reducer)\n}\n")
    repo = _repo(tmp_path, {"pkg/tracing.py": trace, "src/store.ts": store, "docs/guide.md": (
        "# Guide\n\n## Tracing\n\n`TraceConfig(ctx_factory=dict)`: the `ctx_factory` makes "
        "contexts.\n\n## Stores\n\n`createStore(reducer, preloaded)` throws a `TypeError` "
        "without a reducer.\n")})
    commit(repo, "typed overloads", {
        "pkg/tracing.py": trace.replace("    def __init__(self, ctx_factory=dict):", (
            "    @overload\n    def __init__(self) -> None: ...\n"
            "    @overload\n    def __init__(self, ctx_factory: F) -> None: ...\n"
            "    def __init__(self, ctx_factory=dict):")),
        "src/store.ts": "export function createStore(reducer: R): Store\n" + store},
        EPOCH + DAY)
    assert _alarms(repo, capsys) == {}


def test_a_side_branch_version_is_not_the_code_now(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A branch that touched the file and was merged, dated after the mainline's change: the
    code now is HEAD's, and a clean tree is not being edited."""
    code = ("def open_session(url, retries=3):\n    return url, retries\n\n\n"
            "def pool_size():\n    return 1\n\n\n" + "".join(
                f"def helper_{n}():\n    return {n}\n\n\n" for n in range(4)))
    repo = _repo(tmp_path, {"pkg/session.py": code, "docs/guide.md": (
        "# Guide\n\n## Sessions\n\n`open_session()` retries 3 times by default "
        "(`retries`).\n")})
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, "side: a larger pool", {"pkg/session.py": code.replace("return 1", "return 4")},
           EPOCH + 3 * DAY)
    git(repo, "checkout", "-q", "main")
    commit(repo, "five retries", {"pkg/session.py": code.replace("=3", "=5")}, EPOCH + DAY)
    git(repo, "merge", "-q", "--no-edit", "side", when=EPOCH + 4 * DAY)
    _, out, err = run(["stale-docs", "--repo", str(repo), "--json"], capsys)
    (section,) = json.loads(out)["stale"]
    shas = [c["sha"] for d in section["definitions"] for c in d["commits"]]
    assert [c["detail"] for d in section["definitions"] for c in d["changes"]] == [
        "retries: 3 -> 5"], err
    # the change's own commit is listed, never uncommitted edits of a clean tree
    assert git(repo, "rev-parse", "main^1").strip() in shas and "(working tree)" not in shas
