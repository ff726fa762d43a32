"""fxkit.normalize and fxkit.Normalizer: ffmpeg's dynaudnorm bit for bit (goldens, and
ffmpeg itself where installed), the CLI's samples, and streaming in any block sizes.

The CLI runs the C library's normalize stream (fx_normalize_open/push/pull) on the same
file, so comparing with it also covers the C API's path."""
import os
import shlex
import subprocess

import numpy as np
import pytest

import fxkit
from conftest import (TESTDATA, assert_same, have_ffmpeg, read_wav, sample, sha256, wav_data)

GOLDENS = os.path.join(TESTDATA, "normalize", "goldens.txt")

# The CLI's options, short and long, as Python keywords (value None: a flag).
SHORT = {"-f": "frame_ms", "-g": "window", "-p": "peak", "-m": "max_gain", "-r": "target_rms",
         "-c": "correct_dc", "-b": "alt_boundary", "-s": "compress"}
FLAGS = {"correct_dc", "alt_boundary"}


def cli_to_kwargs(args):
    argv, kwargs, i = shlex.split(args), {}, 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--no-"):
            kwargs[a[5:].replace("-", "_")] = False
            i += 1
            continue
        key = SHORT.get(a) or a[2:].replace("-", "_")
        if key in FLAGS:
            kwargs[key] = True
            i += 1
        else:
            value = argv[i + 1]
            try:
                value = int(value) if value.isdigit() else float(value)
            except ValueError:
                pass
            kwargs[key] = value
            i += 2
    return kwargs


def golden_cases():
    with open(GOLDENS) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, inp, _ff, fxopts, sha = line.rstrip("\n").split("|")
            yield pytest.param(name, inp, fxopts, sha, id=name)


def golden_input(cli, tmp_path, name, inp):
    if inp.startswith("gen:"):
        path = tmp_path / f"{name}.wav"
        cli("gen", "audio", *shlex.split(inp[4:]), "--sample-format", "f64", "-o", path)
        return str(path)
    return sample(inp[len("sample:"):])


def channel_kwargs(kwargs):
    """--channels LIST is the option `channels` of normalize() (a string)."""
    if "channels" in kwargs:
        kwargs["channels"] = str(kwargs["channels"])
    return kwargs


@pytest.mark.parametrize("name,inp,fxopts,sha", list(golden_cases()))
def test_ffmpeg_goldens(cli, tmp_path, name, inp, fxopts, sha):
    """sha256 of ffmpeg 5.1's f64 samples for every golden case (tests/data/normalize)."""
    x, rate, _ = read_wav(golden_input(cli, tmp_path, name, inp))
    y = fxkit.normalize(x, rate, **channel_kwargs(cli_to_kwargs(fxopts)))
    assert y.dtype == np.float64 and y.shape == x.shape
    assert sha256(y.astype("<f8")) == sha


def test_mono_1d_equals_golden():
    x, rate, _ = read_wav(sample("speech_mono_44k.wav"))
    want = [ln.split("|")[4].strip() for ln in open(GOLDENS) if ln.startswith("sample-mono|")][0]
    y = fxkit.normalize(x[:, 0], rate)
    assert y.ndim == 1 and y.shape == (x.shape[0],)
    assert sha256(y.astype("<f8")) == want


def cli_normalize(cli, src, tmp_path, args=(), fmt="f64"):
    out = tmp_path / "cli_norm.wav"
    cli("normalize", *args, src, "-o", out, "--sample-format", fmt)
    return out


@pytest.mark.parametrize("blocks", [[1, 2, 3, 4095, 4097, 65536], [22050], [100003], [7] * 50 + [999999]])
def test_normalizer_blocks_equal_whole_and_cli(cli, tmp_path, blocks):
    src = sample("speech_stereo_44k_24bit.wav")
    x, rate, _ = read_wav(src)
    opts = {"frame_ms": 200, "window": 15, "coupling": False}
    want, _, _ = read_wav(cli_normalize(cli, src, tmp_path,
                                        ["--frame-ms", "200", "--window", "15", "--no-coupling"]))
    whole = fxkit.normalize(x, rate, **opts)
    assert_same(whole, want, "normalize vs CLI")

    n = fxkit.Normalizer(rate, x.shape[1], **opts)
    parts, pos, i = [], 0, 0
    while pos < len(x):
        size = blocks[i % len(blocks)]
        parts.append(n.push(x[pos:pos + size]))
        pos += size
        i += 1
    parts.append(n.flush())
    for p in parts:
        assert p.ndim == 2 and p.shape[1] == x.shape[1] and p.dtype == np.float64
    assert_same(np.concatenate(parts), want, f"Normalizer in blocks {blocks[:6]}")


