"""The table a run prints: each side's median requests/s and p99 per scenario, its ratio to its
own trivial route, and every side's ratio to the first side."""
import statistics


def median(values):
    return statistics.median(values) if values else None


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "n/a"


def table(scenarios, sides, results, labels):
    """Markdown lines. `results[(scenario, side)]` is the list of Results of its rounds (absent:
    the side has no such request); `labels[scenario]` the request as the first side sends it."""
    names = [side.label for side in sides]
    header = ["scenario", "request"]
    for name in names:
        header += [f"{name} req/s", f"{name} p99 ms", f"{name} ÷ head"]
    header += [f"{name} ÷ {names[0]}" for name in names[1:]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    head = {name: median([r.rps for r in results.get(("head", name), [])]) for name in names}
    for scenario in scenarios:
        row = [scenario, labels.get(scenario, "")]
        rps = {}
        for name in names:
            runs = results.get((scenario, name))
            if not runs:
                row += ["—", "—", "—"]
                continue
            rps[name] = median([r.rps for r in runs])
            row += [f"{rps[name]:,.0f}", f"{median([r.p99_ms for r in runs]):.2f}", ratio(rps[name], head[name])]
        row += [ratio(rps.get(name), rps.get(names[0])) for name in names[1:]]
        lines.append("| " + " | ".join(row) + " |")
    return lines
