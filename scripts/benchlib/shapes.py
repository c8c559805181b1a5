"""The filter shapes an SDK sends, each as a sorted page of 20 with its total, on a field with an
index and on the same values in a field without one: the `shape_*` scenarios.

A shape is written once, as a condition over one object; each side renders it in its own API
(ours: query parameters and `X-StackMob-OrderBy`, PocketBase: a `filter=` expression and `sort=`),
and the expected total is counted here, from the seed, so that a side that answers fast but
wrong fails the run instead of winning it.

The `shapes` data set: object i of N has
  level, grade   i % 100, the same values: `level` has an index, `grade` none
  tag, label     absent on every tenth object (i % 10 == 0), else "t<i % 7>": `tag` indexed
"""
import dataclasses
import random

# Fields by role: (indexed, unindexed). The index on each indexed field is the only one asked for,
# on both sides.
NUMBER_FIELDS = ("level", "grade")
TEXT_FIELDS = ("tag", "label")
INDEXED = ("level", "tag")

# Query variants a wrk run draws from: enough that no side answers one cached page.
VARIANTS = 100


def shape_object(i):
    """Object i of the shapes data set (without its key), as both sides store it."""
    item = {"level": i % 100, "grade": i % 100}
    if i % 10:
        item["tag"] = item["label"] = f"t{i % 7}"
    return item


@dataclasses.dataclass(frozen=True)
class Condition:
    """One filter: `op` is eq, gt, lte, in, or (two ranges: below `value[0]` or above `value[1]`)
    or null; `value` its operand."""
    op: str
    field: str
    value: object = None

    def matches(self, item):
        value = item.get(self.field)
        if self.op == "null":
            return value is None
        if value is None:
            return False
        if self.op == "eq":
            return value == self.value
        if self.op == "gt":
            return value > self.value
        if self.op == "lte":
            return value <= self.value
        if self.op == "in":
            return value in self.value
        if self.op == "or":
            return value < self.value[0] or value > self.value[1]
        raise ValueError(self.op)

    def stackmob_query(self):
        """The query string of `GET /shapes?…` (docs/guide.md, "Queries")."""
        f = self.field
        if self.op == "eq":
            return f"{f}={self.value}"
        if self.op in ("gt", "lte"):
            return f"{f}[{self.op}]={self.value}"
        if self.op == "in":
            return f"{f}[in]=" + ",".join(str(v) for v in self.value)
        if self.op == "or":
            return f"[or1].{f}[lt]={self.value[0]}&[or1].{f}[gt]={self.value[1]}"
        if self.op == "null":
            return f"{f}[null]=true"
        raise ValueError(self.op)

    def pocketbase_filter(self):
        """PocketBase's `filter=` expression for the same condition. PocketBase has no `in`: its
        equivalent is a group of `||`. A missing text field is stored as '' there, which its
        `= null` matches."""
        f = self.field
        if self.op == "eq":
            return f"{f}={self.value}"
        if self.op == "gt":
            return f"{f}>{self.value}"
        if self.op == "lte":
            return f"{f}<={self.value}"
        if self.op == "in":
            return "(" + "||".join(f"{f}={v}" for v in self.value) + ")"
        if self.op == "or":
            return f"({f}<{self.value[0]}||{f}>{self.value[1]})"
        if self.op == "null":
            return f"{f}=null"
        raise ValueError(self.op)


@dataclasses.dataclass(frozen=True)
class Shape:
    """A scenario: its conditions (one per variant), the field the page is sorted by, descending,
    and a label for the table."""
    label: str
    sort: str
    conditions: tuple


def variants(op, field, rng):
    """VARIANTS conditions of one shape. The ranges and `[in]` cover about half the table, the
    equality one value in a hundred, `[null]` a tenth (one variant: it has no operand)."""
    if op == "eq":
        return tuple(Condition("eq", field, v) for v in range(VARIANTS))
    if op in ("gt", "lte"):
        return tuple(Condition(op, field, rng.randint(40, 59)) for _ in range(VARIANTS))
    if op == "in":
        return tuple(Condition("in", field, tuple(sorted(rng.sample(range(100), 50)))) for _ in range(VARIANTS))
    if op == "or":
        return tuple(Condition("or", field, (rng.randint(15, 35), rng.randint(65, 85))) for _ in range(VARIANTS))
    if op == "null":
        return (Condition("null", field),)
    raise ValueError(op)


LABELS = {"eq": "field=<v>", "gt": "field[gt]=<v>", "lte": "field[lte]=<v>", "in": "field[in]=<50 values>",
          "or": "[or1].field[lt]=<a>&[or1].field[gt]=<b>", "null": "field[null]=true"}


def shapes():
    """Every shape scenario by name: `shape_<op>` on the indexed field, `shape_<op>_noindex` on
    the other; the same seed always gives the same variants."""
    rng = random.Random(52)
    table = {}
    for op in LABELS:
        numbers = op != "null"
        indexed, unindexed = NUMBER_FIELDS if numbers else TEXT_FIELDS
        for name, field in ((f"shape_{op}", indexed), (f"shape_{op}_noindex", unindexed)):
            where = "indexed" if field in INDEXED else "no index"
            label = LABELS[op].replace("field", field) + f" ({where}), sorted by {field} desc, 20 with the total"
            table[name] = Shape(label, field, variants(op, field, rng))
    return table


SHAPES = shapes()


def expected_total(condition, count):
    """How many of the N seeded objects the condition matches."""
    return sum(1 for i in range(1, count + 1) if condition.matches(shape_object(i)))


def lua(paths):
    """Lua for GET requests drawn at random from `paths` (with the side's headers and those the
    plan sets on wrk.headers before it)."""
    listed = ",\n  ".join(f'"{path}"' for path in paths)
    return f"""
local paths = {{
  {listed}
}}
local requests = {{}}
function prepare()
  for k, path in ipairs(paths) do requests[k] = wrk.format("GET", path) end
end
function request() return requests[math.random(1, #requests)] end
"""
