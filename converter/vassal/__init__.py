"""VASSAL file formats: containers, obfuscation, commands, traits, modules, grids.

Two layers, as in the spec (../shared/spec/vassal-formats.md): a raw token layer that
keeps every byte so an unmodified file re-encodes identically, and a typed layer on
top of it whose edits change only the tokens they touch.
"""
