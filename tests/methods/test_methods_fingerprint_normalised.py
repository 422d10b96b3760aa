"""Reruns that are exact, not eager: a code fingerprint ignores comments, docstrings, blank lines
and formatting (a ``.py`` file's syntax tree, a ``.m`` file without comments), in both front doors
alike; any other edit still makes the method's results stale, with the file named."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.cli import run_main
from pipeline.kgrid import main as kgrid_main
from pipeline.limits import FINGERPRINT_SCHEME
from pipeline.methods.base import MethodSpec
from pipeline.results.staleness import code_changed
from pipeline.runner.fingerprint import matlab_canonical, method_fingerprint

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "paper_matlab_minmax"
EXAMPLE = REPO / "docs" / "plugin_example"

PLUGIN = '''"""SPREADN: the range of each feature."""
from pipeline.methods.base import MethodSpec


def scores(X, Y, params):
    return (X.max(axis=0) - X.min(axis=0)) * params["scale"]


SPEC = MethodSpec(name="SPREADN", defaults={"scale": 1.0}, scores=scores)
'''
#: The same code: other comments and docstrings, another layout.
PLUGIN_REWORDED = '''# a comment where there was none
"""SPREADN, with another docstring."""
from pipeline.methods.base import MethodSpec
def scores(X, Y, params):
    """The range of each feature, scaled."""
    return (X.max(axis = 0)
            - X.min(axis = 0)) * params['scale']   # quotes and spaces differ
SPEC = MethodSpec(
    name="SPREADN",
    defaults={"scale": 1.0},
    scores=scores,
)
'''

#: (source, what runs): comments, block comments, quotes holding % and #, transposes.
MATLAB_CASES = [
    ("x = 1; % comment\n\n  y = 2;   \r\n", "x = 1;\ny = 2;\n"),
    ("s = sprintf('%d %s', 1, 'a'); # note\n", "s = sprintf('%d %s', 1, 'a');\n"),
    ('s = sprintf("%d\\"%", 1); % c\n', 's = sprintf("%d\\"%", 1);\n'),
    ("a = b'; c = 'it''s % here'; % gone\n", "a = b'; c = 'it''s % here';\n"),
    ("a = x.' + y'' ; % t\n", "a = x.' + y'' ;\n"),
    ("a = [b' 'str%']; %c\n", "a = [b' 'str%'];\n"),
    ("disp('%{') % not a block\n", "disp('%{')\n"),
    ("a = 1;\n  %{\n  b = 2;\n  %{\n nested\n  %}\n c = 3;\n %}\nd = 4;\n", "a = 1;\nd = 4;\n"),
    ("#{\nx\n#}\ny = \"#\"; # c\n", 'y = "#";\n'),
    ("% only a comment\n\n", ""),
]


def kgrid(tmp_path: Path, plugins: Path) -> int:
    return run_main(kgrid_main, ["--engine", "python", "--datasets", "demo", "--folds", "1", "--data-dir", str(DEMO),
                                 "--results-dir", str(tmp_path / "results"), "--k-max", "30", "--no-progress",
                                 "--skip-existing", "--methods", "SPREADN", "--plugins", str(plugins)])


@pytest.mark.parametrize("source, expected", MATLAB_CASES)
def test_matlab_code_is_normalised_without_its_comments(source, expected):
    assert matlab_canonical(source.encode("latin-1")) == expected.encode("latin-1")


def test_a_python_plugin_stays_fresh_after_comment_docstring_and_layout_edits_only(tmp_path, registry, capsys):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    plugin = plugins / "spreadn.py"
    plugin.write_text(PLUGIN)
    assert kgrid(tmp_path, plugins) == 0
    capsys.readouterr()
    plugin.write_text(PLUGIN_REWORDED)
    assert kgrid(tmp_path, plugins) == 0
    assert "0 done, 2 skipped" in capsys.readouterr().err  # the plug-in's task and the reference
    plugin.write_text(PLUGIN_REWORDED.replace("X.min(axis = 0)", "X.mean(axis = 0)"))  # one token
    assert kgrid(tmp_path, plugins) == 0
    summary = capsys.readouterr().err
    assert "1 done, 1 skipped" in summary and "method code changed (plugin/spreadn.py)" in summary, summary


def test_a_matlab_plugin_stays_fresh_after_comment_and_layout_edits_only(tmp_path, registry):
    shutil.copy(EXAMPLE / "MADEV.m", tmp_path / "MADEV.m")
    method_spec = MethodSpec(name="MADEV", matlab_function="MADEV", plugin_dir=str(tmp_path))
    made_with = method_fingerprint(method_spec, "octave")
    source = (tmp_path / "MADEV.m").read_text()
    edited = ("% a new header comment\n%{\nA block comment.\n%}\n"
              + source.replace("  params = mlfs_method_params('MADEV', defaults, params);",
                               "\n\n      params = mlfs_method_params('MADEV', defaults, params);  \t")
              .replace("ranking = mlfs_rank_scores(scores, 'MADEV');", "ranking = mlfs_rank_scores(scores, 'MADEV'); % ranks"))
    (tmp_path / "MADEV.m").write_text(edited)
    assert code_changed("method", made_with, method_fingerprint(method_spec, "octave")) is None
    (tmp_path / "MADEV.m").write_text(edited.replace(".^ params.power", ".^ (params.power + 1)"))
    assert code_changed("method", made_with, method_fingerprint(method_spec, "octave")) == "method code changed (plugin/MADEV.m)"


def test_a_record_of_the_former_fingerprints_is_stale_once_with_that_reason(tmp_path, registry):
    shutil.copy(EXAMPLE / "MADEV.m", tmp_path / "MADEV.m")
    current = method_fingerprint(MethodSpec(name="MADEV", matlab_function="MADEV", plugin_dir=str(tmp_path)),
                                 "octave")
    former = {"files": [[path, "0" * 64] for path, _ in current["files"]]}  # raw-file hashes, no scheme
    assert code_changed("method", former, current) == (
        f"method code fingerprint scheme changed (to {FINGERPRINT_SCHEME}: comments, docstrings and formatting "
        "no longer count)")
    assert code_changed("method", {**former, "scheme": FINGERPRINT_SCHEME}, current).startswith("method code changed")


@pytest.mark.octave
def test_both_front_doors_normalise_and_fingerprint_alike(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    for i, (source, _) in enumerate(MATLAB_CASES):
        (cases / f"case{i}.m").write_bytes(source.encode("latin-1"))
    shutil.copy(EXAMPLE / "MADEV.m", tmp_path / "MADEV.m")
    (tmp_path / "MADEV.m").write_text((tmp_path / "MADEV.m").read_text() + "% mentions madev_unused in a comment\n")
    (tmp_path / "madev_unused.m").write_text("function x = madev_unused()\n  x = 1;\nend\n")
    shipped = sorted((REPO / "matlab").rglob("*.m"))  # every shipped .m file too
    (tmp_path / "shipped.txt").write_text("".join(f"{path}\n" for path in shipped))
    script = (f"addpath(genpath('{REPO / 'matlab'}')); "
              f"for i = 0:{len(MATLAB_CASES) - 1}, "
              f"printf('%s\\n', mlfs_sha256_bytes(mlfs_code_normalise(mlfs_read_bytes(sprintf('{cases}/case%d.m', i))))); "
              f"end; f = mlfs_code_fingerprint('MADEV', {{'{tmp_path}'}}); printf('%s %s\\n', f.sha256, f.scheme); "
              f"files = strsplit(fileread('{tmp_path / 'shipped.txt'}'), char(10)); "
              "for i = 1:numel(files) - 1, printf('%s\\n', mlfs_sha256_bytes(mlfs_code_normalise(mlfs_read_bytes(files{i})))); end")
    done = subprocess.run(["octave-cli", "--no-gui", "--quiet", "--eval", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr  # run_suite would log a warning
    lines = done.stdout.split("\n")
    for i, (source, _) in enumerate(MATLAB_CASES):
        assert lines[i] == hashlib.sha256(matlab_canonical(source.encode("latin-1"))).hexdigest(), MATLAB_CASES[i]
    python_side = method_fingerprint(MethodSpec(name="MADEV", matlab_function="MADEV", plugin_dir=str(tmp_path)),
                                     "octave")
    assert lines[len(MATLAB_CASES)] == f"{python_side['sha256']} {FINGERPRINT_SCHEME}"
    assert "plugin/madev_unused.m" not in [path for path, _ in python_side["files"]]  # named in a comment only
    differ = [path.name for path, line in zip(shipped, lines[len(MATLAB_CASES) + 1:])
              if line != hashlib.sha256(matlab_canonical(path.read_bytes())).hexdigest()]
    assert len(lines) > len(MATLAB_CASES) + len(shipped) and differ == []
