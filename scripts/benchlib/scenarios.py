"""The scenarios every side is asked for, in the order they run, and the data each needs."""
import dataclasses

# name: the data sets it reads (seeded only when a chosen scenario needs them)
SCENARIOS = {
    "head": (),
    "get_one": ("bench",),
    "create": (),
    "update": ("bench",),
    "page": ("catalog",),
    "count": ("catalog",),
    "near": ("catalog",),
    "within": ("catalog",),
    "expand": ("articles",),
    "upsert": (),
    "unowned": ("memos",),
    "owned": ("memos",),
}

# The ratios issue 19 sets targets for, read against the peer's figure of the same scenario.
PEER_SCENARIOS = ("head", "get_one", "create", "update", "page", "expand", "owned")


class SeedError(Exception):
    """A side could not be seeded, or a probe got the wrong answer: its figures would mean nothing."""


@dataclasses.dataclass(frozen=True)
class Plan:
    """One scenario on one side: the label in the table and the scenario's own Lua."""
    label: str
    lua: str


def datasets(names):
    """The data sets the scenarios `names` need."""
    return {dataset for name in names for dataset in SCENARIOS[name]}


def choose(requested):
    """The scenarios to run, in SCENARIOS order; ValueError for an unknown name."""
    if not requested:
        return list(SCENARIOS)
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
