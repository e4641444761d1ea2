"""An index for one command, when the index directory cannot be written and holds no usable
index (a read-only `$HELIX_HOME`): built lexically (no embeddings: no model is loaded for one
answer) into a private temporary directory, used by this process, removed when it exits.
The repository is read as for any index (walk rules, secrets masked); nothing is kept.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from helix.core.config import HelixConfig
from indexers.reader import Index
from indexers.reports import BuildReport
from indexers.store import IndexStore

TEMP_PREFIX = "helix-index-"


def temporary_index(root: Path, config: HelixConfig) -> tuple[Index, BuildReport]:
    """The lexical index of `root`, built now into a temporary directory (0700, removed at
    exit). OSError when no temporary directory can be written either."""
    from indexers.build import build_index

    directory = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    atexit.register(shutil.rmtree, directory, True)
    lexical = config.model_copy(update={
        "index": config.index.model_copy(update={"embed_enabled": False})})
    store_dir = directory / "index"
    report = build_index(root, lexical, index_dir=store_dir)
    index = Index.open(IndexStore(store_dir), root, lexical.index,
                       verified_rev=report.index_rev)
    # nothing of the user's index was refreshed: the report says so
    return index, report.model_copy(update={"refreshed": False, "changed_files": ()})
