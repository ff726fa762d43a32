"""fxkit on a real Dask cluster: the recipe of docs/CLUSTER.md (examples/dask_filter.py).

A LocalCluster of two worker processes maps fxkit.filter over a folder of files and,
with dask.bag, over arrays; the results must be the fxkit program's bytes (files) and
the in-process call's (arrays). A rerun skips what exists and does what is missing; a
bad file fails alone, named, with no partial output left.
"""
import glob
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import fxkit

from conftest import ROOT

# make test installs dask and distributed (Makefile PY_PACKAGES); elsewhere they are optional.
if os.environ.get("FXKIT_REQUIRE_CLI") != "1":
    pytest.importorskip("distributed")
import dask.bag as db  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

EXAMPLE = os.path.join(ROOT, "examples", "dask_filter.py")
KERNEL = "gaussian:3"


def load_example():
    spec = importlib.util.spec_from_file_location("dask_filter", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def client():
    # Worker processes, as on a real cluster: each imports fxkit on its own.
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    c = Client(cluster)
    # Worker processes import the example by name, as users import their own module.
    c.upload_file(EXAMPLE)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def images(tmp_path_factory, cli):
    """12 generated images and the fxkit program's results for them."""
    root = tmp_path_factory.mktemp("dask")
    cli("gen", "image", "--count", 12, "--size", "40x30", "-o", f"{root}/in/")
    cli("filter", "-k", KERNEL, "--device", "cpu", *sorted(glob.glob(f"{root}/in/*.png")),
        "-o", f"{root}/ref/")
    return root


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_files_on_two_workers_match_the_program(client, images):
    import dask_filter

    inputs = glob.glob(f"{images}/in/*.png")
    results = dask_filter.filter_files(client, inputs, f"{images}/out", KERNEL)
    assert [r[1] for r in results] == ["done"] * 12
    names = sorted(os.path.basename(p) for p in inputs)
    assert sorted(os.listdir(f"{images}/out")) == names
    for name in names:
        assert read_bytes(f"{images}/out/{name}") == read_bytes(f"{images}/ref/{name}"), name


def test_rerun_does_only_what_is_missing_and_a_bad_file_fails_alone(client, images):
    import dask_filter

    out = f"{images}/rerun"
    dask_filter.filter_files(client, glob.glob(f"{images}/in/*.png"), out, KERNEL)
    os.remove(f"{out}/gen_0005.png")
    kept = os.stat(f"{out}/gen_0006.png")
    bad = f"{images}/in_bad.png"
    with open(bad, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n truncated")
    results = dask_filter.filter_files(client, glob.glob(f"{images}/in/*.png") + [bad], out, KERNEL)
    status = {os.path.basename(src): s for src, s, _ in results}
    assert status.pop("gen_0005.png") == "done"
    assert status.pop("in_bad.png") == "failed"
    assert set(status.values()) == {"existing"}
    message = [m for src, s, m in results if s == "failed"][0]
    assert "in_bad.png" in message, message  # the library's message, carried back
    after = os.stat(f"{out}/gen_0006.png")
    assert (after.st_ino, after.st_mtime_ns) == (kept.st_ino, kept.st_mtime_ns)
    assert read_bytes(f"{out}/gen_0005.png") == read_bytes(f"{images}/ref/gen_0005.png")
    assert not [n for n in os.listdir(out) if ".part-" in n]
    assert not os.path.exists(f"{out}/in_bad.png")


def test_bag_of_arrays_matches_the_direct_call(client):
    rng = np.random.default_rng(7)
    arrays = [rng.integers(0, 256, (17 + i, 23, 3), dtype=np.uint8) for i in range(8)]
    bag = db.from_sequence(arrays, npartitions=4)
    results = bag.map(lambda a: fxkit.filter(a, "box:5", device="cpu")).compute()
    for a, got in zip(arrays, results):
        np.testing.assert_array_equal(np.asarray(got), fxkit.filter(a, "box:5", device="cpu"))


def test_example_program_runs_as_documented(images):
    out = f"{images}/main"
    proc = subprocess.run([sys.executable, EXAMPLE, "-k", KERNEL, "--workers", "2",
                           *glob.glob(f"{images}/in/*.png"), "-o", out],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "12 files: 12 done, 0 existing, 0 failed" in proc.stderr
    for name in os.listdir(f"{images}/ref"):
        assert read_bytes(f"{out}/{name}") == read_bytes(f"{images}/ref/{name}")
