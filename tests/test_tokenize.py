from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from indexers.tokenize import STOPWORDS, tokenize


def test_snake_case_kept_whole_and_split() -> None:
    assert tokenize("get_user_name") == ["get_user_name", "get", "user", "name"]


def test_camel_and_pascal_case_with_acronyms() -> None:
    assert tokenize("getUserName") == ["getusername", "get", "user", "name"]
    assert tokenize("HTTPServerError") == ["httpservererror", "http", "server", "error"]


def test_digits_split_off_and_numbers_kept() -> None:
    assert tokenize("utf8 base64 404") == ["utf8", "utf", "base64", "base", "64", "404"]


def test_dotted_names_give_whole_name_then_pieces() -> None:
    assert tokenize("os.path.join(a, b)") == ["os.path.join", "os", "path", "join"]
    assert tokenize("self._cache_dir") == [
        "self._cache_dir", "self", "_cache_dir", "cache", "dir"]


def test_stopwords_and_single_characters_dropped() -> None:
    assert tokenize("Where is the retry policy decided? x = y") == [
        "retry", "policy", "decided"]
    assert "the" in STOPWORDS and "return" not in STOPWORDS and "self" not in STOPWORDS
    assert tokenize("return yield class def all any") == [
        "return", "yield", "class", "def", "all", "any"]


def test_dunder_and_plain_words() -> None:
    assert tokenize("__init__") == ["__init__", "init"]
    assert tokenize("Parser") == ["parser"]


def test_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("  ... ,;: () {} ") == []


def test_non_ascii_identifiers_lowercased_whole() -> None:
    assert tokenize("Café_Bar") == ["café_bar", "café", "bar"]


def test_deterministic_and_memo_consistent() -> None:
    text = "class HTTPServerError(Exception): pass  # getUserName os.path.join"
    assert tokenize(text) == tokenize(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_tokens_are_lowercase_long_enough_and_not_stopwords(text: str) -> None:
    tokens = tokenize(text)
    assert tokens == tokenize(text)
    for token in tokens:
        assert token == token.lower()
        assert len(token) >= 2
        assert token not in STOPWORDS
        assert token.strip() == token and token


@settings(max_examples=100, deadline=None)
@given(st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,12}", fullmatch=True), max_size=8))
def test_whole_identifier_always_kept(words: list[str]) -> None:
    tokens = set(tokenize(" ".join(words)))
    for word in words:
        if len(word) >= 2 and word.lower() not in STOPWORDS:
            assert word.lower() in tokens
