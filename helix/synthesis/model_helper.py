"""The model helper: a background process that has litellm imported, so that `helix ask
--model` pays the model's time, not litellm's import (seconds, on every new process).

`helix ask --model M` starts it on first use, at the first moment of the `helix` process
(`helix.cli.early_helper`, before Helix imports its own heavy modules, so the import runs on
the other core while the ask starts, indexes and retrieves; `helix index` and `helix status`
start it too when a model is configured), and sends it the one completion request over a
Unix socket under `$HELIX_HOME/run/` (0700; the socket 0600); later asks find it warm. It
stops by itself after `synthesis.helper_idle_s` without a request. It is never required:
when it cannot be started or reached, the call is made in process as before
(`synthesis.model_helper = "off"`, or `HELIX_SYNTHESIS__MODEL_HELPER=off`, never uses it).

One helper serves one environment: its socket's name is a digest of the Python, Helix's
synthesis code and every environment variable (the provider keys and bases litellm reads
among them), so an ask with another key or another Helix never talks to a helper started for
the first. The request carries the redacted messages and the call's parameters; the helper
runs the same `LiteLLMClient.complete` (which redacts again) and answers with the streamed
text pieces, then the completion or the error (its Helix class, message and HTTP status).

A helper being started is known by its pid file (`model-KEY.pid`, written once it holds
the environment's lock), so a second `helix` process waits for it instead of starting
another. A helper that does not listen within `synthesis.helper_start_s`, or that says
nothing within a call's timeout and `synthesis.helper_grace_s`, is dropped: the ask says so in
one line and makes the call in process.

Its start-up is the interpreter and litellm (`helix.synthesis.litellm_import`): this module
imports nothing heavy (no pydantic before litellm's own), and the process takes its lock,
then imports litellm, before anything else.

    python -m helix.synthesis.model_helper SOCKET IDLE_S     # what `start` runs
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helix.core import errors
from helix.core.hashing import short_id
from helix.core.home import PRIVATE_UMASK

if TYPE_CHECKING:
    from helix.core.ports import Completion

PROTOCOL = 1
MAX_SOCKET_PATH = 100  # a Unix socket's path is at most 107 bytes on Linux
POLL_S = 0.02  # how often a client looks again for a helper still importing
# a client waiting for the helper connects within one poll of its listening, and a preflight's
# call follows it within this: the warm-up waits for a quiet moment this long
SETTLE_S = 5 * POLL_S
# variables that change between two shells of the same user without changing a model call
_VOLATILE = frozenset({"PWD", "OLDPWD", "SHLVL", "_", "COLUMNS", "LINES", "TERM",
                       "HELIX_HOME"})
_CODE = ("llm.py", "model_helper.py", "redact.py", "fake_llm.py")
_ERRORS: dict[str, type[errors.HelixError]] = {
    cls.__name__: cls for cls in (errors.LLMTimeoutError, errors.LLMRateLimitError,
                                  errors.LLMTransportError, errors.LLMAuthError,
                                  errors.LLMEmptyError, errors.UnknownModelError)}


def helper_key(environ: Mapping[str, str]) -> str:
    """The identity of a helper that may serve this process: Python, code, environment."""
    here = Path(__file__).parent
    code = [(name, (here / name).stat().st_mtime_ns, (here / name).stat().st_size)
            for name in _CODE]
    env = sorted((k, v) for k, v in environ.items() if k not in _VOLATILE)
    return short_id(PROTOCOL, sys.executable, code, env)


def socket_path(home: Path, environ: Mapping[str, str]) -> Path:
    return home / "run" / f"model-{helper_key(environ)}.sock"


def pid_path(path: Path) -> Path:
    """Where a helper that holds its lock writes its process id (starting or serving)."""
    return path.with_suffix(".pid")


def _alive(pid: int) -> bool:
    """`pid` is a live model helper (where /proc says what a process runs: a helper killed
    without removing its pid file leaves a number another process may get)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone, or another user's: not ours
        return False
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:  # no /proc (macOS): the signal's word
        return not Path("/proc/self").exists()
    except OSError:
        return False
    return b"helix.synthesis.model_helper" in command


def helper_pid(path: Path) -> int | None:
    """The process id of a live helper (starting or serving) for the socket `path`."""
    try:
        pid = int(pid_path(path).read_text(encoding="ascii").strip() or 0)
    except (OSError, ValueError):
        return None
    return pid if pid > 0 and _alive(pid) else None


# One environment per process: the first helper client takes a snapshot of the environment
# (at the early start, before Helix sets any variable of its own), and every later one in the
# process uses it, so the ask finds the helper its early start started.
_PROCESS_ENV: dict[str, dict[str, str]] = {}
_STARTED: dict[Path, subprocess.Popen[bytes]] = {}  # helpers this process started, by socket


