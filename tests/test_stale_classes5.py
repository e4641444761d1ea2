"""False alarms of `helix stale-docs` by class (issue 34, rules v5), each on a repository
built here: the section's mention is not the changed definition's, or the change is not one a
reader could see. Each test also keeps the alarm the class must not swallow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.history_helpers import DAY, EPOCH, commit
from tests.test_stale_classes import _alarms, _repo

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py

TIMEOUTS = '''def fail_after(delay):
    if delay < 0:
        raise TimeoutError("late")
    return delay
'''
HELPED = '''def _deadline(delay):
    if delay < 0:
        raise TimeoutError("late") if delay < -1 else TimeoutError
    return delay


def fail_after(delay):
    return _deadline(delay)
'''


def test_a_raise_moved_into_a_helper_is_still_raised(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/timeouts.py": TIMEOUTS, "docs/guide.md": (
        "# Guide\n\n## Timeouts\n\n`fail_after(-1)` raises `TimeoutError`.\n")})
    commit(repo, "the deadline in a helper", {"pkg/timeouts.py": HELPED}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {}
    commit(repo, "no deadline", {"pkg/timeouts.py": HELPED.replace(
        "raise TimeoutError(\"late\") if delay < -1 else TimeoutError", "return 0")},
        EPOCH + 2 * DAY)
    assert _alarms(repo, capsys) == {"Timeouts": [("fail_after", "raises")]}


PARSER = '''class Parser:
    def use_kwargs(self, *args, **kwargs):
        return args, kwargs

    def parse(self, data, *args):
        return data
'''


def test_variadics_spelled_out_remove_no_parameter(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/core.py": PARSER, "docs/guide.md": (
        "# Guide\n\n## Decorators\n\n`Parser.use_kwargs` passes the view its `**kwargs`:\n\n"
        "```python\n@parser.use_kwargs({'name': str})\ndef view(**kwargs): ...\n```\n\n"
        "## Parsing\n\n`Parser.parse(data, *args)` reads `data`; the `*args` go on.\n")})
    commit(repo, "named parameters", {"pkg/core.py": PARSER.replace(
        "use_kwargs(self, *args, **kwargs)", "use_kwargs(self, argmap, location=None)").replace(
        "return args, kwargs", "return argmap, location").replace(
        "parse(self, data, *args)", "parse(self, data)")}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Parsing": [("Parser.parse", "parameters")]}


CLIENT = '''class Client:
    def __init__(self, transport=None, proxies=None, timeout=5):
        self.transport = transport
'''


def test_a_keyword_passed_to_an_examples_own_class_is_not_the_definitions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/client.py": CLIENT, "docs/guide.md": (
        "# Guide\n\n## Custom transports\n\nA `Client` takes any transport:\n\n```python\n"
        "class RoundRobin:\n    def __init__(self, proxies):\n        self.proxies = proxies\n\n"
        "client = Client(transport=RoundRobin(proxies=proxies))\n```\n\n"
        "## Proxies\n\nProxies of a `Client`:\n\n```python\nclient = Client(proxies={'all': 'http://p'})\n```\n")})
    commit(repo, "no proxies", {"pkg/client.py": CLIENT.replace(" proxies=None,", "")},
           EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Proxies": [("Client", "parameters")]}


MOCK = '''class RequestsMock:
    def add(self, method, url):
        return method, url

    def get(self, url):
        return self.add("GET", url)

    def post(self, url):
        return self.add("POST", url)
'''


def test_a_method_made_an_alias_is_still_a_member(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/mock.py": MOCK, "docs/guide.md": (
        "# Guide\n\n## Mocking\n\nA `RequestsMock` has `RequestsMock.get` and "
        "`RequestsMock.post`.\n")})
    commit(repo, "aliases", {"pkg/mock.py": (
        "from functools import partialmethod\n\n\n" + MOCK.split("    def get")[0]
        + "    get = partialmethod(add, 'GET')\n    post = partialmethod(add, 'POST')\n")},
        EPOCH + DAY)
    assert _alarms(repo, capsys) == {}
    commit(repo, "no post", {"pkg/mock.py": (
        "from functools import partialmethod\n\n\n" + MOCK.split("    def get")[0]
        + "    get = partialmethod(add, 'GET')\n")}, EPOCH + 2 * DAY)
    assert _alarms(repo, capsys) == {"Mocking": [("RequestsMock", "members")]}


def test_a_name_still_bound_as_an_alias_or_reexport_is_not_removed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {
        "src/levels.ts": "export function LogLevel(name: string) { return name; }\n"
                         "export function setUseProxies(on: boolean) { return on; }\n",
        "src/index.ts": "export { LogLevel, setUseProxies } from './levels';\n",
        "docs/guide.md": ("# Guide\n\n## Levels\n\nPass a `LogLevel` to the logger.\n\n"
                          "## Proxies\n\nCall `setUseProxies(false)` to test without.\n")})
    commit(repo, "levels are a type", {
        "src/levels.ts": "export type Level = 'info' | 'debug';\n",
        "src/index.ts": "export { Level as LogLevel } from './levels';\n"}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Proxies": [("setUseProxies", "removed")]}


def test_a_name_an_example_imports_from_another_package_or_defines_is_not_removed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {
        "package.json": '{\n  "name": "mystore",\n  "version": "1.0.0"\n}\n',
        "src/provider.js": "export function Provider(props) { return props; }\n"
                           "export function DisplayName() { return 1; }\n"
                           "export function StoreContext() { return 2; }\n",
        "docs/guide.md": (
            "# Guide\n\n## React context\n\n```js\nimport { Provider } from 'react-redux'\n"
            "const DisplayName = () => null\n<Provider store={store}><DisplayName/></Provider>\n"
            "```\n\n## Store context\n\n```js\nimport { StoreContext } from 'mystore'\n"
            "StoreContext()\n```\n")})
    commit(repo, "no components", {"src/provider.js": "export const VERSION = 2;\n"},
           EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Store context": [("StoreContext", "removed")]}



def test_a_test_component_and_a_context_qualified_name_are_not_the_projects(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {
        "src/Provider.tsx": "export function Provider(props: object) { return props; }\n",
        "src/__tests__/inject.test.tsx": "function DisplayName() { return 1; }\n",
        "docs/react.md": (
            "# React\n\n## Context\n\n```jsx\n<TimerContext.Provider value={timer}>\n"
            "  <DisplayName name={name} />\n</TimerContext.Provider>\n```\n\nNever replace "
            "the `value` of a `Provider`.\n\n## Providers\n\nWrap the app in a `Provider`.\n")})
    commit(repo, "no provider, no test component", {
        "src/Provider.tsx": "export const VERSION = 2;\n",
        "src/__tests__/inject.test.tsx": "export const CASES = 2;\n"}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {"Providers": [("Provider", "removed")]}


HOOKS = '''export function addHook(name: string, fn: Function) {
  if (typeof fn !== "function") {
    throw new Error("hook not a function");
  }
  if (name === "") {
    throw new TypeError("no name");
  }
  return fn;
}
'''


def test_a_root_error_raised_as_coded_errors_is_raised_still(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"src/hooks.ts": HOOKS, "docs/hooks.md": (
        "# Hooks\n\n## Errors\n\n`addHook` throws an `Error` for a bad handler and a "
        "`TypeError` for no name.\n")})
    commit(repo, "coded errors", {"src/hooks.ts": HOOKS.replace(
        'new Error("hook not a function")', "new FST_ERR_HOOK_INVALID_HANDLER(name)")},
        EPOCH + DAY)
    assert _alarms(repo, capsys) == {}
    commit(repo, "no name is fine", {"src/hooks.ts": HOOKS.replace(
        'new Error("hook not a function")', "new FST_ERR_HOOK_INVALID_HANDLER(name)").replace(
        'throw new TypeError("no name");', "return fn;")}, EPOCH + 2 * DAY)
    assert _alarms(repo, capsys) == {"Errors": [("addHook", "raises")]}


OBSERVABLE = '''export function makeAutoObservable<T extends Object>(target: T): T {
  return target;
}
'''


def test_type_parameters_are_annotations_not_the_signature(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"src/observable.ts": OBSERVABLE, "docs/api.md": (
        "# API\n\n## Observables\n\n`makeAutoObservable(target)` takes an `Object`.\n")})
    commit(repo, "object, not Object", {"src/observable.ts": OBSERVABLE.replace(
        "T extends Object", "T extends object")}, EPOCH + DAY)
    assert _alarms(repo, capsys) == {}
