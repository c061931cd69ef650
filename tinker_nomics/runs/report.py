"""The report folder of a run (`validate --report DIR`): where it may go, how its files are written, and how the
run-validation chapter (notebooks/run_validation.ipynb) is executed into it.

What goes in the folder is decided above (faces.report): the executed chapter, validation.json, summary.txt and
report.html, all from one check of the run. This module writes them. The chapter gets the check's page data through
a private file handed over as a notebook parameter (deleted afterwards, never in the report), so the page shows
that very result instead of checking the run again.

The report folder is checked before any work (`check_report_dir`): not empty, not inside the run's log folder
(with or without `force`), not a symbolic link, with no file in the way of a folder along its path, none of its
report files one of the command's inputs, and, when it exists, only with `force`. Everything is written into a
fresh temporary folder beside it and then moved into place: the new folder renamed in one step, or, over an
existing folder (`force`), each report file renamed over the old name. A rename replaces a symbolic link in the
report folder, it never writes through it. Nothing is ever written into the log folder.

The chapter runs in a child process of its own session (`execute_chapter`): a Ctrl-C at the terminal reaches this
process only, which stops the child (and, through it, the kernel) and removes the temporary folders; so does a
SIGTERM (faces.cli turns it into an exception). A failure, an interruption or a full disk leaves nothing behind.
A chapter still running past its deadline (its client stalled on the kernel) is stopped the same way and run once
more.
"""
from __future__ import annotations

import faulthandler
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..errors import TinkerNomicsError
from ..sources.shipped import shipped
from .files import input_at

NOTEBOOK = "notebooks/run_validation.ipynb"   # shipped in the wheel (sources.shipped)
REPORT_FILES = ("run_validation.ipynb", "validation.json", "summary.txt", "report.html")
CHAPTER = REPORT_FILES[0]
STOP_GRACE_SECONDS = 10   # how long a stopped chapter gets to shut its kernel down before it is killed
KERNEL_START_SECONDS = 60   # nbclient's startup_timeout: the longest a kernel may take to start
CHAPTER_ATTEMPTS = 2   # a chapter that stalls past its deadline is run once more (execute_chapter)
STACKS_SIGNAL = signal.SIGUSR1   # asks a stalled chapter's process for its Python stacks (faulthandler)
NUDGED = "nudged the kernel"
NUDGE_SECONDS = 10.0   # a cell's reply awaited this long with no message: the kernel is sent a kernel_info request


def log_folder(run_path) -> Path:
    """The folder a run's logs live in: the path itself for a folder, else the file's folder."""
    p = Path(run_path).resolve()
    return p if p.is_dir() else p.parent


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(path.anchor or ".")


def check_report_dir(out_dir, run_path, force: bool = False, inputs=()) -> Path:
    """The resolved report folder, or a one-line error saying why it cannot be one. A report file it would replace
    is never one of the command's `inputs` (`--usage DIR/validation.json`), through a link either."""
    if out_dir is None or not str(out_dir).strip():
        raise TinkerNomicsError("--report needs a folder name (got an empty one)")
    given = Path(out_dir)
    if given.is_symlink():
        raise TinkerNomicsError(f"report folder {out_dir} is a symbolic link; nothing is written through a link, "
                                f"give the folder itself")
    out = given.resolve()
    logs = log_folder(run_path)
    if out == logs or logs in out.parents:
        raise TinkerNomicsError(f"report folder {out_dir} is inside the run's log folder {logs}; nothing is written "
                                f"there, pick a folder outside it")
    base = _nearest_existing(out)
    if base != out and not base.is_dir():
        raise TinkerNomicsError(f"report folder {out_dir}: {base} is a file, not a folder")
    if base != out and not os.access(base, os.W_OK | os.X_OK):
        raise TinkerNomicsError(f"report folder {out_dir}: cannot create it in {base} (permission denied or a "
                                f"read-only file system)")
    if base == out:
        if not out.is_dir():
            raise TinkerNomicsError(f"report folder {out_dir} exists and is not a folder")
        if not force:
            raise TinkerNomicsError(f"report folder {out_dir} exists; pass --force to overwrite its report files")
        for name in REPORT_FILES:
            target = out / name
            if target.is_dir() and not target.is_symlink():
                raise TinkerNomicsError(f"report folder {out_dir}: {name} is a folder; the report would replace it")
            same = input_at(target, (run_path, *inputs))
            if same is not None:
                raise TinkerNomicsError(f"report folder {out_dir}: {name} is the input {same} (the same file on "
                                        f"disk); the report never replaces what the command reads, --force or not")
        if not os.access(out, os.W_OK | os.X_OK) or not os.access(out.parent, os.W_OK | os.X_OK):
            raise TinkerNomicsError(f"report folder {out_dir}: cannot write there (permission denied or a read-only "
                                    f"file system)")
    return out


