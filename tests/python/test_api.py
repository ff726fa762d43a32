"""The module's surface: info(), list_kernels(), keywords and defaults from the library's
option tables, docstrings that read like the CLI's --help."""
import inspect
import re

import numpy as np
import pytest

import fxkit


def test_info_matches_cli(cli):
    info = fxkit.info()
    text = cli("info").stdout
    version = re.search(r"fxkit (\S+)", text).group(1)
    assert version in str(info)
    gpus = info.get("gpus") if isinstance(info, dict) else getattr(info, "gpus")
    if "GPU: none" in text:
        assert not gpus
    else:
        assert gpus


def test_version_attribute_matches_cli(cli):
    version = re.search(r"fxkit (\S+)", cli("info").stdout).group(1)
    assert getattr(fxkit, "__version__", version) == version


@pytest.mark.parametrize("func,job,skip", [
    (fxkit.filter, "filter", {"kernel", "list-kernels", "explain", "stream-rows", "gpu-block", "gpu-memory"}),
    (fxkit.equalize, "equalize", {"gpu-block"}),
    (fxkit.normalize, "normalize", {"gain-log", "stage-log", "sample-format", "channels"}),
])
def test_keywords_are_the_cli_options(cli, func, job, skip):
    """Each job option of `fxkit JOB --help` (before the Output: section) is a keyword
    of the function, '-' -> '_' (the CLI's file and batch options are not)."""
    text = cli(job, "--help").stdout
    job_part = text.split("\nOutput:")[0]
    options = set(re.findall(r"^\s+(?:-\w, )?--(?:\[no-\])?([a-z][a-z0-9-]*)", job_part, re.M)) - skip
    doc = func.__doc__ or ""
    try:
        params = set(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        params = set()
    for opt in sorted(options):
        name = opt.replace("-", "_")
        assert name in params or name in doc, f"{job}: option --{opt} is not a keyword ({name})"


@pytest.mark.parametrize("func,job,phrases", [
    (fxkit.filter, "filter", ["reflect101", "gaussian", "correlation"]),
    (fxkit.equalize, "equalize", ["CLAHE", "minmax", "8x8"]),
    (fxkit.normalize, "normalize", ["dynaudnorm", "frame", "0.95"]),
])
def test_docstrings_read_like_help(cli, func, job, phrases):
    doc = func.__doc__ or ""
    helptext = cli(job, "--help").stdout
    for p in phrases:
        assert p in helptext, f"(the test's phrase {p!r} is in the CLI's help)"
        assert p in doc, f"help(fxkit.{job}) lacks {p!r}"


def test_filter_defaults_match_cli_defaults(inputs):
    """Calling with the documented defaults spelled out gives the call without them."""
    from conftest import assert_same, read_pnm
    img = read_pnm(inputs["photo_rgb.ppm"])
    plain = fxkit.filter(img, "sharpen")
    spelled = fxkit.filter(img, "sharpen", border="reflect101", border_value=0, scale=1.0, offset=0.0,
                           anchor=None, convolve=False, alpha="keep", strategy="auto", depth="same",
                           device="cpu", threads=0)
    assert_same(spelled, plain, "defaults")


def test_list_kernels_has_weights():
    kernels = fxkit.list_kernels()
    assert kernels and "gaussian" in str(kernels)


def test_device_cpu_always_works():
    img = np.full((10, 12), 9, np.uint8)
    assert int(fxkit.filter(img, "box:3", device="cpu")[5, 5]) == 9
