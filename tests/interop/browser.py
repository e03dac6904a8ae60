"""A real headless browser for the web companion's end-to-end test: Debian's ``chromium``
driven through Selenium and Debian's ``chromium-driver``.

Selenium with the distribution's driver needs no browser download (Playwright fetches its
own browser builds from the network); the two Debian packages are installed with apt-get,
by name, when the test runs as root, under the interop cache's lock so parallel workers
wait for one install, as ``engine.py`` installs VASSAL's Debian jars.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "interop"
PACKAGES = ("chromium", "chromium-driver")
BROWSER, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


class BrowserUnavailable(RuntimeError):
    """Chromium or its driver could not be provided on this machine."""


@contextlib.contextmanager
def _provisioning() -> Iterator[None]:
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def browser_paths() -> tuple[str, str]:
    """The paths of chromium and chromedriver, installing the Debian packages once if missing."""
    with _provisioning():
        if not (os.path.exists(BROWSER) and os.path.exists(DRIVER)):
            if os.geteuid() != 0:
                raise BrowserUnavailable(f"missing Debian packages {list(PACKAGES)}; install them with apt-get")
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True, timeout=600, env=env)
            result = subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES],
                                    capture_output=True, text=True, timeout=1200, env=env)
            if result.returncode != 0:
                raise BrowserUnavailable(f"apt-get install {list(PACKAGES)} failed: {result.stderr.strip()[-400:]}")
        browser = shutil.which("chromium") or BROWSER
        driver = shutil.which("chromedriver") or DRIVER
        if not (os.path.exists(browser) and os.path.exists(driver)):
            raise BrowserUnavailable(f"installed {list(PACKAGES)} but {browser} or {driver} is missing")
        return browser, driver


if __name__ == "__main__":       # provision ahead of a test run: python -m tests.interop.browser
    print(browser_paths())