def write_report(out_dir, run_path, files: dict[str, bytes], hand_over: dict[str, bytes], parameters: dict,
                 force: bool = False, inputs=(), timeout: int = 600) -> Path:
    """Write a report folder: `files` (name -> content, among REPORT_FILES) and the executed chapter, whose
    parameters are `parameters` plus, for each `hand_over` item (parameter -> content), the path of a private file
    holding it. Returns the executed chapter's path (module docstring)."""
    out = check_report_dir(out_dir, run_path, force, inputs)
    notebook = shipped(NOTEBOOK)
    if notebook is None:
        raise TinkerNomicsError(f"the chapter notebook {NOTEBOOK} is missing from the package (reinstall tinker-nomics)")
    try:
        import papermill  # noqa: F401  (the child process runs it; said here, before any work)
    except ImportError:
        raise TinkerNomicsError("papermill is not installed (pip install papermill ipykernel matplotlib myst-nb)") \
            from None
    tmp = private = None
    try:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
            private = Path(tempfile.mkdtemp(prefix="tinker-nomics-report-"))   # never lands in the report
            given = {k: v for k, v in parameters.items() if v is not None}
            given["run_path"] = str(Path(run_path).resolve())
            for name, content in hand_over.items():
                (private / name).write_bytes(content)
                given[name] = str(private / name)
            for name, content in files.items():
                (tmp / name).write_bytes(content)
        except OSError as exc:   # a full or read-only disk: one line, nothing left behind (finally)
            raise TinkerNomicsError(f"report folder {out_dir}: cannot write it ({exc.strerror or exc})") from None
        execute_chapter(notebook, tmp / CHAPTER, given, private, timeout)
        _move_into_place(tmp, out, out_dir, force)
    finally:
        for folder in (tmp, private):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
    return out / CHAPTER


def execute_chapter(notebook: Path, output: Path, parameters: dict, workdir: Path, timeout: int,
                    deadline: float | None = None, what: str = "the report notebook") -> None:
    """papermill runs `notebook` into `output` with `parameters`, in a child process of its own session (its
    output and the kernel's go to a file in `workdir`, not to the terminal). A failed cell is one line naming the
    error; an interruption of this process (KeyboardInterrupt, or the CLI's SIGTERM exception) stops the child and
    its kernel before it goes on up.

    `timeout` bounds each cell; `deadline` (default `stall_deadline(timeout)`) bounds the whole run, because the
    client can wait on its kernel without any cell running (after the last cell, or on a reply the kernel sent
    and the client missed: jupyter/nbclient#312, papermill#711): a run past its deadline is stopped and run once
    more, and a second stall is one line saying so. Each stalled run's Python stacks (faulthandler, asked for just
    before it is stopped) are appended to `workdir`/stalls.log, for whoever wants to know where it waited."""
    deadline = stall_deadline(timeout) if deadline is None else deadline
    job = workdir / "chapter.json"
    job.write_text(json.dumps({"notebook": str(notebook), "output": str(output), "parameters": parameters,
                               "cwd": str(notebook.parent), "timeout": timeout}))
    for attempt in range(CHAPTER_ATTEMPTS):
        status = _run_chapter(job, workdir, deadline)
        if status is not None:
            break
    if status is None:
        raise TinkerNomicsError(f"{what} did not finish within {deadline:g} s, {CHAPTER_ATTEMPTS} times: its "
                                f"client stalled waiting on the kernel (jupyter/nbclient#312); run it again")
    if status != 0:
        lines = [line for line in (workdir / "chapter.log").read_text(errors="replace").splitlines() if line.strip()]
        reason = lines[-1] if lines else f"exit status {status}"
        raise TinkerNomicsError(f"{what} failed: {reason[:300]}")


def stall_deadline(timeout: float) -> float:
    """How long a chapter may run in all: its kernel starting, then twice the cell timeout."""
    return KERNEL_START_SECONDS + 2 * timeout


