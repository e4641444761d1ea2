"""Stale-docs alarms carry evidence (issue 34, rules v6): a line of the section that a change
made untrue or incomplete. An alarm whose section states nothing the change contradicts is
listed as `changed` (the code changed after the doc), not found, and never fails the run.
Each test is a repository built here; each keeps the alarm its class must not swallow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import run
from tests.history_helpers import DAY, EPOCH, commit
from tests.test_stale_classes import _repo

pytestmark = pytest.mark.usefixtures("shared_embeddings")  # tests/conftest.py


def _report(repo: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code, out, err = run(["stale-docs", "--repo", str(repo), "--json"], capsys)
    assert code in (0, 1), err
    return code, json.loads(out)


def _evidence(report: dict[str, Any], part: str = "stale"
              ) -> dict[str, list[tuple[str, str, int]]]:
    return {s["heading"][-1]: [(e["kind"], e["name"], e["line"]) for d in s["definitions"]
                               for e in d.get("evidence", [])]
            for s in report.get(part, [])}


APP = '''class Application:
    def __init__(self, *, logger=None, router=None, debug=False):
        self.logger = logger
        self.router = router or {}
        self.debug = debug
'''
APP_DOC = """Reference
=========

Application
-----------

.. class:: Application(*, logger=None, debug=False)

   The web application: an ``Application``.

   The ``router`` attribute holds the routes.

Sites
-----

Build the ``Application`` with ``Application(router=table)`` to share a table.
"""


def test_a_parameter_the_documented_signature_already_omits_is_no_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/app.py": APP, "docs/reference.rst": APP_DOC})
    commit(repo, "no router parameter", {"pkg/app.py": APP.replace(
        "logger=None, router=None, debug=False", "logger=None, debug=False").replace(
        "router or {}", "{}")}, EPOCH + DAY)
    code, report = _report(repo, capsys)
    # the signature never had `router`; the prose's ``router`` is the attribute, still there
    assert "Application" not in _evidence(report)
    assert [s["heading"][-1] for s in report["changed"]] == ["Application"]
    assert [s["severity"] for s in report["changed"]] == ["changed"]
    # the example passes router= to Application: that call fails now
    assert _evidence(report)["Sites"] == [("removed-parameter", "router", 16)]
    assert code == 1


def test_only_changed_sections_do_not_fail_the_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/app.py": APP, "docs/reference.rst": APP_DOC.split(
        "Sites\n-----")[0]})
    commit(repo, "no router parameter", {"pkg/app.py": APP.replace(
        "logger=None, router=None, debug=False", "logger=None, debug=False")}, EPOCH + DAY)
    code, report = _report(repo, capsys)
    assert report["stale"] == [] and len(report["changed"]) == 1 and code == 0


SITE = '''class TCPSite:
    def __init__(self, runner, host=None, port=None, *, shutdown_timeout=60.0,
                 backlog=128):
        self.runner = runner
        self.backlog = backlog
'''
SITE_DOC = """Running
=======

Sites
-----

.. class:: TCPSite(runner, host=None, port=None, *, \\
                   shutdown_timeout=60.0, backlog=128)

   A ``TCPSite`` serves a runner over TCP.

   :param runner: the runner.

   :param float shutdown_timeout: seconds to wait for handlers on shutdown.
"""


def test_a_removed_parameter_the_signature_lists_is_evidence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/site.py": SITE, "docs/running.rst": SITE_DOC})
    commit(repo, "no shutdown_timeout", {"pkg/site.py": SITE.replace(
        " *, shutdown_timeout=60.0,\n                 backlog=128", " *, backlog=128")},
        EPOCH + DAY)
    code, report = _report(repo, capsys)
    assert _evidence(report) == {"Sites": [("removed-parameter", "shutdown_timeout", 7)]}
    found = report["stale"][0]["definitions"][0]["evidence"][0]
    assert found["quote"].startswith(".. class:: TCPSite(runner")
    assert code == 1


SESSION = '''class Session:
    def __init__(self, middlewares=()):
        self.middlewares = middlewares

    def auth(self, user):
        return user

    def close(self):
        return None
'''
SESSION_DOC = """# Client

## Middleware

A `Session` runs its middlewares:

```python
# middlewares run in order: logging -> auth -> request
session = Session(middlewares=(logging, auth_middleware))
```

## Closing

Call ``session.close()`` on a `Session` when done.
"""


def test_a_member_named_only_in_a_code_comment_is_no_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/session.py": SESSION, "docs/client.md": SESSION_DOC})
    commit(repo, "no auth, no close", {"pkg/session.py": SESSION.split(
        "    def auth")[0]}, EPOCH + DAY)
    _, report = _report(repo, capsys)
    assert _evidence(report) == {"Closing": [("removed-member", "close", 14)]}
    assert "Middleware" in {s["heading"][-1] for s in report["changed"]}


SHIM = '''import warnings


class FilterBackend:
    """Kept for old imports."""

    def __new__(cls):
        warnings.warn("deprecated: use otherpkg.FilterBackend", DeprecationWarning)
        return object.__new__(cls)


def compute_backoff(attempt):
    return 2 ** attempt
'''
SHIM_DOC = """# Filtering

## Third party

The filters package works together with the `FilterBackend` class.

## Backoff

Between attempts the client sleeps `compute_backoff(attempt)` seconds.

