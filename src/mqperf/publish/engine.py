"""Warm kernels: pay for a chapter's imports once, not once per notebook.

A chapter's own work takes well under a second; starting a kernel and importing pandas,
scipy and altair into it takes seconds. A :class:`Kernel` is an IPython kernel
started once, with those libraries imported at start-up (:data:`PRELOAD`), that runs
notebook after notebook through papermill (parameters injected, errors raised as
``PapermillExecutionError``, exactly as a cold run).

Outputs must be byte-identical to a cold run's, so before every notebook the kernel's state
is put back as a fresh kernel would have it (:func:`reset_state`): the user namespace and the
execution counter, the working folder, the warning filters and the "shown once" registries,
and the per-run state of mqperf's own modules (a module defines ``_reset_run_state()``, e.g.
the chart id counter; ``functools`` caches are cleared). ``tests/publish/test_engine.py`` checks
the bytes: every chapter run warm, after other chapters, equals its committed notebook.

Isolation where a run needs it: after a failed notebook, or a kernel that died, the next
run gets a fresh kernel.
"""

from __future__ import annotations

import os
import queue
import tempfile
import time
from pathlib import Path

#: What every chapter imports, imported when the kernel starts (one line, run by IPython).
#: scipy.stats is left out: only the NativeHA storage model uses it (the others use mqperf.models.pvalues).
PRELOAD = ("import numpy, pandas, scipy.optimize, scipy.special, altair; "
           "import mqperf.chapters, mqperf.present.charts, mqperf.present.tables, mqperf.present.results, "
           "mqperf.data.views, mqperf.models.fitset, mqperf.models.usl")

#: How the kernel is started: ipykernel's own launcher, with the garbage collector off until the
#: preloads are imported. Import creates some 100,000 long-lived objects, and collecting as they
#: come takes a third of the start-up (0.4 of 1.2 CPU-s for :data:`PRELOAD`).
_LAUNCH = ("import gc, sys; gc.disable()\n"
           "if sys.path and sys.path[0] == '': del sys.path[0]\n"  # as ipykernel_launcher does
           "from ipykernel import kernelapp; kernelapp.launch_new_instance()")
#: Run after the preloads (a line of its own, so it runs even when they fail): what is imported
#: then lives as long as the kernel, so it is frozen out of every later collection (IPython's
#: reset before each notebook collects in full, 0.1 s a time otherwise), and the collector is on
#: again for the notebooks.
_SETTLE = "import gc; gc.freeze(); gc.enable(); del gc"

_ENGINE_NAME = "mqperf-warm"
#: Attempts to start a kernel: parallel kernels pick free ports by binding and releasing them,
#: so two can occasionally choose the same one, and the loser dies before answering.
_START_ATTEMPTS = 3


