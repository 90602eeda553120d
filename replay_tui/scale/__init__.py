"""Judging captures at scale: a process pool, object-storage archives, a Dask cluster."""
