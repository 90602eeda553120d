"""Judging captures at scale: a local process pool, object-storage archives, a Dask cluster."""
