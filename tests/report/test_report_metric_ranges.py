"""A metric outside the range ``metrics.json`` declares for it (a micro-F1 of 1.7, a negative
coverage) is a damaged results file, never a result: the tables refuse it, naming the file, the
entry and the range, instead of tabling it (issue 32)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from results_factory import write_all_features, write_result_set

from pipeline.errors import DataError
from pipeline.evaluation.metrics import METRIC_RANGES, METRICS
from pipeline.results.schema import read_all_features_file, read_metrics_file

METHODS = ["AAA", "BBB"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    write_result_set(root, METHODS, ["toy"], folds=2, n_features=[40])
    write_all_features(root, ["toy"], folds=2, n_features=[40])
    return root


def _edited(path, tmp_path, change):
    record = json.loads(path.read_text())
    change(record)
    edited = tmp_path / path.name
    edited.write_text(json.dumps(record))
    return edited


@pytest.mark.parametrize("metric", METRICS)
def test_every_metric_outside_its_declared_range_is_refused(results, tmp_path, metric):
    interval = METRIC_RANGES[metric]
    outside = interval.just_outside(0.5)
    source = results / "AAA" / "toy_fold0_kgrid_metrics.json"
    read_metrics_file(source)  # the factory's values are within every range
    edited = _edited(source, tmp_path, lambda record: record[metric].__setitem__(2, outside))
    with pytest.raises(DataError) as refused:
        read_metrics_file(edited)
    assert f"field '{metric}.2': out of range (expected {interval}; found {outside})" in str(refused.value)


def test_an_all_features_reference_outside_the_range_is_refused(results, tmp_path):
    source = results / "_reference" / "toy_fold0_all_features.json"
    read_all_features_file(source)
    edited = _edited(source, tmp_path, lambda record: record["metrics"].__setitem__("macro_f1", -0.2))
    with pytest.raises(DataError, match=r"field 'metrics.macro_f1': .*>= 0 and <= 1; found -0.2"):
        read_all_features_file(edited)


def test_the_tables_command_refuses_a_micro_f1_of_1_7(tmp_path):
    results = write_result_set(tmp_path / "results", METHODS, ["toy"], folds=2, n_features=[40])
    path = results / "BBB" / "toy_fold1_kgrid_metrics.json"
    record = json.loads(path.read_text())
    record["micro_f1"][0] = 1.7
    path.write_text(json.dumps(record))
    out = tmp_path / "tables"
    done = subprocess.run([sys.executable, "-m", "pipeline.tables", "--results-dir", str(results), "--methods",
                           *METHODS, "--ref-method", "AAA", "--out-dir", str(out), "--no-figures"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"error: {path}, field 'micro_f1.0': out of range (expected >= 0 and <= 1; found 1.7)\n")
    assert not any(out.rglob("*.tex")) and not any(out.rglob("*.csv"))
