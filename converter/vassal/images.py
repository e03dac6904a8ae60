"""Board images of a module: their size from the header alone, and pixels under a cap.

A module's images are as untrusted as its buildFile. A PNG header may claim 100,000 x
100,000 pixels (ten billion, 30 GB decoded) in a few bytes; an SVG may give its width as
``inf`` or ``nan``. So a board's size is read from the image header (or the SVG root
element) without decoding, and must be a finite whole size that VASSAL itself could
load (:data:`MAX_SIDE`, :data:`MAX_BOARD_PIXELS`); pixels are decoded only for a picture,
and only for images of at most :data:`MAX_DECODE_PIXELS` pixels. Anything else is an
:class:`ImageError`, which the module reader turns into a note ("size unknown") and the
picture into a board drawn without its image: a module is still usable without its
pictures.
"""
from __future__ import annotations

import io
import logging
import math
import re
import warnings
from typing import Any

from lxml import etree

from converter.errors import ModuleError

#: Longest side of a board image whose size is believed (65,535 is the JPEG format's
#: own ceiling; VASSAL's larger boards are tiled from smaller images).
MAX_SIDE = 65_535
#: Most pixels of one board whose size is believed: Java's BufferedImage, which VASSAL
#: draws boards into, cannot hold more than 2**31 - 1.
MAX_BOARD_PIXELS = 2**31 - 1
#: Most pixels decoded for a picture, and of the picture drawn: 32 Mpx is 96 MB as RGB (an
#: 8,000 x 4,000 board). ``render`` holds a board about three times (decoded, drawn on a copy,
#: pasted under the title band) and peaks at 418 MB at the cap; 48 Mpx measured 606 MB, over
#: the 500 MB one command may take.
MAX_DECODE_PIXELS = 32_000_000
#: Bytes of an image read to find its size: headers sit at the start (a JPEG's size may
#: follow its EXIF and colour profile blocks, which stay far below this).
HEADER_BYTES = 4 << 20

#: An SVG width or height wawkit reads as pixels: a number, unitless or in ``px`` -- or ``inf``
#: or ``nan``, which float() would read too, so that they are refused as not finite rather
#: than passed over as a size in other units.
_SVG_LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf(?:inity)?|nan))\s*(px)?\s*$",
                         re.IGNORECASE)


class ImageError(ModuleError):
    """A board image whose size or pixels cannot be read within the caps."""


def _pillow() -> Any:
    from PIL import Image
    # Pillow logs some refusals before raising (a TIFF claiming 1,000 samples a pixel); with no
    # handler configured Python would print them on stderr beside the one line wawkit gives.
    # The exception carries the reason, and the note or error names the image.
    pillow_log = logging.getLogger("PIL")
    if not pillow_log.handlers:
        pillow_log.addHandler(logging.NullHandler())
        pillow_log.propagate = False
    # wawkit applies its own caps (below) before any decode; Pillow's global bomb check
    # would otherwise refuse even to report the size a header claims.
    Image.MAX_IMAGE_PIXELS = None
    return Image


def _checked(width: float, height: float, what: str, file: str | None, entry: str | None) -> tuple[int, int]:
    """A size in whole pixels, refused when not finite, not positive or beyond what VASSAL loads."""
    if not (math.isfinite(width) and math.isfinite(height)):
        raise ImageError(f"{what} {width:g} x {height:g} is not a finite size", file=file, entry=entry)
    size = (int(width + 0.5), int(height + 0.5))
    if min(size) < 1:
        raise ImageError(f"{what} {width:g} x {height:g} is empty", file=file, entry=entry)
    if max(size) > MAX_SIDE or size[0] * size[1] > MAX_BOARD_PIXELS:
        raise ImageError(f"{what} {size[0]} x {size[1]} pixels is larger than VASSAL can load "
                         f"(at most {MAX_SIDE} pixels a side, {MAX_BOARD_PIXELS} in all)", file=file, entry=entry)
    return size


