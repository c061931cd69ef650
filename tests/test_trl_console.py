"""TRL's console output: transformers' ProgressCallback prints each log dict as str(dict) with floats as 4-significant-
digit strings and no step (src/transformers/trainer_callback.py: shallow_logs[k] = f"{v:.4g}"), so a cumulative
num_tokens of 1,234,567 prints as '1.235e+06'. validate names it and the files to pass instead, in one line."""
import contextlib
import io

from tinker_nomics.faces.cli import main

LINE = ("{'loss': '0.0123', 'grad_norm': '0.5', 'learning_rate': '1e-06', 'num_tokens': '1.235e+06', "
        "'completions/mean_length': '300.5', 'reward': '0.5', 'epoch': '0.01'}")


def test_a_trl_console_log_is_named_and_the_readable_files_are_said(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("Loading checkpoint shards: 100%|##########| 4/4\n" + LINE + "\n 10%|#   | 10/100 [01:00<09:00]\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["validate", str(log), "--gpu", "H100"])
    assert code == 2 and out.getvalue() == "" and err.getvalue().count("\n") == 1
    assert "TRL's console output" in err.getvalue() and "trainer_state.json" in err.getvalue()
    other = tmp_path / "other.log"
    other.write_text("{'foo': 1, 'epoch': 2}\n")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err := io.StringIO()):
        main(["validate", str(other), "--gpu", "H100"])
    assert "TRL's console output" not in err.getvalue() and "unknown format" in err.getvalue()
