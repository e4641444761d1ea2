"""Resolving the configuration of a repository without a config of its own validates the
settings once (the final config), not twice: the settings in force before the repository's
tables (the baseline its limits may only lower) are validated only when it has a table."""

from __future__ import annotations

from pathlib import Path

import pytest

from helix.core import config as hc


def _validations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    seen: list[object] = []
    real = hc.HelixConfig.model_validate.__func__  # type: ignore[attr-defined]

    def validate(cls: type[hc.HelixConfig], data: object, **kw: object) -> hc.HelixConfig:
        seen.append(data)
        return real(cls, data, **kw)

    monkeypatch.setattr(hc.HelixConfig, "model_validate", classmethod(validate))
    return seen


def test_a_repository_without_a_config_is_validated_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _validations(monkeypatch)
    config = hc.load_config(tmp_path, env={}, flags={"index.max_file_bytes": 1000})
    assert len(seen) == 1 and config.index.max_file_bytes == 1000


def test_a_repository_table_is_still_held_to_the_limits_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".helix.toml").write_text("[helix.index]\nmax_file_bytes = 10\n",
                                          encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.helix.index]\nmax_file_bytes = 999999999999\n", encoding="utf-8")
    seen = _validations(monkeypatch)
    config, notices = hc.resolve_config(tmp_path, env={})
    assert len(seen) == 2  # the baseline, then the config
    default = hc.HelixConfig().index.max_file_bytes
    # pyproject's value, read last, may not raise the limit above the baseline's
    assert config.index.max_file_bytes <= default and any("max_file_bytes" in n for n in notices)
