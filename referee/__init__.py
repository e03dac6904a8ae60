"""The referee: the canonical game model and the World at War rules.

Pure domain code: it never imports :mod:`converter` and knows nothing of VASSAL,
pixels or files.
"""
