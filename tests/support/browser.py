"""Headless Chromium driven through the DevTools protocol over a pipe (``--remote-debugging-pipe``:
JSON messages ended by a NUL byte on file descriptors 3 and 4), with nothing but the standard
library: open a page, evaluate JavaScript in it, wait (bounded) for a condition."""
from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from typing import Any


_EXEC_WITH_FDS = ("import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); "
                  "os.execv(sys.argv[3], sys.argv[3:])")


def _above_four(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class Browser:
    """``with Browser(chromium, profile) as browser: page = browser.open(url)``."""

    def __init__(self, executable: str, profile: str) -> None:
        # Chromium reads commands on its fd 3 and writes answers on its fd 4.
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()
        # Above 4, so that the redirections below cannot overwrite one end with the other.
        commands_read, answers_write = (_above_four(commands_read), _above_four(answers_write))
        arguments = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                     "--remote-debugging-pipe", f"--user-data-dir={profile}", "--window-size=1280,1200",
                     "about:blank"]
        # The pipe ends go to 3 and 4 in the child through a small exec wrapper (dup2 in a
        # pre-exec hook is not fork-safe with threads).
        self.process = subprocess.Popen(
            [sys.executable, "-c", _EXEC_WITH_FDS, str(commands_read), str(answers_write), *arguments],
            pass_fds=(commands_read, answers_write), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_read)
        os.close(answers_write)
        self._next_id = 0
        self._buffer = b""

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        os.close(self._commands)
        os.close(self._answers)

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float = 30.0) -> dict[str, Any]:
        """Send one command and return its result (events met before it are dropped)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" not in self._buffer:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no answer to {method} within {timeout} s")
                chunk = os.read(self._answers, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer["result"]
                return result

    def open(self, url: str) -> "Page":
        target = self.call("Target.createTarget", {"url": url})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session)


class Page:
    """A tab: JavaScript evaluated in it, and conditions waited for."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def evaluate(self, expression: str) -> Any:
        result = self.browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                                   self.session)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        """The value of ``expression`` once it is truthy (polled until ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression} was not true within {timeout} s")
            time.sleep(0.1)
