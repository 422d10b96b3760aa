"""Plug-in methods: folders of Python and MATLAB/Octave methods used like the shipped ones
(docs/plugins.md), their errors, their fingerprints, and the entry-point group."""

from __future__ import annotations

import json
import subprocess
import shutil
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from pipeline import methods
from pipeline.kgrid import main as kgrid_main
from pipeline.cli import run_main
from pipeline.methods import get_method
from pipeline.methods.base import MethodSpec
from pipeline.paper.__main__ import main as paper_main
from pipeline.runner.fingerprint import method_fingerprint

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "plugin_example"
DEMO = REPO / "data" / "paper_matlab_minmax"


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def minimal_plugin(folder: Path, name: str = "SPREADX", helper: bool = True) -> Path:
    if helper:
        write(folder, f"{name.lower()}_helper.py", "def spread(X):\n    return X.max(axis=0) - X.min(axis=0)\n")
        body = f"from {name.lower()}_helper import spread\n"
    else:
        body = "def spread(X):\n    return X.max(axis=0) - X.min(axis=0)\n"
    return write(folder, f"{name.lower()}.py",
                 "from pipeline.methods.base import MethodSpec\n" + body +
                 "def scores(X, Y, params):\n    return spread(X) * params['scale']\n"
                 f"SPEC = MethodSpec(name='{name}', defaults={{'scale': 1.0}}, scores=scores)\n")


def kgrid(tmp_path: Path, *args: str) -> int:
    return run_main(kgrid_main, ["--engine", "python", "--datasets", "demo", "--folds", "1", "--data-dir", str(DEMO),
                                 "--results-dir", str(tmp_path / "results"), "--k-max", "30", "--no-progress",
                                 "--skip-existing", *args])


def test_a_minimal_python_plugin_runs_like_a_shipped_method_and_its_helper_is_fingerprinted(tmp_path, registry, capsys):
    plugin = minimal_plugin(tmp_path / "plugins")
    assert kgrid(tmp_path, "--methods", "SPREADX", "VARIANCE", "--plugins", str(plugin.parent)) == 0
    folder = tmp_path / "results" / "SPREADX"
    ranking = np.loadtxt(folder / "demo_fold0_ranking.csv", dtype=int)
    scores = np.loadtxt(folder / "demo_fold0_scores.csv", delimiter=",", skiprows=1)[:, 1]
    assert sorted(ranking) == list(range(1, 121)) and scores.shape == (120,)
    assert list(ranking) == list(np.argsort(-scores, kind="stable") + 1) or np.all(np.diff(scores[ranking - 1]) <= 0)
    record = json.loads((folder / "demo_fold0_ranking.json").read_text())
    files = [path for path, _ in record["code"]["files"]]
    assert {"plugin/spreadx.py", "plugin/spreadx_helper.py", "methods/base.py"} <= set(files)
    capsys.readouterr()
    # editing the helper makes exactly the plug-in's task stale, with the file named
    (plugin.parent / "spreadx_helper.py").write_text("def spread(X):\n    return X.std(axis=0)\n")
    assert kgrid(tmp_path, "--methods", "SPREADX", "VARIANCE", "--plugins", str(plugin.parent)) == 0
    summary = capsys.readouterr().err
    assert "1 done, 2 skipped" in summary and "plugin/spreadx_helper.py" in summary  # VARIANCE, the reference


def test_the_harness_checks_inputs_parameters_and_scores_of_the_minimal_form(registry):
    method_spec = MethodSpec(name="HARNESSED", defaults={"scale": 1.0}, scores=lambda X, Y, p: X.sum(axis=0) * p["scale"])
    X = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.5]])
    Y = np.array([[1], [0]])
    ranking, info = method_spec.run(X, Y, {"scale": 2})
    assert list(ranking) == [1, 2, 3] and list(info["scores"]) == [2.0, 2.0, 2.0]
    with pytest.raises(Exception, match="unknown parameter"):
        method_spec.run(X, Y, {"scael": 2})
    with pytest.raises(Exception, match="invalid value for parameter 'scale'"):
        method_spec.run(X, Y, {"scale": "2"})
    with pytest.raises(Exception, match=r"labels in \{0,1\}"):
        method_spec.run(X, Y + 1, {})
    with pytest.raises(Exception, match="both python= and scores="):
        MethodSpec(name="BOTH", python=lambda *a: None, scores=lambda *a: None)


