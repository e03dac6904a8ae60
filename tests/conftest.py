"""Test-wide settings.

Property tests run derandomized, so a test run is reproducible: the same examples
every time, on every machine (CI included). Exploring new random inputs is the job of
``make fuzz``, not of ``make test``.
"""
from __future__ import annotations

from hypothesis import settings

settings.register_profile("wawkit", derandomize=True, database=None, print_blob=True)
settings.load_profile("wawkit")
