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
    # The thread count and the limit that set it (affinity, cgroup quota, Slurm).
    assert f"CPU threads: {info['threads']} (from the {info['threads_from']};" in text


def test_version_attribute_matches_cli(cli):
    version = re.search(r"fxkit (\S+)", cli("info").stdout).group(1)
    assert getattr(fxkit, "__version__", version) == version


@pytest.mark.parametrize("func,job,skip", [
    (fxkit.filter, "filter", {"kernel", "list-kernels", "explain", "stream-rows", "gpu-block", "gpu-memory"}),
    (fxkit.equalize, "equalize", {"explain", "gpu-block"}),
    (fxkit.normalize, "normalize", {"explain", "gain-log", "stage-log", "sample-format", "channels"}),
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


def help_entries(text):
    """{option: its help text, whitespace collapsed, without '(default: …)'} of the job's
    own options in `fxkit JOB --help` (before the Output: section)."""
    part = text.split("\nOptions:\n", 1)[1].split("\nOutput:")[0]
    out, cur = {}, None
    for line in part.splitlines():
        m = re.match(r"^\s+(?:-\w, )?--(?:\[no-\])?([a-z][a-z0-9-]*)(?:\s\S+)?\s{2,}(.*)$", line)
        if m:
            cur = m.group(1)
            out[cur] = m.group(2)
            continue
        m = re.match(r"^\s+(?:-\w, )?--(?:\[no-\])?([a-z][a-z0-9-]*)\s+\S+$", line)
        if m:  # a long option and its argument alone on their line
            cur = m.group(1)
            out[cur] = ""
            continue
        if cur and line.startswith(" " * 20):
            out[cur] += " " + line.strip()
    return {k: re.split(r"\s*\(default: ", " ".join(v.split()))[0] for k, v in out.items()}


CLI_ONLY = {"kernel", "depth", "list-kernels", "explain", "stream-rows", "sample-format", "gain-log",
            "stage-log"}


@pytest.mark.parametrize("func,job", [(fxkit.filter, "filter"), (fxkit.equalize, "equalize"),
                                      (fxkit.normalize, "normalize")])
def test_docstring_has_each_options_help(cli, func, job):
    """help(fxkit.JOB) holds the help text of each option as `fxkit JOB --help` prints it
    (both come from the library's option table)."""
    entries = help_entries(cli(job, "--help").stdout)
    assert len(entries) >= 8
    doc = " ".join((func.__doc__ or "").split())
    missing = {o: h for o, h in entries.items() if o not in CLI_ONLY and h not in doc}
    assert not missing, missing


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
