"""tinker-nomics: what RL fine-tuning (GRPO/RLVR) costs on Tinker's per-token API versus your own GPUs.

    from tinker_nomics import Scenario, estimate
    est = estimate(Scenario(model="Qwen3-8B", prompts_per_step=64, group_size=16, completion_tokens=512,
                            prompt_tokens=200, steps=180))
    est.to_dict()   # the same nested keys as `tinker-nomics estimate --format json`

The package is laid out in five wings, each importing only the wings below it:
faces (cli, widgets, explorer, plots) → analysis (each chapter's arithmetic) → runs (log readers, validate,
report) → model (Scenario → Estimate) → sources (the sourced tables in data/). errors and fmt serve all.
"""
from .errors import TinkerNomicsError, UnknownNameError
from .model.estimate import Estimate, estimate
from .model.scenario import Scenario
from .version import __version__

__all__ = ["Scenario", "Estimate", "estimate", "TinkerNomicsError", "UnknownNameError", "__version__"]
