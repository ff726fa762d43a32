#!/usr/bin/env python3
"""--device auto over a mixed batch against --device cpu and --device gpu (issue 25's
target: no item more than 1.1x the better device).

usage: bench/device_auto.py FXKIT [ROUNDS] [--quick]

Makes the inputs with `fxkit gen` in a tmpfs folder (thumbnails, 10000x6000 RGB,
6-minute stereo and a batch of 20 s clips), then for every item set (a job, its
options, its inputs) runs the program with --device cpu, gpu and auto, ROUNDS times
each (default 5) in turn after one untimed warm-up run, with --timings-csv. Per set it prints the medians of

  items: the sum over the set's items of the program's per-item total_ms (read,
         compute, write; the process start is not in it, nor gpu's CUDA start, paid
         when its contexts are made; auto starts CUDA lazily, inside the first item
         that could use the GPU, so where auto chose the GPU its items include it), and
  wall:  the command's wall time (everything),

the ratio auto / best device for both, auto's wall time above the best device's in ms
(issue 25: ~350 ms when auto started CUDA for sets it then ran on the CPU), the devices
auto chose (from the CSV), and whether auto's bytes equal the bytes of the device it
chose for each item (and whether cpu == gpu: the fft strategy may differ by 1 unit
between devices, the others never). The last lines: the worst items and wall ratios, and
PASS/FAIL against 1.1 on the wall ratio of every set: what the user waits for. (The items
ratio leaves out gpu's CUDA start, paid when its contexts are made: since the GPU's files
stream in pinned bands, a single 10000x6000 dense 15x15 item takes 143 ms there against
246 on the CPU, yet the command on the GPU, CUDA's 0.3 s start included, takes 472 ms
against 257: auto is right to stay on the CPU. Sets where auto chose the GPU are marked *:
their items carry the start.)
The batch sets (200 RGB 4096x2304 PPMs; --quick: 48 of 2048x1152) are where CUDA's start
is worth paying for a kernel heavy enough (gaussian:31) and not for a light one (box:3):
auto shares the start among a batch's items (fx_context_options.batch_bytes).
--quick: smaller inputs (4000x3000, 60 s audio), for a first look.
"""
import csv
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TARGET = 1.1
DEVICES = ("cpu", "gpu", "auto")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def dense_kernel(path, side, seed):
    """A non-separable integer kernel (direct below 400 taps, fft from 400 up)."""
    rnd = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(side):
            f.write(" ".join(str(rnd.randint(1, 9)) for _ in range(side)) + "\n")


