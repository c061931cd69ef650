"""Writes the TensorBoard event files beside this script with a real SummaryWriter (tensorboardX, whose writer
writes what torch.utils.tensorboard writes), for tests/test_tensorboard.py. Not run by the tests (they need no
TensorBoard): run it by hand in a venv with tensorboardX (and this package's requirements) installed, from the
repository root:

    PYTHONPATH=. python tests/tensorboard_events/make_events.py

- verl/: the verl run of tests/hosted_shapes.py (2026 shape), its metrics added with add_scalar at each step, as
  verl's Tracking does for the `tensorboard` backend (verl/utils/tracking.py: writer.add_scalar(k, v, step));
- nemo_rl/: the NeMo RL run of tests/test_nemo_rl.py, logged prefix by prefix as nemo_rl/utils/logger.py does,
  with a GPU monitor's tags on another clock (ray/..., step = seconds) interleaved, as logger.monitor_gpus logs,
  and its config as Logger.log_hyperparams gives it to add_hparams (an event file of its own, one folder down);
- trl/: the TRL run of tests/hosted_shapes.py as transformers' TensorBoardCallback logs it;
- openrlhf/: the OpenRLHF run of tests/test_openrlhf.py as its TensorboardLogger.log_train logs it (every status key
  under train/ at the global step; the sample as text);
- skyrl/: the SkyRL run of tests/test_skyrl.py as skyrl_train/utils/tracking.py's _TensorboardAdapter logs it
  (add_scalar(key, value, step) for every key of each tracker.log call, into $TENSORBOARD_DIR, default
  tensorboard_log/);
- tf2/: two steps of NeMo RL scalars written the TF2 way (a TensorProto float in `tensor`, not `simple_value`).

`python tests/tensorboard_events/make_events.py skyrl` writes only the folders named (all of them without a name).
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import hosted_shapes as hs  # noqa: E402
import test_nemo_rl as nemo  # noqa: E402
import test_openrlhf as orl  # noqa: E402
import test_skyrl as sky  # noqa: E402
from tensorboardX import SummaryWriter  # noqa: E402


def fresh(name: str) -> Path:
    folder = HERE / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    return folder


def write_verl() -> None:
    writer = SummaryWriter(logdir=str(fresh("verl") / "demo_project" / "run_a"), filename_suffix=".host")
    for rec in hs.file_logger_records("2026"):
        for key, value in rec["data"].items():
            writer.add_scalar(key, value, rec["step"])
    writer.close()


def write_nemo() -> None:
    writer = SummaryWriter(logdir=str(fresh("nemo_rl") / "exp_001" / "tensorboard"), filename_suffix=".host")
    clock = 0
    for row in nemo.nemo_rows():
        step = row["_step"]
        for key, value in row.items():
            if key.startswith("_"):
                continue
            writer.add_scalar(key, value, step)
        clock += 7
        writer.add_scalar("ray/node.0.gpu.0.util", 93.0, clock)   # the GPU monitor: step = seconds
    # Logger.log_hyperparams: add_hparams(flatten_dict(config), {}), into an event file of its own below the run's
    writer.add_hparams({"policy.model_name": "Qwen/Qwen3-8B", "cluster.gpus_per_node": nemo.GPUS,
                        "cluster.num_nodes": 1, "grpo.num_prompts_per_step": 32,
                        "grpo.num_generations_per_prompt": 16, "grpo.max_num_steps": 4,
                        "policy.generation.max_new_tokens": 2048, "loss_fn.use_on_policy_kl_approximation": False},
                       {})
    writer.close()


def write_trl() -> None:
    """transformers' TensorBoardCallback.on_log: rewrite_logs (eval_x -> eval/x, the rest under train/) and
    add_scalar(tag, value, state.global_step) for each number; the step itself is not a tag."""
    writer = SummaryWriter(logdir=str(fresh("trl") / "runs" / "Dec03_host"), filename_suffix=".host")
    for entry in hs.trl_entries():
        step = entry["step"]
        for key, value in entry.items():
            if key == "step" or not isinstance(value, (int, float)):
                continue
            tag = f"eval/{key[5:]}" if key.startswith("eval_") else f"train/{key}"
            writer.add_scalar(tag, value, step)
    writer.close()


def write_openrlhf() -> None:
    """openrlhf/utils/logging_utils.py TensorboardLogger: log_dir = use_tensorboard / wandb_run_name;
    add_scalar(f"train/{k}", v, global_step) for each status key, add_text for the generated sample."""
    writer = SummaryWriter(logdir=str(fresh("openrlhf") / "logs" / "qwen3_grpo"), filename_suffix=".host")
    for i in range(4):
        writer.add_text("train/generated_samples", "Sample:\\n2 + 2 = 4\\n\\nReward: 1.0000", i + 1)
        for key, value in orl.status(i).items():
            writer.add_scalar(f"train/{key}", value, i + 1)
    writer.close()


def write_skyrl() -> None:
    writer = SummaryWriter(logdir=str(fresh("skyrl") / "tensorboard_log"), filename_suffix=".host")
    for row in sky.rows():
        for key, value in row.items():
            if key != "_step":
                writer.add_scalar(key, value, row["_step"])
    writer.close()


def write_tf2() -> None:
    from tensorboardX.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
    from tensorboardX.event_file_writer import EventFileWriter
    folder = fresh("tf2")
    writer = EventFileWriter(str(folder), filename_suffix=".host")
    for row in nemo.nemo_rows()[1:3]:
        values = [summary_pb2.Summary.Value(tag=key, tensor=tensor_pb2.TensorProto(
            dtype=types_pb2.DT_FLOAT, tensor_shape=tensor_shape_pb2.TensorShapeProto(), float_val=[float(value)]))
            for key, value in row.items() if not key.startswith("_")]
        writer.add_event(event_pb2.Event(step=row["_step"], wall_time=1.7e9, summary=summary_pb2.Summary(value=values)))
    writer.close()


WRITERS = {"verl": write_verl, "nemo_rl": write_nemo, "trl": write_trl, "openrlhf": write_openrlhf,
           "skyrl": write_skyrl, "tf2": write_tf2}

if __name__ == "__main__":
    for name in sys.argv[1:] or WRITERS:
        WRITERS[name]()
    for path in sorted(HERE.rglob("events.out.tfevents.*")):
        print(path.relative_to(HERE), path.stat().st_size)