class Kernel:
    """One warm IPython kernel that executes notebooks one after another.

    Parameters
    ----------
    cwd
        The folder notebooks run in (a run's relative paths resolve against it).
    preload
        Python run when the kernel starts; its names are cleared before each notebook.

    The kernel starts in the background as soon as the object is made, so the caller can
    do its own work (``mqperf run`` checks the reader's data) while the imports happen.
    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, cwd: str | Path, *, preload: str = PRELOAD):
        self.cwd = Path(cwd).resolve()
        self.preload = preload
        self.km = self.kc = None
        self.runs = 0
        # The kernel's own stdout and stderr (a dying kernel's traceback) go here, never to the
        # terminal: a reader sees our one-line error, and the log gets this text.
        self._log = tempfile.TemporaryFile()
        self._dirty = False
        self._start()

    # -- life cycle -----------------------------------------------------------------------

    def _start(self) -> None:
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

        self.km = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=_launch_specs())
        run_sync(self.km.start_kernel)(
            extra_arguments=["--IPKernelApp.log_level=ERROR", f"--IPKernelApp.exec_lines={self.preload}",
                             f"--IPKernelApp.exec_lines={_SETTLE}", "--HistoryManager.enabled=False"],
            cwd=str(self.cwd), stdout=self._log, stderr=self._log)
        self.kc = None  # connected in _ready, so start-up overlaps the caller's work
        self._dirty = False

    def ready(self) -> None:
        """Wait until the kernel answers (started, preloads imported); at once when it does."""
        if self._dirty or self.km is None:
            self.restart()
        self._ready()

    def _ready(self) -> None:
        from jupyter_core.utils import run_sync

        if self.kc is not None:
            return
        for attempt in range(1, _START_ATTEMPTS + 1):
            kc = self.km.client()
            kc.start_channels()
            try:
                run_sync(kc.wait_for_ready)(timeout=120)
            except RuntimeError:
                kc.stop_channels()
                if attempt == _START_ATTEMPTS:
                    raise
                self._shutdown()
                time.sleep(0.5 * attempt)
                self._start()
                continue
            kc.allow_stdin = False
            self.kc = kc
            return

    def _shutdown(self) -> None:
        from jupyter_core.utils import run_sync

        _cancel_pending()
        if self.kc is not None:
            self.kc.stop_channels()
            self.kc = None
        if self.km is not None:
            # Killed outright: it holds nothing worth saving, and a polite shutdown of a kernel
            # still importing takes half a second that a reader's bad input should not wait.
            process = getattr(self.km.provisioner, "process", None)
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
            try:
                run_sync(self.km.shutdown_kernel)(now=True)
            except Exception:  # already gone: nothing left to stop
                pass
            self.km = None

    def restart(self) -> None:
        """A fresh kernel (isolation): after a failure, or when a caller asks for one."""
        self._shutdown()
        self._start()

    def close(self) -> None:
        self._shutdown()
        self._log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def stderr_tail(self, limit: int = 4000) -> str:
        """The end of what the kernel printed itself (for a defect's log file)."""
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-limit:]

    # -- running notebooks ----------------------------------------------------------------

    def execute(self, source: Path, target: Path, *, parameters: dict | None = None) -> None:
        """Run ``source`` with papermill into ``target`` in this kernel, as a cold kernel would.

        Raises papermill's PapermillExecutionError when a cell fails (``target`` then holds the
        partial notebook), RuntimeError when the kernel died.
        """
        import papermill

        for attempt in (1, 2):
            if self._dirty or self.km is None or not _alive(self.km):
                self.restart()
            self._ready()
            try:
                self._reset()
                break
            except _KernelGone:
                self._dirty = True  # it died since its last run: the next attempt starts afresh
                if attempt == 2:
                    raise RuntimeError("the kernel died while being reset for the next notebook") from None
        self._dirty = True  # until the run is known to have succeeded
        papermill.execute_notebook(
            str(source), str(target), parameters=parameters or {}, kernel_name="python3",
            engine_name=_register_engine(), kernel=self, progress_bar=False, log_output=False,
            request_save_on_cell_execute=False)
        self._dirty = False
        self.runs += 1

    def evaluate(self, expression: str) -> str:
        """The value (a ``str``) of a Python expression in the kernel, in the namespace of the
        notebook it last ran: a caller reads a run's results without computing them twice."""
        import ast

        content = self._silent("None", user_expressions={"value": expression})
        value = content.get("user_expressions", {}).get("value", {})
        if value.get("status") != "ok":
            raise RuntimeError(f"{expression[:80]}: {value.get('ename')}: {value.get('evalue')}")
        return ast.literal_eval(value["data"]["text/plain"])

    def _reset(self) -> None:
        """Put the kernel back as a fresh one would be (see :func:`reset_state`)."""
        # No name is bound: the reset clears the namespace it would be bound in.
        code = f"__import__('mqperf.publish.engine', fromlist=['_']).reset_state({str(self.cwd)!r})"
        content = self._silent(code)
        if content.get("status") != "ok":
            raise RuntimeError(f"could not reset the kernel: {content.get('ename')}: {content.get('evalue')}")

    def _silent(self, code: str, **options) -> dict:
        """Run ``code`` without a trace in the notebook's history; the reply's content."""
        from jupyter_core.utils import run_sync

        msg_id = self.kc.execute(code, silent=True, store_history=False, **options)
        waited = 0.0
        while True:
            try:
                reply = run_sync(self.kc.get_shell_msg)(timeout=1)
            except queue.Empty:
                waited += 1
                if not _alive(self.km):
                    raise _KernelGone() from None
                if waited > 120:
                    raise RuntimeError("the kernel did not answer within 120 s") from None
                continue
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply["content"]


