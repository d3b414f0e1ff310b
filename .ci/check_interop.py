"""Check the interop reports for nczarr-tools' row (writer) and column (reader).

Usage: check_interop.py REPORT.json [LABEL=ALT_REPORT.json ...]
       check_interop.py --reader-only REPORT.json

With --reader-only (a run of the opt-in Zarr v3 writers, which we do not write in), only
the reader rule is checked.

REPORT.json is a full run (every writer, every reader) with nczgen's default layout as
writer "ours". Each ALT report is a run of writer "ours" alone with one of nczgen's
documented layout options (LABEL names it, e.g. "--char-dtype netcdf").

Reader rule: our reader reads every dataset a writer produced at least as well as the
best peer reader does. Differences that come from a documented nczdump convention are
allowed (docs/formats.md):
  * a pure-Zarr fill_value is shown as a _FillValue attribute (as xarray reads it), so
    xarray's NaN fill for float variables appears as `_FillValue = NaN`.

Writer rule: for every reader and case, some layout of ours (the default or one of the
options) is read at least as well as that reader reads the best peer writer's dataset
of the case; and our reader reads back every dataset we wrote, in every layout.
Exit status 1 lists every cell that breaks a rule.
"""
import json
import re
import sys

ALLOWED = [re.compile(r"unexpected attribute _FillValue = \[\"NaN\"\]")]
RANK = {"PASS": 3, "PARTIAL": 2, "FAIL": 1}


def allowed(cell):
    diffs = cell.get("differences") or []
    return bool(diffs) and all(any(p.search(d) for p in ALLOWED) for d in diffs)


def rank(cell):
    return RANK.get((cell or {}).get("status"), 0)


def check_complete(report, need_ours_writer, problems, min_cases=15):
    """A report that cannot show a failure is a failure: it must hold every case with a
    cell for every writer and reader it lists, and our reader's column (and, for a full
    run, our writer's row) must have cells that were actually read."""
    cases = report.get("cases") or {}
    writers = list(report.get("writers") or {})
    readers = list(report.get("readers") or {})
    if len(cases) < min_cases:
        problems.append(f"  report: {len(cases)} cases, expected at least {min_cases}")
    if "ours" not in readers:
        problems.append("  report: our reader is not in it")
    if need_ours_writer and "ours" not in writers:
        problems.append("  report: our writer is not in it")
    read_by_ours = wrote_by_ours = 0
    for case, data in sorted(cases.items()):
        cells = data.get("cells") or {}
        for w in writers:
            row = cells.get(w)
            if row is None:
                problems.append(f"  report: {case}: no cells for writer {w}")
                continue
            for r in readers:
                if r not in row:
                    problems.append(f"  report: {case} / {w}: no cell for reader {r}")
            ours = row.get("ours") or {}
            if ours.get("status") in RANK:
                read_by_ours += 1
            if w == "ours" and any((c or {}).get("status") in RANK for c in row.values()):
                wrote_by_ours += 1
    if "ours" in readers and read_by_ours == 0:
        problems.append("  report: our reader read nothing")
    if need_ours_writer and wrote_by_ours == 0:
        problems.append("  report: nothing we wrote was read")


def check_reader(report, problems):
    shown = []
    for case, data in sorted(report["cases"].items()):
        for writer, cells in (data.get("cells") or {}).items():
            ours = cells.get("ours")
            if ours is None or ours["status"] in ("WRITE-FAIL", "n/a"):
                continue
            best = max((rank(c) for r, c in cells.items() if r != "ours"), default=0)
            if ours["status"] != "PASS":
                shown.append(f"  {case} / {writer}: {ours['status']}: {ours.get('reason')}")
            if rank(ours) < best and not allowed(ours):
                problems.append(f"  reader: {case} / {writer}: ours {ours['status']} but a peer reader does better: {ours.get('reason')}")
    return shown


def check_writer(report, alternatives, problems):
    """Which layout serves each reader best, per case; problems where none is enough."""
    layouts = [("default", report)] + alternatives
    served = {}
    for case, data in sorted(report["cases"].items()):
        cells = data.get("cells") or {}
        readers = sorted({r for w, row in cells.items() for r in row})
        for reader in readers:
            best_peer = max((rank(row.get(reader)) for w, row in cells.items() if w != "ours"), default=0)
            options = []
            for label, rep in layouts:
                cell = ((rep["cases"].get(case) or {}).get("cells") or {}).get("ours", {}).get(reader)
                options.append((rank(cell), label, cell))
            top = max(o[0] for o in options)
            winners = [label for r, label, _ in options if r == top]
            served.setdefault(reader, {}).setdefault(winners[0], 0)
            served[reader][winners[0]] += 1
            if top < best_peer:
                reasons = "; ".join(f"{label}: {(c or {}).get('status')} {(c or {}).get('reason') or ''}"[:160] for _, label, c in options)
                problems.append(f"  writer: {case} / reader {reader}: no layout of ours reads as well as the best peer writer's ({reasons})")
    for label, rep in layouts:
        for case, data in sorted(rep["cases"].items()):
            cell = (data.get("cells") or {}).get("ours", {}).get("ours")
            if cell and cell["status"] not in ("PASS", "WRITE-FAIL"):
                problems.append(f"  writer: {case} ({label}): our reader does not read our own dataset: {cell.get('reason')}")
    return served


def summary_line(c):
    return (f"{c.get('PASS', 0)}/{c.get('applicable', 0)} PASS, {c.get('PARTIAL', 0)} PARTIAL, "
            f"{c.get('FAIL', 0)} FAIL, {c.get('WRITE-FAIL', 0)} WRITE-FAIL")


def verdict(shown, problems, passed):
    """Print our reader's non-PASS cells and the problems; the exit status."""
    if shown:
        print("our reader's cells that are not PASS (writer losses or documented conventions):")
        print("\n".join(shown))
    if problems:
        print("FAILED:")
        print("\n".join(problems))
        return 1
    print(passed)
    return 0


def main(argv):
    if argv and argv[0] == "--reader-only":
        report = json.load(open(argv[1]))
        problems = []
        check_complete(report, False, problems)
        shown = check_reader(report, problems)
        for writer, s in report.get("summary", {}).items():
            c = s.get("cells", {}).get("ours")
            if c:
                print(f"  ours reading {writer}: {summary_line(c)}")
        return verdict(shown, problems, "interop check (reader only) passed")
    report = json.load(open(argv[0]))
    alternatives = []
    for arg in argv[1:]:
        label, _, path = arg.partition("=")
        alternatives.append((label, json.load(open(path))))
    problems = []
    check_complete(report, True, problems)
    for label, rep in alternatives:
        alt = []
        check_complete(rep, True, alt)
        # An option run has our writer alone: its cells are checked, not the peers'.
        problems.extend(f"{p} ({label})" for p in alt if "no cells for writer" not in p)
    shown = check_reader(report, problems)
    served = check_writer(report, alternatives, problems)
    summary = report.get("summary", {})
    print("ours as reader, per writer:")
    for writer, s in summary.items():
        c = s.get("cells", {}).get("ours")
        if c:
            print(f"  {writer}: {summary_line(c)}")
    for label, rep in [("default", report)] + alternatives:
        if "ours" in rep.get("summary", {}):
            print(f"ours as writer ({label}), per reader:")
            for reader, c in rep["summary"]["ours"].get("cells", {}).items():
                print(f"  {reader}: {summary_line(c)}")
    print("layout that serves each reader best (cases):")
    for reader, counts in sorted(served.items()):
        print(f"  {reader}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
    return verdict(shown, problems, "interop check passed")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
