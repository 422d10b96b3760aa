"""A corpus of hostile configuration and structured-text inputs (issue 26): suite files, parameter
files, display maps, result files read back, ranking values, score tables and numeric options.

Each :class:`Case` names a command, the files it needs (written into a fresh workspace) and what a
correct program does with it: refuse it (exit 2, one ``error:`` line, no traceback) or accept it
(exit 0). ``tests/shared/test_hostile_documents.py`` runs every case in-process; ``python
scripts/hostile_documents_campaign.py`` runs them as real processes under a memory limit and counts the
defects per class (see its docstring).

Placeholders in arguments and file contents: ``{work}`` is the workspace; ``{folds}`` its toy fold
folder (dataset ``toy``, 2 folds) and ``{results}`` a results folder with k-grid results of RANDOM
and VARIANCE on it (made once per workspace by :func:`prepare_workspace`).
"""

from __future__ import annotations

import json
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REFUSED, ACCEPTED, REDONE = "refused", "accepted", "redone"


@dataclass(frozen=True)
class Case:
    """One hostile input: ``command`` (module and arguments), ``files`` (name -> text or bytes),
    ``links`` (symbolic links made before it runs), ``edits`` (keys set in an existing JSON file, whose
    other keys, its provenance included, stay as the run wrote them) and the correct outcome (:data:`REFUSED`, :data:`ACCEPTED`, or :data:`REDONE`: exit 0 and the
    damaged result file rewritten)."""

    id: str
    command: tuple[str, ...]
    files: dict = field(default_factory=dict)
    expect: str = REFUSED
    fragment: str = ""  # a piece of the expected message
    links: dict = field(default_factory=dict)  # symbolic link name -> its target (both may hold placeholders)
    edits: dict = field(default_factory=dict)  # existing JSON file -> {key: new value} (a damage made in place)


# --- suites ------------------------------------------------------------------------------------

BASE_SUITE = {
    "name": "hostile", "description": "a small suite",
    "datasets": ["toy"],
    "folds": {"dir": "folds", "mode": "holdout", "count": 2, "seed": 0, "test_size": 0.3,
              "scaler": "minmax", "clip_test": False},
    "methods": {"RANDOM": {}, "VARIANCE": {}},
    "engine": "python", "evaluator": "native",
    "mlknn": {"k": 5, "smooth": 1.0},
    "grids": {"kgrid": {"k_min": 5, "k_max": 20, "k_step": 5}},
    "run": {"results_dir": "results/hostile", "executor": "serial", "jobs": 1, "task_timeout": 60},
    "tables": {"out_dir": "tables", "ref_method": "RANDOM", "figures": False, "fit_width": True},
}


def suite_text(**changes) -> str:
    """The base suite as YAML (JSON is YAML) with ``changes`` at dotted paths (value ``...`` deletes)."""
    suite = json.loads(json.dumps(BASE_SUITE))
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = suite
        for part in parents:
            node = node[part]
        if value is ...:
            node.pop(last, None)
        else:
            node[last] = value
    return json.dumps(suite, indent=1)


