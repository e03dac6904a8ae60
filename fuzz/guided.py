"""Coverage-guided fuzzing of one reader with atheris (libFuzzer for Python).

:mod:`fuzz.run` mutates blindly and is fast on every core; this one is slower per
input but keeps the mutations that reach new branches of wawkit's code, so it gets
into corners blind mutation rarely finds. It starts from the same seeds and uses the
same targets; an input that raises anything but a typed error, takes longer than
``-timeout`` or needs more than ``-rss_limit_mb`` is written to ``fuzz/crashes/<target>/``
by libFuzzer (``crash-``, ``timeout-`` or ``oom-`` + sha1) and replayed by the tests.

Run (atheris is optional: ``.venv/bin/pip install atheris``)::

    .venv/bin/python -m fuzz.guided save -max_total_time=600
    .venv/bin/python -m fuzz.guided buildfile -runs=200000 -jobs=2

Any ``-flag=value`` after the target name goes to libFuzzer.
"""
from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz.targets import ALLOWED, CRASHES, TARGETS, seeds  # noqa: E402

#: The modules whose branches guide the search (everything a reader runs through).
READERS = ("converter.vassal.sequence", "converter.vassal.obfuscation", "converter.vassal.container",
           "converter.vassal.metadata", "converter.vassal.commands", "converter.vassal.save", "converter.vassal.log",
           "converter.vassal.pieces", "converter.vassal.traits", "converter.vassal.buildfile",
           "converter.vassal.module", "converter.vassal.images", "converter.files", "converter.documents",
           "converter.schema", "converter.profile", "converter.scenario", "converter.actions_text")


def main(argv: list[str]) -> None:
    if not argv or argv[0] not in TARGETS:
        sys.exit(f"usage: python -m fuzz.guided TARGET [-libfuzzer_flag=value ...]; targets: {', '.join(TARGETS)}")
    import atheris

    name, flags = argv[0], argv[1:]
    for module in READERS:
        importlib.import_module(module)
    atheris.instrument_all()
    function = TARGETS[name]

    def one_input(data: bytes) -> None:
        try:
            function(data)
        except ALLOWED:
            pass

    folder = CRASHES / name
    folder.mkdir(parents=True, exist_ok=True)
    corpus = Path(tempfile.mkdtemp(prefix=f"wawkit-fuzz-{name}-"))
    for index, data in enumerate(seeds()[name]):
        (corpus / f"seed-{index}").write_bytes(data)
    defaults = [f"-artifact_prefix={folder}/", "-timeout=2", "-rss_limit_mb=500", "-max_len=65536"]
    given = {flag.split("=", 1)[0] for flag in flags}
    args = [sys.argv[0], *[d for d in defaults if d.split("=", 1)[0] not in given], *flags, str(corpus)]
    atheris.Setup(args, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv[1:])