## Beat

The schedule is read from the `PeriodicTask` model, with the `IntervalSchedule`
and `CrontabSchedule` helper tables.

## Catalogs

Run `init_catalog -l pt_BR` to write `messages.po` under `LC_MESSAGES`, as `pt_PT` does.

## Dates

Compare two ``Moment`` instances; pass ``None`` for now, ``True`` for `Localization`.
"""


def test_a_removed_name_of_another_package_is_no_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = SHIM + "\n\nclass PeriodicTask:\n    run_every = 5\n\n\ndef init_catalog():\n" \
        "    return 1\n\n\nclass Moment:\n    pass\n"
    repo = _repo(tmp_path, {"pkg/filters.py": code, "docs/filtering.md": SHIM_DOC})
    commit(repo, "drop the shims", {"pkg/filters.py": (
        "def backoff_delay(attempt):\n    return 2 ** attempt\n")}, EPOCH + DAY)
    _, report = _report(repo, capsys)
    # a deprecated shim's name, and a name beside another package's vocabulary: changed only
    # (locale codes and file names beside `init_catalog` are no other package's functions,
    # `None`, `True` and `Localization` beside `Moment` no other package's classes)
    assert _evidence(report) == {"Backoff": [("removed-definition", "compute_backoff", 9)],
                                 "Catalogs": [("removed-definition", "init_catalog", 18)],
                                 "Dates": [("removed-definition", "Moment", 22)]}
    assert {s["heading"][-1] for s in report["changed"]} == {"Third party", "Beat"}


WIDGET = '''class Widget:
    pass


class ScrollView(Widget):
    pass


class Input(Widget):
    def value(self):
        return ""
'''
WIDGET_DOC = """# Events

## Naming

The builtin `Input` class defines its message as follows:

```python
class Input(Widget):
    class Changed(Message):
        ...
```

## Inputs

An `Input` is a `Widget` that takes focus.
"""


def test_an_example_restating_a_base_is_no_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/widgets.py": WIDGET, "docs/events.md": WIDGET_DOC})
    commit(repo, "inputs scroll", {"pkg/widgets.py": WIDGET.replace(
        "class Input(Widget):", "class Input(ScrollView):")}, EPOCH + DAY)
    _, report = _report(repo, capsys)
    assert _evidence(report) == {"Inputs": [("removed-base", "Widget", 15)]}
    assert [s["heading"][-1] for s in report["changed"]] == ["Naming"]


ADMIN = '''class AMQPAdmin:
    def run(self):
        return 0


class Worker:
    def start(self):
        return 1
'''
TREE_DOC = """# Internals

## Dependency tree

* ``pkg.bin.worker.WorkerCommand``
    * ``pkg.apps.Worker``
* ``pkg.task.sets.TaskSet``
* ``pkg.bin.AMQPAdmin``

## Admin

Run ``pkg.bin.AMQPAdmin`` to declare queues.
"""


def test_a_record_of_the_past_is_no_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/bin.py": ADMIN, "pkg/apps.py": "class Worker:\n    pass\n",
                            "docs/internals.md": TREE_DOC})
    commit(repo, "no amqp admin", {"pkg/bin.py": ADMIN.split("class Worker")[0].replace(
        "AMQPAdmin", "Queues")}, EPOCH + DAY)
    _, report = _report(repo, capsys)
    # the tree names two classes gone before it was written: it records an old design
    assert _evidence(report) == {"Admin": [("removed-definition", "AMQPAdmin", 12)]}
    assert [s["heading"][-1] for s in report["changed"]] == ["Dependency tree"]


VALIDATOR = '''class UniqueValidator:
    def __init__(self, queryset, fields, message=None):
        self.queryset, self.fields, self.message = queryset, fields, message
'''
VALIDATOR_DOC = """# Validators

## UniqueValidator

It takes two required arguments and an optional one:

* `queryset` *required*: the rows to check.
* `fields` *required*: the fields to check.
* `message`: the error message.

## Usage

Pass a `UniqueValidator` the `queryset` to check, or none of its `fields` at all.
"""


def test_an_added_parameter_a_list_of_them_misses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pkg/validators.py": VALIDATOR, "docs/validators.md": VALIDATOR_DOC})
    commit(repo, "a condition", {"pkg/validators.py": VALIDATOR.replace(
        "message=None)", "message=None, condition=None)")}, EPOCH + DAY)
    code, report = _report(repo, capsys)
    assert _evidence(report) == {"UniqueValidator": [("missing-parameter", "condition", 7)]}
    assert code == 1


def test_a_plain_name_the_project_qualifies_is_checked_for_removal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    init = "def create(year, month):\n    return (year, month)\n\n\ndef now():\n    return 0\n"
    repo = _repo(tmp_path, {"pkg/__init__.py": init, "docs/dates.md": (
        "# Dates\n\n## Making one\n\n```python\nd = pkg.create(2012, 1)\n```\n\n"
        "## Plain\n\nCall `create` with a year.\n")})
    commit(repo, "create() is gone", {"pkg/__init__.py": init.split("\n\n\n")[1]},
           EPOCH + DAY)
    _, report = _report(repo, capsys)
    # `pkg.create` is the project's; a bare `create` is no name a reader looks up
    assert _evidence(report) == {"Making one": [("removed-definition", "create", 6)]}
