"""The results layout (pipeline.results.layout): the names on disk of every kind of result file, and
the folder of a method run with other parameters (sweeps, seeds) and of a tuning candidate."""

from __future__ import annotations

import pytest

from pipeline.errors import ConfigError
from pipeline.experiment.model import MethodEntry, parameter_variants
from pipeline.results.layout import (all_features_path, candidate_path, claim_path, is_seed_folder,
                                     metrics_name_pattern, seed_folder, task_files, tuning_path, variant_method)
from pipeline.runner.tasks import canonical_params


def test_every_file_keeps_its_documented_name(tmp_path):
    """The names docs/results-schema.md gives, which results folders written before hold."""
    files = task_files(tmp_path, "LRMFS", "emotions", 3)
    assert [p.relative_to(tmp_path).as_posix() for p in files.all()] == [
        "LRMFS/emotions_fold3_scores.csv", "LRMFS/emotions_fold3_ranking.csv", "LRMFS/emotions_fold3_ranking.json",
        "LRMFS/emotions_fold3_time.txt", "LRMFS/emotions_fold3_kgrid_metrics.json",
        "LRMFS/emotions_fold3_pgrid_metrics.json"]
    params = canonical_params({"alpha": 0.1})
    assert {path.relative_to(tmp_path).as_posix() for path in (
        tuning_path(tmp_path, "LRMFS", "emotions", 3), candidate_path(tmp_path, "LRMFS", "emotions", 3, params),
        claim_path(tmp_path, "LRMFS", "emotions", 3), claim_path(tmp_path, "LRMFS", "emotions", 3, params),
        all_features_path(tmp_path, "emotions", 3))} == {
        "LRMFS/emotions_fold3_tuning.json", "LRMFS/emotions_fold3_candidates/af39a185b5a846fc.json",
        "LRMFS/.emotions_fold3.claim", "LRMFS/.emotions_fold3_caf39a185b5a846fc.claim",
        "_reference/emotions_fold3_all_features.json"}


def test_sweeps_and_seeds_get_their_folders_from_one_scheme():
    sweep = parameter_variants("LRMFS", {"alpha": [0.1, 1], "beta": 2, "gamma": ["a"]})
    assert [folder for folder, _ in sweep] == ["LRMFS__alpha_0.1__gamma_a", "LRMFS__alpha_1__gamma_a"]
    seeds = MethodEntry(name="LRDG", seeds=(3, 11)).variants()
    assert [folder for folder, _ in seeds] == ["LRDG__seed_3", "LRDG__seed_11"] == [seed_folder("LRDG", 3),
                                                                                  seed_folder("LRDG", 11)]
    assert [variant_method(f) for f, _ in sweep + seeds] == ["LRMFS", "LRMFS", "LRDG", "LRDG"]
    assert [is_seed_folder(f) for f, _ in sweep + seeds] == [False, False, True, True]
    with pytest.raises(ConfigError, match="invalid"):
        seed_folder("LRDG", "../x")


@pytest.mark.parametrize("name,found", [("emotions_fold3_kgrid_metrics.json", ("emotions", "3")),
                                        ("a_fold1_b_fold12_kgrid_metrics.json", ("a_fold1_b", "12")),
                                        ("emotions_fold3_pgrid_metrics.json", None),
                                        ("emotions_fold_kgrid_metrics.json", None)])
def test_metrics_file_names_read_back(name, found):
    match = metrics_name_pattern("kgrid").fullmatch(name)
    assert (None if match is None else (match["dataset"], match["fold"])) == found