def _cancel_pending() -> None:
    """Cancel what a signal left waiting on this thread's event loop (a reply being awaited).

    Ctrl-C or SIGTERM during a wait unwinds through here with the wait's task still pending;
    left so, asyncio prints "Task was destroyed but it is pending!" on the reader's terminal
    as the interpreter exits, after our one-line error.
    """
    import asyncio

    from jupyter_core.utils import ensure_event_loop

    loop = ensure_event_loop()  # the loop jupyter_core's run_sync runs this thread's waits on
    if loop.is_running() or loop.is_closed():
        return
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))


def _launch_specs():
    """The one kernel spec a warm kernel uses: ipykernel in this Python, started by :data:`_LAUNCH`.

    Made here rather than looked up: the lookup searches Jupyter's and IPython's folders (where a
    reader's own "python3" spec could start another Python than the locked one), and with an
    unwritable home IPython warns on the reader's terminal while it looks.
    """
    import sys

    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    class LaunchSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(argv=[sys.executable, "-c", _LAUNCH, "-f", "{connection_file}"],
                              display_name="Python 3 (ipykernel)", language="python", interrupt_mode="signal",
                              metadata={"debugger": True})

    return LaunchSpecs()


class _KernelGone(Exception):
    """The kernel process is gone (killed, crashed) between two notebooks."""


def _alive(km) -> bool:
    from jupyter_core.utils import run_sync

    try:
        return bool(run_sync(km.is_alive)())
    except Exception:
        return False


def _register_engine() -> str:
    """A papermill engine that runs in a :class:`Kernel` instead of starting one."""
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine, papermill_engines

    class WarmEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, *, kernel: Kernel, log_output=False, **kwargs):
            client = PapermillNotebookClient(nb_man, km=kernel.km, kernel_name=kernel_name, log_output=log_output,
                                             startup_timeout=120, timeout=None)
            client.kc = kernel.kc  # ours: nbclient neither starts nor stops it
            return client.execute()

    papermill_engines.register(_ENGINE_NAME, WarmEngine)
    return _ENGINE_NAME


# -- inside the kernel ----------------------------------------------------------------------

_WARNING_FILTERS: list | None = None


def reset_state(cwd: str) -> None:
    """Run inside the kernel before each notebook: the state a fresh kernel starts with.

    What a notebook can change and a later one could see: names in the user namespace, the
    execution counter (stored in the notebook), the working folder, warning filters and the
    per-module "already shown" registries (a warning shown in one chapter must show again in
    the next), and mqperf's own per-run state.
    """
    import sys
    import warnings

    from IPython import get_ipython

    global _WARNING_FILTERS
    shell = get_ipython()
    shell.reset(new_session=False)
    shell.execution_count = 1
    os.chdir(cwd)
    if _WARNING_FILTERS is None:
        _WARNING_FILTERS = list(warnings.filters)
    warnings.filters[:] = _WARNING_FILTERS
    warnings._filters_mutated()
    for module in list(sys.modules.values()):
        registry = getattr(module, "__warningregistry__", None)
        if isinstance(registry, dict):
            registry.clear()
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "mqperf" or name.startswith("mqperf.")):
            continue
        reset = getattr(module, "_reset_run_state", None)
        if callable(reset):
            reset()
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == name:
                value.cache_clear()
