"""The open-set label table: the shipped default, a user's file through the CLI, and validation on load."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from pipeline.cli import run_main
from pipeline.errors import ConfigError, DataError
from pipeline.protocols.har.cli import main
from pipeline.protocols.har.vocabulary import load_label_vocabulary, parse_label_table

SMALL_TABLE = {"training_labels": ["running", "walking"],
               "groups": {"running": ["running", "jogging"], "walking": ["walking", "strolling"]}}


def test_shipped_table_is_the_documented_default():
    vocabulary = load_label_vocabulary()
    assert len(vocabulary.training_labels) == 87
    assert list(vocabulary.training_labels) == sorted(set(vocabulary.training_labels))
    assert vocabulary.groups.group("walking_upstairs") == "ascending_stairs"
    assert vocabulary.groups.group("walking_downstairs") == "descending_stairs"
    assert vocabulary.groups.group("stairs") == "stairs"
    assert vocabulary.groups.group("unlisted_activity") == "unlisted_activity"
    assert load_label_vocabulary(coarse=True).groups.group("walking_downstairs") == "stairs"
    assert set(vocabulary.groups.label_to_group) <= set(vocabulary.training_labels)
    shipped = resources.files("pipeline.protocols.har").joinpath("label_groups.json")
    from_file = load_label_vocabulary(str(shipped))
    assert from_file.sha256 == vocabulary.sha256 and from_file.training_labels == vocabulary.training_labels
    assert vocabulary.provenance() == {"source": "default", "sha256": vocabulary.sha256, "groups": "groups",
                                       "n_training_labels": 87}


@pytest.mark.parametrize("change, field, fragment", [
    ({"groups": None}, "groups", "must be an object"),
    ({"group": {}}, None, "unknown ['group']"),
    ({"training_labels": ["walking", "running"]}, "training_labels", "'walking' before 'running'"),
    ({"training_labels": ["running", "running"]}, "training_labels", "'running' before 'running'"),
    ({"training_labels": ["running"]}, "training_labels", "at least two"),
    ({"training_labels": ["running", 7]}, "training_labels", "printable string"),
    ({"training_labels": ["running", " walking"]}, "training_labels", "surrounding spaces"),
    ({"groups": {"running": ["running"], "fast": ["running"]}}, "groups.fast", "also in group 'running'"),
    ({"groups": {"running": []}}, "groups.running", "non-empty list"),
    ({"groups": {"": ["running"]}}, "groups.", "printable string"),
    ({"groups_simple": {"x": "running"}}, "groups_simple.x", "non-empty list"),
    ({"description": 3}, "description", "free text"),
])
def test_invalid_tables_name_the_field(change, field, fragment):
    table = {**SMALL_TABLE, **change}
    with pytest.raises(ConfigError) as info:
        parse_label_table(table, "mine.json")
    message = str(info.value)
    assert message.startswith("mine.json") and fragment in message
    if field is not None:
        assert f"field '{field}'" in message


def test_coarse_groups_need_groups_simple_and_non_objects_are_refused():
    with pytest.raises(ConfigError, match="coarse groups were asked for"):
        parse_label_table(SMALL_TABLE, "mine.json", coarse=True)
    with pytest.raises(ConfigError, match="JSON object"):
        parse_label_table(["running"], "mine.json")
    coarse = parse_label_table({**SMALL_TABLE, "groups_simple": {"moving": ["running", "walking"]}}, "m", True)
    assert coarse.groups.group("walking") == "moving" and coarse.table == "groups_simple"


def test_empty_and_broken_table_files(tmp_path):
    (tmp_path / "empty.json").write_text("")
    with pytest.raises(DataError, match="empty file"):
        load_label_vocabulary(tmp_path / "empty.json")
    (tmp_path / "broken.json").write_text('{"training_labels": [')
    with pytest.raises(DataError, match="cannot parse JSON document"):
        load_label_vocabulary(tmp_path / "broken.json")


def _text_aligned_inputs(tmp_path):
    """20 windows of 'jogging'/'strolling'; one-hot window and label embeddings put jogging on the
    axis of 'running' and strolling on the axis of 'walking', so the open-set prediction is always
    the synonym of the truth."""
    labels = np.repeat([0, 1], 10)
    windows = np.random.RandomState(0).standard_normal((20, 120, 6))
    np.savez(tmp_path / "toy.npz", windows=windows, labels=labels, activity_names=np.array(["jogging", "strolling"]))
    np.save(tmp_path / "emb.npy", np.eye(2)[labels])
    np.savez(tmp_path / "labels.npz", texts=np.array(["running", "walking", "jogging", "strolling"]),
             embeddings=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]))
    return ["evaluate", "--model", "tsfm", "--dataset", str(tmp_path / "toy.npz"), "--epochs", "1",
            "--embeddings", str(tmp_path / "emb.npy"), "--label-embeddings", str(tmp_path / "labels.npz")]


def test_user_table_decides_open_set_matching(tmp_path):
    args = _text_aligned_inputs(tmp_path)
    (tmp_path / "synonyms.json").write_text(json.dumps(SMALL_TABLE))
    (tmp_path / "no_groups.json").write_text(json.dumps({**SMALL_TABLE, "groups": {}}))
    scores = {}
    for table in ("synonyms", "no_groups"):
        out = tmp_path / table
        assert run_main(main, args + ["--label-table", str(tmp_path / f"{table}.json"), "--output-dir", str(out)]) == 0
        document = json.loads((out / "toy_tsfm_evaluation.json").read_text())
        scores[table] = document["metrics"]["zero_shot_open_set"]
        provenance = document["config"]["label_table"]
        assert provenance["source"] == f"{table}.json" and provenance["n_training_labels"] == 2
        assert document["metrics"]["zero_shot_closed_set"]["accuracy"] == 100.0
    assert scores["synonyms"]["accuracy"] == 100.0 and scores["synonyms"]["coverage"] == 1.0
    # without groups 'running' never equals 'jogging': every window is wrong and nothing is covered
    assert scores["no_groups"]["accuracy"] == 0.0 and scores["no_groups"]["coverage"] == 0.0


def test_cli_bad_table_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys):
    args = _text_aligned_inputs(tmp_path)
    (tmp_path / "bad.json").write_text(json.dumps({**SMALL_TABLE, "training_labels": ["walking", "running"]}))
    assert run_main(main, args + ["--label-table", str(tmp_path / "bad.json"), "--output-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.json" in err and "training_labels" in err
    assert not (tmp_path / "o").exists()
    # the default table's 87 labels are missing from this model's label embeddings
    assert run_main(main, args + ["--output-dir", str(tmp_path / "o")]) == 2
    assert "label embeddings lack texts" in capsys.readouterr().err
