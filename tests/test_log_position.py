"""The one-pass replay of a log (converter.importer.LogPosition) keeps the same position as a
full import of the log's position after each step: the same units, where they are, with the
same markers, only read again where a step touched the pieces."""
from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from converter.importer import LogPosition, read_inputs
from converter.vassal.commands import AddPiece, EndSave
from converter.vassal.container import Container, Entry
from converter.vassal.log import Replay
from converter.vassal.module import Module
from converter.vassal.save import SavedGame
from converter.vassal.sequence import ESC, join
from referee.model import Game
from tests.test_validate import MODULE, PROFILE, SAVE, _ids, _log

ROOT = Path(__file__).resolve().parents[1]
TLD = ROOT.parent / "shared" / "corpus" / "tld-longest-day"


def snapshot(replay: Replay, template: SavedGame) -> SavedGame:
    """The replay's current position as a save of its own (the template's boards and properties)."""
    texts = [c.text for c in template._state_commands() if not isinstance(c, (AddPiece, EndSave))]
    holders = {pid for pid, (type_text, _) in replay.pieces.items()
               if type_text == "stack" or type_text.startswith("deck;")}
    order = [pid for pid in replay.pieces if pid not in holders] + [pid for pid in replay.pieces if pid in holders]
    texts += [AddPiece.of(pid, *replay.pieces[pid], template.quoting).text for pid in order]
    texts.append("end_save")
    plaintext = (join(texts, ESC, template.quoting) or "").encode("utf-8", "surrogateescape")
    return SavedGame(Container([Entry("savedGame", b"")], plaintext, template.container.obfuscation,
                               template.container.metadata, template.path))


def by_piece(units, pieces):
    """Units by the piece they come from, without their keys (numbered in piece-id order by a full read)."""
    from dataclasses import replace
    return {pieces[key]: replace(unit, key="") for key, unit in units.items()}


def assert_indexes_as_built(game: Game) -> None:
    """The unit indexes a replay hands each Game are those the Game would build from its units."""
    fresh = Game(units=MappingProxyType(dict(game.units)), hexes=game.hexes)
    for name in ("_on_map_by_hex", "_attached_by_key", "_carried_by_key"):
        handed = game.__dict__.get(name)
        if handed is None:                    # the start's Game (units by key) builds its own
            continue
        built = getattr(fresh, name)
        if name == "_on_map_by_hex":          # Game.stack sorts each hex's units
            handed, built = ({h: sorted(u.key for u in us) for h, us in index.items()} for index in (handed, built))
        assert handed == built, name


def check_every_step(save: SavedGame, module: Module, inputs, every: int = 1) -> int:
    log = LogPosition(inputs.reader(module), save)
    full = inputs.reader(module)
    checked = 0
    for step in list(log.steps):
        log.apply(step)
        if step.index % every and step.index != len(log.steps) - 1:
            continue
        again = full.read(snapshot(log.replay, save))
        assert by_piece(log.game.units, log.pieces) == by_piece(again.game.units, again.pieces), step.index
        assert {h: s.markers for h, s in log.game.hexes.items() if s.markers} == \
            {h: s.markers for h, s in again.game.hexes.items() if s.markers}, step.index
        assert_indexes_as_built(log.game)
        checked += 1
    return checked


def test_the_sample_log_is_the_same_position_at_every_step(tmp_path: Path) -> None:
    ids = _ids()
    log_file = _log(tmp_path, [("Leopard C1", "C7"), ("M113", "C8"), ("T-64", "G5"), ("Soviet HQ", "J4"),
                               ("T-64", "H4"), ("Ops Complete", "C7")])
    save = SavedGame.read(log_file)
    module = Module.read(MODULE)
    inputs = read_inputs(PROFILE)
    assert check_every_step(save, module, inputs) == 7
    log = LogPosition(inputs.reader(module), save)
    changes = [log.apply(step) for step in list(log.steps)]
    # The M113 leaves its Ops Complete marker behind: the marker applies to the unit below it,
    # the US Infantry, until it is dropped in C7 beside the Leopard C1 (a stack of its own: the
    # logged move names no piece underneath), where it applies to no unit.
    assert [(sorted(c.changed), sorted(c.added), sorted(c.removed)) for c in changes] == [
        (["leopard-c1"], [], []), (["m113", "us-infantry"], [], []), (["t-64"], [], []), (["soviet-hq"], [], []),
        (["t-64"], [], []), (["us-infantry"], [], []), ([], [], [])]
    assert not any(u.status.ops_complete for u in log.game.units.values())
    assert log.pieces["t-64"] == ids["T-64"] and log.game.units["t-64"].hex == "H4"
    assert {"_on_map_by_hex", "_attached_by_key", "_carried_by_key"} <= set(log.game.__dict__)
    assert_indexes_as_built(log.game)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["0606-1.log", "0608-3.log"])
def test_a_longest_day_log_is_the_same_position_as_a_full_import(name: str) -> None:
    save = SavedGame.read(TLD / "logs" / name)
    inputs = read_inputs(ROOT / "profiles" / "longest-day.yaml", TLD / "faces.csv")
    steps = len(save.log_steps)
    assert check_every_step(save, Module.read(TLD / "buildFile"), inputs, every=97) == steps // 97 + 1 + \
        (1 if (steps - 1) % 97 else 0)


def test_a_counter_moved_elsewhere_is_not_classified_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A piece's state text holds where it lies, so a moved counter has new texts; what the
    profile makes of it (its kind, its own statuses) is read once per look, wherever it lies."""
    save = SavedGame.read(SAVE)
    reader = read_inputs(PROFILE).reader(Module.read(MODULE))
    pid = _ids()["T-64"]
    entry = save.pieces[pid]
    texts = (save.quoting, entry.type_text, entry.state_text)
    head, _, inner = entry.state_text.rpartition("\t")
    fields = inner.split(";")
    elsewhere = (save.quoting, entry.type_text, head + "\t" + ";".join([fields[0], "999", "888", *fields[3:]]))
    assert elsewhere != texts
    calls: list[str] = []
    classify = type(reader)._classify
    monkeypatch.setattr(type(reader), "_classify", lambda self, piece, piece_id: calls.append(piece_id) or
                        classify(self, piece, piece_id))
    kind = reader.kind(texts, pid)
    assert kind.what == "unit" and kind.entry.key == "t-64"
    assert reader.kind(elsewhere, pid) is kind and calls == [pid]
    assert reader.facts(elsewhere, pid, kind) is reader.facts(texts, pid, kind)
    flipped = (save.quoting, entry.type_text, entry.state_text.replace("\t", "\tX", 1))   # another look
    reader.kind(flipped, pid)
    assert calls == [pid, pid]