def _with_raw(text: str, key: str, raw: str) -> str:
    """``text`` (a JSON suite) with the value of the first ``"key": ...`` line replaced by YAML ``raw``."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith(f'"{key}":'):
            indent = line[:len(line) - len(line.lstrip())]
            comma = "," if line.rstrip().endswith(",") else ""
            lines[i] = f'{indent}"{key}": {raw}{comma}'
            break
    return "\n".join(lines)


def _suite_cases() -> list[Case]:
    status = ("pipeline.paper", "status", "{work}/suite.yaml", "--root", "{work}/root")
    run = ("pipeline.paper", "run", "{work}/suite.yaml", "--root", "{work}/root", "--no-progress")
    cases = [Case("suite-valid", status, {"suite.yaml": suite_text()}, ACCEPTED)]
    typed = {  # field path -> hostile values (each must be refused)
        "folds__clip_test": ["false", "no", "true", 0, 1, None],
        "tables__figures": ["no", "false", 0],
        "tables__fit_width": ["false", "off"],
        "folds__count": [0, -1, 1e9, 10**9, 2.0, True, "5", 10**30],
        "folds__seed": [-1, 2**32, 1.5, "42", None],
        "folds__test_size": [0, 1, 1.5, -0.1, "0.3", True, float("nan")],
        "folds__mode": ["random", 3],
        "folds__scaler": ["robust"],
        "folds__dir": ["/abs/folds", "../outside", "a/../../b", "~/folds", "", "C:\\folds"],
        "run__results_dir": ["/tmp/elsewhere", "../../x"],
        "tables__out_dir": ["/tmp/tables", ".."],
        "run__task_timeout": [-1, 0, "3600", 1e12],
        "run__jobs": [0, -1, 10**6, "4", 1.5],
        "run__executor": ["threads"],
        "mlknn__k": [0, -3, 10**6, 2.5],
        "mlknn__smooth": [0, -1, "1"],
        "engine": ["java", None],
        "evaluator": ["gpu"],
        "datasets": [[], "toy", ["../x"], ["a/b"], ["toy", "TOY"], [1], ["t" * 300]],
        "methods": [{}, {"NOPE": {}}, {"RANDOM": {"params": {"seed": -1}}}, {"VARIANCE": {"seeds": [1]}},
                    {"RANDOM": {"seeds": 5}}, {"RANDOM": {"seeds": [1, 1]}}, {"RANDOM": {"seeds": ["1"]}},
                    {"RANDOM": {"seeds": [-1]}}, {"RANDOM": {"params": {"nope": 1}}}, {"RANDOM": 3},
                    {"RANDOM": {"sed": [1]}}, {"RANDOM": {"params": {"seed": "3"}}}],
        "grids": [{}, {"kgrid": {"k_min": 0}}, {"kgrid": {"k_min": 30, "k_max": 20}}, {"pgrid": {"p_step": 0}},
                  {"kgrid": {"k_mn": 3}}, {"qgrid": {}}, {"pgrid": {"p_target": 2}},
                  {"pgrid": {"p_min": 0}}, {"pgrid": {"p_max": 2}}, {"pgrid": {"p_min": -0.1}},
                  {"pgrid": {"p_min": 0.6, "p_max": 0.5}}, {"pgrid": {"p_target": 0}}, {"pgrid": {"p_step": 1.5}},
                  {"pgrid": {"p_max": 1.0000001}}],
        "tables__metrics": [["micro_f1", "nope"], [], "micro_f1", ["micro_f1", "micro_f1"]],
        "tables__ref_method": ["NOPE"],
        "name": ["../x", "", "a b/c"],
        "description": [["not", "text"], "d" * 20_000],
    }
    for path, values in typed.items():
        for i, value in enumerate(values):
            cases.append(Case(f"suite-{path.replace('__', '.')}-{i}", status, {"suite.yaml": suite_text(**{path: value})}))
    for key in ("name", "datasets", "folds", "methods", "grids"):
        cases.append(Case(f"suite-missing-{key}", status, {"suite.yaml": suite_text(**{key: ...})}))
    for section in ("folds", "mlknn", "run", "tables", "grids__kgrid"):
        cases.append(Case(f"suite-unknown-key-{section}", status,
                          {"suite.yaml": suite_text(**{f"{section}__extra": 1})}))
    base = suite_text()
    raw = {  # YAML written as such (tags, aliases, special floats, duplicates, depth, digits)
        "tag-python": ("description", "!!python/object/apply:os.system ['true']"),
        "tag-binary": ("description", "!!binary aGVsbG8="),
        "tag-str": ("description", "!!str plain"),
        "tag-set": ("description", "!!set {a: null}"),
        "tag-local": ("description", "!custom x"),
        "inf-timeout": ("task_timeout", ".inf"),
        "nan-smooth": ("smooth", ".nan"),
        "digits-count": ("count", "9" * 5000),
        "digits-seed": ("seed", "1" * 40),
        "float-overflow": ("smooth", "1e999"),
        "deep-description": ("description", "[" * 20_000 + "]" * 20_000),
        "deep-params": ("RANDOM", "{params: {seed: " + "[" * 100 + "]" * 100 + "}}"),
    }
    for name, (key, value) in raw.items():
        cases.append(Case(f"suite-yaml-{name}", status, {"suite.yaml": _with_raw(base, key, value)}))
    bomb = "".join(f"- &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}" if i else "lol"] * 9) + "]\n"
                   for i in range(9))
    cases += [
        Case("suite-alias-bomb-description", status, {"suite.yaml": "x: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
             + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8))
             + base.replace('"description": "a small suite"', '"description": *i')}),
        Case("suite-alias-bomb-list", status, {"suite.yaml": bomb}),
        Case("suite-duplicate-top-key", status, {"suite.yaml": base.replace('"engine": "python"',
                                                                              '"engine": "python", "engine": "octave"')}),
        Case("suite-duplicate-method", status, {"suite.yaml": base.replace('"VARIANCE": {}', '"VARIANCE": {}, "RANDOM": {}')}),
        Case("suite-empty-file", status, {"suite.yaml": ""}),
        Case("suite-not-utf8", status, {"suite.yaml": b"name: \xff\xfe\n"}),
        Case("suite-two-documents", status, {"suite.yaml": base + "\n---\n" + base}),
        Case("suite-top-level-list", status, {"suite.yaml": "[1, 2]"}),
        Case("suite-top-level-scalar", status, {"suite.yaml": "just text"}),
        Case("suite-too-large", status, {"suite.yaml": base + "\n#" + "x" * (2 << 20)}),
        Case("suite-long-key", status, {"suite.yaml": base.replace('"engine"', '"' + "k" * 20_000 + '": 1, "engine"')}),
        Case("suite-control-chars-name", status, {"suite.yaml": suite_text(name="ok\x1b[2J\x07")}),
        Case("suite-line-separator-name", status, {"suite.yaml": suite_text(name="a\u2028b")}),
        Case("suite-display-map-missing", status, {"suite.yaml": suite_text(tables__display_map="nomap.json")}),
        Case("suite-display-map-flat", status, {"suite.yaml": suite_text(tables__display_map="map.json"),
                                                "map.json": '{"RANDOM": "Random", "VARIANCE": "Variance"}'},
             ACCEPTED),
        Case("suite-run-quoted-boolean", run, {"suite.yaml": suite_text(folds__clip_test="false")}),
        Case("suite-run-negative-timeout", run, {"suite.yaml": suite_text(run__task_timeout=-1)}),
        Case("suite-run-absolute-folds", run, {"suite.yaml": suite_text(folds__dir="{work}/abs_folds")}),
        Case("suite-run-escaping-results", run, {"suite.yaml": suite_text(run__results_dir="../escaped")}),
        Case("suite-run-seeds-int", run, {"suite.yaml": suite_text(methods={"RANDOM": {"seeds": 5}})}),
        Case("suite-run-huge-count", run, {"suite.yaml": suite_text(folds__count=10**9)}),
        Case("suite-status-folds-option", status + ("--folds", "0"), {"suite.yaml": suite_text()}),
        Case("suite-status-folds-huge", status + ("--folds", "1000000000"), {"suite.yaml": suite_text()}),
        Case("suite-run-jobs-option", run + ("--jobs", "0"), {"suite.yaml": suite_text()}),
        Case("suite-run-pgrid-p-max-two", run, {"suite.yaml": suite_text(grids={"pgrid": {"p_max": 2}})},
             fragment="grids.pgrid"),
        Case("suite-dataset-without-folds", status, {"suite.yaml": suite_text(datasets=["toy", "nofolds"])},
             fragment="not a registered dataset"),
        Case("suite-run-dataset-without-folds", run, {"suite.yaml": suite_text(datasets=["toy", "nofolds"])},
             fragment="not a registered dataset"),
        *(Case(f"suite-{command}-fold-file-is-a-folder",  # a root of its own: the link is made in it
               ("pipeline.paper", command, "{work}/suite.yaml", "--root", "{work}/own"),
               {"suite.yaml": suite_text(datasets=["demo"])}, links={"own/folds/demo/fold0.mat": "{work}/a_folder"},
               fragment="is not a file") for command in ("status", "run")),
        Case("suite-valid-pgrid-to-one", status, {"suite.yaml": suite_text(grids={"pgrid": {"p_min": 0.5, "p_max": 1}})},
             ACCEPTED),
    ]
    return cases + _symlink_cases()


def _symlink_cases() -> list[Case]:
    """Written folders that a symbolic link inside ``--root`` sends elsewhere (each its own root)."""
    status = ("pipeline.paper", "status", "{work}/suite.yaml", "--root", "{work}/own")
    run = ("pipeline.paper", "run", "{work}/suite.yaml", "--root", "{work}/own", "--no-progress")
    suite = {"suite.yaml": suite_text()}
    outside = "{work}/outside"
    links = {
        "results": {"own/results": outside}, "results-dir": {"own/results/hostile": outside},
        "folds": {"own/folds": outside}, "dataset-folder": {"own/folds/toy": outside},
        "tables": {"own/tables": outside}, "tables-grid": {"own/tables/kgrid": outside},
        "parameter-report": {"own/tables/parameters": outside}, "method-folder": {"own/results/hostile/RANDOM": outside},
        "dangling": {"own/results": "/nonexistent-mlfs/elsewhere"}, "to-filesystem-root": {"own/results": "/"},
    }
    cases = [Case(f"suite-symlink-{name}", status, suite, links=made, fragment="symbolic link")
             for name, made in links.items()]
    cases += [Case("suite-run-symlink-method-folder", run, suite, links=links["method-folder"], fragment="symbolic link"),
              Case("suite-run-symlink-results", run, suite, links=links["results"], fragment="symbolic link"),
              # (a registered dataset: "own" holds no fold files, which demo's export would make)
              Case("suite-symlink-inside-root", status, {"suite.yaml": suite_text(datasets=["demo"])}, ACCEPTED,
                   links={"own/results": "{work}/own/elsewhere"}),
              Case("suite-symlink-root-itself", status, {"suite.yaml": suite_text(datasets=["demo"])}, ACCEPTED,
                   links={"own": outside})]
    return cases


# --- display maps (through a suite, so status and run read them, and through pipeline.tables) ----------

def _display_map_cases() -> list[Case]:
    status = ("pipeline.paper", "status", "{work}/suite.yaml", "--root", "{work}/root")
    suite = suite_text(tables__display_map="map.json")
    tables = ("pipeline.tables", "--results-dir", "{results}", "--ref-method", "RANDOM", "--no-figures",
              "--out-dir", "{work}/tables", "--display-map", "{work}/map.json")
    maps = {
        "list": '["RANDOM"]', "number-value": '{"RANDOM": 3}', "empty-value": '{"RANDOM": " "}',
        "duplicate-key": '{"RANDOM": "A", "RANDOM": "B"}', "nested": '{"RANDOM": {"x": "A"}}',
        "deep": "[" * 50_000 + "]" * 50_000, "digits": '{"RANDOM": ' + "7" * 5000 + "}",
        "nan": '{"RANDOM": NaN}', "long-label": json.dumps({"RANDOM": "L" * 5000}),
        "not-json": "{RANDOM: Random", "bom": "\ufeff{}", "not-utf8": b'{"RANDOM": "\xff"}',
        "huge": json.dumps({f"name{i}": "x" * 200 for i in range(100_000)}),
    }
    cases = []
    for name, content in maps.items():
        cases.append(Case(f"display-map-suite-{name}", status, {"suite.yaml": suite, "map.json": content}))
        cases.append(Case(f"display-map-tables-{name}", tables, {"map.json": content}))
    cases.append(Case("display-map-tables-valid", tables, {"map.json": '{"RANDOM": "Random"}'}, ACCEPTED))
    return cases


# --- parameter files ------------------------------------------------------------------------------

def _params_cases() -> list[Case]:
    def kgrid(name: str) -> tuple[str, ...]:
        return ("pipeline.kgrid", "--engine", "python", "--methods", "RANDOM", "LRMFS", "--no-progress",
                "--data-dir", "{folds}", "--results-dir", "{work}/res", "--k-min", "5", "--k-max", "10",
                "--params", "{work}/" + name)
    json_params = {
        "seed-negative": '{"RANDOM": {"seed": -1}}', "seed-text": '{"RANDOM": {"seed": "1"}}',
        "seed-digits": '{"RANDOM": {"seed": ' + "1" * 5000 + "}}", "seed-nan": '{"RANDOM": {"seed": NaN}}',
        "alpha-infinity": '{"LRMFS": {"alpha": Infinity}}', "alpha-overflow": '{"LRMFS": {"alpha": 1e999}}',
        "duplicate-method": '{"RANDOM": {"seed": 1}, "RANDOM": {"seed": 2}}',
        "duplicate-param": '{"RANDOM": {"seed": 1, "seed": 2}}',
        "deep": '{"RANDOM": {"seed": ' + "[" * 30_000 + "]" * 30_000 + "}}",
        "unknown-method": '{"NOPE": {}}', "unknown-param": '{"RANDOM": {"nope": 1}}',
        "not-object": "[1, 2]", "method-not-object": '{"RANDOM": 3}', "bool-for-float": '{"LRMFS": {"alpha": true}}',
        "string-for-float": '{"LRMFS": {"alpha": "0.1"}}', "mode-huge": json.dumps({"LRMFS": {"mode": "m" * 900_000}}),
        "sweep-repeated": '{"RANDOM": {"seed": [1, 2, 1]}}', "sweep-empty": '{"RANDOM": {"seed": []}}',
        "sweep-nested": '{"RANDOM": {"seed": [[1]]}}',
        "sweep-int-float": '{"LRMFS": {"alpha": [1, 1.0]}}',
        "sweep-case-collision": '{"LRMFS": {"mode": ["fast", "Fast"]}}',
        "sweep-huge": json.dumps({"LRMFS": {"alpha": list(range(1, 2000)), "beta": list(range(1, 2000))}}),
        "empty": "", "truncated": '{"RANDOM": {"seed": 1', "not-utf8": b'{"RANDOM": {"seed": "\xff"}}',
        "alpha-negative": '{"LRMFS": {"alpha": -1}}', "tol-one": '{"LRMFS": {"tol": 1}}',
        "mode-unknown": '{"LRMFS": {"mode": "fastest"}}', "max-iter-zero": '{"LRMFS": {"max_iter": 0}}',
        "sweep-one-out-of-range": '{"LRMFS": {"alpha": [0.1, -0.1]}}',
    }
    cases = [Case(f"params-json-{name}", kgrid("params.json"), {"params.json": content})
             for name, content in json_params.items()]
    yaml_params = {
        "tag-python": "RANDOM: !!python/object/apply:os.system ['true']",
        "tag-binary": "RANDOM: {seed: !!binary AQ==}",
        "alias-bomb": "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(7))
            + "LRMFS: {alpha: *h}\n",
        "yes-for-float": "LRMFS: {alpha: yes}", "inf": "LRMFS: {alpha: .inf}", "nan": "LRMFS: {alpha: .nan}",
        "digits": "RANDOM: {seed: " + "1" * 5000 + "}", "duplicate": "RANDOM: {seed: 1}\nRANDOM: {seed: 2}\n",
        "deep": "RANDOM: {seed: " + "[" * 30_000 + "]" * 30_000 + "}",
        "date": "RANDOM: {seed: 2024-01-01}", "octal-text": "RANDOM: {seed: 0o17}",
        # YAML 1.1 reads these as 34, 90 and 1000, YAML 1.2 as 42, text and text
        "octal": "RANDOM: {seed: 042}", "base-60": "RANDOM: {seed: 1:30}", "underscore": "RANDOM: {seed: 1_000}",
        "multi-document": "RANDOM: {seed: 1}\n---\nRANDOM: {seed: 2}\n",
    }
    cases += [Case(f"params-yaml-{name}", kgrid("params.yaml"), {"params.yaml": content})
              for name, content in yaml_params.items()]
    cases += [Case("params-yaml-link-to-dev-zero", kgrid("params.yaml"), links={"params.yaml": "/dev/zero"},
                   fragment="is not a regular file")]
    cases += [Case("params-json-valid-sweep", kgrid("params.json"), {"params.json": '{"RANDOM": {"seed": [1, 2]}}'},
                   ACCEPTED),
              Case("params-yaml-valid", kgrid("params.yaml"), {"params.yaml": "RANDOM: {seed: 3}\n"}, ACCEPTED)]
    return cases


# --- result files read back ------------------------------------------------------------------------

DAMAGED_METRICS = {
    "deep": "[" * 100_000 + "]" * 100_000, "digits": '{"k_values": [' + "5" * 5000 + "]}",
    "duplicate-keys": '{"grid_mode": "kgrid", "grid_mode": "pgrid"}', "nan-constant": '{"k_values": [NaN]}',
    "truncated": '{"k_values": [5, 10', "not-object": "[1, 2, 3]", "empty": "", "not-utf8": b'{"\xff": 1}',
}


#: Damage made in place to a metrics file of the workspace (4 grid points, k = 5..20): each key set.
DAMAGED_IN_PLACE = {
    "text-entry": {"micro_f1": [0.5, "0.5", 0.5, 0.5]}, "boolean-entry": {"hamming_loss": [0.1, True, 0.1, 0.1]},
    "short-curve": {"macro_f1": [0.5, 0.5, 0.5]}, "null-curve": {"one_error": None},
    "negative-time": {"time_rank_seconds": -3.0}, "text-time": {"time_rank_seconds": "fast"},
    "degenerate-numbers": {"degenerate": [0, 0, 0, 0]}, "counts-as-floats": {"n_constant_selected": [0.5, 0, 0, 0]},
    "grid-mode": {"grid_mode": "qgrid"}, "empty-grid": {"k_values": []}, "fold-digest": {"provenance": {"fold_sha256": "x"}},
    "seeds-without-spread": {"seeds": [1, 2]}, "mlknn-text": {"mlknn": {"num": "5", "smooth": 1.0}},
}


#: Damage made in place to a ranking record (its other keys, the code fingerprint included, intact).
RECORD_DAMAGED_IN_PLACE = {
    "code-text": {"code": "x"}, "code-files-text": {"code": {"files": "x"}}, "params-list": {"params": [1]},
    "selected-by-number": {"selected_by": 5}, "info-text": {"info": "x"},
}


def _result_cases() -> list[Case]:
    resume = ("pipeline.kgrid", "--engine", "python", "--methods", "RANDOM", "--no-progress", "--data-dir", "{folds}",
              "--results-dir", "{results}", "--k-min", "5", "--k-max", "20", "--k-step", "5", "--mlknn-k", "5",
              "--skip-existing")
    tables = ("pipeline.tables", "--results-dir", "{results}", "--ref-method", "RANDOM", "--no-figures",
              "--out-dir", "{work}/tables")
    target = "{results}/RANDOM/toy_fold0_kgrid_metrics.json"
    cases = []
    for name, content in DAMAGED_METRICS.items():
        cases.append(Case(f"metrics-resume-{name}", resume, {target: content}, REDONE))
        cases.append(Case(f"metrics-tables-{name}", tables, {target: content}))
    record = "{results}/RANDOM/toy_fold0_ranking.json"
    for name in ("deep", "digits", "duplicate-keys"):
        cases.append(Case(f"ranking-record-resume-{name}", resume, {record: DAMAGED_METRICS[name]}, REDONE))
    for name, changes in DAMAGED_IN_PLACE.items():  # the provenance still vouches for the file
        cases.append(Case(f"metrics-resume-in-place-{name}", resume, edits={target: changes}, expect=REDONE))
        cases.append(Case(f"metrics-tables-in-place-{name}", tables, edits={target: changes}))
    for name, changes in RECORD_DAMAGED_IN_PLACE.items():
        cases.append(Case(f"ranking-record-resume-in-place-{name}", resume, edits={record: changes}, expect=REDONE))
    return cases


# --- ranking values, score tables ----------------------------------------------------------------

def _ranking_cases() -> list[Case]:
    evaluate = ("pipeline.evaluate", "--methods", "MINE", "--data-dir", "{folds}", "--results-dir", "{work}/res",
                "--k-min", "5", "--k-max", "10", "--mlknn-k", "5", "--no-progress")
    body = [str(i) for i in range(1, 26)]

    def ranking(last: str) -> dict:
        return {"{work}/res/MINE/toy_fold0_ranking.csv": "\n".join(body[:-1] + [last]) + "\n",
                "{work}/res/MINE/toy_fold1_ranking.csv": "\n".join(body) + "\n"}
    values = {"near-integer": "24.9999999999999999999", "digits": "2" * 4400, "nan": "nan", "inf": "inf",
              "fraction": "25.5", "negative": "-25", "hex": "0x19", "exponent-huge": "25e999999999"}
    cases = [Case(f"ranking-{name}", evaluate, ranking(value), "failed-task") for name, value in values.items()]
    cases.append(Case("ranking-exact-decimal", evaluate, ranking("25.000"), ACCEPTED))
    stats = ("pipeline.stats", "--scores", "{work}/scores.csv")
    tables = {"duplicate-column": "dataset,A,A,B\nd1,1,2,3\nd2,2,3,1\nd3,3,1,2\n",
              "duplicate-column-spaces": "dataset,A, A,B\nd1,1,2,3\nd2,2,3,1\nd3,3,1,2\n",
              "duplicate-row": "dataset,A,B\nd1,1,2\nd1,2,1\nd3,3,1\n",
              "text-score": "dataset,A,B\nd1,1,x\nd2,2,1\nd3,3,1\n",
              # the first method would silently name the blocks; pandas would call a blank name "Unnamed: 2"
              "no-dataset-column": "A,B,C\n0.1,0.2,0.3\n0.3,0.1,0.2\n0.2,0.3,0.1\n",
              "blank-method-name": "dataset,A,,C\nd1,1,2,3\nd2,2,3,1\nd3,3,1,2\n"}
    cases += [Case(f"stats-{name}", stats, {"scores.csv": content}) for name, content in tables.items()]
    cases.append(Case("stats-valid", stats, {"scores.csv": "dataset,A,B\nd1,1,2\nd2,2,1.5\nd3,3,1\n"}, ACCEPTED))
    return cases


# --- numeric and text options --------------------------------------------------------------------

def _option_cases() -> list[Case]:
    kgrid = ("pipeline.kgrid", "--engine", "python", "--methods", "RANDOM", "--no-progress", "--data-dir", "{folds}",
             "--results-dir", "{work}/res")
    options = {
        "scheduler-not-url": ("--executor", "dask", "--scheduler", "not a url"),
        "scheduler-no-host": ("--executor", "dask", "--scheduler", "tcp://"),
        "mlknn-k-huge": ("--mlknn-k", "1000000000"), "mlknn-smooth-huge": ("--mlknn-smooth", "1e300"),
        "task-timeout-huge": ("--task-timeout", "1e300"), "max-tasks-huge": ("--max-tasks", "1" + "0" * 30),
        "folds-huge": ("--folds", "1000000000"), "claim-stale-inf": ("--claim-stale-after", "inf"),
        "k-min-zero": ("--k-min", "0"),
    }
    cases = [Case(f"option-kgrid-{name}", kgrid + args) for name, args in options.items()]
    pgrid = ("pipeline.pgrid",) + kgrid[1:]
    cases += [Case(f"option-pgrid-{name}", pgrid + args) for name, args in {
        "p-step-tiny": ("--p-step", "1e-300"), "p-step-nan": ("--p-step", "nan"), "p-max-inf": ("--p-max", "inf"),
        "p-target-nan": ("--p-target", "nan"), "p-min-zero": ("--p-min", "0"), "p-min-negative": ("--p-min", "-0.2"),
        "p-max-two": ("--p-max", "2"), "p-max-above-one": ("--p-max", "1.0000001"),
        "p-min-above-max": ("--p-min", "0.6"), "p-target-zero": ("--p-target", "0"),
        "p-target-above-one": ("--p-target", "1.5"), "p-step-above-one": ("--p-step", "1.5")}.items()]
    steering = {
        "split-seed-negative": ("split", "--samples", "{work}/s.csv", "--out", "{work}/o", "--split-seed", "-1"),
        "split-seed-huge": ("split", "--samples", "{work}/s.csv", "--out", "{work}/o", "--split-seed", str(2**40)),
        "bootstrap-huge": ("analyze", "--results", "{work}", "--bootstrap", "1000000000"),
        "permutations-huge": ("analyze", "--results", "{work}", "--permutations", "1000000000"),
        "effect-bootstrap-huge": ("analyze", "--results", "{work}", "--effect-bootstrap", "1000000000"),
        "stats-seed-negative": ("analyze", "--results", "{work}", "--stats-seed", "-5"),
        "seeds-negative": ("analyze", "--results", "{work}", "--seeds", "-1"),
        "repeats-huge": ("calibrate", "--repeats", "1000000000"),
        "threads-huge": ("demo", "--out", "{work}/demo", "--threads", "100000"),
        "sequences-huge": ("demo", "--out", "{work}/demo", "--sequences", "1000000000000"),
    }
    cases += [Case(f"option-steering-{name}", ("pipeline.protocols.steering",) + args) for name, args in steering.items()]
    tables = ("pipeline.tables", "--results-dir", "{results}", "--ref-method", "RANDOM", "--no-figures",
              "--out-dir", "{work}/tables")
    for name, args in {"jobs-huge": ("--jobs", "100000"), "folds-huge": ("--folds", "1000000000"),
                       "rope-inf": ("--bayesian-rope", "inf"), "caption-huge": ("--caption-note", "c" * 100_000),
                       "p-target-zero": ("--grid", "pgrid", "--p-target", "0")}.items():
        cases.append(Case(f"option-tables-{name}", tables + args))
    stats = ("pipeline.stats", "--scores", "{work}/scores.csv")
    cases.append(Case("option-stats-alpha-one", stats + ("--alpha", "1"), {"scores.csv": "d,A,B\nx,1,2\ny,2,1\nz,3,1\n"}))
    cases.append(Case("option-stats-rope-negative", stats + ("--bayesian-rope", "-1"),
                      {"scores.csv": "d,A,B\nx,1,2\ny,2,1\nz,3,1\n"}))
    return cases


def all_cases() -> list[Case]:
    """Every case of the corpus (ids are unique)."""
    cases = _suite_cases() + _display_map_cases() + _params_cases() + _result_cases() + _ranking_cases() \
        + _option_cases()
    assert len({case.id for case in cases}) == len(cases)
    return cases


# --- workspace -------------------------------------------------------------------------------------

def make_toy_folds(folds: Path, n_folds: int = 2, *, sidecars: bool = False) -> None:
    """``folds/toy/fold<i>.mat``: 60 training and 30 test rows, 25 features, 4 labels; with
    ``sidecars``, each with the sidecar an export with the base suite's fold settings writes (the
    suites check it), else none (the fold files the command-line options name are used as given)."""
    from pipeline.data.export import ExportSettings
    from pipeline.data.folds import save_fold, sha256_file
    rng = np.random.default_rng(0)
    declared = BASE_SUITE["folds"]
    settings = ExportSettings(mode=declared["mode"], n_folds=declared["count"], seed=declared["seed"],
                              test_size=declared["test_size"], scaler=declared["scaler"], clip_test=declared["clip_test"])
    for i in range(n_folds):
        X = rng.random((90, 25))
        Y = (X[:, :4] + 0.3 * rng.random((90, 4)) > 0.8).astype(np.int8)
        path = folds / "toy" / f"fold{i}.mat"
        save_fold(path, X[:60], Y[:60], X[60:], Y[60:])
        if sidecars:
            path.with_suffix(".json").write_text(json.dumps({"settings": dataclasses.asdict(settings), "n_train": 60,
                                                             "n_test": 30, "fold_sha256": sha256_file(path)}))


def prepare_workspace(work: Path, run_main) -> dict[str, str]:
    """Toy folds (also under ``root/folds`` for the suites) and k-grid results of RANDOM and VARIANCE;
    ``run_main(module, argv)`` runs a command and returns its exit code. Returns the placeholders."""
    folds, results = work / "folds", work / "results"
    make_toy_folds(folds)
    make_toy_folds(work / "root" / "folds", sidecars=True)
    code = run_main("pipeline.kgrid", ["--engine", "python", "--methods", "RANDOM", "VARIANCE", "--no-progress",
                                       "--data-dir", str(folds), "--results-dir", str(results), "--k-min", "5",
                                       "--k-max", "20", "--k-step", "5", "--mlknn-k", "5"])
    assert code == 0, "the workspace's results could not be made"
    return {"work": str(work), "folds": str(folds), "results": str(results)}


def fill(text: str, places: dict[str, str]) -> str:
    for key, value in places.items():
        text = text.replace("{" + key + "}", value)
    return text


def write_case_files(case: Case, places: dict[str, str]) -> None:
    """Write the case's files (a results file replaces the workspace's copy), make its edits, then
    its links."""
    _write_files(case, places)
    for name, changes in case.edits.items():
        path = Path(fill(name, places))
        path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), **changes}), encoding="utf-8")
    for name, target in case.links.items():
        link = Path(places["work"]) / fill(name, places)
        target = Path(fill(target, places))
        if target.is_relative_to(places["work"]):  # a folder of the case's own (never one elsewhere)
            target.mkdir(parents=True, exist_ok=True)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target, target_is_directory=True)


def _write_files(case: Case, places: dict[str, str]) -> None:
    for name, content in case.files.items():
        path = Path(fill(name, places))
        if not path.is_absolute():
            path = Path(places["work"]) / path
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(fill(content, places), encoding="utf-8")


# --- running a case --------------------------------------------------------------------------------

def call_in_process(module: str, argv: list[str]) -> tuple[int | None, str]:
    """Run ``module``'s main in this process as ``python -m module`` would: (exit code, stderr),
    a traceback written to stderr for an exception that is not a user error."""
    import contextlib
    import importlib
    import io
    import traceback
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            from pipeline.cli import run_main
            target = importlib.import_module(module if module in FLAT_MODULES else f"{module}.__main__")
            code = run_main(target.main, argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except MemoryError:
            code = 1
            err.write("MemoryError\n")
        except Exception:  # noqa: BLE001 - what the interpreter would print
            code = 1
            err.write(traceback.format_exc())
    return code, err.getvalue()


FLAT_MODULES = {"pipeline.kgrid", "pipeline.pgrid", "pipeline.evaluate", "pipeline.tables", "pipeline.export_splits"}



# --- verdicts --------------------------------------------------------------------------------------

MAX_MESSAGE_BYTES = 4096
_GARBLING = {chr(c) for c in range(32) if chr(c) not in "\n\t"} | {"\x7f", "\u2028", "\u2029", "\x85"}


def verdict(case: Case, code: int | None, stderr: str, places: dict[str, str]) -> str | None:
    """The defect class of an outcome (exit ``code``, None if it had to be stopped; ``stderr``), or
    None when the case ended as it should (see scripts/hostile_documents_campaign.py for the classes)."""
    if code is None or code == -9 or "MemoryError" in stderr:
        return "memory"
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    lines = [line for line in stderr.splitlines() if line.strip()]
    if case.expect == REDONE:
        if code != 0:
            return "wrong exit code"
        rewritten = all(_rewritten(Path(fill(name, places))) for name in case.files) and all(
            _rewritten(Path(fill(name, places)), changes) for name, changes in case.edits.items())
        return None if rewritten else "silent wrong result"
    if case.expect == ACCEPTED:
        return None if code == 0 else "wrong exit code"
    if code == 0:
        return "silent wrong result"
    if code != 2:
        return "wrong exit code"
    if len(stderr.encode("utf-8", errors="replace")) > MAX_MESSAGE_BYTES or _GARBLING & set(stderr):
        return "injection/flood"
    if case.expect == REFUSED and not lines[0].startswith("usage:") and (
            len(lines) != 1 or not lines[0].startswith("error: ")):
        return "injection/flood"
    if case.fragment and case.fragment not in stderr:
        return "wrong exit code"
    return None


def _rewritten(path: Path, damage: dict | None = None) -> bool:
    """Whether the run wrote a damaged result file anew: a JSON object again, without the values an
    in-place ``damage`` set (judged without the code under test, which may be an older checkout's)."""
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(content, dict) and all(json.dumps(content.get(key)) != json.dumps(value)  # False is not 0
                                             for key, value in (damage or {}).items())
