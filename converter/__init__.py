"""wawkit's outer layer: files, formats, pictures and the command line.

Everything that knows about VASSAL, YAML, pixels or the terminal lives here; the
rules live in :mod:`referee`, which never imports this package.
"""
