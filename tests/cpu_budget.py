"""The suite's CPU budget (scripts/test passes `--cpu-budget`): every test's CPU seconds, its own
process's and its reaped child processes' (`getrusage`: setup, call and teardown, so a module
fixture counts on the test that set it up), summed over the run and printed with the 20 largest;
a test over `--cpu-budget` seconds fails the run unless LISTED below gives it a budget of its
own and the reason. CPU time, not wall time: a loaded machine (CI, other work) stretches a
test's wall time many times over and its CPU time far less, so the bar holds there too; the
budgets sit ~1.5x above what the listed tests measured at a load of 12 on 2 cores (/work/tmp
profiles, round 20). Not counted: a process a test starts and never waits for (a detached model
helper, a Ray cluster's workers); and the total has no bar of its own, it is printed to be read
beside the wall time (scripts/test's budget: the whole command under 5 minutes on 2 cores)."""

from __future__ import annotations

import resource
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

# nodeid (no parameters: every case of a parametrized test) -> (CPU seconds, why it needs them)
LISTED: dict[str, tuple[float, str]] = {
    "tests/test_verb_members.py::test_the_readme_question_on_this_repository_cites_build_with_"
    "files_first": (36.0, "the README's first command on this whole repository"),
    "tests/test_replicas_mcp.py::test_mcp_replicas_share_a_conversation_and_serialize_its_"
    "turns": (28.0, "three MCP server processes and a kill"),
    "tests/test_cluster_evals.py::test_the_ranker_trained_on_a_ray_cluster_is_the_model_"
    "trained_here": (24.0, "trains the ranker on a real Ray cluster and here"),
    "tests/test_large_repo.py::test_indexing_memory_grows_far_less_than_the_repository":
        (24.0, "indexes 250 and 1,000 generated files in processes to read their peak RSS"),
    "tests/test_model_helper.py::test_in_process_the_envelope_says_what_the_import_cost_and_no_"
    "dotenv_is_read": (20.0, "an ask that imports litellm in its own process"),
    "tests/test_absence_sets.py::test_the_cached_vectors_are_the_encoders":
        (30.0, "its module's sweep: the contract over every absence set (32 sets, round 30's "
               "clause features: 21.2 s in the whole suite at load ~4)"),
    "tests/test_named_concept.py::test_the_named_concept_document_comes_first":
        (20.0, "its module's index of 800 generated files"),
    "tests/test_replicas.py::test_replicas_share_conversations_serialize_turns_and_survive_a_"
    "kill": (18.0, "three HTTP server processes and a kill"),
    "tests/test_mcp_server.py::test_the_sdk_client_over_stdio_calls_every_tool":
        (16.0, "the MCP SDK's client over a real stdio server process"),
    "tests/test_html_report.py::test_the_changes_page_draws_drift_and_stale_docs":
        (16.0, "drift and stale-docs runs drawn in a headless browser"),
    "tests/test_cluster_index.py::test_cluster_local_starts_a_cluster_of_its_own":
        (15.0, "starts a Ray cluster of its own"),
    "tests/test_model_helper.py::test_a_helper_answers_the_providers_errors_then_stops_when_idle":
        (14.0, "a model helper process (litellm's import) answering errors"),
    "tests/test_conversations.py::test_conversation_suite_has_sixty_conversations_that_pass_"
    "per_transition_class": (13.0, "the sixty written conversations, each turn run"),
    "tests/test_unit_denials_sets.py::test_a_denial_is_never_answered_in_the_unit_nor_confirmed":
        (12.0, "every written unit-denial set with the shipped encoder"),
    "tests/test_server_limits.py::test_mcp_over_http_checks_the_host_with_its_port_and_bounds_"
    "slow_clients": (12.0, "an MCP-over-HTTP server process and slow clients"),
    "tests/test_model_helper_early.py::test_a_dead_or_hung_helper_is_dropped_in_one_line":
        (12.0, "helpers that die or hang, each in a process of its own"),
    "tests/test_vocabulary.py::test_a_whole_message_routes_to_its_intent":
        (11.0, "every written message through the router"),
    "tests/test_architecture_doc.py::test_every_named_file_function_and_setting_exists":
        (11.0, "parses every module docs/architecture.md names"),
}
# `--cpu-budget` in scripts/test. Not lower: the first test in a worker to import litellm (or
# torch) pays the import, ~3 CPU s at load 1 and up to ~8 at load 14, and which test that is
# depends on how xdist deals the modules out; the unlisted tests measured up to ~7 at load 14.
DEFAULT_S = 10.0
SHOWN = 20