def _run_chapter(job: Path, workdir: Path, deadline: float) -> int | None:
    """One run of the chapter's process: its exit status, or None when it was still running at `deadline` seconds
    (stopped then, with its kernel)."""
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])),
           "TMPDIR": str(workdir),   # the kernel's connection file and anything else temporary: removed with it
           "IPYTHONDIR": str(_kernel_profile(workdir))}   # the kernel answers STACKS_SIGNAL too
    code = "from tinker_nomics.runs.report import _chapter_main; _chapter_main()"
    with open(workdir / "chapter.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-c", code, str(job)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=log, env=env, start_new_session=True)
        try:
            status = proc.wait(timeout=deadline)
            _keep_nudges(workdir)
            return status
        except subprocess.TimeoutExpired:
            cell = _running_cell(Path(json.loads(job.read_text())["output"]))
            _ask_for_stacks(proc.pid, workdir)
            _stop(proc)
        except BaseException:
            _stop(proc)
            raise
    kernel = workdir / "kernel-stacks.log"
    with open(workdir / "stalls.log", "ab") as stalls:
        stalls.write(f"stalled after {deadline:g} s in {cell}\n\nclient (papermill):\n".encode()
                     + (workdir / "chapter.log").read_bytes()
                     + b"\nkernel:\n" + (kernel.read_bytes() if kernel.is_file() else b"(no stacks)\n") + b"\n")
    return None


def _keep_nudges(workdir: Path) -> None:
    """The nudges a finished run needed (nudge_quiet_kernels), appended to stalls.log."""
    nudges = [line for line in (workdir / "chapter.log").read_text(errors="replace").splitlines()
              if line.startswith(NUDGED)]
    if nudges:
        with open(workdir / "stalls.log", "a") as stalls:
            stalls.write(f"finished after {len(nudges)} nudge(s) of a quiet kernel:\n" + "\n".join(nudges) + "\n\n")


def _ask_for_stacks(client_pid: int, workdir: Path) -> None:
    """The stalled client's Python stacks into chapter.log (_chapter_main), its kernel's (a session of its own, its
    pid in kernel.pid) into kernel-stacks.log (_kernel_profile)."""
    pids = [client_pid]
    try:
        pids.append(int((workdir / "kernel.pid").read_text()))
    except (OSError, ValueError):
        pass
    for pid in pids:
        try:
            os.kill(pid, STACKS_SIGNAL)
        except (ProcessLookupError, PermissionError):
            pass
    time.sleep(1.0)


def _kernel_profile(workdir: Path) -> Path:
    """An IPython folder for the chapter's kernel whose startup file registers faulthandler on STACKS_SIGNAL, writing
    into `workdir`/kernel-stacks.log: a stalled run then says whether its kernel was busy (and where) or idle."""
    folder = workdir / "ipython"
    startup = folder / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-stacks.py").write_text(
        "import faulthandler, os, pathlib, signal\n"
        f"pathlib.Path({str(workdir / 'kernel.pid')!r}).write_text(str(os.getpid()))\n"
        f"_stacks = open({str(workdir / 'kernel-stacks.log')!r}, 'a')\n"
        f"faulthandler.register(signal.Signals({int(STACKS_SIGNAL)}), file=_stacks, all_threads=True)\n")
    return folder