def make_inputs(fx, root, quick):
    big = "4000x3000" if quick else "10000x6000"
    seconds = "60" if quick else "360"
    os.makedirs(f"{root}/thumbs")
    os.makedirs(f"{root}/clips")
    os.makedirs(f"{root}/batch")
    run([fx, "gen", "image", "-s", "2048x1152" if quick else "4096x2304", "-n",
         "48" if quick else "200", "--to", "ppm", "-o", f"{root}/batch/"])
    run([fx, "gen", "image", "-s", "320x240", "-n", "16" if quick else "64", "-o", f"{root}/thumbs/"])
    run([fx, "gen", "image", "-s", big, "-o", f"{root}/big.ppm"])
    run([fx, "gen", "image", "-s", big, "-d", "16", "-o", f"{root}/big16.ppm"])
    run([fx, "gen", "audio", "--kind", "speech", "--duration", seconds, "-o", f"{root}/long.wav"])
    run([fx, "gen", "audio", "--kind", "speech", "--duration", "20", "-n", "16",
         "-o", f"{root}/clips/"])
    dense_kernel(f"{root}/dense15.txt", 15, 1)
    dense_kernel(f"{root}/dense25.txt", 25, 2)
    thumbs = sorted(f"{root}/thumbs/{n}" for n in os.listdir(f"{root}/thumbs"))
    clips = sorted(f"{root}/clips/{n}" for n in os.listdir(f"{root}/clips"))
    batch = sorted(f"{root}/batch/{n}" for n in os.listdir(f"{root}/batch"))
    k15, k25 = f"@{root}/dense15.txt", f"@{root}/dense25.txt"
    return [
        ("thumbs filter gaussian:5", "filter", ["-k", "gaussian:5"], thumbs),
        ("thumbs filter dense 15x15", "filter", ["-k", k15], thumbs),
        ("big filter box:3", "filter", ["-k", "box:3"], [f"{root}/big.ppm"]),
        ("big filter gaussian:5", "filter", ["-k", "gaussian:5"], [f"{root}/big.ppm"]),
        ("big filter gaussian:31", "filter", ["-k", "gaussian:31"], [f"{root}/big.ppm"]),
        ("big filter dense 15x15 (direct)", "filter", ["-k", k15], [f"{root}/big.ppm"]),
        ("big filter dense 25x25 (fft)", "filter", ["-k", k25], [f"{root}/big.ppm"]),
        ("big16 filter dense 15x15", "filter", ["-k", k15], [f"{root}/big16.ppm"]),
        ("thumbs equalize hsv", "equalize", [], thumbs),
        ("big equalize hsv", "equalize", [], [f"{root}/big.ppm"]),
        ("big16 equalize CLAHE", "equalize", ["--adaptive"], [f"{root}/big16.ppm"]),
        ("long normalize", "normalize", [], [f"{root}/long.wav"]),
        ("clips normalize", "normalize", [], clips),
        ("batch filter gaussian:31", "filter", ["-k", "gaussian:31"], batch),
        ("batch filter box:3", "filter", ["-k", "box:3"], batch),
    ]


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def time_set(fx, root, job, args, inputs, device, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    times = f"{out}.csv"
    if os.path.exists(times):
        os.remove(times)
    cmd = [fx, job, *args, "--device", device, "--timings-csv", times, *inputs, "-o", out + "/"]
    start = time.perf_counter()
    run(cmd)
    wall = (time.perf_counter() - start) * 1e3
    rows = read_csv(times)
    return wall, sum(float(r["total_ms"]) for r in rows), rows


def same_bytes(a, b):
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 22), fb.read(1 << 22)
            if x != y:
                return False
            if not x:
                return True


