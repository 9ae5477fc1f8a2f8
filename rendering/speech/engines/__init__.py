"""The voice engines, one module each, behind `Engine` (engines/base.py).

This package's own file imports nothing: importing one engine loads the package first,
and an engine's cache identity traces what loading it runs, so siblings stay out.
"""
