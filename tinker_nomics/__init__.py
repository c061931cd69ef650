"""tinker-nomics: what RL fine-tuning costs on Tinker versus your own GPUs."""
__version__ = "0.1.0"
