"""softmix benchmarks: ``python -m benchmarks.run`` (see README, 'Benchmarks')."""
