"""Which definition a question names: the project's own name is not one of its classes
(`indexers.project`), "Owner's member" names the owner's method (`controller.names.
member_names`), and same-named definitions are ordered by the question's other words."""

from __future__ import annotations

from route_helpers import ROUTING, route_question

from controller.channels import Request, execute
from controller.names import member_names, question_names
from helix.core.policy import Pools
from helix.core.schemas import FileRecord
from indexers.project import project_names
from tests.controller_helpers import ask, files_index


def _record(path: str, kind: str = "code") -> FileRecord:
    return FileRecord(path=path, content_hash="sha256:0", size=1, kind=kind)  # type: ignore[arg-type]


def test_project_names_are_the_directories_most_code_lives_under() -> None:
    java = [f"core/src/main/java/org/apache/shiro/{n}.java" for n in "abcd"]
    assert project_names([_record(p) for p in java]) >= {"org", "apache", "shiro", "src"}
    python = ["pkg/a.py", "pkg/b.py", "pkg/sub/c.py", "tools/d.py", "tests/test_a.py",
              "tests/test_b.py", "tests/test_c.py", "docs/index.md"]
    records = [_record(p, "doc" if p.endswith(".md") else "code") for p in python]
    assert project_names(records) == {"pkg"}  # tests and docs do not count
    assert project_names([_record("pkg/a.py")]) == frozenset()  # too small to tell


PROJECT = {
    "reflex/constants.py": 'class Reflex:\n    """Base constants concerning Reflex."""\n'
                           '    MODULE_NAME = "reflex"\n',
    "reflex/event.py": "class EventHandler:\n    \"\"\"Wraps a state method.\"\"\"\n\n"
                       "    def bind(self, state):\n        \"\"\"Bind the event handler to a "
                       "state instance.\"\"\"\n        return state\n",
    "reflex/state.py": "class State:\n    \"\"\"The app state.\"\"\"\n",
    "reflex/app.py": "class App:\n    \"\"\"The app.\"\"\"\n",
}


def test_the_projects_own_name_capitalised_is_not_looked_up_as_a_class() -> None:
    index = files_index(PROJECT)
    loose = Request(channel="symbol", query="Reflex", k=5, capitalised=True)
    assert execute(index, loose, None, Pools()).found == ()
    spelled = Request(channel="symbol", query="Reflex", k=5)  # `Reflex` spelled as code
    assert [f.chunk.symbol for f in execute(index, spelled, None, Pools()).found] == ["Reflex"]
    env = ask(index, "How does Reflex bind event handlers to a state instance?")
    assert env.evidence[0].path == "reflex/event.py"


MAPPERS = {
    "jaxrs/AuthenticatedMapper.java": (
        "public class AuthenticatedMapper {\n"
        "    public Response toResponse(Exception exception) {\n"
        "        return Response.status(401).build();\n    }\n}\n"),
    "jaxrs/UnauthorizedMapper.java": (
        "public class UnauthorizedMapper {\n"
        "    public Response toResponse(Exception exception) {\n"
        "        if (LOG.isDebugEnabled()) {\n"
        "            LOG.debug(\"unauthorized.\", exception);\n"
        "        }\n        return Response.status(403).build();\n    }\n}\n"),
}


def test_owner_and_member_named_together_are_looked_up_qualified() -> None:
    plan = route_question("What does debug logging cost in UnauthorizedMapper's toResponse "
                          "method?")
    assert member_names(plan) == ["UnauthorizedMapper.toResponse"]
    plan = route_question("How does setFilterConfig in AbstractFilter read the config?")
    assert member_names(plan) == ["AbstractFilter.setFilterConfig"]
    assert member_names(route_question("What does toResponse return?")) == []


def test_same_named_definitions_come_in_the_order_of_the_questions_other_words() -> None:
    index = files_index(MAPPERS)
    request = Request(channel="symbol", query="toResponse", k=5,
                      context=("debug", "unauthorized", "mapper"))
    found = [f.chunk.symbol for f in execute(index, request, None, Pools()).found]
    assert found == ["UnauthorizedMapper.toResponse", "AuthenticatedMapper.toResponse"]
    env = ask(index, "What overhead does debug logging add in UnauthorizedMapper's toResponse "
                     "method?")
    symbols = [e.symbol for e in env.evidence]
    assert env.evidence[0].path == "jaxrs/UnauthorizedMapper.java"
    assert symbols.index("UnauthorizedMapper.toResponse") < symbols.index(
        "AuthenticatedMapper.toResponse")


NESTED = {
    "jaxrs/ShiroSecurityContext.java": (
        "public class ShiroSecurityContext {\n"
        "    private static class ObjectPrincipal {\n"
        "        public String toString() {\n            return object.toString();\n"
        "        }\n    }\n}\n"),
    "core/DelegatingSubject.java": (
        "public class DelegatingSubject {\n"
        "    public String toString() {\n        return \"subject\";\n    }\n}\n"),
}


def test_owner_dot_member_finds_a_nested_owners_member() -> None:
    index = files_index(NESTED)
    request = Request(channel="symbol", query="ObjectPrincipal.toString", k=5)
    found = [f.chunk.symbol for f in execute(index, request, None, Pools()).found]
    assert found == ["ShiroSecurityContext.ObjectPrincipal.toString"]


BUILT_BY_METHOD = {
    "search/index.py": (
        "class SearchIndex:\n    \"\"\"Postings of the search index.\"\"\"\n\n"
        "    @classmethod\n    def build(cls, docs):\n"
        "        \"\"\"Tokenize every document and count its terms.\"\"\"\n        return cls()\n\n"
        "    def query(self, text):\n        \"\"\"The documents matching text.\"\"\"\n"
        "        return []\n"),
    "search/cli.py": "from search.index import SearchIndex\n\n\n"
                     "def main(docs):\n    \"\"\"Print the search index size.\"\"\"\n"
                     "    print(SearchIndex)\n",
}


def test_where_is_x_built_looks_up_the_build_method_of_x() -> None:
    """"where is the search index built?": `SearchIndex.build` is named by the subject and the
    action, and the answer leads with it, not with the class."""
    plan = route_question("where is the search index built?")
    assert ("SearchIndex.build", ()) in question_names(plan, True, ROUTING)
    env = ask(files_index(BUILT_BY_METHOD), "where is the search index built?")
    assert "SearchIndex.build" in [e.symbol for e in env.evidence][:2]
    assert env.answer.splitlines()[0] == ("The search index is built in `SearchIndex.build`, "
                                          "search/index.py:4-7:")
