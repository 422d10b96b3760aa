"""Build hook: the wheel carries the repository's matlab/ folder as the package data pipeline/matlab.

The MATLAB/Octave code stays where it is edited (matlab/ at the top of the repository); building
the package copies it into the package, where pipeline.locations finds it once installed.
Everything else is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

MATLAB_SOURCE = Path(__file__).resolve().parent / "matlab"


class BuildWithMatlabCode(build_py):
    """build_py, plus a copy of matlab/ (the .m files and the Octave start-up file) into pipeline/matlab."""

    def run(self):
        super().run()
        if not self.editable_mode:
            target = Path(self.build_lib) / "pipeline" / "matlab"
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(MATLAB_SOURCE, target, ignore=shutil.ignore_patterns("*~", ".*"))


setup(cmdclass={"build_py": BuildWithMatlabCode})
