"""The scenarios every side is asked for, in the order they run, and the data each needs."""
import dataclasses

from .shapes import SHAPES

# name: the data sets it reads (seeded only when a chosen scenario needs them)
SCENARIOS = {
    "head": (),
    "get_one": ("bench",),
    "create": (),
    "update": ("bench",),
    "page": ("catalog",),
    "newest": ("catalog",),
    "count": ("catalog",),
    "near": ("catalog",),
    "within": ("catalog",),
    "expand": ("articles",),
    "upsert": (),
    "unowned": ("memos",),
    "owned": ("memos",),
    # The filter shapes an SDK sends (benchlib/shapes.py): a sorted page of 20 with its total.
    **{name: ("shapes",) for name in SHAPES},
}

# Names that stand for several scenarios in --scenarios.
GROUPS = {"shapes": tuple(SHAPES)}

# The ratios docs/benchmarks.md ("Where the targets stand") sets targets for, read against the
# peer's figure of the same scenario.
PEER_SCENARIOS = ("head", "get_one", "create", "update", "page", "expand", "owned")


class SeedError(Exception):
    """A side could not be seeded, or a probe got the wrong answer: its figures would mean nothing."""


@dataclasses.dataclass(frozen=True)
class Plan:
    """One scenario on one side: the label in the table and the scenario's own Lua."""
    label: str
    lua: str


def lua_by_id(method, prefix, body=None):
    """Lua for one request a random seeded object: METHOD prefix .. object_id(i) [body]."""
    body_lua = f", nil, '{body}'" if body else ""
    content_type = 'wrk.headers["Content-Type"] = "application/json"\n' if body else ""
    return f"""{content_type}
local requests_by_id = {{}}
function prepare()
  for i = 1, objects do requests_by_id[i] = wrk.format("{method}", "{prefix}" .. object_id(i){body_lua}) end
end
function request() return requests_by_id[math.random(1, objects)] end
"""


def lua_random_paths(path_format, lat_span, lon_span, arguments):
    """Lua for GET requests of 1,000 paths made from random points: `path_format` is a Lua
    string.format pattern, `arguments` its Lua arguments over `lat` and `lon`, drawn within
    ±lat_span/2 and ±lon_span/2 degrees."""
    return f"""
wrk.headers["Range"] = "objects=0-19"
local paths = {{}}
function prepare()
  for k = 1, 1000 do
    local lat = math.random() * {lat_span} - {lat_span / 2:g}
    local lon = math.random() * {lon_span} - {lon_span / 2:g}
    paths[k] = wrk.format("GET", string.format("{path_format}", {arguments}))
  end
end
function request() return paths[math.random(1, #paths)] end
"""


def datasets(names):
    """The data sets the scenarios `names` need."""
    return {dataset for name in names for dataset in SCENARIOS[name]}


def choose(requested):
    """The scenarios to run, in SCENARIOS order; ValueError for an unknown name."""
    if not requested:
        return list(SCENARIOS)
    requested = [name for item in requested for name in GROUPS.get(item, (item,))]
    unknown = [name for name in requested if name not in SCENARIOS]
    if unknown:
        raise ValueError(f"unknown scenario {', '.join(unknown)} (known: {', '.join(SCENARIOS)})")
    return [name for name in SCENARIOS if name in requested]


def catalog_object(i):
    """catalog object i of the seed, the same on every side: category i % 100, a price and a
    geopoint spread deterministically over latitudes -60…60 and all longitudes."""
    return {"catalog_id": f"c{i:06d}", "category": i % 100, "price": round(((i * 7919) % 100000) / 100 + 0.5, 2),
            "name": f"item {i}", "loc": {"lat": round(((i * 37) % 12000) / 100 - 60, 2),
                                          "lon": round(((i * 73) % 36000) / 100 - 180, 2)}}