def _running_cell(output: Path) -> str:
    """Which cell of the output notebook papermill had marked running (it saves the notebook as each cell starts)."""
    try:
        cells = json.loads(output.read_text())["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return "no cell known (no output notebook)"
    for index, cell in enumerate(cells):
        if cell.get("metadata", {}).get("papermill", {}).get("status") == "running":
            source = "".join(cell.get("source", "")).strip().splitlines()
            return f"cell {index} ({source[0][:80] if source else 'empty'!r}, {len(cell.get('outputs', []))} outputs)"
    return "no running cell (every cell had finished)"


def _stop(proc: subprocess.Popen) -> None:
    """The chapter's process group asked to stop (its kernel shut down by papermill), then killed if it lingers."""
    for sig, wait in ((signal.SIGTERM, STOP_GRACE_SECONDS), (signal.SIGKILL, STOP_GRACE_SECONDS)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if proc.poll() is not None:
            break
    try:
        os.killpg(proc.pid, signal.SIGKILL)   # the kernel, if it outlived papermill
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _chapter_main() -> None:
    """`python -c` entry of the chapter's process: argv[1] is the job file `execute_chapter` wrote. The last line it
    prints on stderr is the reason for a failure (exit status 3); SIGTERM stops papermill the way Ctrl-C does."""
    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    faulthandler.register(STACKS_SIGNAL, all_threads=True)   # execute_chapter asks a stalled run where it waits
    job = json.loads(Path(sys.argv[1]).read_text())
    nudge_quiet_kernels()
    try:
        import papermill
        papermill.execute_notebook(job["notebook"], job["output"], parameters=job["parameters"], cwd=job["cwd"],
                                   kernel_name="python3", progress_bar=False, execution_timeout=job["timeout"])
    except KeyboardInterrupt:
        raise SystemExit(130)
    except Exception as exc:  # PapermillExecutionError and kernel failures: the last line says which
        first = str(exc).strip().splitlines()
        reason = next((line for line in reversed(first) if line.strip()), type(exc).__name__)
        sys.stderr.write(f"\n{reason}\n")
        raise SystemExit(3)


def nudge_quiet_kernels() -> None:
    """Make papermill's client (nbclient) recover from a cell whose request the kernel never acts on.

    A chapter's run stalls now and then in a cell that displays a widget: the client waits for the cell's reply with
    no output yet, while the kernel sits idle in its event loop, never having started the cell (both stacks, asked
    for at the stall, show exactly this: jupyter/nbclient#312, ipython/ipykernel#1471). A message the kernel's event
    loop was not woken for stays queued until the next one arrives. So while the client waits on the shell channel,
    it waits in slices of NUDGE_SECONDS, and after a quiet slice in which the kernel has not yet said a word about
    the cell (a kernel that starts a cell first publishes its busy status with the cell as parent; a long cell's
    kernel is busy, not asleep) it sends the kernel a kernel_info request, whose arrival wakes it (the reply has
    another parent, so nbclient passes over it). The iopub channel is waited on in the same slices, each polling
    the socket afresh. Each nudge is a line on stderr (chapter.log), which execute_chapter keeps in stalls.log."""
    from queue import Empty

    from jupyter_core.utils import run_sync
    from nbclient.client import NotebookClient

    start = NotebookClient.async_start_new_kernel_client
    if getattr(start, "nudging", False):
        return

    def sliced(channel, on_quiet=None, on_message=None):
        get_msg = channel.get_msg

        async def wait(timeout=None):
            end = None if timeout is None else time.monotonic() + timeout
            while True:
                left = NUDGE_SECONDS if end is None else min(NUDGE_SECONDS, max(end - time.monotonic(), 0.0))
                try:
                    msg = await get_msg(timeout=left)
                except Empty:
                    if end is not None and time.monotonic() >= end:
                        raise
                    if on_quiet is not None:
                        on_quiet()
                    continue
                if on_message is not None:
                    on_message(msg)
                return msg
        channel.get_msg = wait

    async def start_nudging(self):
        kc = await start(self)
        cell = {"request": None, "started": False}   # the last cell sent, and whether the kernel has said a word on it
        execute = kc.execute

        def send(*args, **kwargs):
            cell.update(request=execute(*args, **kwargs), started=False)
            return cell["request"]

        def heard(msg):
            if msg.get("parent_header", {}).get("msg_id") == cell["request"]:
                cell["started"] = True

        def nudge():   # only a cell the kernel has not started: a long cell's kernel is busy, not asleep
            if cell["request"] is not None and not cell["started"]:
                sys.stderr.write(f"{NUDGED}: cell not started after {NUDGE_SECONDS:g} s of quiet\n")
                kc.kernel_info()
        kc.execute = send
        sliced(kc.shell_channel, nudge, heard)
        sliced(kc.iopub_channel, None, heard)
        return kc

    start_nudging.nudging = True
    NotebookClient.async_start_new_kernel_client = start_nudging
    NotebookClient.start_new_kernel_client = run_sync(start_nudging)   # the blocking form papermill's setup uses


def _move_into_place(tmp: Path, out: Path, out_dir, force: bool) -> None:
    try:
        if not os.path.lexists(out):
            os.rename(tmp, out)   # one step: the folder appears whole
            return
        if not force or Path(out_dir).is_symlink() or out.is_symlink() or not out.is_dir():
            raise TinkerNomicsError(f"report folder {out_dir} appeared or changed while the report was made; "
                                    f"nothing was written")
        for name in REPORT_FILES:
            os.replace(tmp / name, out / name)   # replaces a link of that name; never writes through it
    except OSError as exc:
        raise TinkerNomicsError(f"report folder {out_dir}: cannot move the report into place "
                                f"({exc.strerror or exc})") from None
