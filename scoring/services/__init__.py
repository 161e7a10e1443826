"""Writes of the scoring app for knowledge graphs: stored graphs, graph scores, TAU, kg runs, benchmarks."""
