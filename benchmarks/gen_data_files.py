"""Data files of a real monorepo, for `gen_large_repo.py --data-share`: fixtures, configs,
tables, lock files, snapshots, as deterministic text for a seed.

    data_files(count, rng) -> {path: text}

Kinds, in turn: JSON API fixtures (pretty and minified: ids, UUIDs, SHAs, etags, URLs,
base64 thumbnails), JSON Lines event logs, CSV tables (time series and records with hashes),
Kubernetes manifests and CI workflows (YAML: image digests, env names, secret references),
OpenAPI specs, lock files the walker does not ignore (requirements with `--hash=sha256:`,
flake.lock, pubspec.lock, Podfile.lock, packages.lock.json, gradle.lockfile, mix.lock), test
snapshots, SQL dumps, translation catalogues, GeoJSON and SVG icons. Sizes follow a long tail
(most a few KB, some a few hundred KB). A few fixtures hold a planted fake credential each, as
test fixtures do (so masking has something to mask); the rest is what a secret scanner must
read through without finding anything.
"""

from __future__ import annotations

import base64
import json
import random
import uuid
from collections.abc import Callable

WORDS = ("alpha", "bravo", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo",
         "juniper", "kelvin", "lumen", "meadow", "nimbus", "onyx", "pylon", "quartz", "raven",
         "sierra", "tundra", "umber", "vertex", "willow", "xenon", "yarrow", "zephyr")
CITIES = ("Lisbon", "Osaka", "Quito", "Tallinn", "Nairobi", "Perth", "Bergen", "Leon")
FAKE_SECRETS = ('password: "Tr0ub4dor&3-fixture"', "api_key = 'q8Zt4Lw2Xv9Rk1Pm6Hs3'",
                "DATABASE_URL=postgres://app:s3cr3tPassw0rd@db.internal:5432/app")


def _tail(rng: random.Random, base: int, cap: float = 40.0) -> int:
    """A long-tailed count: most near `base`, a few up to `cap` times it."""
    return max(1, int(base * min(cap, rng.paretovariate(1.6))))


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _b64(rng: random.Random, n_bytes: int) -> str:
    return base64.b64encode(rng.randbytes(n_bytes)).decode("ascii")


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _word(rng: random.Random) -> str:
    return rng.choice(WORDS)


def _record(rng: random.Random, k: int) -> dict[str, object]:
    name = f"{_word(rng)}-{_word(rng)}"
    return {"id": _uuid(rng), "number": k, "name": name, "sha": _hex(rng, 40),
            "etag": f'W/"{_hex(rng, 32)}"', "node_id": _b64(rng, 18),
            "url": f"https://api.example.com/v2/items/{k}", "created_at":
            f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:"
            f"{rng.randint(0, 59):02d}:00Z", "score": round(rng.random() * 100, 3),
            "owner": {"login": _word(rng), "email": f"{_word(rng)}@example.com",
                      "avatar_url": f"https://avatars.example.com/u/{rng.randint(1, 10**7)}"
                      f"?v={rng.randint(1, 9)}"},
            "labels": rng.sample(WORDS, 3), "city": rng.choice(CITIES),
            "thumbnail": _b64(rng, rng.choice((0, 0, 48, 96))) or None}


def api_fixture(rng: random.Random) -> str:
    records = [_record(rng, k) for k in range(_tail(rng, 12))]
    if rng.random() < 0.3:  # minified: one long line
        return json.dumps({"items": records, "total": len(records)}, separators=(",", ":"))
    return json.dumps({"items": records, "total": len(records)}, indent=2) + "\n"


def events_jsonl(rng: random.Random) -> str:
    lines = [json.dumps({"ts": 1_700_000_000 + k * rng.randint(1, 90), "event": _word(rng),
                         "session": _hex(rng, 32), "user": _uuid(rng),
                         "payload": {"value": rng.randint(0, 10**6), "tag": _word(rng)}},
                        separators=(",", ":"))
             for k in range(_tail(rng, 60))]
    return "\n".join(lines) + "\n"


