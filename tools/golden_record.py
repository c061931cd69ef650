"""A golden record of what users see, to compare before and after a refactor that must change nothing.

    python tools/golden_record.py OUT.json            # write the record
    python tools/golden_record.py OUT.json --compare OLD.json   # write, then list every difference

The record holds: the JSON of `estimate` for every workload preset under every method, `validate` on every
bundled run (JSON), and the glued values of every chapter as the last book build left them
(_build/jupyter_execute/notebooks/*.glue.json; run `make book` first). Exit status 1 when --compare finds
a difference.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GLUE = REPO / "_build" / "jupyter_execute" / "notebooks"


def cli_json(*args: str) -> object:
    done = subprocess.run([sys.executable, "-m", "tinker_nomics", *args, "--format", "json"],
                          capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0:
        return {"exit": done.returncode, "stderr": done.stderr.strip()}
    return json.loads(done.stdout)


def methods() -> list[str]:
    try:
        from tinker_nomics.model.scenario import METHODS
    except ImportError:
        from tinker_nomics.model.scenario import METHODS
    return list(METHODS)


def record() -> dict:
    out: dict = {"estimate": {}, "validate": {}, "glue": {}}
    for row in cli_json("workloads")["workloads"]:
        name = row["name"]
        for method in methods():
            out["estimate"][f"{name}/{method}"] = cli_json("estimate", "--workload", name, "--method", method)
    for run in sorted((REPO / "data" / "runs" / "omnimath").glob("*.jsonl")):
        out["validate"][run.name] = cli_json("validate", str(run.relative_to(REPO)))
    for path in sorted(GLUE.glob("*.glue.json")):
        out["glue"][path.name] = json.loads(path.read_text())
    return out


def differences(old, new, where: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in sorted(set(old) | set(new)):
            if key not in old or key not in new:
                found.append(f"{where}/{key}: only in {'new' if key in new else 'old'}")
            else:
                found.extend(differences(old[key], new[key], f"{where}/{key}"))
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (a, b) in enumerate(zip(old, new)) for d in differences(a, b, f"{where}[{i}]")]
    return [] if old == new else [f"{where}: {str(old)[:120]!r} -> {str(new)[:120]!r}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--compare", type=Path, help="an earlier record to compare with")
    args = parser.parse_args()
    data = record()
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True))
    print(f"golden record: {len(data['estimate'])} estimates, {len(data['validate'])} validations, "
          f"{len(data['glue'])} chapters' glue -> {args.out}")
    if args.compare:
        found = differences(json.loads(args.compare.read_text()), data)
        for line in found:
            print(line)
        print(f"{len(found)} difference(s)")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
