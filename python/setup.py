"""Copies the built libresample next to the package, so `pip install ./python` after
`cargo build --release` gives a self-contained package. RESAMPLE_LIBRARY names another
library file; without either, the package looks for the library at run time."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def built_library():
    env = os.environ.get("RESAMPLE_LIBRARY")
    if env and os.path.isfile(env):
        return env
    for name in ("libresample.so", "libresample.dylib", "resample.dll"):
        path = os.path.join(HERE, "..", "target", "release", name)
        if os.path.isfile(path):
            return path
    return None


class BuildPy(build_py):
    def run(self):
        super().run()
        lib = built_library()
        if lib is None:
            print("resample: no built library found; set RESAMPLE_LIBRARY at run time")
            return
        dest = os.path.join(self.build_lib, "resample", os.path.basename(lib))
        shutil.copyfile(lib, dest)


setup(cmdclass={"build_py": BuildPy})
