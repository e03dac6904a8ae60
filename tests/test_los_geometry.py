"""LOS geometry: exact traces of the centre-to-centre string, checked against pixel geometry."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from referee.hexes import Hex, HexError, HexLayout
from referee.los_geometry import HexsideRun, LineTrace, line_shape, trace_line

FLAT = HexLayout.regular(64)                       # VASSAL default numbering: odd columns half up
POINTY = HexLayout.regular(64, "pointy")
STRETCHED = HexLayout("flat", 100.0, 40.0, (12.0, -30.0), stagger=False)
DREADBALL = HexLayout("pointy", 126.0, 144.0, (109.0, 77.0), stagger=True)   # a corpus board's grid

hexes_near = st.builds(Hex, st.integers(-15, 15), st.integers(-15, 15))
layouts = st.builds(HexLayout, st.sampled_from(["flat", "pointy"]), st.floats(20, 200), st.floats(20, 200),
                    st.tuples(st.floats(-300, 300), st.floats(-300, 300)), st.booleans())


def offsets(layout: HexLayout, hexes: tuple[Hex, ...]) -> list[tuple[int, int]]:
    return [h.to_offset(layout) for h in hexes]


def run_offsets(layout: HexLayout, trace: LineTrace) -> list[tuple[tuple[int, int], tuple[int, int], int]]:
    return [(run.first.to_offset(layout), run.second.to_offset(layout), run.position) for run in trace.hexside_runs]


# -- exact cases -------------------------------------------------------------------------

def test_along_a_flat_hex_column_no_hexside_runs() -> None:
    trace = trace_line(Hex.from_offset(3, 2, FLAT), Hex.from_offset(3, 6, FLAT), FLAT)
    assert offsets(FLAT, trace.hexes) == [(3, 3), (3, 4), (3, 5), (3, 6)]
    assert trace.hexside_runs == () and trace.corner_touches == ()
    assert offsets(FLAT, trace.between) == [(3, 3), (3, 4), (3, 5)]


def test_across_a_flat_hex_row_runs_along_hexsides() -> None:
    # Straight across: through the corners of the zig-zag row, between its up and down hexes.
    trace = trace_line(Hex.from_offset(0, 0, FLAT), Hex.from_offset(6, 0, FLAT), FLAT)
    assert offsets(FLAT, trace.hexes) == [(2, 0), (4, 0), (6, 0)]
    assert run_offsets(FLAT, trace) == [((1, 0), (1, 1), 0), ((3, 0), (3, 1), 1), ((5, 0), (5, 1), 2)]


def test_along_a_pointy_hex_row_and_down_a_spine() -> None:
    row = trace_line(Hex.from_offset(0, 0, POINTY), Hex.from_offset(4, 0, POINTY), POINTY)
    assert offsets(POINTY, row.hexes) == [(1, 0), (2, 0), (3, 0), (4, 0)]
    assert row.hexside_runs == ()
    spine = trace_line(Hex.from_offset(0, 0, POINTY), Hex.from_offset(0, 4, POINTY), POINTY)
    assert offsets(POINTY, spine.hexes) == [(0, 2), (0, 4)]
    assert run_offsets(POINTY, spine) == [((0, 1), (1, 1), 0), ((0, 3), (1, 3), 1)]


def test_a_diagonal_in_cube_terms() -> None:
    trace = trace_line(Hex(0, 0), Hex(5, -2))
    assert trace.hexes == (Hex(1, 0), Hex(2, -1), Hex(3, -1), Hex(4, -2), Hex(5, -2))
    assert trace.hexside_runs == () and trace.corner_touches == ()
    spine = trace_line(Hex(0, 0), Hex(2, 2))
    assert spine.hexes == (Hex(1, 1), Hex(2, 2))
    assert spine.hexside_runs == (HexsideRun(Hex(0, 1), Hex(1, 0), 0), HexsideRun(Hex(1, 2), Hex(2, 1), 1))


def test_a_string_through_a_lone_corner() -> None:
    # (0,0) to (-11,1) passes exactly through two corners without running along a side:
    # it goes on into a hex sharing a side with the one it left, and grazes a third.
    trace = trace_line(Hex(0, 0), Hex(-11, 1))
    assert trace.hexes == (Hex(-1, 0), Hex(-2, 0), Hex(-3, 0), Hex(-4, 0), Hex(-5, 1), Hex(-5, 0), Hex(-6, 1),
                           Hex(-6, 0), Hex(-7, 1), Hex(-8, 1), Hex(-9, 1), Hex(-10, 1), Hex(-11, 1))
    assert trace.corner_touches == (Hex(-4, 1), Hex(-7, 0))
    assert trace.hexside_runs == ()
    assert Hex(-4, 0).distance(Hex(-5, 1)) == 1 and Hex(-6, 0).distance(Hex(-7, 1)) == 1


def test_adjacent_and_same_hex() -> None:
    for neighbour in Hex(4, -7).neighbors():
        trace = trace_line(Hex(4, -7), neighbour)
        assert trace.hexes == (neighbour,) and trace.hexside_runs == () and trace.between == ()
    assert trace_line(Hex(2, 2), Hex(2, 2)) == LineTrace(Hex(2, 2), Hex(2, 2), (), (), ())


def test_stretched_boards_cross_the_same_hexes() -> None:
    # Hex outlines stretch with dx/dy (VASSAL's outline), so the string crosses the same
    # hexes on any board; test_pixel_geometry_agrees draws it in pixels to check.
    a, b = Hex.from_offset(1, 1, STRETCHED), Hex.from_offset(9, 4, STRETCHED)
    assert trace_line(a, b, STRETCHED) == trace_line(a, b, FLAT) == trace_line(a, b)
    assert pixel_trace(STRETCHED, a, b) == pixel_trace(FLAT, a, b) == pixel_trace(POINTY, a, b)


def nearest_centre_sequence(layout: HexLayout, a: Hex, b: Hex) -> list[Hex]:
    """Hexes along the pixel string, each sample given to the nearest centre in pixels."""
    (x0, y0), (x1, y1) = layout.center(a), layout.center(b)
    samples = 50 * a.distance(b)
    centres = {h: layout.center(h) for h in a.within(a.distance(b) + 2)}
    sequence: list[Hex] = []
    for i in range(1, samples + 1):
        x, y = x0 + i / samples * (x1 - x0), y0 + i / samples * (y1 - y0)
        hex_ = min(centres, key=lambda h: (centres[h][0] - x) ** 2 + (centres[h][1] - y) ** 2)
        if hex_ != a and (not sequence or sequence[-1] != hex_):
            sequence.append(hex_)
    return sequence


def test_stretched_outlines_are_not_nearest_centre_cells() -> None:
    # On regular hexes the outline is the set of points nearest the centre; on a board
    # stretched to 100 x 40 it is not, and a string judged by nearest centres crosses
    # the hexes in another order. The trace follows the board's outlines.
    a, b = Hex(0, 0), Hex(1, -4)
    exact = [Hex(0, -1), Hex(1, -2), Hex(0, -2), Hex(1, -3), Hex(1, -4)]
    assert list(trace_line(a, b, STRETCHED).hexes) == exact == pixel_trace(STRETCHED, a, b)[0]
    assert nearest_centre_sequence(FLAT, a, b) == exact
    assert nearest_centre_sequence(STRETCHED, a, b) == [Hex(0, -1), Hex(0, -2), Hex(1, -2), Hex(1, -3), Hex(1, -4)]


def test_bad_arguments() -> None:
    with pytest.raises(HexError, match="two hexes"):
        trace_line((0, 0), Hex(1, 0))                     # type: ignore[arg-type]
    with pytest.raises(HexError, match="must be a HexLayout"):
        trace_line(Hex(0, 0), Hex(1, 0), "flat")           # type: ignore[arg-type]


# -- properties --------------------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(hexes_near, hexes_near)
def test_tracing_is_symmetric(a: Hex, b: Hex) -> None:
    there, back = trace_line(a, b), trace_line(b, a)
    assert back.hexes == (*reversed(there.hexes[:-1]), a) if a != b else back.hexes == ()
    count = len(there.hexes)
    assert [(r.first, r.second, count - 1 - r.position) for r in reversed(back.hexside_runs)] == [
        (r.first, r.second, r.position) for r in there.hexside_runs]
    assert back.corner_touches == tuple(reversed(there.corner_touches))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(hexes_near, hexes_near)
def test_hexes_form_a_connected_chain(a: Hex, b: Hex) -> None:
    trace = trace_line(a, b)
    distance = a.distance(b)
    # Each hex passed and each hexside run along advances the range by at most one.
    assert len(trace.hexes) + len(trace.hexside_runs) >= distance and (a == b or trace.hexes[-1] == b)
    assert len(set(trace.hexes)) == len(trace.hexes) and a not in trace.hexes
    path = (a, *trace.hexes)
    run_at = {run.position: run for run in trace.hexside_runs}
    for index in range(len(path) - 1):
        here, there = path[index], path[index + 1]
        if index in run_at:
            # Hex, hexside, hex: both hexes beside the run touch both ends.
            run = run_at[index]
            assert here.distance(there) == 2 and run.first.distance(run.second) == 1
            assert {here.distance(run.first), here.distance(run.second),
                    there.distance(run.first), there.distance(run.second)} == {1}
        else:
            assert here.distance(there) == 1
    assert all(a.distance(h) + h.distance(b) <= distance + 1 for h in trace.hexes)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.integers(0, 5), hexes_near)
def test_hexside_runs_exactly_on_the_spines(length: int, direction: int, a: Hex) -> None:
    spine = [(2, -1), (1, 1), (-1, 2), (-2, 1), (-1, -1), (1, -2)][direction]
    b = Hex(a.q + spine[0] * length, a.r + spine[1] * length)
    trace = trace_line(a, b)
    assert len(trace.hexes) == length and len(trace.hexside_runs) == length
    assert [run.position for run in trace.hexside_runs] == list(range(length))
    near_spine = Hex(b.q + 1, b.r) if direction % 3 else Hex(b.q, b.r + 1)
    assert trace_line(a, near_spine).hexside_runs == ()


def test_shapes_are_cached_by_offset_vector() -> None:
    assert line_shape(7, -3) is line_shape(7, -3)
    assert trace_line(Hex(0, 0), Hex(7, -3)).hexes[3] == Hex(4, -2)
    assert trace_line(Hex(10, 5), Hex(17, 2)).hexes[3] == Hex(14, 3)


# -- the same answer drawn in pixels ------------------------------------------------------

def pixel_trace(layout: HexLayout, a: Hex, b: Hex) -> tuple[list[Hex], list[tuple[frozenset[Hex], int]], set[Hex]]:
    """Clip the pixel segment between the centres against each hex outline, in floats.

    Independent of the exact frame: uses only ``layout.center`` and ``layout.corners``.
    """
    (x0, y0), (x1, y1) = layout.center(a), layout.center(b)
    dx, dy = x1 - x0, y1 - y0
    scale = max(layout.dx, layout.dy) ** 2
    eps = 1e-9 * scale
    passed, beside, touched = [], {}, set()
    for hex_ in a.within(a.distance(b) + 1):
        if hex_ == a:
            continue
        cx, cy = layout.center(hex_)
        corners = layout.corners(hex_)
        low, high, on_side, hit = 0.0, 1.0, False, True
        for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
            ex, ey = bx - ax, by - ay
            inside = ex * (cy - ay) - ey * (cx - ax)
            sign = 1 if inside > 0 else -1
            start = sign * (ex * (y0 - ay) - ey * (x0 - ax))
            rate = sign * (ex * dy - ey * dx)
            if abs(rate) < eps:
                if start < -eps:
                    hit = False
                elif abs(start) <= eps:
                    on_side = True
            elif rate > 0:
                low = max(low, -start / rate)
            else:
                high = min(high, -start / rate)
        if not hit or low > high + 1e-9:
            continue
        if high - low <= 1e-9:
            touched.add(hex_)
        elif on_side:
            beside.setdefault(round(low, 6), set()).add(hex_)
        else:
            passed.append((low, hex_))
    passed.sort(key=lambda item: item[0])
    entries = [t for t, _ in passed]
    runs = [(frozenset(pair), sum(1 for t in entries if t < low - 1e-9)) for low, pair in sorted(beside.items())]
    return [h for _, h in passed], runs, touched


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(layouts, hexes_near, st.integers(-12, 12), st.integers(-12, 12))
def test_pixel_geometry_agrees(layout: HexLayout, a: Hex, dq: int, dr: int) -> None:
    b = Hex(a.q + dq, a.r + dr)
    trace = trace_line(a, b, layout)
    hexes, runs, touched = pixel_trace(layout, a, b)
    assert list(trace.hexes) == hexes
    assert [(frozenset((r.first, r.second)), r.position) for r in trace.hexside_runs] == runs
    assert set(trace.corner_touches) == touched


@pytest.mark.parametrize("layout", [FLAT, POINTY, STRETCHED, DREADBALL],
                         ids=["flat", "pointy", "stretched", "dreadball"])
@pytest.mark.parametrize("vector", [(2, -1), (6, -3), (-1, -1), (-11, 1), (7, -3), (1, 4), (-5, 9), (0, 8)])
def test_pixel_geometry_agrees_on_degenerate_lines(layout: HexLayout, vector: tuple[int, int]) -> None:
    a = Hex(3, -2)
    b = Hex(a.q + vector[0], a.r + vector[1])
    trace = trace_line(a, b, layout)
    hexes, runs, touched = pixel_trace(layout, a, b)
    assert (list(trace.hexes), [(frozenset((r.first, r.second)), r.position) for r in trace.hexside_runs],
            set(trace.corner_touches)) == (hexes, runs, touched)
