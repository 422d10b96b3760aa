"""The HAR command line as a new user meets it: a classifier that cannot eat the chosen embedder says
what works, the shipped BasicMotions label table reproduces the documented open-set score, and
``run-all`` scores every model on every test set and writes the combined table."""

from __future__ import annotations

import json

import numpy as np

from pipeline.cli import run_main
from pipeline.protocols.har.cli import main
from pipeline.protocols.har.vocabulary import load_label_vocabulary


def test_a_sequence_classifier_on_a_pooled_embedder_says_what_works(tmp_path, capsys):
    args = ["evaluate", "--model", "limu-bert", "--dataset", "basicmotions", "--embedder", "summary_stats",
            "--output-dir", str(tmp_path)]
    assert run_main(main, args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the gru classifier needs sequence embeddings (N, T, D)" in err
    assert "--embedder raw_sequence" in err and "--classifier linear" in err
    assert not list(tmp_path.iterdir())
    # the two ways out the message names both run
    assert run_main(main, [*args, "--classifier", "linear", "--epochs", "2"]) == 0
    np.save(tmp_path / "pooled.npy", np.zeros((80, 8)))
    assert run_main(main, ["evaluate", "--model", "limu-bert", "--dataset", "basicmotions", "--embeddings",
                           str(tmp_path / "pooled.npy"), "--output-dir", str(tmp_path)]) == 2
    assert "--embedder raw_sequence" in capsys.readouterr().err


def test_the_documented_demo_reproduces_its_open_set_score_with_the_shipped_table(tmp_path):
    demo = ["evaluate", "--model", "demo", "--dataset", "basicmotions", "--embedder", "summary_stats",
            "--text-encoder", "minilm", "--epochs", "2"]
    scores = {}
    for table in (None, "default"):
        out = tmp_path / str(table)
        assert run_main(main, [*demo, "--output-dir", str(out), *(["--label-table", table] if table else [])]) == 0
        document = json.loads((out / "basicmotions_demo_evaluation.json").read_text())
        scores[table] = (document["metrics"]["zero_shot_open_set"], document["config"]["label_table"])
    # the built-in dataset defaults to its shipped table: docs/har.md's 32.5 % (4 labels, chance 25 %)
    open_set, provenance = scores[None]
    assert open_set["accuracy"] == 32.5 and open_set["coverage"] == 1.0
    assert provenance["source"] == "basicmotions" and provenance["n_training_labels"] == 4
    assert provenance["sha256"] == load_label_vocabulary("basicmotions").sha256
    assert scores["default"][1]["source"] == "default" and scores["default"][1]["n_training_labels"] == 87
    # the shipped table is the one docs/har.md prints
    assert list(load_label_vocabulary("basicmotions").training_labels) == [
        "jogging", "playing_badminton", "standing_still", "strolling"]


def _test_set(path, seed, n=40, classes=("sitting", "walking")):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % len(classes)
    windows = rng.normal(size=(n, 120, 6)) + labels[:, None, None]
    np.savez(path, windows=windows, labels=labels, activity_names=np.array(classes))
    return windows, labels


def test_run_all_scores_every_model_on_every_test_set_then_tables(tmp_path, capsys):
    datasets, embeddings, out = tmp_path / "datasets", tmp_path / "embeddings", tmp_path / "out"
    datasets.mkdir()
    sets = {name: _test_set(datasets / f"{name}.npz", seed) for seed, name in enumerate(("setA", "setB"))}
    for model in ("moment", "limu-bert"):
        (embeddings / model).mkdir(parents=True)
    for name, (windows, _) in sets.items():
        np.save(embeddings / "moment" / f"{name}.npy", windows.mean(axis=1))     # pooled (N, D)
    np.save(embeddings / "limu-bert" / "setA.npy", windows[:, :, :4])           # a sequence (N, T, D); no setB
    args = ["run-all", "--datasets-dir", str(datasets), "--embeddings-dir", str(embeddings),
            "--output-dir", str(out), "--epochs", "2"]
    assert run_main(main, args) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[:4] == [f"[1/4] limu-bert on setA: {out / 'setA_limu-bert_evaluation.json'}",
                           f"[2/4] limu-bert on setB: skipped (no {embeddings / 'limu-bert' / 'setB.npy'})",
                           f"[3/4] moment on setA: {out / 'setA_moment_evaluation.json'}",
                           f"[4/4] moment on setB: {out / 'setB_moment_evaluation.json'}"]
    assert printed[4:] == [str(out / f"results_table.{ext}") for ext in ("md", "csv", "tex")]
    limu = json.loads((out / "setA_limu-bert_evaluation.json").read_text())
    assert limu["config"]["classifier"]["type"] == "gru"          # each baseline's own classifier
    table = (out / "results_table.csv").read_text()
    assert "setA,moment" in table and "setB,moment" in table and "setA,limu-bert" in table
    # resumed: kept files are not recomputed
    before = (out / "setB_moment_evaluation.json").stat().st_mtime_ns
    assert run_main(main, [*args, "--skip-existing"]) == 0
    assert f"[4/4] moment on setB: kept {out / 'setB_moment_evaluation.json'}" in capsys.readouterr().out
    assert (out / "setB_moment_evaluation.json").stat().st_mtime_ns == before
    assert run_main(main, ["run-all", "--datasets-dir", str(tmp_path / "none"), "--embeddings-dir",
                           str(embeddings)]) == 2
    assert "field '--datasets-dir'" in capsys.readouterr().err
