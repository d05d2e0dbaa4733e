"""Checks that `report` says the same about experiment families in its table, JSON and HTML:
every cell of the families table (terminal and page) equals the JSON value as the renderers
round it, and every decision's reason appears word for word in the terminal notes and the
page's list. Prints the decisions and their figures, one line each, for comparing stores.
Usage: experiments_check.py REPORT.json REPORT.table REPORT.html"""
import json
import re
import sys
from html.parser import HTMLParser


class FamilyTable(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.items, self.circles, self.in_table, self.in_li = [], [], 0, False, False
        self.row = self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "families":
            self.in_table = True
        elif tag == "tr" and self.in_table:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "li" and a.get("class") is None:
            self.in_li, self.text = True, ""
        elif tag == "circle":
            self.circles += 1

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        elif tag == "table":
            self.in_table = False
        elif tag == "li" and self.in_li:
            self.items.append(self.text)
            self.in_li = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.in_li:
            self.text += data


def f2(v):
    return f"{v:.2f}"


def g4(v):
    s = f"{v:.4g}"
    return s


def expected_row(fam, m):
    last = m["last_improvement"]
    ratio = m["cost_per_gain_ratio"]
    return [fam["family"], f"{m['metric']} ({m['better']})", str(len(m["runs"])), g4(m["best"]), str(len(m["frontier"])),
            g4(last["gain"]) if last else "-", f2(last["cost"]) if last else "-", f2(last["cost_per_gain"]) if last else "-",
            f2(ratio) + "x" if ratio is not None else "-", f"{len(m['wasted_runs'])} ({f2(m['wasted_cost'])})",
            str(m["runs_since_frontier"]), m["decision"]]


def table_rows(text):
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("Experiment families"))
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows, text


def main():
    report = json.load(open(sys.argv[1], encoding="utf-8"))
    rows, text = table_rows(open(sys.argv[2], encoding="utf-8").read())
    page = FamilyTable()
    page.feed(open(sys.argv[3], encoding="utf-8").read())
    html_rows = page.rows[1:]
    failures, lines = [], []
    want = [expected_row(f, m) for f in report["families"] for m in f["metrics"]]
    if rows != want:
        failures.append(f"terminal table {rows} != JSON {want}")
    if html_rows != want:
        failures.append(f"HTML table {html_rows} != JSON {want}")
    runs = sum(len(m["runs"]) for f in report["families"] for m in f["metrics"])
    if page.circles != runs:
        failures.append(f"the charts draw {page.circles} points for {runs} runs")
    for f in report["families"]:
        primary = f["metrics"][0] if f["metrics"] else None
        if primary:
            note = f"family {f['family']}: {primary['reason']}"
            if note not in text.splitlines():
                failures.append(f"terminal notes lack {note!r}")
            if note not in page.items:
                failures.append(f"page's decision list lacks {note!r}")
            last = primary["last_improvement"]
            ratio = primary["cost_per_gain_ratio"]
            figures = [g4(last["gain"]), f2(last["cost"]), f2(last["cost_per_gain"])] if last else []
            figures += [f2(ratio) + "x"] if ratio is not None else []
            if primary["decision"] == "stop":
                figures = [str(primary["runs_since_frontier"]), f2(primary["cost_since_frontier"])]
            lines.append(" ".join(["decision", f["family"], primary["metric"], primary["decision"], primary["basis"]] + figures))
            lines.append(f"reason {f['family']}: {primary['reason']}")
        if f["utilization"] is not None:
            lines.append(f"utilization {f['family']} {'low' if f['utilization_low'] else 'ok'} {f2(f['utilization'])} "
                         + ",".join(c["cause"] for c in f["idle"]))
        for key, name in (("cost_per_million_samples", "samples"), ("cost_per_thousand_requests", "requests"),
                          ("cost_per_million_tokens", "tokens")):
            if f[key] is not None:
                lines.append(f"units {f['family']} {name} {f[key]:.4f}")
    for l in lines:
        print(l)
    for x in failures:
        print("FAIL:", x)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
