"""The fast lane leaves out whole folders only when ``-m`` would deselect every test in them."""

import gc

import pytest
from marker_lanes import deselects_every_test_marked

FAST_LANE = "not octave and not protocols and not slow"


@pytest.mark.parametrize("expression, marker, deselected", [
    (FAST_LANE, "protocols", True),
    (FAST_LANE, "octave", True),
    ("not protocols", "protocols", True),
    ("", "protocols", False),  # no -m: everything runs
    ("not slow", "protocols", False),
    ("protocols", "protocols", False),
    ("octave or not protocols", "protocols", False),  # a protocol test that also starts Octave runs
    # False with only the folder's marker and with every marker, true for protocols + slow alone:
    ("not protocols or (slow and not octave)", "protocols", False),
    ("not protocols and not octave", "octave", True),
    ("not octave(reason=1)", "octave", False),  # marker arguments: not read, so collected
])
def test_a_folder_is_left_out_only_when_no_combination_of_markers_selects_it(expression, marker, deselected):
    assert deselects_every_test_marked(expression, marker) is deselected


def test_collection_left_the_garbage_collector_only_the_objects_made_since():
    # conftest.pytest_collection_finish froze the collected modules and items: a full collection
    # walks only what the tests made, so code that calls gc.collect() per call stays cheap.
    assert gc.get_freeze_count() > 10_000
