"""Which code changes a documentation section would have to follow (helix.staledocs.relevance,
issue 34): mentioned as code, not as a word of prose."""

from __future__ import annotations

from helix.core.changes import CodeChange
from helix.core.history_settings import StaleDocsSettings
from helix.staledocs.archives import archived, older_versions, release_history, version_heading
from helix.staledocs.relevance import about, counted, words
from helix.staledocs.sections import GENERATED, skipped

SETTINGS = StaleDocsSettings()
REMOVED = CodeChange(kind="parameters", detail="removed proxies", names=("proxies",))
ADDED = CodeChange(kind="parameters", detail="added http2", names=("http2",))
BODY = CodeChange(kind="body", detail="the body's code changed")


def _kept(change: CodeChange, text: str, heading: tuple[str, ...] = ("Guide",),
          params: tuple[str, ...] = ("proxies", "timeout", "verify", "cert")) -> bool:
    return bool(counted([change], params_then=params, heading=heading, symbol="Client",
                        text=text, settings=SETTINGS))


def test_words_are_identifiers_written_as_code() -> None:
    text = ("Send requests through HTTP proxies with a `Client`.\n"
            "Pass timeout=5 or call send_all().\n```python\nclient = make(verify=False)\n```\n"
            ">>> load(cert, 'my-app')\n")
    said = words(text)
    for name in ("Client", "timeout", "send_all", "client", "make", "verify", "load", "cert"):
        assert name in said, name
    for name in ("proxies", "requests", "app"):
        assert name not in said, name
    assert {"Client", "verify", "send_all", "timeout"} <= said.named
    assert "client" not in said.named  # assigned in an example, not a name stated


def test_a_removed_parameter_counts_when_the_section_mentions_it_as_code() -> None:
    assert not _kept(REMOVED, "Send requests through HTTP proxies.")
    assert _kept(REMOVED, "Use `Client(proxies=...)` to send through a proxy.")


def test_an_added_parameter_counts_for_a_section_about_it_listing_the_parameters() -> None:
    assert not _kept(ADDED, "Pass `timeout=` to wait longer.", heading=("Client",))
    assert _kept(ADDED, "Parameters: `proxies`, `timeout`, `verify`.", heading=("Client",))
    # a guide calling it with its options is no reference of them
    assert not _kept(ADDED, "Parameters: `proxies`, `timeout`, `verify`.", heading=("Usage",))


def test_a_section_is_about_a_definition_its_heading_is() -> None:
    assert about(("API", "The `Client` class"), "httpx.Client")
    assert about(("Background Task",), "BackgroundTask") and about(("API", "Client"), "Client")
    assert not about(("API", "The Client"), "Client") and not about(("Usage",), "Client")
    assert not about(("Schema-level Validation",), "Schema")


def test_a_body_change_counts_only_when_switched_on() -> None:
    assert not _kept(BODY, "`Client` pools connections.", heading=("API", "Client"))
    on = SETTINGS.model_copy(update={"body_changes": True})
    assert counted([BODY], params_then=(), heading=("API", "Client"), symbol="Client",
                   text="`Client` pools connections.", settings=on)
    assert not counted([BODY], params_then=(), heading=("Usage",), symbol="Client",
                       text="`Client` pools connections.", settings=on)


def test_a_changed_base_counts_when_the_section_names_it() -> None:
    base = CodeChange(kind="signature", detail="class Request ( Mapping ) -> class Request ( "
                                               "HTTPConnection )", names=("Mapping",))
    def kept(text: str) -> bool:
        return bool(counted([base], params_then=(), heading=("Guide",), symbol="Request",
                            text=text, settings=SETTINGS))

    assert kept("A `Request` is a `Mapping` of its scope.")
    assert not kept("A `Request` holds the scope.")
    # named apart: the guide uses both, it does not say one is the other's base
    assert not kept("Build a `Request`.\n\nRead the scope as a `Mapping`.")


def test_sections_written_from_docstrings_are_recognised() -> None:
    assert GENERATED.search("## `Client`\n\n::: httpx.Client\n    :docstring:\n")
    assert GENERATED.search(".. autoclass:: pint.UnitRegistry\n   :members:\n")
    assert not GENERATED.search("Use the `Client` class: it pools connections.\n")


def test_history_documents_are_skipped_whatever_their_case() -> None:
    skip = StaleDocsSettings().skip
    assert skipped("docs/source/history.rst", skip) and skipped("HISTORY.md", skip)
    assert skipped("docs/Changelog.md", skip) and not skipped("docs/guide.md", skip)


def test_release_headings_and_older_version_directories_are_recognised() -> None:
    for title in ("4.13.3 / 2015-08-02", "Trio 0.22.0 (2022-09-28)", "[1.0.0] - 2017-06-20",
                  "Release 3.4", "10.4.0", "v2.1.0 (unreleased)", "``1.2.3``",
                  "Version 2.1.0 \u2014 January 5, 2020"):
        assert version_heading(title), title
    for title in ("Timeouts", "Python 3.8 support", "1.2 Installing", "Using v2 of the API"):
        assert not version_heading(title), title
    assert release_history([("Log", "2.0.0"), ("Log", "1.0.0 (2020-01-01)")], 2)
    assert not release_history([("Guide", "Python 3.8"), ("Guide", "Timeouts")], 2)
    assert older_versions(["docs/v1/a.md", "docs/v2/b.md", "docs/v3/c.md", "blog/2023/p.md",
                           "blog/2024/q.md", "api/1.x/a.md", "api/2.x/a.md", "one/v2/a.md"]
                          ) == {"docs/v1/", "docs/v2/", "api/1.x/"}
    assert archived("doc/release/release_3.4.rst", SETTINGS.history_dirs, set())
    assert archived("docs/reference/previous-versions/v3.md", SETTINGS.history_dirs, set())
    assert not archived("docs/reference/api.md", SETTINGS.history_dirs, set())
    assert skipped("docs/versions.rst", SETTINGS.skip)
    assert skipped("change-archive.txt", SETTINGS.skip)


def test_spelled_out_kwargs_and_a_dropped_object_base_are_no_findings() -> None:
    spelled = CodeChange(kind="parameters", detail="added location, as_kwargs",
                         names=("location", "as_kwargs"))
    text = "The view gets the parsed `args` as `**kwargs`."
    assert not _kept(spelled, text, params=("*args", "**kwargs"))
    assert _kept(spelled, "`use_kwargs(argmap, location)` takes `argmap` and `location`.",
                 heading=("Client",), params=("argmap", "location", "*args"))
    dropped = CodeChange(kind="signature", detail="class Collection ( object ) -> class "
                         "Collection", names=("object",))
    assert not _kept(dropped, "```python\nns = Collection(object())\n```")


def test_an_rst_literal_block_is_code_and_its_calls_keywords_are_the_callees() -> None:
    said = words("Send through a proxy like this::\n\n    from pkg import Client\n"
                 "    client = Client(proxies={'all': 'http://p'},\n"
                 "                    transport=Rotating(proxies=many))\n\n"
                 "Then the Client class.\n")
    assert {"pkg", "Client", "client"} <= said.code
    assert said.passed_to("Client") == {"proxies", "transport"}
    assert said.passed_to("Rotating") == {"proxies"}
    assert "proxies" not in said.prose and "pkg" not in said.named
