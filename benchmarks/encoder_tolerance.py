"""The encoders' agreement, measured under the installed onnxruntime / onnx (issue 29): the
tolerances of tests/test_encoder.py and tests/test_encoder_onnx.py come from these numbers,
across the versions the lock and pyproject.toml allow, not from one machine.

For the texts of tests/test_encoder_onnx.py: the lowest cosine of the ONNX fp32 export and of
the int8 quantized model against the numpy reference encoder, and of the numpy encoder against
sentence-transformers. One run per (onnxruntime, onnx, CPU) is kept in
benchmarks/results/encoder_tolerance.json (a run under the same versions replaces the earlier).

    python benchmarks/encoder_tolerance.py          # in each environment to measure
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULT = ROOT / "benchmarks" / "results" / "encoder_tolerance.json"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def _cpu() -> str:
    flags: set[str] = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    wide = [f for f in ("avx512_vnni", "avx_vnni", "avx512f", "avx2") if f in flags]
    return "+".join(wide) or "unknown"


def measure() -> dict[str, Any]:
    import onnx
    import onnxruntime
    from test_encoder_onnx import MODEL_DIR, MODEL_PATH, TEXTS

    from indexers.encoder import NumpyMiniLMEncoder, SentenceTransformerEmbedder
    from indexers.onnx_encoder import VARIANT_FP32, VARIANT_INT8, OnnxEncoder, ensure_model

    reference = NumpyMiniLMEncoder(MODEL_PATH).embed(TEXTS)
    home = Path(tempfile.mkdtemp(prefix="encoder_tolerance-"))
    ensure_model(MODEL_DIR, VARIANT_INT8, home)  # exported and quantized under these versions
    cosines: dict[str, list[float]] = {}
    for variant in (VARIANT_FP32, VARIANT_INT8):
        vectors = OnnxEncoder(MODEL_PATH, variant, home=home).embed(TEXTS)
        cosines[f"onnx_{variant}"] = [round(float(c), 5) for c in (vectors * reference).sum(1)]
    from helix.core.config import IndexSettings

    st = SentenceTransformerEmbedder.from_settings(IndexSettings()).embed(TEXTS)
    cosines["numpy_vs_sentence_transformers"] = [round(float(c), 6)
                                                 for c in (reference * st).sum(1)]
    return {"onnxruntime": onnxruntime.__version__, "onnx": onnx.__version__,
            "numpy": np.__version__, "cpu": _cpu(),
            "min": {k: min(v) for k, v in cosines.items()}, "cosines": cosines}


def main() -> None:
    run = measure()
    old = json.loads(RESULT.read_text(encoding="utf-8")) if RESULT.exists() else {"runs": []}
    key = (run["onnxruntime"], run["onnx"], run["cpu"])
    runs = [r for r in old["runs"] if (r["onnxruntime"], r["onnx"], r["cpu"]) != key]
    runs.append(run)
    runs.sort(key=lambda r: (r["onnxruntime"], r["onnx"], r["cpu"]))
    lowest = {k: min(r["min"][k] for r in runs) for k in run["min"]}
    out = {"runs": runs, "lowest_across_runs": lowest}
    tmp = RESULT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(RESULT)
    print(json.dumps({"this_run": run["min"], "versions": key, "lowest": lowest}, indent=2))


if __name__ == "__main__":
    main()