def test_a_scores_function_may_return_info_need_nonnegative_features_and_receive_given_starts():
    seen = []

    def traced(X, Y, params, init=None):
        seen.append(init)
        return X.max(axis=0), {"iterations": 3}

    X = np.array([[0.0, 1.0, 0.5], [1.0, 0.25, 0.5]])
    Y = np.array([[1], [0]])
    ranking, info = MethodSpec(name="TRACED", scores=traced).run(X, Y, {})
    assert list(ranking) == [1, 2, 3] and info["iterations"] == 3 and list(info["scores"]) == [1.0, 1.0, 0.5]
    assert seen == [None]  # no make_init and no starts given: called with three arguments
    assert MethodSpec(name="TRACED", scores=traced).run(X, Y, {}, {"W0": 1})[1]["iterations"] == 3
    assert seen[-1] == {"W0": 1}  # starts a caller gives reach a method without make_init
    nonnegative = MethodSpec(name="NONNEG", scores=traced, nonnegative_features=True)
    assert list(nonnegative.run(X, Y, {})[0]) == [1, 2, 3]
    with pytest.raises(Exception, match="NONNEG needs non-negative"):
        nonnegative.run(X - 0.5, Y, {})
    assert list(MethodSpec(name="SIGNED", scores=traced).run(X - 0.5, Y, {})[0]) == [1, 2, 3]
    for bad in [(X.max(axis=0), [1]), (X.max(axis=0), {}, {})]:
        with pytest.raises(Exception, match="not \\(scores, info\\)"):
            MethodSpec(name="BADTUPLE", scores=lambda X, Y, p, result=bad: result).run(X, Y, {})


@pytest.mark.parametrize("case", ["shipped name", "twice", "import error", "no MethodSpec file syntax",
                                  "exits as imported", "ends its process as imported"])
def test_a_broken_plugin_folder_is_one_line_naming_the_file_exit_2_and_nothing_runs(tmp_path, registry, capsys, case):
    folder = tmp_path / "plugins"
    if case == "shipped name":
        bad = write(folder, "clash.py", "from pipeline.methods.base import MethodSpec\n"
                                         "SPEC = MethodSpec(name='SRFS', scores=lambda X, Y, p: X.sum(0))\n")
    elif case == "twice":
        minimal_plugin(folder, "TWICE", helper=False)
        bad = minimal_plugin(tmp_path / "other", "TWICE", helper=False)
        folder = f"{folder} {bad.parent}"
    elif case == "import error":
        bad = write(folder, "broken.py", "import numpy as np\nraise RuntimeError('cannot work today')\n")
    elif case == "exits as imported":  # a script in the folder: without the catch, every command ended silently
        bad = write(folder, "script.py", "import sys\nsys.exit(0)\n")
    elif case == "ends its process as imported":  # it used to end the command with exit 0 and no output
        write(folder, "boom.py", "import os\nos._exit(0)\n")
        bad = folder  # imported in a child process that ends: the line names the folder
    else:
        bad = write(folder, "typo.py", "def f(:\n")
    code = kgrid(tmp_path, "--methods", "VARIANCE", "--plugins", *str(folder).split())
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and str(bad.name) in err[0], err
    assert not (tmp_path / "results").exists()


def test_a_matlab_only_method_on_the_python_engine_is_refused_before_any_work(tmp_path, registry, capsys):
    shutil.copy(EXAMPLE / "MADEV.m", tmp_path / "MADEV.m")
    code = kgrid(tmp_path, "--methods", "MADEV", "--plugins", str(tmp_path))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "MADEV exists only as MATLAB/Octave code" in err[0]
    assert "--engine octave" in err[0] and not (tmp_path / "results").exists()


@pytest.mark.octave  # asks Octave for the plug-in's defaults
def test_a_matlab_plugin_whose_default_cannot_be_a_parameter_is_refused_before_any_work(tmp_path, registry, capsys):
    write(tmp_path, "CPLXDEF.m", "function [ranking, info] = CPLXDEF(X, Y, params, init)\n"
                                 "  ranking = struct('z', 1 + 2i);\n  info = struct();\nend\n")
    code = kgrid(tmp_path, "--methods", "CPLXDEF", "--plugins", str(tmp_path), "--engine", "octave")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "CPLXDEF.m: CPLXDEF(): the default of parameter 'z'" in err[0], err
    assert "found (1+2j)" in err[0] and not (tmp_path / "results").exists()