def process_environ() -> dict[str, str]:
    return _PROCESS_ENV.setdefault("env", dict(os.environ))


def _error_from(payload: Mapping[str, Any]) -> errors.HelixError:
    kind, message = str(payload.get("kind")), str(payload.get("message"))
    if kind == "LLMServerError":
        return errors.LLMServerError(message, int(payload.get("status") or 0))
    cls = _ERRORS.get(kind)
    return cls(message) if cls is not None else errors.LLMTransportError(
        f"the model helper failed: {message}")


def _error_payload(exc: BaseException) -> dict[str, Any]:
    return {"kind": type(exc).__name__, "message": str(exc),
            "status": getattr(exc, "status", None)}


class HelperUnavailable(Exception):
    """No helper answered in time: the caller makes the call in process."""


class ModelHelper:
    """The client side: start the helper (once), then send it requests."""

    def __init__(self, home: Path, *, idle_s: float, start_s: float, grace_s: float = 5.0,
                 environ: Mapping[str, str] | None = None) -> None:
        self.environ = process_environ() if environ is None else dict(environ)
        self.path = socket_path(home, self.environ)
        self.idle_s = idle_s
        self.start_s = start_s
        self.grace_s = grace_s  # a call's timeout plus this with no word: the helper hangs
        self._process: subprocess.Popen[bytes] | None = _STARTED.get(self.path)
        self.waited_s = 0.0  # time spent waiting for the helper to be ready (its import)

    def usable(self) -> bool:
        return len(os.fsencode(self.path)) <= MAX_SOCKET_PATH

    def start(self) -> None:
        """Start a helper unless one answers or starts already (this process's, or another
        `helix` process's: its pid file); returns at once (it imports alone)."""
        if not self.usable() or self._starting():
            return
        running = self._connect()
        if running is not None:
            running.close()
            return
        run = self.path.parent
        run.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(run, 0o700)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "helix.synthesis.model_helper", str(self.path),
             repr(self.idle_s)], cwd=run, env=self.environ, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        _STARTED[self.path] = self._process

    def _starting(self) -> bool:
        """A helper for this environment is starting (or serving): ours, or one whose pid
        file names a live process."""
        if self._process is not None and self._process.poll() is None:
            return True
        return helper_pid(self.path) is not None

    def _connect(self) -> socket.socket | None:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            client.connect(str(self.path))
        except OSError:
            client.close()
            return None
        return client

    def _ready(self) -> socket.socket:
        """A connection, waiting while a helper we started is still importing."""
        started = time.perf_counter()
        try:
            while True:
                client = self._connect() if self.usable() else None
                if client is not None:
                    return client
                if not self._starting():
                    raise HelperUnavailable("is not running")
                if time.perf_counter() - started > self.start_s:
                    raise HelperUnavailable(f"did not start within {self.start_s:g} s")
                time.sleep(POLL_S)
        finally:
            self.waited_s += time.perf_counter() - started

    def request(self, payload: dict[str, Any],
                on_text: Callable[[str], None] | None = None, *,
                reply_s: float | None = None) -> Any:
        """Send one request; the answer's `ok` value, or its error raised as Helix's. A helper
        silent for `reply_s` (default: `start_s`) plus `grace_s` between two lines hangs."""
        heard = False
        silent_s = (self.start_s if reply_s is None else reply_s) + self.grace_s
        try:
            with self._ready() as client, client.makefile("rwb") as stream:
                client.settimeout(silent_s)
                stream.write(json.dumps({"protocol": PROTOCOL, **payload}).encode() + b"\n")
                stream.flush()
                for line in stream:
                    heard = True
                    message = json.loads(line)
                    if "text" in message and on_text is not None:
                        on_text(str(message["text"]))
                    elif "error" in message:
                        raise _error_from(message["error"])
                    elif "ok" in message:
                        return message["ok"]
        except TimeoutError:
            if not heard:
                raise HelperUnavailable(f"said nothing for {silent_s:g} s") from None
            raise errors.LLMTransportError(
                f"the model helper stopped answering for {silent_s:g} s mid-answer") from None
        except OSError as exc:  # it stopped (idle) as we connected: answer in process
            if not heard:
                raise HelperUnavailable(f"could not be reached ({exc})") from None
            raise errors.LLMTransportError(f"the model helper stopped mid-answer: {exc}"
                                           ) from None
        if not heard:
            raise HelperUnavailable("closed the connection without an answer")
        raise errors.LLMTransportError("the model helper stopped mid-answer")

    def stop(self) -> bool:
        """Stop a running helper for this environment (False: none runs)."""
        client = self._connect() if self.usable() else None
        if client is None:
            return False
        client.close()
        try:
            self.request({"op": "stop"})
        except (HelperUnavailable, errors.HelixError):
            return False
        return True

    def complete(self, messages: Sequence[dict[str, str]], *, model: str, timeout_s: float,
                 max_tokens: int, temperature: float, api_base: str | None,
                 extra: Mapping[str, Any], on_text: Callable[[str], None] | None,
                 max_chars: int) -> Completion:
        from helix.core.ports import Completion

        done = self.request({"op": "complete", "model": model, "messages": list(messages),
                             "timeout_s": timeout_s, "max_tokens": max_tokens,
                             "temperature": temperature, "api_base": api_base,
                             "extra": dict(extra), "stream": on_text is not None,
                             "max_chars": max_chars}, on_text, reply_s=timeout_s)
        return Completion(**done)


