"""Check the interop report for nczarr-tools' row and column.

Usage: check_interop.py REPORT.json

Our reader ("ours" column) must read every dataset a writer produced at least as well
as the best peer reader does. Differences that come from a documented nczdump
convention are allowed (docs/formats.md):
  * a pure-Zarr fill_value is shown as a _FillValue attribute (as xarray reads it), so
    xarray's NaN fill for float variables appears as `_FillValue = NaN`.
Exit status 1 lists every cell that breaks the rule.
"""
import json
import re
import sys

ALLOWED = [re.compile(r"unexpected attribute _FillValue = \[\"NaN\"\]")]


def allowed(cell):
    diffs = cell.get("differences") or []
    return bool(diffs) and all(any(p.search(d) for p in ALLOWED) for d in diffs)


def main(path):
    report = json.load(open(path))
    rank = {"PASS": 3, "PARTIAL": 2, "FAIL": 1}
    problems, shown = [], []
    for case, data in sorted(report["cases"].items()):
        for writer, cells in (data.get("cells") or {}).items():
            ours = cells.get("ours")
            if ours is None or ours["status"] in ("WRITE-FAIL", "n/a"):
                continue
            best = max((rank.get(c["status"], 0) for r, c in cells.items() if r != "ours"), default=0)
            mine = rank.get(ours["status"], 0)
            if ours["status"] != "PASS":
                shown.append(f"  {case} / {writer}: {ours['status']}: {ours.get('reason')}")
            if mine < best and not allowed(ours):
                problems.append(f"  {case} / {writer}: ours {ours['status']} but a peer reader does better: {ours.get('reason')}")
    summary = report.get("summary", {})
    print("ours as reader, per writer:")
    for writer, s in summary.items():
        c = s.get("cells", {}).get("ours")
        if c:
            print(f"  {writer}: {c.get('PASS', 0)}/{c.get('applicable', 0)} PASS, "
                  f"{c.get('PARTIAL', 0)} PARTIAL, {c.get('FAIL', 0)} FAIL, {c.get('WRITE-FAIL', 0)} WRITE-FAIL")
    if "ours" in summary:
        print("ours as writer, per reader:")
        for reader, c in summary["ours"].get("cells", {}).items():
            print(f"  {reader}: {c.get('PASS', 0)}/{c.get('applicable', 0)} PASS, "
                  f"{c.get('PARTIAL', 0)} PARTIAL, {c.get('FAIL', 0)} FAIL")
    if shown:
        print("our cells that are not PASS (writer losses or documented conventions):")
        print("\n".join(shown))
    if problems:
        print("FAILED: our reader does worse than a peer on:")
        print("\n".join(problems))
        return 1
    print("interop check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
