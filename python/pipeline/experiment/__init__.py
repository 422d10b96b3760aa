"""One validated model of an experiment (datasets, folds, methods, engine, grids, run options, tables)
and the one function that runs it; every front door (``pipeline.paper``, ``kgrid``, ``pgrid``,
``evaluate``) builds the model and calls :func:`~pipeline.experiment.run.run_experiment`."""