# ---- the helper process -------------------------------------------------------------------

def _answer(request: dict[str, Any], client: Any, send: Callable[[dict[str, Any]], None]
            ) -> None:
    if request.get("protocol") != PROTOCOL:
        raise errors.LLMTransportError("the model helper speaks another protocol")
    if request.get("op") == "stop":  # `ModelHelper.stop`: the main thread exits cleanly
        send({"ok": None})
        os.kill(os.getpid(), signal.SIGTERM)
        return
    client.extra = dict(request.get("extra") or {})
    if request.get("op") == "preflight":
        client.preflight(request["model"], api_base=request.get("api_base"))
        send({"ok": None})
        return
    client.max_chars = int(request.get("max_chars") or client.max_chars)
    stream = (lambda piece: send({"text": piece})) if request.get("stream") else None
    done = client.complete(request["messages"], model=request["model"],
                           timeout_s=float(request["timeout_s"]),
                           max_tokens=int(request["max_tokens"]),
                           temperature=float(request["temperature"]),
                           api_base=request.get("api_base"), on_text=stream)
    send({"ok": done.model_dump(mode="json")})


class _Busy:
    """Requests in flight: the helper does not stop for idleness while one runs."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def add(self, n: int) -> None:
        with self.lock:
            self.count += n


def _serve_one(connection: socket.socket, busy: _Busy) -> None:
    try:
        _serve_connection(connection)
    finally:
        busy.add(-1)


def _serve_connection(connection: socket.socket) -> None:
    from helix.synthesis.llm import LiteLLMClient

    with connection, connection.makefile("rwb") as stream:
        def send(message: dict[str, Any]) -> None:
            stream.write(json.dumps(message).encode() + b"\n")
            stream.flush()

        try:
            line = stream.readline()
            if line:
                _answer(json.loads(line), LiteLLMClient(), send)
        except (BrokenPipeError, ConnectionResetError):
            return  # the asker went away (its deadline): nothing to tell
        except Exception as exc:  # every failure goes back as one error, never a traceback
            with contextlib.suppress(OSError):
                send({"error": _error_payload(exc)})


def _listen(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(old)
    listener.listen()
    return listener


def _pending(listener: socket.socket, within_s: float) -> bool:
    return bool(select.select([listener], [], [], within_s)[0])


def _accept_loop(listener: socket.socket, idle_s: float) -> None:
    """Answer each connection in a thread until `idle_s` pass with none and none running.
    litellm's first call imports more (the OpenAI client, its HTTP stack: `warm_litellm`,
    1.35 CPU s, of which a real call needs about 1.0): done ahead only while no one waits, so
    an ask that waited for the import pays its own call's share, not both paths'."""
    listener.settimeout(idle_s)
    busy = _Busy()
    warmed = False
    while True:
        if not warmed and not busy.count and not _pending(listener, SETTLE_S):
            from helix.synthesis.llm import warm_litellm

            warm_litellm()
            warmed = True
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            if busy.count:
                continue
            return  # idle: stop; the next ask starts another
        connection.settimeout(None)
        busy.add(1)
        threading.Thread(target=_serve_one, args=(connection, busy), daemon=True).start()


def _write_pid(path: Path) -> None:
    tmp = pid_path(path).with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(str(os.getpid()), encoding="ascii")
    tmp.replace(pid_path(path))


def serve(path: Path, idle_s: float) -> None:
    """Take the environment's lock, import litellm (first), listen on `path`, answer until
    `idle_s` pass with no request."""
    from filelock import FileLock, Timeout

    os.umask(PRIVATE_UMASK)  # started before the `helix` process set its own: the user's alone
    lock = FileLock(str(path) + ".lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return  # another helper for this environment runs (or starts): it serves
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # the finally below still runs
    try:
        _write_pid(path)  # starting: a `helix` process now waits for this one
        from helix.synthesis.litellm_import import import_litellm

        import_litellm()  # the start-up's cost: before any of Helix's own modules
        gc.freeze()  # what the import built lives as long as the helper: never collected
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a helper killed before it could remove it
        with _listen(path) as listener:
            _accept_loop(listener, idle_s)
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        with contextlib.suppress(FileNotFoundError):
            pid_path(path).unlink()
        lock.release()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), float(sys.argv[2]))