def test_normalizer_mono_1d_blocks(cli, tmp_path):
    src = sample("speech_mono_44k.wav")
    x, rate, _ = read_wav(src)
    want, _, _ = read_wav(cli_normalize(cli, src, tmp_path))
    n = fxkit.Normalizer(rate, 1)
    parts = [n.push(x[i:i + 3333, 0]) for i in range(0, len(x), 3333)] + [n.flush()]
    got = np.concatenate([p.reshape(-1) for p in parts])
    assert_same(got, want[:, 0], "mono Normalizer")


@pytest.mark.parametrize("fmt,dtype", [("f32", np.float32), ("s16", np.int16)])
def test_sample_types_same_as_cli(cli, tmp_path, fmt, dtype):
    """float32 and int16 in: the CLI's output of a file of that format, same dtype out."""
    src = tmp_path / f"in_{fmt}.wav"
    cli("gen", "audio", "--kind", "speech", "--duration", "12", "--channels", "2",
        "--sample-format", fmt, "-o", src)
    raw = wav_data(src)
    x = np.frombuffer(raw, "<f4" if fmt == "f32" else "<i2").astype(dtype).reshape(-1, 2)
    out = cli_normalize(cli, src, tmp_path, ["--window", "11"], fmt=fmt)
    want = np.frombuffer(wav_data(out), "<f4" if fmt == "f32" else "<i2").astype(dtype).reshape(-1, 2)
    assert_same(fxkit.normalize(x, 44100, window=11), want, fmt)


FFMPEG_CASES = [
    ("speech_stereo_44k_24bit.wav", "f=300:g=21:p=0.9", dict(frame_ms=300, window=21, peak=0.9)),
    ("speech_mono_44k.wav", "f=500", {}),
    ("speech_stereo_44k_24bit.wav", "n=0:c=1:s=3:m=5", dict(coupling=False, correct_dc=True, compress=3,
                                                          max_gain=5)),
    ("speech_mono_44k.wav", "r=0.1:f=200:g=9", dict(target_rms=0.1, frame_ms=200, window=9)),
]


@pytest.mark.parametrize("name,ffopts,kwargs", FFMPEG_CASES, ids=[c[1] for c in FFMPEG_CASES])
def test_ffmpeg_itself(name, ffopts, kwargs):
    """ffmpeg 5.1's -af dynaudnorm on the same file, its f64 samples bit for bit, for
    the one call and for a Normalizer fed in uneven blocks."""
    if not have_ffmpeg():
        pytest.skip("ffmpeg is not installed")
    version = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.split()[2]
    if not version.startswith("5.1"):
        pytest.skip(f"ffmpeg {version}: the bit-exact peer is ffmpeg 5.1's dynaudnorm (Debian 12)")
    src = sample(name)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", src, "-af", "dynaudnorm=" + ffopts,
                          "-f", "f64le", "-acodec", "pcm_f64le", "-"], capture_output=True, check=True).stdout
    x, rate, _ = read_wav(src)
    want = np.frombuffer(raw, "<f8").reshape(-1, x.shape[1])
    assert_same(fxkit.normalize(x, rate, **kwargs), want, f"ffmpeg dynaudnorm={ffopts}")
    n = fxkit.Normalizer(rate, x.shape[1], **kwargs)
    parts = [n.push(x[i:i + 12345]) for i in range(0, len(x), 12345)] + [n.flush()]
    assert_same(np.concatenate(parts), want, f"Normalizer, ffmpeg dynaudnorm={ffopts}")
