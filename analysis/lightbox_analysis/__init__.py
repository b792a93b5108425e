"""Lightbox's analysis service: what photos show, for a library to store (docs/ANALYSIS.md)."""

__version__ = "1.0.0"