@pytest.mark.octave  # asks Octave for the plug-in's defaults
def test_helper_m_files_are_not_methods_and_a_failing_no_argument_call_is_refused(tmp_path, registry, capsys):
    from pipeline.methods.plugins import matlab_methods

    write(tmp_path, "helper_fn.m", "function y = helper_fn(x)\n  y = x;\nend\n")
    write(tmp_path, "NODEF.m", "function [ranking, info] = NODEF(X, Y, params, init)\n"
                               "  ranking = mlfs_rank_scores(helper_fn(var(X)), 'NODEF');\n  info = struct();\nend\n")
    assert list(matlab_methods(tmp_path)) == ["NODEF"]
    code = kgrid(tmp_path, "--methods", "NODEF", "--plugins", str(tmp_path), "--engine", "octave")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "NODEF.m" in err[0] and "no argument must return its default" in err[0]


def test_matlab_plugin_fingerprint_covers_its_folder_helpers_and_is_never_empty(tmp_path, registry):
    write(tmp_path, "HELPED.m", "function [ranking, info] = HELPED(X, Y, params, init)\n"
                                "  scores = helped_part(X);\n  ranking = mlfs_rank_scores(scores, 'HELPED');\n"
                                "  info = struct('scores', scores);\nend\n")
    write(tmp_path, "helped_part.m", "function s = helped_part(X)\n  s = var(X, 1, 1);\nend\n")
    write(tmp_path, "unused.m", "function s = unused(X)\n  s = X;\nend\n")
    helped = MethodSpec(name="HELPED", matlab_function="HELPED", plugin_dir=str(tmp_path))
    files = [path for path, _ in method_fingerprint(helped, "octave")["files"]]
    assert {"plugin/HELPED.m", "plugin/helped_part.m", "util/mlfs_rank_scores.m"} <= set(files)
    assert "plugin/unused.m" not in files
    with pytest.raises(Exception, match="no code to fingerprint"):
        method_fingerprint(MethodSpec(name="GONE", matlab_function="GONE", plugin_dir=str(tmp_path)), "octave")


