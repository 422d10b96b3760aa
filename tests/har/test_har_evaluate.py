"""End to end on the real BasicMotions data: five metrics, JSON files, cache, CLI errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.cli import run_main
from pipeline.errors import DataError
from pipeline.fileio import dumps_json
from pipeline.protocols.har.cache import EmbeddingCache
from pipeline.protocols.har.classifiers import TrainingConfig
from pipeline.protocols.har.cli import main
from pipeline.protocols.har.evaluate import EvaluationConfig, evaluate_model, write_evaluation
from pipeline.protocols.har.providers import (JointProvider, ProjectedSensorEmbedder, RawSequenceEmbedder,
                                              SummaryStatisticsEmbedder)

SUPERVISED = ("supervised_1pct", "supervised_10pct", "linear_probe")


def _check_supervised_counts(metrics, n_test=8):
    assert [metrics[k]["n_train_samples"] for k in SUPERVISED] == [4, 4, 64]
    assert all(metrics[k]["n_samples"] == n_test and metrics[k]["n_classes"] == 4 for k in SUPERVISED)


def test_text_aligned_provider_all_five_metrics(basic_motions, minilm, tmp_path):
    provider = JointProvider("tsfm", ProjectedSensorEmbedder(SummaryStatisticsEmbedder(), minilm.width), minilm)
    result = evaluate_model(basic_motions, "tsfm", provider, EvaluationConfig())   # protocol epochs: 100
    metrics = result["metrics"]
    assert all(entry["applicable"] for entry in metrics.values())
    for key in ("zero_shot_open_set", "zero_shot_closed_set"):
        assert metrics[key]["n_samples"] == 80 and metrics[key]["n_train_samples"] == 0
        assert 0.0 <= metrics[key]["accuracy"] <= 100.0
    # badminton has no synonym among the 87 training labels; running/standing/walking do
    assert metrics["zero_shot_open_set"]["coverage"] == 0.75
    _check_supervised_counts(metrics)
    assert metrics["linear_probe"]["accuracy"] > 25.0            # above chance on 4 balanced classes
    assert result["config"]["classifier"]["type"] == "linear"
    assert result["config"]["classifier"]["epochs"] == 100
    path = write_evaluation(result, tmp_path)
    assert path.name == "basicmotions_tsfm_evaluation.json"
    assert json.loads(path.read_text())["metrics"]["linear_probe"] == pytest.approx(metrics["linear_probe"])


def test_moment_svm_is_deterministic_and_above_chance(basic_motions):
    config = EvaluationConfig(classifier="svm_rbf", training=TrainingConfig(epochs=100))
    first = evaluate_model(basic_motions, "moment", SummaryStatisticsEmbedder(), config)
    second = evaluate_model(basic_motions, "moment", SummaryStatisticsEmbedder(), config)
    assert dumps_json(first) == dumps_json(second)
    metrics = first["metrics"]
    assert metrics["zero_shot_open_set"] == {"applicable": False, "reason": "not text-aligned"}
    _check_supervised_counts(metrics)
    assert metrics["supervised_1pct"]["svm_branch"] == "single_svc"
    assert metrics["supervised_10pct"]["accuracy"] > 25.0
    assert first["config"]["classifier"]["C_grid"][0] == 1e-4


def test_sequence_baselines_gru_and_transformer(basic_motions):
    for model, kind, epochs in (("limu-bert", "gru", 30), ("crosshar", "transformer_ft", 5)):
        config = EvaluationConfig(classifier=kind, training=TrainingConfig(epochs=epochs))
        metrics = evaluate_model(basic_motions, model, RawSequenceEmbedder(), config)["metrics"]
        if kind == "gru":          # 6 pure sub-windows of 20 steps per window
            assert [metrics[k]["n_samples"] for k in SUPERVISED] == [48, 48, 8]
            # the subsample is drawn over windows (as for every baseline), then cut: counts in windows
            assert [metrics[k]["n_train_samples"] for k in SUPERVISED] == [4, 4, 64]
            assert [metrics[k].get("n_train_subwindows") for k in SUPERVISED] == [24, 24, None]
        else:
            _check_supervised_counts(metrics)
        assert max(metrics["supervised_1pct"]["accuracy"], metrics["supervised_10pct"]["accuracy"]) > 25.0, model


def test_equal_strategy_is_recorded(basic_motions):
    config = EvaluationConfig(classifier="svm_rbf", strategy="equal")
    result = evaluate_model(basic_motions, "moment", SummaryStatisticsEmbedder(), config)
    assert result["config"]["subsample_strategy"] == "equal"
    assert result["metrics"]["supervised_10pct"]["n_train_samples"] == 4 * max(1, int(64 * 0.1) // 4)


class CountingEmbedder(SummaryStatisticsEmbedder):
    def __init__(self):
        self.calls = 0

    def embed(self, windows):
        self.calls += 1
        return super().embed(windows)


def test_embedding_cache_reuses_and_refuses_pickle(basic_motions, tmp_path):
    cache = EmbeddingCache(tmp_path)
    embedder = CountingEmbedder()
    first = cache.window_embeddings("m1", basic_motions, lambda: embedder.embed(basic_motions.windows))
    again = cache.window_embeddings("m1", basic_motions, lambda: embedder.embed(basic_motions.windows))
    assert embedder.calls == 1 and np.array_equal(first, again)
    files = list((tmp_path / "m1").glob("basicmotions_*.npy"))
    assert len(files) == 1 and basic_motions.content_hash()[:16] in files[0].name
    np.save(files[0], np.array([{"x": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(DataError, match="are pickles and are refused"):
        cache.window_embeddings("m1", basic_motions, lambda: embedder.embed(basic_motions.windows))


def test_row_count_mismatch_is_an_error_and_nothing_is_cached(basic_motions, tmp_path):
    class Short:
        name = "short"

        def embed(self, windows):
            return np.zeros((len(windows) - 1, 4))

    with pytest.raises(DataError, match="different row counts"):
        evaluate_model(basic_motions, "short", Short(), EvaluationConfig(), EmbeddingCache(tmp_path))
    assert not any(tmp_path.rglob("*.npy"))


# ----------------------------------------------------------------------------------------- CLI
def _npz_dataset(path, windows, labels, names):
    np.savez(path, windows=windows, labels=np.asarray(labels), activity_names=np.array(names))
    return path


def test_cli_precomputed_embeddings_and_table(basic_motions, tmp_path):
    data = _npz_dataset(tmp_path / "bm.npz", basic_motions.windows, basic_motions.labels,
                        list(basic_motions.activity_names))
    embeddings = tmp_path / "emb.npy"
    np.save(embeddings, SummaryStatisticsEmbedder().embed(basic_motions.windows))
    out = tmp_path / "out"
    assert run_main(main, ["evaluate", "--model", "moment", "--dataset", str(data), "--embeddings",
                           str(embeddings), "--output-dir", str(out)]) == 0
    document = json.loads((out / "bm_moment_evaluation.json").read_text())
    assert document["config"]["classifier"]["type"] == "svm_rbf"          # MOMENT's own classifier
    assert run_main(main, ["table", "--input-dir", str(out)]) == 0
    assert (out / "results_table.md").read_text().count("| bm | moment |") == 1


@pytest.mark.parametrize("case", ["rows", "nan", "pickle", "model_name", "label_texts"])
def test_cli_bad_input_exits_2_and_writes_nothing(basic_motions, tmp_path, capsys, case):
    windows = basic_motions.windows.copy()
    if case == "nan":
        windows[3, 0, 0] = np.nan
    data = _npz_dataset(tmp_path / "bm.npz", windows, basic_motions.labels, list(basic_motions.activity_names))
    embeddings = tmp_path / "emb.npy"
    rows = 79 if case == "rows" else 80
    if case == "pickle":
        np.save(embeddings, np.array([object()] * 80, dtype=object), allow_pickle=True)
    else:
        np.save(embeddings, np.ones((rows, 5)))
    args = ["evaluate", "--model", "../evil" if case == "model_name" else "tsfm", "--dataset", str(data),
            "--embeddings", str(embeddings), "--output-dir", str(tmp_path / "out")]
    if case == "label_texts":
        labels = tmp_path / "labels.npz"
        np.savez(labels, texts=np.array(["running"]), embeddings=np.ones((1, 5)))
        args += ["--label-embeddings", str(labels)]
    assert run_main(main, args) == 2
    message = capsys.readouterr().err
    expected = {"rows": "different row counts", "nan": "NaN", "pickle": "are pickles and are refused",
                "model_name": "invalid model name", "label_texts": "label embeddings lack texts"}[case]
    assert expected in message and message.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_cli_rejects_mixed_embedding_sources(tmp_path, capsys):
    args = ["evaluate", "--model", "m", "--dataset", "basicmotions", "--embedder", "summary_stats",
            "--label-embeddings", str(tmp_path / "labels.npz"), "--output-dir", str(tmp_path / "out")]
    assert run_main(main, args) == 2
    assert "--label-embeddings goes with --embeddings" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_every_classifier_trains_on_the_same_subsampled_windows(basic_motions, monkeypatch):
    """The GRU's 1 %/10 % subsample is drawn over windows like the others', then cut into sub-windows."""
    import pipeline.protocols.har.evaluate as evaluate_module

    drawn = {}
    original = evaluate_module.balanced_subsample

    def recording(train_x, *args, **kwargs):
        chosen = original(train_x, *args, **kwargs)
        drawn.setdefault(current, []).append(np.sort(chosen[0]))
        return chosen

    monkeypatch.setattr(evaluate_module, "balanced_subsample", recording)
    for current in ("gru", "linear"):
        config = EvaluationConfig(classifier=current, training=TrainingConfig(epochs=1))
        evaluate_model(basic_motions, "m", RawSequenceEmbedder(), config)
    assert len(drawn["gru"]) == len(drawn["linear"]) == 2
    for gru, linear in zip(drawn["gru"], drawn["linear"]):
        np.testing.assert_array_equal(gru, linear)
        assert gru.max() < basic_motions.n_windows  # window indices, not sub-window rows
