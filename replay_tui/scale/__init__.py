"""Judging at scale: all cores of one machine (``pool``), archives and clusters beside it."""
