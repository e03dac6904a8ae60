"""The long fuzz run behind ``make fuzz``: mutated real files through every reader.

Each worker process takes the targets of :mod:`fuzz.targets` in turn and feeds each a
mutation of one of its seeds (real saves, logs, buildFiles and YAML files cut small)
or of an earlier mutation that the reader accepted, so the run walks deeper than the
seeds alone. Mutations are byte-level (flips, inserted VASSAL delimiters, repeated
chunks for deep nesting, truncation, splices) and, for zip containers, structural
(entries renamed ``../evil`` or ``/abs``, payloads re-obfuscated after mutation).

Every input must finish within ``--timeout`` seconds of CPU time (the machine may be
shared: wall time would count other processes' work, and a loaded machine then reports
inputs that take milliseconds as timeouts) and end either normally or with a typed error
(:data:`fuzz.targets.ALLOWED`). An input that blocks (waits on something, using no CPU)
is caught by a second limit, :data:`WALL_FACTOR` times longer, on the time the worker
spent neither running nor waiting for a CPU (the kernel's run-queue delay,
``/proc/self/schedstat``): however loaded the machine, waiting for a turn on a core is
not blocking. Anything else -- another exception, a timeout, a ``MemoryError`` under the
per-worker address-space cap -- is saved as ``<crashes>/<target>/<sha1>.bin``
(``fuzz/crashes/`` unless ``--crashes`` says otherwise) with the traceback beside it
(``.txt``); the tests replay every saved input (``tests/fuzz/test_crash_regressions.py``).

The figures of the run (inputs per target, slowest input, peak memory) are printed
as one table and written to ``--report`` (JSON) for bench/RESULTS.md; each run also
adds one line to ``history.jsonl`` beside it.

Run: ``.venv/bin/python -m fuzz.run --inputs 1000000 --workers 2``.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import multiprocessing
import os
import random
import resource
import signal
import sys
import time
import traceback
import warnings
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz.targets import ALLOWED, CRASHES, TARGETS, prepare, seeds  # noqa: E402

#: Byte strings that mean something to one of the readers; inserted by mutations.
TOKENS = [b"\x1b", b"\\", b"\\\\\x1b", b";", b",", b"\t", b"\\\t", b"'", b"+/", b"-/", b"D/", b"M/",
          b"null", b"-1", b"2147483648", b"99999999999999999999", b"1e309", b"NaN", b"\0", b"\r\n",
          b"piece;", b"stack;", b"emb2;", b"mark;", b"prototype;", b"begin_save", b"end_save", b"LOG\t",
          b"<!DOCTYPE x [<!ENTITY e \"ee\">]>", b"&e;", b"<![CDATA[", b"]]>", b"<a>", b"</a>", b"\"",
          b"!VCSK", b"VOBS", b"!VCSZ", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"{", b"}", b"[", b"]",
          b": ", b"- ", b"&a", b"*a", b"!!python/object", b"%", b"$", b"#", b"|", b"=", b"\n"]
#: Every compression method zipfile can write; each has its own ways to fail on corrupt data.
COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
#: Zip entry names a hostile archive may carry.
NAMES = ["../evil", "/abs", "savedGame", "savedata", "moduledata", "a/../../b", "C:\\x", "x" * 300]


#: Every run's report, one JSON line each, beside the last run's report.
HISTORY = "history.jsonl"


class Timeout(BaseException):
    """Raised by the interval timer when one input runs past the time limit."""


@dataclass
class Figures:
    """What one worker (or the whole run, summed) saw."""

    inputs: dict[str, int] = field(default_factory=dict)
    typed_errors: dict[str, int] = field(default_factory=dict)
    crashes: dict[str, int] = field(default_factory=dict)
    slowest: dict[str, float] = field(default_factory=dict)
    peak_rss_mb: float = 0.0
    seconds: float = 0.0

    def add(self, other: "Figures") -> None:
        for mine, theirs in ((self.inputs, other.inputs), (self.typed_errors, other.typed_errors),
                             (self.crashes, other.crashes)):
            for key, value in theirs.items():
                mine[key] = mine.get(key, 0) + value
        for key, value in other.slowest.items():
            self.slowest[key] = max(self.slowest.get(key, 0.0), value)
        self.peak_rss_mb = max(self.peak_rss_mb, other.peak_rss_mb)
        self.seconds = max(self.seconds, other.seconds)


class Mutator:
    """Random edits of byte strings, reproducible from one seed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def bytes(self, data: bytes, other: bytes) -> bytes:
        rng = self.rng
        out = bytearray(data)
        for _ in range(rng.choice((1, 1, 2, 3, 5))):
            kind = rng.randrange(10)
            at = rng.randrange(len(out) + 1)
            if kind == 0 and out:
                out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
            elif kind == 1 and out:
                out[min(at, len(out) - 1)] = rng.randrange(256)
            elif kind in (2, 3, 4):
                out[at:at] = rng.choice(TOKENS)
            elif kind == 5:
                end = min(len(out), at + rng.randrange(1, 64))
                del out[at:end]
            elif kind == 6:
                end = min(len(out), at + rng.randrange(1, 32))
                out[at:at] = out[at:end] * rng.choice((2, 3, 16, 200))
            elif kind == 7:
                del out[at:]
            elif kind == 8 and other:
                start = rng.randrange(len(other))
                out[at:at] = other[start:start + rng.randrange(1, 256)]
            else:
                out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
        return bytes(out[:1 << 20])

    def container(self, data: bytes, other: bytes) -> bytes:
        """A zip rebuilt from mutated entries (half the time), or the zip's bytes mutated."""
        rng = self.rng
        if rng.random() < 0.5:
            return self.bytes(data, other)
        from converter.vassal.obfuscation import VCSK, VOBS, obfuscate
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                entries = [(info.filename, archive.read(info)) for info in archive.infolist()]
        except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError, RuntimeError):
            return self.bytes(data, other)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", rng.choice(COMPRESSIONS)) as archive:
            for name, body in entries:
                if rng.random() < 0.1:
                    name = rng.choice(NAMES)
                if name == "savedGame" and rng.random() < 0.7:
                    from converter.vassal.obfuscation import deobfuscate
                    try:
                        plain = deobfuscate(body)[0]
                    except ALLOWED:
                        plain = body
                    body = obfuscate(self.bytes(plain, other), rng.choice((VCSK, VOBS)))
                elif rng.random() < 0.3:
                    body = self.bytes(body, other)
                archive.writestr(name, body)
            if rng.random() < 0.1:
                archive.writestr(rng.choice(NAMES), b"x")
        return buffer.getvalue()