def _ends_after_a_tag_name(data: bytes) -> bool:
    """Whether the bytes stop just after an element's name, inside its start tag (``<svg`` and
    nothing more): its last ``<`` opens an element (not ``<?``, ``<!`` or ``</``) and only a
    name follows it."""
    last = data.rfind(b"<")
    name = data[last + 1:].rstrip()
    return last >= 0 and name[:1] not in (b"?", b"!", b"/", b"") and not any(c in name for c in b" \t\r\n=\"'>")


def _svg_size(data: bytes, file: str | None, entry: str | None) -> tuple[int, int] | None:
    """width/height of the SVG root element (unitless or px), else its viewBox; None if it states neither.

    Only the root element's start tag is parsed (``iterparse`` stops there), with
    entities, DTDs and the network off.
    """
    events = etree.iterparse(io.BytesIO(data), events=("start",), resolve_entities=False, no_network=True,
                             load_dtd=False, huge_tree=False)
    try:
        _, root = next(events)
    except (etree.XMLSyntaxError, StopIteration) as error:
        if _ends_after_a_tag_name(data):
            # A root element cut right after its name states no size: unknown, not wrong, as
            # lxml before 6.2 reported it (6.2 raises for the unfinished tag).
            return None
        raise ImageError(f"SVG image cannot be parsed: {error}", file=file, entry=entry) from None
    lengths = [_SVG_LENGTH.match(root.get(key, "")) for key in ("width", "height")]
    if all(lengths):
        return _checked(float(lengths[0].group(1)), float(lengths[1].group(1)),  # type: ignore[union-attr]
                        "SVG width x height", file, entry)
    view = (root.get("viewBox") or "").replace(",", " ").split()
    if len(view) != 4:
        return None
    try:
        width, height = float(view[2]), float(view[3])
    except ValueError:
        raise ImageError(f"SVG viewBox {root.get('viewBox')!r} is not four numbers", file=file, entry=entry) from None
    return _checked(width, height, "SVG viewBox", file, entry)


def image_size(data: bytes, *, file: str | None = None, entry: str | None = None) -> tuple[int, int] | None:
    """Pixel size of a raster image (from its header only) or an SVG; None when an SVG states none.

    Raises :class:`ImageError` for an image that cannot be identified, or whose size is
    not finite, not positive or beyond :data:`MAX_SIDE` / :data:`MAX_BOARD_PIXELS`.
    """
    if data[:512].lstrip().startswith(b"<"):
        return _svg_size(data, file, entry)
    image = _pillow()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with image.open(io.BytesIO(data)) as opened:
                width, height = opened.size
    except Exception as error:  # noqa: BLE001 - Pillow's format plugins raise many kinds on corrupt headers
        raise ImageError(f"image cannot be identified: {_reason(error)}", file=file, entry=entry) from None
    return _checked(width, height, "image", file, entry)


def decode_image(data: bytes, *, file: str | None = None, entry: str | None = None,
                 max_pixels: int = MAX_DECODE_PIXELS) -> Any:
    """The image as RGB pixels (a Pillow image), refused before decoding over ``max_pixels``."""
    image = _pillow()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with image.open(io.BytesIO(data)) as opened:
                width, height = opened.size
                if width * height > max_pixels:
                    raise ImageError(f"image of {width} x {height} pixels is over the {max_pixels}-pixel cap for "
                                     "decoding", file=file, entry=entry)
                return opened.convert("RGB")
    except ImageError:
        raise
    except Exception as error:  # noqa: BLE001 - Pillow's decoders raise many kinds on corrupt data
        raise ImageError(f"image cannot be decoded: {_reason(error)}", file=file, entry=entry) from None


_OBJECT = re.compile(r" ?<[\w.]+ object at 0x[0-9a-f]+>")


def _reason(error: BaseException) -> str:
    """Pillow's message, on one line and without the in-memory file's address."""
    text = _OBJECT.sub("", str(error).splitlines()[0] if str(error) else "").strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


__all__ = ["HEADER_BYTES", "ImageError", "MAX_BOARD_PIXELS", "MAX_DECODE_PIXELS", "MAX_SIDE", "decode_image",
           "image_size"]
