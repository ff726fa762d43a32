"""What the GPU peer scripts share: the image size from the command line and the
median time of a call with the device synchronised."""
import statistics
import sys
import time

W, H = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (10000, 6000)


def median_ms(fn, sync, reps):
    """Median wall time (ms) of `reps` calls of fn after one warm-up, each followed by sync()."""
    fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)
