"""Where all Helix state lives (`$HELIX_HOME`), without importing the settings: the model
helper's early start (`helix.cli.early_helper`) reads it before anything heavy is imported;
`helix.core.config.helix_home` is this function."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from helix.core.errors import ConfigError

PRIVATE_UMASK = 0o077  # what Helix writes (indexes, run log, sessions, exports): 0600 / 0700


def _named_dir(env: Mapping[str, str], name: str) -> Path | None:
    """The directory the environment variable `name` names (`~` expanded, resolved), else None;
    a value that cannot be used (a symlink loop, an unknown ~user) is a one-line ConfigError."""
    if not env.get(name):
        return None
    try:
        return Path(env[name]).expanduser().resolve()
    except (RuntimeError, OSError) as exc:
        raise ConfigError(f"{name}={env[name]!r} cannot be used: {exc}") from None


def helix_home(env: Mapping[str, str] | None = None) -> Path:
    """Where all Helix state lives: `$HELIX_HOME`, else the per-user cache directory."""
    env = os.environ if env is None else env
    home = _named_dir(env, "HELIX_HOME")
    if home is not None:
        return home
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("helix", appauthor=False))


def models_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where exported embedding models are kept: `$HELIX_MODELS_DIR` (the user's environment
    only, never a repository's config: one export shared by several homes, or a directory
    prepared once for a fleet), else `$HELIX_HOME/models`."""
    env = os.environ if env is None else env
    return _named_dir(env, "HELIX_MODELS_DIR") or helix_home(env) / "models"


def embeddings_dir(env: Mapping[str, str] | None = None) -> Path | None:
    """Where the embedding cache is kept when the user names it: `$HELIX_EMBEDDINGS_DIR` (the
    user's environment only, never a repository's config: one cache of vectors, keyed by model
    and text, shared by several homes), else None (`$HELIX_HOME/embeddings`)."""
    return _named_dir(os.environ if env is None else env, "HELIX_EMBEDDINGS_DIR")
