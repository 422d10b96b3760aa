"""Rendering of results for readers; no MLFS knowledge.

Modules: ``latex`` (Jinja2 environment with LaTeX-safe delimiters and the ``latex`` filter),
``tables`` (score, rank, statistics and value tables to LaTeX and Markdown), ``figures`` (curve
panels and critical-difference diagrams, PNG + PDF, deterministic), ``output`` (output folders
checked up front), ``templates/`` (``*.tex.j2``).
"""