def main():
    argv = [a for a in sys.argv[1:] if a != "--quick"]
    quick = "--quick" in sys.argv[1:]
    if not argv:
        sys.exit(__doc__)
    fx = os.path.abspath(argv[0])
    rounds = int(argv[1]) if len(argv) > 1 else 5
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    root = tempfile.mkdtemp(prefix="fxkit-device-auto.", dir=base)
    try:
        info = run([fx, "info", "--rates"]).stdout.strip()
        print(info)
        # Without a GPU (a dry run of the script) only cpu and auto are timed.
        devices = DEVICES if "GPU: none" not in info else ("cpu", "auto")
        sets = make_inputs(fx, root, quick)
        header = (f"{'item set':34} {'cpu ms':>9} {'gpu ms':>9} {'auto ms':>9} {'ratio':>6}"
                  f" {'wall c/g/a ms':>20} {'wall r':>6} {'+wall':>6}  auto chose       bytes")
        print(header)
        worst = (0.0, "")  # the verdict's ratio (see the docstring)
        worst_items = (0.0, "")
        worst_wall = (0.0, "")
        for name, job, args, inputs in sets:
            walls = {d: [] for d in devices}
            items = {d: [] for d in devices}
            last_rows = {}
            try:
                # One untimed run first: the inputs in the page cache, the GPU warm.
                time_set(fx, root, job, args, inputs, devices[-1], f"{root}/out/warm")
                for _ in range(rounds):
                    for d in devices:
                        w, t, rows = time_set(fx, root, job, args, inputs, d, f"{root}/out/{d}")
                        walls[d].append(w)
                        items[d].append(t)
                        last_rows[d] = rows
            except subprocess.CalledProcessError as e:
                print(f"{name:34} ERROR: {' '.join(e.cmd[:4])}... exit {e.returncode}: "
                      f"{e.stderr.strip()[-300:]}", flush=True)
                worst = (float("inf"), name)
                shutil.rmtree(f"{root}/out", ignore_errors=True)
                continue
            med = {d: statistics.median(items[d]) for d in devices}
            wmed = {d: statistics.median(walls[d]) for d in devices}
            med.setdefault("gpu", float("inf"))
            wmed.setdefault("gpu", float("inf"))
            ratio = med["auto"] / min(med["cpu"], med["gpu"])
            wratio = wmed["auto"] / min(wmed["cpu"], wmed["gpu"])
            chose = {}
            for r in last_rows["auto"]:
                chose[r["device"]] = chose.get(r["device"], 0) + 1
            # auto's bytes against the device it chose, item by item; cpu against gpu
            device_of = {os.path.basename(r["file"]): r["device"] for r in last_rows["auto"]}
            auto_ok, cpu_gpu = True, True
            for out_name in sorted(os.listdir(f"{root}/out/auto")):
                stem = os.path.splitext(out_name)[0]
                dev = next((v for k, v in device_of.items() if os.path.splitext(k)[0] == stem),
                           "cpu")
                dev_dir = "cpu" if dev == "cpu" else "gpu"
                auto_ok &= same_bytes(f"{root}/out/auto/{out_name}",
                                      f"{root}/out/{dev_dir}/{out_name}")
                if "gpu" in devices:
                    cpu_gpu &= same_bytes(f"{root}/out/cpu/{out_name}",
                                          f"{root}/out/gpu/{out_name}")
            chosen = ",".join(f"{k} {v}" for k, v in sorted(chose.items()))
            # CUDA started inside an item (auto chose the GPU): marked *.
            started = any(k.startswith("gpu") for k in chose)
            verdict = wratio
            extra = wmed["auto"] - min(wmed["cpu"], wmed["gpu"])
            bytes_text = ("same" if auto_ok else "DIFFER") + (
                "" if cpu_gpu else " (cpu != gpu)")
            print(f"{name:34} {med['cpu']:9.1f} {med['gpu']:9.1f} {med['auto']:9.1f}"
                  f" {ratio:6.2f}{'*' if started else ' '}"
                  f"{wmed['cpu']:6.0f}/{wmed['gpu']:6.0f}/{wmed['auto']:6.0f}"
                  f" {wratio:6.2f} {extra:6.0f}  {chosen:16} {bytes_text}", flush=True)
            if verdict > worst[0]:
                worst = (verdict, name)
            if ratio > worst_items[0]:
                worst_items = (ratio, name)
            if wratio > worst_wall[0]:
                worst_wall = (wratio, name)
            if not auto_ok:
                worst = (float("inf"), name)
                print(f"  BYTES: auto's output differs from its chosen device's in {name}")
            shutil.rmtree(f"{root}/out", ignore_errors=True)
        # The reasons, once per set, for the record.
        print("\n--explain of auto, first lines per set:")
        for name, job, args, inputs in sets:
            out = f"{root}/out/explain"
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            try:
                # every input: a batch's share of the GPU's start depends on its size
                p = run([fx, job, *args, "--explain", *inputs, "-o", out + "/"])
                lines = [l for l in p.stderr.splitlines() if "device" in l][:2]
            except subprocess.CalledProcessError as e:
                lines = [f"ERROR: exit {e.returncode}: {e.stderr.strip()[-300:]}"]
            print(f"  {name}:")
            for l in lines:
                print(f"    {l}")
        shutil.rmtree(f"{root}/out", ignore_errors=True)
        print(f"\nworst auto / best device (items): {worst_items[0]:.2f} ({worst_items[1]})")
        print(f"worst auto / best device (wall): {worst_wall[0]:.2f} ({worst_wall[1]})")
        print(f"verdict (wall): {worst[0]:.2f} ({worst[1]})")
        print("PASS" if worst[0] <= TARGET else "FAIL", f"(target <= {TARGET})")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