@dataclass(frozen=True)
class Spent:
    nodeid: str
    self_s: float
    child_s: float

    @property
    def cpu_s(self) -> float:
        return self.self_s + self.child_s


def listed_key(nodeid: str) -> str:
    """A test's key in LISTED: its node id without the parameters."""
    return nodeid.split("[", 1)[0]


def over_budget(spent: Iterable[Spent], default_s: float,
                listed: dict[str, tuple[float, str]] = LISTED) -> list[tuple[Spent, float]]:
    """The tests whose CPU seconds exceed their budget (LISTED's, or the default), largest
    first."""
    over = []
    for row in spent:
        budget = listed[listed_key(row.nodeid)][0] if listed_key(row.nodeid) in listed \
            else default_s
        if row.cpu_s > budget:
            over.append((row, budget))
    return sorted(over, key=lambda pair: (-pair[0].cpu_s, pair[0].nodeid))


def summary(spent: list[Spent], shown: int = SHOWN) -> list[str]:
    """The total CPU of the tests and the `shown` largest, one line each."""
    total = sum(row.cpu_s for row in spent)
    lines = [f"tests' CPU: {total:.1f} s over {len(spent)} tests "
             f"({sum(row.self_s for row in spent):.1f} s in the test processes, "
             f"{sum(row.child_s for row in spent):.1f} s in child processes they waited for)"]
    for row in sorted(spent, key=lambda r: (-r.cpu_s, r.nodeid))[:shown]:
        lines.append(f"{row.cpu_s:7.2f} s  (child {row.child_s:6.2f})  {row.nodeid}")
    return lines


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-budget", type=float, default=None, metavar="SECONDS",
                     help="print the tests' CPU seconds and the 20 largest; fail the run when "
                          "a test not listed in tests/cpu_budget.py takes more")


_STARTED: dict[str, tuple[float, float]] = {}
_SPENT: list[Spent] = []


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _STARTED[item.nodeid] = _cpu()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    if call.when != "teardown" or item.nodeid not in _STARTED:
        return
    own0, children0 = _STARTED.pop(item.nodeid)
    own1, children1 = _cpu()
    report: Any = outcome.get_result()
    # a report property reaches the xdist controller with the report
    report.user_properties.append(("cpu_s", (own1 - own0, children1 - children0)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "teardown":
        return
    for name, value in report.user_properties:
        if name == "cpu_s":
            _SPENT.append(Spent(report.nodeid, float(value[0]), float(value[1])))


def _in_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")  # the xdist controller, or a run without xdist


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    budget = session.config.getoption("--cpu-budget")
    if budget is None or not _in_controller(session.config):
        return
    if over_budget(_SPENT, budget) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    budget = config.getoption("--cpu-budget")
    if budget is None or not _in_controller(config) or not _SPENT:
        return
    terminalreporter.section("CPU seconds (tests/cpu_budget.py)")
    for line in summary(_SPENT):
        terminalreporter.write_line(line)
    for row, allowed in over_budget(_SPENT, budget):
        terminalreporter.write_line(
            f"OVER BUDGET: {row.nodeid} took {row.cpu_s:.1f} CPU s (its budget {allowed:g}): "
            "make it cheaper, or list it in tests/cpu_budget.py with the reason", red=True)