def csv_table(rng: random.Random) -> str:
    if rng.random() < 0.5:
        rows = ["timestamp,sensor,value,quality"]
        rows += [f"{1_700_000_000 + k * 60},{_word(rng)}-{rng.randint(1, 40)},"
                 f"{rng.gauss(20, 5):.4f},{rng.choice('ABC')}" for k in range(_tail(rng, 150))]
    else:
        rows = ["id,name,email,city,checksum,signup"]
        rows += [f"{_uuid(rng)},{_word(rng).title()} {_word(rng).title()},"
                 f"{_word(rng)}{k}@example.org,{rng.choice(CITIES)},{_hex(rng, 32)},"
                 f"2022-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                 for k in range(_tail(rng, 80))]
    return "\n".join(rows) + "\n"


def k8s_manifest(rng: random.Random) -> str:
    docs = []
    for _ in range(_tail(rng, 2, 8)):
        app = f"{_word(rng)}-{_word(rng)}"
        env = "\n".join(
            f"            - name: {name}\n              value: \"{value}\"" for name, value in
            (("LOG_LEVEL", rng.choice(("info", "debug"))), ("REGION", rng.choice(CITIES)),
             ("CACHE_TTL", str(rng.randint(10, 900)))))
        docs.append(f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {app}
  labels:
    app.kubernetes.io/name: {app}
  annotations:
    checksum/config: {_hex(rng, 64)}
spec:
  replicas: {rng.randint(1, 6)}
  selector:
    matchLabels:
      app: {app}
  template:
    spec:
      containers:
        - name: {app}
          image: registry.example.com/{app}@sha256:{_hex(rng, 64)}
          env:
{env}
            - name: DB_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: {app}-db
                  key: password
          resources:
            limits:
              cpu: "{rng.randint(1, 4)}"
              memory: {rng.choice((256, 512, 1024))}Mi
""")
    return "---\n".join(docs)


def ci_workflow(rng: random.Random) -> str:
    steps = "\n".join(f"      - name: {_word(rng)} {_word(rng)}\n        run: make {_word(rng)}"
                      for _ in range(rng.randint(3, 12)))
    return f"""name: ci-{_word(rng)}
on:
  push:
    branches: [main]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@{_hex(rng, 40)}
      - uses: actions/setup-python@{_hex(rng, 40)}
        with:
          python-version: "3.11"
{steps}
      - run: ./deploy.sh
        env:
          TOKEN: ${{{{ secrets.DEPLOY_TOKEN }}}}
"""


def openapi_spec(rng: random.Random) -> str:
    paths = []
    for _ in range(_tail(rng, 6, 20)):
        res = _word(rng)
        paths.append(f"""  /{res}/{{id}}:
    get:
      operationId: get{res.title()}
      summary: Fetch one {res}.
      parameters:
        - name: id
          in: path
          required: true
          schema: {{type: string, format: uuid}}
      responses:
        "200":
          description: The {res}.
          content:
            application/json:
              schema: {{$ref: "#/components/schemas/{res.title()}"}}
              example: {{id: "{_uuid(rng)}", etag: "{_hex(rng, 32)}"}}""")
    return ("openapi: 3.0.3\ninfo:\n  title: Example API\n  version: 1.0.0\npaths:\n"
            + "\n".join(paths) + "\n")


def _pins(rng: random.Random, n: int) -> list[tuple[str, str]]:
    return [(f"{_word(rng)}-{_word(rng)}", f"{rng.randint(0, 9)}.{rng.randint(0, 30)}."
             f"{rng.randint(0, 20)}") for _ in range(n)]


def lock_file(rng: random.Random) -> tuple[str, str]:
    """(file name, text) of a lock file the walker's defaults do not ignore."""
    pins = _pins(rng, _tail(rng, 30, 10))
    kind = rng.randrange(7)
    if kind == 0:
        return "requirements.txt", "".join(
            f"{n}=={v} \\\n    --hash=sha256:{_hex(rng, 64)} \\\n"
            f"    --hash=sha256:{_hex(rng, 64)}\n" for n, v in pins)
    if kind == 1:
        nodes = {n: {"locked": {"lastModified": rng.randint(10**9, 2 * 10**9),
                                "narHash": f"sha256-{_b64(rng, 32)}", "rev": _hex(rng, 40),
                                "type": "github"}} for n, _ in pins}
        return "flake.lock", json.dumps({"nodes": nodes, "version": 7}, indent=2) + "\n"
    if kind == 2:
        return "pubspec.lock", "packages:\n" + "".join(
            f"  {n.replace('-', '_')}:\n    dependency: transitive\n    description:\n"
            f"      name: {n}\n      sha256: \"{_hex(rng, 64)}\"\n    version: \"{v}\"\n"
            for n, v in pins)
    if kind == 3:
        return "Podfile.lock", ("PODS:\n" + "".join(f"  - {n} ({v})\n" for n, v in pins)
                                + "\nSPEC CHECKSUMS:\n"
                                + "".join(f"  {n}: {_hex(rng, 40)}\n" for n, _ in pins))
    if kind == 4:
        deps = {n: {"type": "Transitive", "resolved": v, "contentHash": _b64(rng, 64)}
                for n, v in pins}
        return "packages.lock.json", json.dumps(
            {"version": 1, "dependencies": {"net8.0": deps}}, indent=2) + "\n"
    if kind == 5:
        return "gradle.lockfile", "".join(
            f"com.example.{n.replace('-', '.')}:{n}:{v}=runtimeClasspath\n" for n, v in pins)
    return "mix.lock", "%{\n" + "".join(
        f'  "{n}": {{:hex, :{n.replace("-", "_")}, "{v}", "{_hex(rng, 64)}", [:mix], [], '
        f'"hexpm", "{_hex(rng, 64)}"}},\n' for n, v in pins) + "}\n"


def snapshot(rng: random.Random) -> str:
    parts = []
    for k in range(_tail(rng, 5, 20)):
        body = "\n".join(f'  <div class="{_word(rng)}" data-id="{_hex(rng, 12)}">'
                         f"{_word(rng)} {_word(rng)}</div>" for _ in range(rng.randint(2, 12)))
        parts.append(f"exports[`{_word(rng)} renders {k}`] = `\n<section>\n{body}\n</section>\n`;")
    return "// Jest Snapshot v1\n\n" + "\n\n".join(parts) + "\n"


def sql_dump(rng: random.Random) -> str:
    rows = ",\n".join(f"  ({k}, '{_word(rng)}', '{_hex(rng, 40)}', '{_uuid(rng)}', "
                      f"{rng.randint(0, 10**6)})" for k in range(_tail(rng, 60)))
    return ("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, digest TEXT, ref TEXT, "
            "qty INTEGER);\nINSERT INTO items VALUES\n" + rows + ";\n")


def translations(rng: random.Random) -> str:
    keys = {f"{_word(rng)}.{_word(rng)}.{k}": " ".join(rng.choice(WORDS) for _ in range(
        rng.randint(2, 9))).capitalize() for k in range(_tail(rng, 40))}
    return json.dumps(keys, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def geojson(rng: random.Random) -> str:
    features = [{"type": "Feature", "properties": {"name": rng.choice(CITIES), "id": _hex(rng, 8)},
                 "geometry": {"type": "Polygon", "coordinates": [[
                     [round(rng.uniform(-180, 180), 6), round(rng.uniform(-90, 90), 6)]
                     for _ in range(rng.randint(4, 60))]]}} for _ in range(_tail(rng, 8))]
    return json.dumps({"type": "FeatureCollection", "features": features}) + "\n"


def svg_icon(rng: random.Random) -> str:
    path = " ".join(f"{rng.choice('MLCQ')}{rng.uniform(0, 24):.3f} {rng.uniform(0, 24):.3f}"
                    for _ in range(_tail(rng, 40, 10)))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">'
            f'<path d="{path}"/></svg>\n')


# (directory, extension, maker): one data file of each in turn
KINDS: tuple[tuple[str, str, Callable[[random.Random], str]], ...] = (
    ("fixtures/api", "json", api_fixture), ("fixtures/events", "jsonl", events_jsonl),
    ("data/tables", "csv", csv_table), ("deploy/k8s", "yaml", k8s_manifest),
    ("ci/workflows", "yml", ci_workflow), ("api/specs", "yaml", openapi_spec),
    ("fixtures/api", "json", api_fixture), ("tests/__snapshots__", "snap", snapshot),
    ("data/dumps", "sql", sql_dump), ("locales", "json", translations),
    ("data/geo", "geojson", geojson), ("assets/icons", "svg", svg_icon),
    ("data/tables", "csv", csv_table), ("lock", "", lambda rng: ""),
)


def data_files(count: int, rng: random.Random) -> dict[str, str]:
    """`count` data files by path; every 97th fixture holds one planted fake credential."""
    out: dict[str, str] = {}
    for k in range(count):
        folder, ext, make = KINDS[k % len(KINDS)]
        group = f"{WORDS[k % len(WORDS)]}-{k // len(KINDS) % 50}"
        if folder == "lock":
            name, text = lock_file(rng)
            out[f"vendor/{group}/{k}/{name}"] = text
            continue
        text = make(rng)
        if k % 97 == 0:
            text = FAKE_SECRETS[k % len(FAKE_SECRETS)] + "\n" + text
        out[f"{folder}/{group}/{_word(rng)}-{k}.{ext}"] = text
    return out
