"""The markdown table of docs/BENCHMARKS.md from a `fxkit bench --csv` file.

One line per case and device: fxkit's median (min–max), the physical floor, what the
result was checked against, the fastest peer with its time and ratio (peer ms / fxkit
ms; bold below 1.1, where fxkit is not clearly ahead), the peers that gave fxkit's bytes,
and whether the row was verified.

usage: python3 bench/bench_markdown.py docs/bench/dev.csv > table.md
"""
import csv
import sys

# Ratios below this are printed bold: fxkit not clearly ahead of the best peer.
NOT_AHEAD = 1.1


def fmt(v, digits=2):
    return f"{float(v):.{digits}f}" if v not in (None, "") else ""


def main(path):
    rows = list(csv.DictReader(open(path, newline="")))
    cases = {}
    for r in rows:
        key = (r["job"], r["case"], r["device"])
        cases.setdefault(key, []).append(r)
    print("| job | case | dev | fxkit ms (min–max) | floor ms | fxkit checked against | best peer "
          "| peer ms | peer / fxkit | peers with fxkit's bytes | verified |")
    print("| --- | --- | --- | ---: | ---: | --- | --- | ---: | ---: | --- | --- |")
    for (job, case, dev), group in cases.items():
        first = group[0]
        peers = [r for r in group if r["peer"] and r["peer_ms"]]
        best = min(peers, key=lambda r: float(r["peer_ms"])) if peers else None
        exact = sorted({r["peer"] for r in peers if r["max_diff"] not in ("", None)
                        and float(r["max_diff"]) == 0})
        ratio = ""
        if best and first["fxkit_ms"]:
            x = float(best["peer_ms"]) / float(first["fxkit_ms"])
            ratio = f"**{x:.2f}×**" if x < NOT_AHEAD else f"{x:.2f}×"
        time = (f"{fmt(first['fxkit_ms'])} ({fmt(first['fxkit_min_ms'])}–{fmt(first['fxkit_max_ms'])})"
                if first["fxkit_ms"] else "—")
        verified = "yes" if all(r["verified"] == "yes" for r in group) else "**no**"
        print(f"| {job} | {case} | {dev} | {time} | {fmt(first.get('floor_ms'), 3)} | "
              f"{first['verify']} | {best['peer'] if best else '(none)'} | "
              f"{fmt(best['peer_ms']) if best else ''} | {ratio} | {', '.join(exact) or '—'} | "
              f"{verified} |")


if __name__ == "__main__":
    main(sys.argv[1])
