"""Which code changes a documentation section would have to follow (helix.staledocs.relevance,
issue 34): mentioned as code, not as a word of prose."""

from __future__ import annotations

from helix.core.changes import CodeChange
from helix.core.history_settings import StaleDocsSettings
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


def test_an_added_parameter_counts_for_a_section_listing_the_parameters() -> None:
    assert not _kept(ADDED, "Pass `timeout=` to wait longer.")
    assert _kept(ADDED, "Parameters: `proxies`, `timeout`, `verify`.")


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
    assert _kept(base, "A `Request` is a `Mapping` of its scope.")
    assert not _kept(base, "A `Request` holds the scope.")


def test_sections_written_from_docstrings_are_recognised() -> None:
    assert GENERATED.search("## `Client`\n\n::: httpx.Client\n    :docstring:\n")
    assert GENERATED.search(".. autoclass:: pint.UnitRegistry\n   :members:\n")
    assert not GENERATED.search("Use the `Client` class: it pools connections.\n")


def test_history_documents_are_skipped_whatever_their_case() -> None:
    skip = StaleDocsSettings().skip
    assert skipped("docs/source/history.rst", skip) and skipped("HISTORY.md", skip)
    assert skipped("docs/Changelog.md", skip) and not skipped("docs/guide.md", skip)
