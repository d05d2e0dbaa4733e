"""Checks the dashboard as a browser rendered it (chromium --dump-dom) against `report --format json`:
every number shown in the tables equals the JSON value rounded to cents, hostile names arrive as
text (no element was injected), and nothing in the page refers to the network.
Usage: report_dom_check.py DOM.html REPORT.json NAME..."""
import json
import sys
from html.parser import HTMLParser


class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.current, self.row, self.cell = {}, None, None, None
        self.tags, self.urls = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k in ("src", "href") or (v and ("http://" in v or "https://" in v) and k != "xmlns"):
                self.urls.append((tag, k, v))
        if tag == "table":
            self.current = self.tables.setdefault(dict(attrs).get("id", ""), [])
        elif tag == "tr" and self.current is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.row and self.current is not None:
                self.current.append(self.row)
            self.row = None
        elif tag == "table":
            self.current = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def cents(v):
    return "" if v is None else f"{v:.2f}"


def main():
    dom, report = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2], encoding="utf-8"))
    names = sys.argv[3:]
    p = Tables()
    p.feed(dom)
    failures, checked = [], 0

    def expect(what, got, want):
        nonlocal checked
        checked += 1
        if got != want:
            failures.append(f"{what}: page shows {got!r}, JSON says {want!r}")

    for key in ("teams", "users"):
        rows = {r[0]: r for r in p.tables.get(key, [])[1:]}
        for g in report[key]:
            row = rows.get(g["name"])
            if row is None:
                failures.append(f"{key}: {g['name']!r} missing from the table")
                continue
            expect(f"{key} {g['name']} spent", row[1], cents(g["spent"]))
            expect(f"{key} {g['name']} cap", row[2], cents(g["cap"]))
            expect(f"{key} {g['name']} burn/day", row[4], cents(g["burn_per_day"]))
            expect(f"{key} {g['name']} forecast", row[5], cents(g["forecast"]))
    rows = {r[0]: r for r in p.tables.get("experiments", [])[1:]}
    for g in report["experiments"]:
        row = rows.get(g["name"])
        if row is None:
            failures.append(f"experiment {g['name']!r} missing from the table")
            continue
        expect(f"experiment {g['name']} runs", row[1], str(g["runs"]))
        expect(f"experiment {g['name']} spent", row[2], cents(g["spent"]))
        expect(f"experiment {g['name']} cost/run", row[3], cents(g["cost_per_run"]))
        expect(f"experiment {g['name']} cost/M tokens", row[5], cents(g["cost_per_million_tokens"]))
        expect(f"experiment {g['name']} planned", row[6], cents(g["planned"]))
    months = {r[0]: r[1] for r in p.tables.get("months", [])[1:]}
    for m in report["months"]:
        expect(f"month {m['month']}", months.get(m["month"]), cents(m["spent"]))
    summary = {r[0]: r[1] for r in p.tables.get("summary", [])[1:]}
    t = report["total"]
    expect("total spent", summary.get("spent this month"), cents(t["spent"]))
    expect("total cap", summary.get("cap (total)"), cents(t["cap"]))
    expect("burn rate", summary.get("burn rate per day"), cents(t["burn_per_day"]))
    expect("forecast", summary.get("period-end forecast"), cents(t["forecast"]))
    if t["crosses_on"]:
        expect("crossing date", summary.get("cap crossed on", "").split(" ")[0], t["crosses_on"])
    largest = p.tables.get("largest", [])[1:]
    expect("largest spenders rows", len(largest), len(report["largest"]))
    for row, s in zip(largest, report["largest"]):
        expect(f"largest {s['name']}", (row[1], row[2]), (s["name"], cents(s["spent"])))

    # Experiment families (when the ledger has outcomes): the table equals the JSON, every run
    # is a point in a chart, and the decisions list holds each family's reason.
    if "families" in report:
        sys.path.insert(0, __import__("os").path.dirname(__file__))
        from experiments_check import expected_row
        want = [expected_row(f, m) for f in report["families"] for m in f["metrics"]]
        expect("families table", p.tables.get("families", [])[1:], want)
        expect("chart points", p.tags.count("circle"), sum(len(m["runs"]) for f in report["families"] for m in f["metrics"]))
        expect("charts", p.tags.count("figure"), len(want))

    # Hostile names: shown as text, and no script element anywhere in the rendered DOM.
    cells = {c for rows in p.tables.values() for r in rows for c in r}
    for n in names:
        expect(f"name {n!r} shown as text", n in cells, True)
    expect("script elements in the page", p.tags.count("script"), 0)
    expect("network references", p.urls, [])

    for f in failures:
        print("FAIL:", f)
    print(f"{checked - len(failures)} of {checked} page values match the JSON")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
