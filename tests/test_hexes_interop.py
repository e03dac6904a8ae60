"""Range agrees with VASSAL's own ``HexGrid.range`` (Vengine.jar), run under Java.

A harness builds a ``HexGrid`` with each corpus grid's ``dx``, ``dy`` and ``sideways``
and answers the range between pixel centres; the same pairs are counted with
:meth:`Hex.distance`. The restated formula used by ``test_hexes.py`` is checked here
against the real class, including on a stretched grid where VASSAL overcounts.
"""
from __future__ import annotations

import pytest

from tests.interop.engine import run_java
from tests.test_hexes import VassalGrid, _raw_hex, corpus_grids

pytestmark = pytest.mark.interop

HARNESS = r"""
import VASSAL.build.module.map.boardPicker.board.HexGrid;
import java.awt.Point;
import java.io.*;

public class HexRangeHarness {
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    StringBuilder out = new StringBuilder();
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.trim().split(" ");
      HexGrid grid = new HexGrid(Double.parseDouble(f[1]), Double.parseDouble(f[2]), false);
      grid.setSideways(f[0].equals("1"));
      Point a = new Point(Integer.parseInt(f[3]), Integer.parseInt(f[4]));
      Point b = new Point(Integer.parseInt(f[5]), Integer.parseInt(f[6]));
      out.append(grid.range(a, b)).append('\n');
    }
    System.out.print(out);
  }
}
"""

CELLS = [(line, place) for line in range(12) for place in range(12)]


def test_range_matches_vassal_hexgrid_under_java() -> None:
    stretched = VassalGrid("constructed", False, 64.0, 64.0, 0, 0, False)
    requests: list[str] = []
    ours: list[int] = []
    restated: list[int] = []
    for grid in [*corpus_grids(), stretched]:
        layout = grid.layout()
        for line1, place1 in CELLS[::11]:
            a, p1 = _raw_hex(layout, grid, line1, place1), grid.raw_center(line1, place1)
            for line2, place2 in CELLS:
                p2 = grid.raw_center(line2, place2)
                requests.append(f"{int(grid.sideways)} {grid.dy!r} {grid.dx!r} {p1[0]} {p1[1]} {p2[0]} {p2[1]}")
                ours.append(a.distance(_raw_hex(layout, grid, line2, place2)))
                restated.append(grid.range(p1, p2))
    result = run_java(HARNESS, "HexRangeHarness", [], stdin=("\n".join(requests) + "\n").encode())
    vassal = [int(value) for value in result.stdout.decode().split()]
    per_grid = len(CELLS[::11]) * len(CELLS)
    assert len(vassal) == len(requests) == 11 * per_grid == 22176
    assert vassal == restated
    # Every corpus grid: VASSAL's range is the rules' hex count.
    assert vassal[:10 * per_grid] == ours[:10 * per_grid]
    # The square-stretched grid: VASSAL and the hex count part ways on some pairs.
    differing = sum(v != o for v, o in zip(vassal[10 * per_grid:], ours[10 * per_grid:]))
    assert differing == 722