def test_installed_method_packages_register_through_the_entry_point_group(tmp_path, registry, monkeypatch):
    minimal_plugin(tmp_path, "ENTRYX", helper=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = metadata.EntryPoint(name="entryx", value="entryx:SPEC", group=methods.ENTRY_POINT_GROUP)
    monkeypatch.setattr(metadata, "entry_points", lambda group: [entry] if group == methods.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(methods, "_entry_points_loaded", False)
    assert get_method("ENTRYX").defaults == {"scale": 1.0}
    assert "entry point entryx" in methods.origin_of("ENTRYX")


def test_a_suite_declares_plugin_folders_relative_to_itself_and_external_rankings(tmp_path, registry, capsys):
    minimal_plugin(tmp_path / "suite" / "mine", "SUITEX", helper=False)
    given = tmp_path / "root" / "results" / "given" / "GIVEN"
    given.mkdir(parents=True)
    shutil.copytree(DEMO, tmp_path / "root" / "folds")  # written paths stay under --root (a link out is refused)
    for fold in range(2):
        (given / f"demo_fold{fold}_ranking.csv").write_text("\n".join(map(str, range(120, 0, -1))) + "\n")
    suite = write(tmp_path / "suite", "suite.yaml", f"""
name: given
datasets: [demo]
folds: {{dir: folds, mode: kfold, count: 5, seed: 0}}
plugins: [mine]
engine: python
methods:
  VARIANCE: {{}}
  SUITEX: {{params: {{scale: 2.0}}}}
  GIVEN: {{external: true}}
grids: {{kgrid: {{k_max: 30}}}}
run: {{executor: serial}}
tables: {{ref_method: VARIANCE, figures: false}}
""")
    (given / "demo_fold1_ranking.csv").unlink()
    root = ["--root", str(tmp_path / "root"), "--folds", "2"]
    assert run_main(paper_main, ["status", str(suite), *root]) == 0
    status = capsys.readouterr().out
    assert "missing  GIVEN/demo/fold1: no ranking file (external ranking)" in status, status
    (given / "demo_fold1_ranking.csv").write_text("\n".join(map(str, range(1, 121))) + "\n")
    assert run_main(paper_main, ["run", str(suite), *root, "--no-progress"]) == 0
    capsys.readouterr()
    metrics = json.loads((given / "demo_fold0_kgrid_metrics.json").read_text())
    assert metrics["provenance"]["engine"] == "external"
    assert metrics["provenance"]["code"]["method"]["files"][0][0] == "external/demo_fold0_ranking.csv"
    (given / "demo_fold0_ranking.csv").write_text("\n".join(map(str, range(1, 121))) + "\n")
    assert run_main(paper_main, ["status", str(suite), *root]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("stale", "missing"))]
    assert len(lines) == 1 and lines[0].startswith("stale    GIVEN/demo/fold0"), lines


@pytest.mark.octave
def test_run_suite_fingerprints_a_function_on_the_users_path_by_the_file_octave_resolves(tmp_path, registry):
    write(tmp_path, "ONPATH.m", "function [ranking, info] = ONPATH(X, Y, params, init)\n"
                                "  scores = onpath_part(X);\n  ranking = mlfs_rank_scores(scores, 'ONPATH');\n"
                                "  info = struct('scores', scores);\nend\n")
    write(tmp_path, "onpath_part.m", "function s = onpath_part(X)\n  s = var(X, 1, 1);\nend\n")
    script = (f"addpath(genpath('{REPO / 'matlab'}')); addpath('{tmp_path}'); f = mlfs_code_fingerprint('ONPATH');"
              "printf('%s\\n', f.sha256); printf('%s\\n', f.files{1}{1}); "
              "try, mlfs_code_fingerprint('NOWHERE_AT_ALL'); catch err, printf('%s\\n', err.identifier); end")
    done = subprocess.run(["octave-cli", "--no-gui", "--quiet", "--eval", script], capture_output=True, text=True,
                          timeout=300)
    sha, first, error = done.stdout.split()[:3]
    python_side = method_fingerprint(MethodSpec(name="ONPATH", matlab_function="ONPATH", plugin_dir=str(tmp_path)),
                                     "octave")
    assert sha == python_side["sha256"] and first == "plugin/ONPATH.m"
    assert error == "mlfs:fingerprint:noCode"


def test_the_matlab_code_folder_can_be_overridden_and_a_wrong_one_is_one_line(tmp_path, monkeypatch, capsys):
    from pipeline.locations import MATLAB_DIR_VARIABLE, matlab_dir

    copy = tmp_path / "code"
    shutil.copytree(REPO / "matlab", copy)
    monkeypatch.setenv(MATLAB_DIR_VARIABLE, str(copy))
    assert matlab_dir() == copy.resolve()
    monkeypatch.delenv(MATLAB_DIR_VARIABLE)
    code = kgrid(tmp_path, "--methods", "VARIANCE", "--matlab-dir", str(tmp_path / "nowhere"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "not a MATLAB/Octave code folder" in err[0]
    monkeypatch.delenv(MATLAB_DIR_VARIABLE, raising=False)


def test_a_worker_that_is_not_a_fork_loads_the_plugin_folders_of_the_run(tmp_path, registry):
    """What a Dask worker on another machine does: a fresh interpreter gets the run's settings and
    loads its plug-in folders itself (the driver's registry does not travel)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from pipeline.runner.executors import _run_on_dask_worker
    from pipeline.runner.run import RunSettings
    from pipeline.runner.tasks import GridSpec, Task

    plugin = minimal_plugin(tmp_path / "plugins", "SPAWNX")
    settings = RunSettings(data_dir=str(DEMO), results_dir=str(tmp_path / "results"),
                           grids=(GridSpec("kgrid", k_max=30),), engine="python", plugins=(str(plugin.parent),))
    # not a multiprocessing.Pool: its processes are daemonic, and a Dask worker forks its task's worker
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        outcome = pool.submit(_run_on_dask_worker, Task("SPAWNX", "demo", 0), settings).result()
    assert outcome.status == "done", outcome.message
    record = json.loads((tmp_path / "results" / "SPAWNX" / "demo_fold0_ranking.json").read_text())
    assert "plugin/spawnx_helper.py" in [path for path, _ in record["code"]["files"]]


RANGED_M = """function [ranking, info] = RANGED(X_train, Y_train, params, init) %#ok<INUSD>
  defaults = struct('power', mlfs_parameter(1, '>', 0), 'share', mlfs_parameter(0.5, '>=', 0, '<', 1), ...
                    'mode', mlfs_parameter('fast', {'fast', 'exact'}), 'flag', true, 'plain', 3);
  if nargin == 0
    ranking = defaults;
    return
  end
  params = mlfs_method_params('RANGED', defaults, params);
  scores = var(X_train, 1, 1) .^ params.power;
  ranking = mlfs_rank_scores(scores, 'RANGED');
  info = struct('scores', scores);
end
"""


def _octave_run_suite(results: Path, plugins: Path, params: str) -> subprocess.CompletedProcess:
    script = (f"addpath(genpath('{REPO / 'matlab'}')); try, s = run_suite('{results}', '{DEMO}', {{'demo'}}, "
              f"{{'RANGED'}}, 'folds', 1, 'k_max', 30, 'plugins', {{'{plugins}'}}, 'params', {params}, "
              "'verbose', false); printf('done %d failed %d\\n', s.done, s.failed); "
              "catch err, printf('%s | %s\\n', err.identifier, err.message); end")
    return subprocess.run(["octave-cli", "--no-gui", "--quiet", "--eval", script], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.octave
def test_a_matlab_plugin_declares_its_ranges_and_both_front_doors_refuse_a_value_outside_before_any_work(
        tmp_path, registry, capsys):
    """mlfs_parameter in the defaults declares a range (read into MethodSpec.allowed); a logical
    default stays a logical across the bridge, so `flag: false` is accepted and `flag: 1` refused."""
    plugins = tmp_path / "plugins"
    write(plugins, "RANGED.m", RANGED_M)
    expected = "value out of range for parameter 'power' of method RANGED (expected > 0; found 0)"
    for params, verdict in (("{RANGED: {power: 0}}", expected),
                            ("{RANGED: {share: 1.0}}", "parameter 'share' of method RANGED (expected >= 0 and < 1"),
                            ("{RANGED: {mode: slow}}", "(expected one of ['fast', 'exact']; found 'slow')"),
                            ("{RANGED: {flag: 1}}", "parameter 'flag' of method RANGED (expected true or false")):
        write(tmp_path, "params.yaml", params + "\n")
        code = kgrid(tmp_path, "--methods", "RANGED", "--plugins", str(plugins), "--engine", "octave",
                     "--params", str(tmp_path / "params.yaml"))
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and verdict in err[0], (params, err)
        assert not (tmp_path / "results").exists()
    assert get_method("RANGED").defaults == {"power": 1.0, "share": 0.5, "mode": "fast", "flag": True, "plain": 3.0}
    write(tmp_path, "params.yaml", "{RANGED: {power: 2, mode: exact, flag: false}}\n")
    assert kgrid(tmp_path, "--methods", "RANGED", "--plugins", str(plugins), "--engine", "octave",
                 "--params", str(tmp_path / "params.yaml")) == 0
    (record,) = (tmp_path / "results" / "RANGED").glob("*_ranking.json")
    assert json.loads(record.read_text())["params"] == {"power": 2, "share": 0.5, "mode": "exact", "flag": False,
                                                         "plain": 3.0}

    refused = _octave_run_suite(tmp_path / "octave", plugins, "struct('RANGED', struct('power', 0))")
    assert f"mlfs:RANGED:badParameter | RANGED: {expected}" in refused.stdout, refused.stdout + refused.stderr
    assert not (tmp_path / "octave").exists()  # refused before the results folder and the run record
    accepted = _octave_run_suite(tmp_path / "octave", plugins, "struct('RANGED', struct('power', 2, 'flag', false))")
    assert "done 1 failed 0" in accepted.stdout, accepted.stdout + accepted.stderr


@pytest.mark.octave
@pytest.mark.parametrize("declaration,found", [
    ("mlfs_parameter(1, '>', 2)", "the default 1 lies outside its own range"),
    ("mlfs_parameter(1, '=>', 0)", "expected an operator among >, >=, <, <=; found '=>'"),
    ("mlfs_parameter('a', {'b'})", "the default 'a' is not among its choices"),
    ("struct('default', 1, 'low', 0)", "not a range made by mlfs_parameter: fields ['low']"),
    ("struct('default', 5, 'low', [], 'high', 1, 'low_open', false, 'high_open', false, 'choices', {{}})",
     "the default lies outside its declared range (expected <= 1; found 5.0)"),
    ("struct('default', 'a', 'low', 0, 'high', [], 'low_open', false, 'high_open', false, 'choices', {{}})",
     "the default lies outside its declared range (expected >= 0; found 'a')"),
])
def test_a_bad_range_declaration_is_one_line_naming_the_plugin(tmp_path, registry, capsys, declaration, found):
    write(tmp_path, "BADDECL.m", RANGED_M.replace("RANGED", "BADDECL").replace(
        "mlfs_parameter(1, '>', 0)", declaration))
    code = kgrid(tmp_path, "--methods", "BADDECL", "--plugins", str(tmp_path), "--engine", "octave")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "BADDECL.m" in err[0] and found in err[0], err
    assert not (tmp_path / "results").exists()


def test_a_plugin_calling_sys_exit_fails_its_task_and_the_run_goes_on(tmp_path, registry, capsys):
    # In the serial executor the method runs in the driver: its SystemExit must not end the run
    # silently with exit 0 and no record.
    write(tmp_path / "plugins", "quitter.py", "import sys\nfrom pipeline.methods.base import MethodSpec\n"
          "def scores(X, Y, params):\n    sys.exit(0)\nQUITTER = MethodSpec(name='QUITTER', scores=scores)\n")
    assert kgrid(tmp_path, "--methods", "QUITTER", "VARIANCE", "--plugins", str(tmp_path / "plugins")) == 1
    err = capsys.readouterr().err
    assert "QUITTER called sys.exit(0) instead of returning its scores" in err
    failed = json.loads((tmp_path / "results" / "failures.json").read_text())["failed"]
    assert [entry["task"] for entry in failed] == ["QUITTER/demo/fold0"]
    assert (tmp_path / "results" / "VARIANCE" / "demo_fold0_kgrid_metrics.json").is_file()


@pytest.mark.parametrize("body, said", [
    # in place, the changed fold would have been the one ML-kNN scored next (silently other numbers)
    ("X -= X.mean(axis=0)\n    return X.var(axis=0)", "writes into its inputs (output array is read-only): the harness "
                                                      "passes X_train, Y_train and init read-only; work on a copy"),
    ("return X.var(axis=0)[:-1]", "scores: feature scores have the wrong length (expected 120; found 119)"),
    ("raise GeneratorExit('odd')", "failed: GeneratorExit: odd"),
])
def test_a_misbehaving_plugin_fails_its_own_task_with_exit_1(tmp_path, registry, capsys, body, said):
    module = f"odd_{abs(hash(body))}.py"  # a module name of its own: an imported plug-in module stays imported
    write(tmp_path / "plugins", module, "from pipeline.methods.base import MethodSpec\n"
          f"def scores(X, Y, params):\n    {body}\nODD = MethodSpec(name='ODD', scores=scores)\n")
    assert kgrid(tmp_path, "--methods", "ODD", "VARIANCE", "--plugins", str(tmp_path / "plugins")) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and said in err, err
    assert (tmp_path / "results" / "VARIANCE" / "demo_fold0_kgrid_metrics.json").is_file()


def test_info_the_record_could_not_be_read_back_with_is_left_out_and_the_rerun_skips(tmp_path, registry, capsys):
    # kept, a 20 000-character text or a 30-digit integer would make the ranking record unreadable to
    # the strict reader: the task would be computed again at every resume
    write(tmp_path / "plugins", "chatty.py", "from pipeline.methods.base import MethodSpec\n"
          "def scores(X, Y, params):\n    return X.var(axis=0), {'log': 'x' * 20000, 'big': 10**30, 'iterations': 3}\n"
          "CHATTY = MethodSpec(name='CHATTY', scores=scores)\n")
    assert kgrid(tmp_path, "--methods", "CHATTY", "--plugins", str(tmp_path / "plugins")) == 0
    record = json.loads((tmp_path / "results" / "CHATTY" / "demo_fold0_ranking.json").read_text())
    assert record["info"] == {"iterations": 3}
    capsys.readouterr()
    assert kgrid(tmp_path, "--methods", "CHATTY", "--plugins", str(tmp_path / "plugins")) == 0
    assert "0 done, 2 skipped" in capsys.readouterr().err

