"""The encoders' agreement, measured under the installed onnxruntime / onnx (issue 29): the
tolerances of tests/test_encoder.py and tests/test_encoder_onnx.py come from these numbers,
across the versions the lock and pyproject.toml allow, not from one machine.

For the texts of tests/test_encoder_onnx.py: the lowest cosine of the ONNX fp32 export and of
the int8 quantized model against the numpy reference encoder, and of the numpy encoder against
sentence-transformers. One run per (onnxruntime, onnx, CPU) is kept in
benchmarks/results/encoder_tolerance.json (a run under the same versions replaces the earlier).

    python benchmarks/encoder_tolerance.py          # in each environment to measure
    qemu-x86_64 -cpu Haswell "$(python -c "import sys; print(sys.executable)")" \
        benchmarks/encoder_tolerance.py --cpu haswell-emulated --no-torch
                                    # the same on an emulated CPU without AVX-512 (no VNNI)

`--cpu` labels the run (the default reads /proc/cpuinfo, which shows the host's flags under
an emulator); `--no-torch` skips the sentence-transformers comparison (torch is slow under
an emulator).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from _result import show, write_result

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


def measure(cpu: str, with_torch: bool) -> dict[str, Any]:
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
    if with_torch:
        from helix.core.config import IndexSettings

        st = SentenceTransformerEmbedder.from_settings(IndexSettings()).embed(TEXTS)
        cosines["numpy_vs_sentence_transformers"] = [round(float(c), 6)
                                                     for c in (reference * st).sum(1)]
    return {"onnxruntime": onnxruntime.__version__, "onnx": onnx.__version__,
            "numpy": np.__version__, "cpu": cpu,
            "min": {k: min(v) for k, v in cosines.items()}, "cosines": cosines}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", default=None, help="label of the CPU (default: its flags)")
    parser.add_argument("--no-torch", action="store_true",
                        help="skip the sentence-transformers comparison")
    args = parser.parse_args()
    run = measure(args.cpu or _cpu(), not args.no_torch)
    old = json.loads(RESULT.read_text(encoding="utf-8")) if RESULT.exists() else {"runs": []}
    key = (run["onnxruntime"], run["onnx"], run["cpu"])
    runs = [r for r in old["runs"] if (r["onnxruntime"], r["onnx"], r["cpu"]) != key]
    runs.append(run)
    runs.sort(key=lambda r: (r["onnxruntime"], r["onnx"], r["cpu"]))
    lowest = {k: min(r["min"][k] for r in runs if k in r["min"])
              for k in sorted({k for r in runs for k in r["min"]})}
    out = {"runs": runs, "lowest_across_runs": lowest}
    write_result(RESULT, out)
    show({"this_run": run["min"], "versions": key, "lowest": lowest})


if __name__ == "__main__":
    main()
