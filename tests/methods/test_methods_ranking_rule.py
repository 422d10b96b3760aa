"""The ranking rule and the random-start generator, in both languages (docs/methods/README.md).

Python ``pipeline.rankings.rank_scores`` and Octave ``mlfs_rank_scores`` must be the same rule:
the stable descending order of the scores, with only rounding-level ties (a relative gap of at
most 1e-10 to the first score of the tie group, exact equality included) ordered by index.
``UniformStream`` and ``mlfs_seeded_uniform`` must give bit-identical starting matrices.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

from pipeline.errors import ConfigError, EngineError, RankingError
from pipeline.methods import get_method
from pipeline.methods.starts import UniformStream
from pipeline.rankings import RELATIVE_TIE_TOLERANCE, rank_scores


def literal_rule(scores) -> list[int]:
    """The rule as written in the docs, one step at a time (reference for the tests)."""
    order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))
    groups, first = [], None
    for j in order:
        value = scores[j]
        if first is None or first - value > RELATIVE_TIE_TOLERANCE * max(abs(first), abs(value)):
            groups.append([])
            first = value
        groups[-1].append(j)
    return [j + 1 for group in groups for j in sorted(group)]


def near_tie_vectors():
    """Score vectors with clusters of rounding-level near-ties, exact ties, zeros and tiny values."""
    base = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
    jitter = st.integers(min_value=-3, max_value=3)
    member = st.tuples(base, st.lists(jitter, min_size=1, max_size=4))
    return st.lists(member, min_size=1, max_size=12).map(
        lambda items: [value * (1.0 + k * 1e-13) for value, ks in items for k in ks])


@given(near_tie_vectors())
def test_rank_scores_is_the_documented_rule(scores):
    ranking = rank_scores(np.array(scores), "X")
    assert ranking.tolist() == literal_rule(scores)
    assert sorted(ranking.tolist()) == list(range(1, len(scores) + 1))


@given(st.lists(st.floats(min_value=1e-300, max_value=1e300), min_size=2, max_size=30, unique=True),
       st.integers(min_value=-60, max_value=60))
def test_rank_scores_does_not_depend_on_the_scale(scores, power):
    with np.errstate(over="ignore", under="ignore"):
        scaled = np.array(scores) * 2.0 ** power
    if np.all(np.isfinite(scaled)) and np.all(scaled > 0):
        np.testing.assert_array_equal(rank_scores(scaled, "X"), rank_scores(np.array(scores), "X"))


def test_small_well_separated_scores_keep_their_order():
    # SCNMF tail scores on scene (4.0069e-9 vs 3.9985e-9, 0.2 % apart) far below 1e-10 x max
    scores = np.array([3.9985e-9, 1.0, 4.0069e-9, 1e-30, 2e-30, 0.0, 5e-310])
    np.testing.assert_array_equal(rank_scores(scores, "X"), [2, 3, 1, 5, 4, 7, 6])


def test_rounding_level_ties_go_to_the_lower_index():
    three = 3.0 * (1 + np.array([0.0, 1e-13, -1e-13, 4e-16]))
    scores = np.array([1.0, three[1], three[0], 2.0, three[2], three[3], 0.0, 0.0, -1.0])
    np.testing.assert_array_equal(rank_scores(scores, "X"), [2, 3, 5, 6, 4, 1, 7, 8, 9])


def test_non_finite_scores_are_refused():
    with pytest.raises(RankingError, match="non-finite"):
        rank_scores(np.array([1.0, np.nan]), "X")


def test_duplicate_columns_are_adjacent_in_index_order(emotions_with_duplicates):
    """GRRO scores duplicate columns equal up to rounding noise (~1e-13): they must follow each other by index."""
    X, Y, copies = emotions_with_duplicates
    ranking, info = _grro(X, Y)
    position = {int(f): i for i, f in enumerate(ranking)}
    for original, copy in copies:
        scores = info["scores"]
        assert scores[original] != scores[copy]                      # the noise is there ...
        assert scores[original] == pytest.approx(scores[copy], rel=1e-11)
        assert position[copy + 1] == position[original + 1] + 1      # ... and does not reorder them


def _grro(X, Y):
    spec = get_method("GRRO")
    return spec.run(X, Y, spec.resolve_params({}), None)


@pytest.fixture(scope="module")
def emotions_with_duplicates(mlc_dir):
    from pipeline.data.readers import read_mulan

    data = read_mulan([mlc_dir / "emotions-train.arff"], mlc_dir / "emotions.xml")
    X = data.X[:200]
    X = (X - X.min(axis=0)) / np.ptp(X, axis=0)
    copies = [(3, X.shape[1]), (40, X.shape[1] + 1)]
    X = np.hstack([X, X[:, [3, 40]]])
    return X, data.Y[:200].astype(float), copies


@pytest.mark.octave
def test_octave_twin_ranks_exactly_as_python(octave):
    rng = np.random.default_rng(0)
    vectors = [np.repeat(rng.normal(size=8), 3) * (1 + rng.integers(-3, 4, size=24) * 1e-13),
               np.concatenate([rng.random(20) * 1e-9, np.zeros(5), -rng.random(5)]),
               np.array([3.9985e-9, 1.0, 4.0069e-9, 1e-30, 2e-30, 0.0, 5e-310]),
               np.round(rng.random(40), 2)]
    for scores in vectors:
        (ranking,) = octave.call("mlfs_rank_scores", scores.reshape(-1, 1), "X", nout=1)
        np.testing.assert_array_equal(np.ravel(ranking), rank_scores(scores, "X"))
        assert ranking.tolist() == [literal_rule(scores.tolist())]
    with pytest.raises(EngineError, match="non-finite"):
        octave.call("mlfs_rank_scores", np.array([[1.0], [np.inf]]), "X", nout=1)


@pytest.mark.octave
def test_duplicate_columns_rank_identically_in_octave(octave, emotions_with_duplicates):
    X, Y, _ = emotions_with_duplicates
    ranking, info = octave.call("GRRO", X, Y, {}, {}, nout=2)
    expected, python_info = _grro(X, Y)
    np.testing.assert_array_equal(np.ravel(ranking), expected)
    np.testing.assert_allclose(np.ravel(info["scores"]), python_info["scores"], rtol=1e-9)


@pytest.mark.octave
@pytest.mark.parametrize("seed", [0, 1, 42, 2**31, 2**32 - 1])
def test_starts_are_bit_identical_in_both_languages(octave, seed):
    shapes = [(7, 3), (1, 5), (4, 1)]
    outputs = octave.call("mlfs_seeded_uniform", float(seed), *[np.array([r, c], dtype=float) for r, c in shapes],
                          nout=len(shapes))
    stream = UniformStream(seed)
    for (rows, cols), matrix in zip(shapes, outputs):
        expected = stream.matrix(rows, cols)
        assert np.asarray(matrix).reshape(rows, cols).tobytes() == np.ascontiguousarray(expected).tobytes()


@pytest.mark.octave
@pytest.mark.parametrize("seed", [0, 5489, 19650218, 2**32 - 1])
def test_matlab_seeding_state_equals_octaves_own(octave, seed):
    """MATLAB loads mlfs_mt_init_by_array's state into its stream: it must be Octave's state for the seed."""
    oc = octave.start()
    oc.feval("rand", "twister", float(seed), nout=0)
    octave_state = oc.feval("rand", "twister", nout=1)
    (state,) = octave.call("mlfs_mt_init_by_array", float(seed), nout=1)
    np.testing.assert_array_equal(np.ravel(state), np.ravel(octave_state)[:624])


@pytest.mark.octave
@pytest.mark.parametrize("seed", [-1, 1.5, 2.0**32])
def test_bad_seeds_are_refused_in_both_languages(octave, seed):
    with pytest.raises(EngineError, match="seed"):
        octave.call("mlfs_seeded_uniform", float(seed), np.array([2.0, 2.0]), nout=1)
    with pytest.raises(ConfigError, match="seed"):
        UniformStream(seed if seed != 1.5 else 1.5)


@pytest.mark.octave
def test_every_random_start_method_draws_what_octave_draws(octave):
    for name in ("LRMFS", "SRFS", "LSMFS", "LRDG", "RFSFS"):
        spec = get_method(name)
        params = spec.resolve_params({"seed": 3})
        init = spec.initial_matrices(6, 4, 2, params)
        sizes = [np.array(matrix.shape, dtype=float) for matrix in init.values()]
        drawn = octave.call("mlfs_seeded_uniform", 3.0, *sizes, nout=len(sizes))
        for (key, matrix), octave_matrix in zip(init.items(), drawn):
            np.testing.assert_array_equal(np.asarray(octave_matrix).reshape(matrix.shape), matrix, err_msg=key)