#: The limit on the time one input may spend blocked, as a multiple of its CPU-time limit.
WALL_FACTOR = 15
#: The kernel's scheduler figures of this process's main thread: nanoseconds run, nanoseconds
#: waited on a run queue, time slices.
SCHEDSTAT = Path("/proc/self/schedstat")


def _busy() -> float:
    """Seconds the main thread has run or waited for a CPU (its CPU time where the kernel does not say)."""
    try:
        ran, waited = SCHEDSTAT.read_text().split()[:2]
    except (OSError, ValueError):
        return time.thread_time()
    return (int(ran) + int(waited)) / 1e9


class _Blocked:
    """The wall-clock watch of one input: when the alarm rings, the input has been blocked for the
    wall time elapsed less the time it ran or waited for a CPU. Under that limit the alarm is set
    again for what remains, so only blocking, never load, ends an input."""

    def __init__(self) -> None:
        self.limit = 0.0
        self.started = self.busy = 0.0

    def arm(self, limit: float) -> None:
        self.limit, self.started, self.busy = limit, time.perf_counter(), _busy()
        signal.setitimer(signal.ITIMER_REAL, limit)

    def ring(self) -> None:
        blocked = (time.perf_counter() - self.started) - (_busy() - self.busy)
        if blocked >= self.limit:
            raise Timeout()
        signal.setitimer(signal.ITIMER_REAL, max(self.limit - blocked, 0.01))


_WATCH = _Blocked()


def _on_alarm(signum: int, frame: object) -> None:
    if signum == signal.SIGALRM:
        _WATCH.ring()
        return
    raise Timeout()


def _arm(timeout: float) -> None:
    """Both timers of one input: CPU time (SIGPROF) and, far longer, time blocked (SIGALRM)."""
    signal.setitimer(signal.ITIMER_PROF, timeout)
    _WATCH.arm(timeout * WALL_FACTOR)


def _disarm() -> None:
    """Stop both timers, even when one fires meanwhile: a Timeout raised here (the input had
    already ended) must not escape the loop and end the worker, as it once did 420,000 inputs
    into a run, losing that worker's figures."""
    while True:
        try:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            return
        except Timeout:
            continue


def _save_crash(crashes: Path, name: str, data: bytes, report: str) -> Path:
    folder = crashes / name
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()[:16]
    path = folder / f"{digest}.bin"
    path.write_bytes(data)
    path.with_suffix(".txt").write_text(report, encoding="utf-8")
    return path


