"""A seed-averaged metrics file carries the digest of its own content (docs/results-schema.md): kept
while neither it nor a seed's file changed, made again when it was edited by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pipeline.experiment.model import MethodEntry
from pipeline.fileio import dumps_json
from pipeline.paper.seeds import average_seeds
from pipeline.results.digest import content_sha256

RESULTS = Path(__file__).resolve().parents[1] / "fixtures" / "results_before_issue31" / "results"
RANDOM = MethodEntry("RANDOM", seeds=(0, 1))


def test_an_edited_average_is_made_again_and_an_unedited_one_kept(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(RESULTS, results)
    average = results / "RANDOM" / "demo_fold0_kgrid_metrics.json"
    assert "content_sha256" not in json.loads(average.read_text())     # written before averages had one
    assert average_seeds(results, RANDOM, "demo", 0, "kgrid") == "done"
    written = average.read_text()
    assert json.loads(written)["content_sha256"] == content_sha256(written)
    assert average_seeds(results, RANDOM, "demo", 0, "kgrid") == "skipped"

    record = json.loads(written)
    record["micro_f1"][0] = 0.99                                        # written as the writer would, digest kept
    average.write_text(dumps_json(record))
    assert average_seeds(results, RANDOM, "demo", 0, "kgrid") == "done"
    assert average.read_text() == written                               # the same average, made again
