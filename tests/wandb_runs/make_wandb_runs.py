"""Writes the W&B run files beside this script with the real W&B SDK (offline mode: nothing is sent), for
tests/test_wandb_file.py. Not run by the tests (they need no W&B): run it by hand with `wandb` installed (and this
package's requirements), from the repository root:

    pip install --target /tmp/wblib wandb
    WANDB_MODE=offline WANDB_SILENT=true PYTHONPATH=.:/tmp/wblib python tests/wandb_runs/make_wandb_runs.py

- verl/: the verl run of tests/hosted_shapes.py (2026 shape) as verl's Tracking logs it to W&B
  (verl/utils/tracking.py: wandb.init(config=config), then wandb.log(data=data, step=step)), its config dict the
  file's CONFIG (8 GPUs: 4 per node × 2 nodes);
- openrlhf/: the OpenRLHF run of tests/test_openrlhf.py as its WandbLogger logs it (wandb.init(config=args.__dict__),
  then every status key under train/ with train/global_step, W&B counting its own _step);
- trl/: the TRL run of tests/hosted_shapes.py as transformers' WandbCallback logs it (its config: the model's config
  and the training arguments in one dict, so `_name_or_path` and GRPOConfig's `num_generations`; every entry under
  train/ or eval/ with train/global_step).

Each run's `run-<id>.wandb` is copied to `<name>/run.wandb`; the rest of W&B's run folder is left behind.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import hosted_shapes as hs  # noqa: E402
import test_openrlhf as orl  # noqa: E402
import wandb  # noqa: E402


def write(name: str, config: dict, rows, stepped: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run = wandb.init(project="tinker-nomics-tests", dir=tmp, mode="offline", config=config)
        for row in rows:
            data = {k: v for k, v in row.items() if not k.startswith("_")}
            if stepped:
                run.log(data, step=row["_step"])
            else:
                run.log(data)
        run.finish()
        found = list(Path(tmp).glob("wandb/offline-run-*/run-*.wandb"))
        assert len(found) == 1, found
        folder = HERE / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        shutil.copyfile(found[0], folder / "run.wandb")


if __name__ == "__main__":
    os.environ.setdefault("WANDB_SILENT", "true")
    write("verl", hs.CONFIG, hs.verl_wandb_rows("2026"), stepped=True)
    write("openrlhf", orl.launch_args(), orl.wandb_rows(), stepped=False)
    write("trl", {"_name_or_path": "Qwen/Qwen3-8B", "architectures": ["Qwen3ForCausalLM"], "num_generations": 8,
                  "per_device_train_batch_size": 8, "logging_steps": 2}, hs.trl_wandb_rows(), stepped=False)