def _signature(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    last = frames[-1] if frames else None
    where = f"{Path(last.filename).name}:{last.lineno}" if last else "?"
    return f"{type(error).__name__}@{where}"


def work(worker: int, count: int, names: list[str], seed: int, timeout: float, memory_mb: int,
         progress: bool, crashes: Path | None = None) -> Figures:
    """Run ``count`` inputs round-robin over ``names``; returns this worker's figures. Failing
    inputs are saved under ``crashes`` (by default :data:`fuzz.targets.CRASHES`)."""
    crashes = CRASHES if crashes is None else crashes
    if memory_mb:
        cap = memory_mb * (1 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGPROF, _on_alarm)
    warnings.simplefilter("ignore")  # zipfile warns about the duplicate names mutations write
    rng = random.Random(seed * 1_000_003 + worker)
    mutator = Mutator(rng)
    pools = {name: list(items) for name, items in seeds().items() if name in names}
    prepare([name for name in names if name in TARGETS])
    seen: set[str] = set()
    figures = Figures()
    started = time.perf_counter()
    for index in range(count):
        name = names[index % len(names)]
        pool = pools[name]
        base, other = rng.choice(pool), rng.choice(pool)
        data = mutator.container(base, other) if name == "container" else mutator.bytes(base, other)
        began = time.process_time()
        _arm(timeout)
        failure: BaseException | None = None
        accepted = False
        try:
            TARGETS[name](data)
            accepted = True
        except ALLOWED:
            figures.typed_errors[name] = figures.typed_errors.get(name, 0) + 1
        except (Exception, Timeout) as error:  # noqa: BLE001 - every other exception is a finding
            failure = error
        finally:
            _disarm()
        took = time.process_time() - began
        figures.inputs[name] = figures.inputs.get(name, 0) + 1
        figures.slowest[name] = max(figures.slowest.get(name, 0.0), took)
        if failure is not None:
            text = "".join(traceback.format_exception(type(failure), failure, failure.__traceback__))
            signature = f"{name}:{_signature(failure)}"
            figures.crashes[name] = figures.crashes.get(name, 0) + 1
            if signature not in seen:
                seen.add(signature)
                path = _save_crash(crashes, name, data, f"{signature}\ntook {took:.3f} s\n\n{text}")
                print(f"[worker {worker}] {signature} -> {path}", file=sys.stderr, flush=True)
        elif accepted and len(pool) < 400 and rng.random() < 0.05:
            pool.append(data)
        if progress and index and index % 20_000 == 0:
            rate = index / (time.perf_counter() - started)
            print(f"[worker {worker}] {index:,}/{count:,} inputs, {rate:,.0f}/s", file=sys.stderr, flush=True)
    figures.seconds = time.perf_counter() - started
    figures.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def _work(args: tuple) -> dict:
    return asdict(work(*args))


def table(figures: Figures, workers: int) -> str:
    """The run as one table: inputs, typed errors, crashes and slowest input (CPU seconds) per target."""
    lines = [f"{'target':<12}{'inputs':>11}{'typed err':>11}{'crashes':>9}{'slowest cpu s':>15}"]
    for name in sorted(figures.inputs):
        lines.append(f"{name:<12}{figures.inputs[name]:>11,}{figures.typed_errors.get(name, 0):>11,}"
                     f"{figures.crashes.get(name, 0):>9,}{figures.slowest.get(name, 0.0):>15.3f}")
    total = sum(figures.inputs.values())
    lines.append(f"{'all':<12}{total:>11,}{sum(figures.typed_errors.values()):>11,}"
                 f"{sum(figures.crashes.values()):>9,}{max(figures.slowest.values(), default=0.0):>15.3f}")
    lines.append(f"{workers} workers, {figures.seconds:,.0f} s, peak memory per worker "
                 f"{figures.peak_rss_mb:,.0f} MB (max RSS)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000, help="Inputs in all, over all targets.")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--targets", default=",".join(TARGETS), help="Comma-separated target names.")
    parser.add_argument("--seed", type=int, default=int(time.time()), help="Random seed (printed).")
    parser.add_argument("--timeout", type=float, default=2.0, help="Seconds of CPU time one input may take.")
    parser.add_argument("--memory-mb", type=int, default=1500, help="Address-space cap per worker (0: none).")
    parser.add_argument("--report", type=Path, default=ROOT / "fuzz" / "last-run.json")
    parser.add_argument("--crashes", type=Path, default=CRASHES,
                        help="Folder of the failing inputs saved (one subfolder per target).")
    args = parser.parse_args(argv)
    names = [n for n in args.targets.split(",") if n]
    unknown = sorted(set(names) - set(TARGETS))
    if unknown:
        parser.error(f"unknown targets {unknown}; known: {', '.join(TARGETS)}")
    print(f"fuzzing {', '.join(names)}: {args.inputs:,} inputs on {args.workers} workers, seed {args.seed}",
          file=sys.stderr, flush=True)
    shares = [args.inputs // args.workers + (i < args.inputs % args.workers) for i in range(args.workers)]
    jobs = [(i, share, names, args.seed, args.timeout, args.memory_mb, True, args.crashes)
            for i, share in enumerate(shares)]
    started = time.perf_counter()
    if args.workers == 1:
        results = [_work(jobs[0])]
    else:
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            results = pool.map(_work, jobs)
    total = Figures()
    for result in results:
        total.add(Figures(**result))
    total.seconds = time.perf_counter() - started
    print(table(total, args.workers))
    report = {"seed": args.seed, "workers": args.workers, "timeout": args.timeout, "clock": "cpu", **asdict(total),
              "total_inputs": sum(total.inputs.values()), "total_crashes": sum(total.crashes.values()),
              "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    with open(args.report.parent / HISTORY, "a", encoding="utf-8") as history:  # one line per run, kept
        history.write(json.dumps(report, sort_keys=True) + "\n")
    return 1 if report["total_crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
