"""The benchmark report: its options, its making, and the rendering of results for readers.

``options`` (:class:`~.options.ReportOptions`, every option of a report, checked once), ``job``
(one report of loaded results: statistics, captions, every output), ``explorer`` (the results
explorer: one self-contained HTML page of a job, with Plotly inlined) and ``build``
(:func:`~.build.build_report`, what every front door calls) know the benchmark; ``__main__`` is
``python -m pipeline.report html``. The rendering
modules below them have no MLFS knowledge: ``latex`` (Jinja2 environment with LaTeX-safe
delimiters and the ``latex`` filter), ``tables`` (score, rank, statistics and value tables to
LaTeX and Markdown), ``figures`` (curve panels and critical-difference diagrams, PNG + PDF,
deterministic), ``output`` (output folders checked up front), ``templates/`` (``*.tex.j2``).
"""
