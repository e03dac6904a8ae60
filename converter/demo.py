"""``make demo``: the three jobs on the sample module, from a fresh clone.

    python -m converter.demo samples

1. validates ``samples/demo.vsav`` (soundness and position legality);
2. resolves the pending direct fire of The Untold Stories §6.1 example -- the
   Leopard C1 fires AP at the concealed T-64 in the woods of F6 -- with a
   fixed seed, writes the corrected save and its audit record, and replays the
   audit to show the result is reproducible;
3. draws the position before (with the line of sight) and after (with the result),
   and validates the corrected save.

Everything is written into ``out/`` beside the samples folder (git-ignored); the
inputs are never changed. Exit code 0 when every step did what it should.
"""
from __future__ import annotations

import sys
from pathlib import Path

from converter.actions_text import parse
from converter.audit import verify
from converter.errors import WawkitError
from converter.render import picture
from converter.resolve import read_position, run, write_resolution
from converter.validate import Options, validate_path

#: The pending action in short syntax (units by their import keys), and the seed that rolls
#: its dice: 5 1 4 4 to hit (the book's 4 1 5 4 in another order), 5 1 2 4 4 to save.
ACTION = "fire leopard-c1 t-64 ap"
SEED = 10
#: The line of sight drawn on the pictures.
SIGHT = ("leopard-c1", "t-64")


def banner(text: str) -> None:
    print(f"\n== {text} " + "=" * max(0, 70 - len(text)))


def demo(samples: Path, out: Path) -> int:
    """Run the demo; returns the exit code."""
    save, module, profile = samples / "demo.vsav", samples / "waw-sample.vmod", samples / "profile.yaml"
    out.mkdir(parents=True, exist_ok=True)
    options = Options(str(module), str(profile), "classic")

    banner(f"validate {save}")
    before = validate_path(save, options)
    print(before.to_text())

    banner(f"resolve: {ACTION} (seed {SEED})")
    position = read_position(save, module, profile)
    resolved = run(position, [parse(ACTION)], seed=SEED, audit_dir=out)
    print(resolved.report)
    if resolved.save is None:
        return 1
    corrected, record_path = out / "demo-resolved.vsav", out / "demo-resolved.audit.json"
    write_resolution(resolved, corrected, record_path, overwrite=True)

    banner(f"verify {record_path}")
    check = verify(record_path)
    print(check.to_text())

    banner("render")
    before_png, after_png = out / "demo-before.png", out / "demo-resolved.png"
    picture(save, before_png, module=str(module), profile=str(profile), sights=[SIGHT])
    picture(corrected, after_png, module=str(module), profile=str(profile), sights=[SIGHT],
            audit=str(record_path))
    print(f"{before_png}\n{after_png}")

    banner(f"validate {corrected}")
    after = validate_path(corrected, options)
    print(after.to_text())

    banner("files")
    for path in (corrected, record_path, before_png, after_png):
        print(f"  {path} ({path.stat().st_size} bytes)")
    ok = check.identical and before.kind != "unreadable" and after.kind != "unreadable"
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    samples = Path(args[0] if args else "samples").resolve()
    out = Path(args[1]).resolve() if len(args) > 1 else samples.parent / "out"
    try:
        return demo(samples, out)
    except (WawkitError, OSError) as error:
        print(f"demo: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
