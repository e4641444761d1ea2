"""Where all Helix state lives (`$HELIX_HOME`), without importing the settings: the model
helper's early start (`helix.cli.early_helper`) reads it before anything heavy is imported;
`helix.core.config.helix_home` is this function."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from helix.core.errors import ConfigError

PRIVATE_UMASK = 0o077  # what Helix writes (indexes, run log, sessions, exports): 0600 / 0700


def helix_home(env: Mapping[str, str] | None = None) -> Path:
    """Where all Helix state lives: `$HELIX_HOME`, else the per-user cache directory."""
    env = os.environ if env is None else env
    if env.get("HELIX_HOME"):
        try:
            return Path(env["HELIX_HOME"]).expanduser().resolve()
        except (RuntimeError, OSError) as exc:  # a symlink loop, an unknown ~user
            raise ConfigError(f"HELIX_HOME={env['HELIX_HOME']!r} cannot be used: {exc}"
                              ) from None
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("helix", appauthor=False))


def models_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where exported embedding models are kept: `$HELIX_MODELS_DIR` (the user's environment
    only, never a repository's config: one export shared by several homes, or a directory
    prepared once for a fleet), else `$HELIX_HOME/models`."""
    env = os.environ if env is None else env
    if env.get("HELIX_MODELS_DIR"):
        try:
            return Path(env["HELIX_MODELS_DIR"]).expanduser().resolve()
        except (RuntimeError, OSError) as exc:
            raise ConfigError(f"HELIX_MODELS_DIR={env['HELIX_MODELS_DIR']!r} cannot be used: "
                              f"{exc}") from None
    return helix_home(env) / "models"
