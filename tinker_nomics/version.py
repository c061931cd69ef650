"""The package version: one place, read by pyproject.toml (setuptools' dynamic version) and the package.

Usable from every wing, like errors and fmt, so the command line can say what produced its output.
"""
__version__ = "0.2.0"
