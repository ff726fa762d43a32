"""Filter a folder of images on a Dask cluster with fxkit: the recipe of docs/CLUSTER.md.

Each Dask worker runs fxkit.filter on whole files; the work list is the sorted inputs,
and Dask hands them out as workers free up (big and small files mix). With GPUs, start
one worker per GPU: each worker takes the GPU whose number is its own (worker names are
0, 1, … with LocalCluster, or pass --gpus to map names onto the GPUs you have). Outputs
are written to a temporary name and renamed, so an output that exists is whole, and
`skip_existing` (the default) makes a rerun after a crash do only what is missing.

    python examples/dask_filter.py -k gaussian:5 --workers 4 in/*.png -o out/
    python examples/dask_filter.py -k gaussian:5 --gpus 2 in/*.png -o out/     # one worker per GPU
    python examples/dask_filter.py -k gaussian:5 --scheduler tcp://host:8786 in/*.png -o out/

It prints one line per failed file and a summary, and exits 1 when any file failed.
"""
import argparse
import os
import sys

import fxkit


def worker_device(gpus):
    """The device this Dask worker uses: "cpu", or "gpu:N" from its name when gpus > 0."""
    if not gpus:
        return "cpu"
    from distributed import get_worker

    name = get_worker().name
    index = int(name) if str(name).isdigit() else abs(hash(name))
    return f"gpu:{index % gpus}"


def filter_file(src, dst, kernel, gpus=0, skip_existing=True, **options):
    """Filter one file into dst (atomically). Returns (src, status, message)."""
    if skip_existing and os.path.exists(dst):
        return src, "existing", ""
    folder, name = os.path.split(dst)
    temp = os.path.join(folder, f".{name}.part-{os.getpid()}{os.path.splitext(name)[1]}")
    try:
        image = fxkit.read(src)
        result = fxkit.filter(image, kernel, device=worker_device(gpus), **options)
        fxkit.write(temp, result)
        os.replace(temp, dst)
        return src, "done", ""
    except (fxkit.Error, OSError) as e:
        if os.path.exists(temp):
            os.remove(temp)
        return src, "failed", str(e)


def filter_files(client, inputs, out_dir, kernel, gpus=0, skip_existing=True, **options):
    """Map filter_file over the inputs on the client's cluster; returns the results in the
    order of the sorted inputs."""
    os.makedirs(out_dir, exist_ok=True)
    inputs = sorted(inputs)
    outputs = [os.path.join(out_dir, os.path.basename(p)) for p in inputs]
    futures = client.map(filter_file, inputs, outputs, kernel=kernel, gpus=gpus,
                         skip_existing=skip_existing, pure=False, **options)
    return client.gather(futures)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("-o", "--output", required=True, help="output folder")
    parser.add_argument("-k", "--kernel", required=True)
    parser.add_argument("--workers", type=int, default=0,
                        help="local worker processes (default: one per GPU, else per CPU)")
    parser.add_argument("--gpus", type=int, default=0, help="GPUs per host: one worker each")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler")
    parser.add_argument("--no-skip-existing", action="store_true")
    args = parser.parse_args(argv)

    from distributed import Client, LocalCluster

    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        workers = args.workers or args.gpus or os.cpu_count()
        # One thread per worker: fxkit parallelises inside each call itself.
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        results = filter_files(client, args.inputs, args.output, args.kernel, gpus=args.gpus,
                               skip_existing=not args.no_skip_existing)
    finally:
        client.close()
        if cluster:
            cluster.close()
    failed = [r for r in results if r[1] == "failed"]
    for src, _, message in failed:
        print(f"{src}: {message}", file=sys.stderr)
    counts = {s: sum(1 for r in results if r[1] == s) for s in ("done", "existing", "failed")}
    print(f"{len(results)} files: {counts['done']} done, {counts['existing']} existing, "
          f"{counts['failed']} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
