"""This server as a benchmark side: one instance straight on its port, or N instances behind
HAProxy, on SQLite or PostgreSQL, seeded through its own API (and `import` for data the API
cannot write, such as other users' objects)."""
import base64
import hashlib
import hmac
import json
import os
import sqlite3
import subprocess
import sys
import time

from . import haproxy, shapes
from .scenarios import Plan, SeedError, catalog_object, lua_by_id, lua_random_paths

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import ACCEPT, Api, Server, free_port  # noqa: E402

PUBLIC_KEY = "b0b0b0b0-0000-4000-8000-000000000001"
PRIVATE_KEY = "b0b0b0b0-0000-4000-8000-00000000000f"
# Read permission `owner` on memo (PROTOCOL §12); memo_open holds the same rows and is open.
PERMISSIONS = {"memo": {"read": "owner"}}
INDEXES = {"catalog": [["category", "price"]], "shapes": [[field] for field in shapes.INDEXED]}
MEMO_PASSWORD = "bench-password"


def object_id(i):
    return f"obj{i:05d}"


def mac_authorization(token, mac_key, method, path, host, port, ts, nonce):
    """The Authorization header the iOS and JS SDKs send (PROTOCOL §3.2)."""
    message = f"{ts}\n{nonce}\n{method}\n{path}\n{host}\n{port}\n\n"
    mac = base64.b64encode(hmac.new(mac_key.encode(), message.encode(), hashlib.sha1).digest()).decode()
    return f'MAC id="{token}",ts="{ts}",nonce="{nonce}",mac="{mac}"'


class StackMobSide:
    """`engine` is sqlite or postgresql; `instances` None means one instance reached directly,
    a number means that many behind HAProxy."""

    kind = "stackmob"
    id_format = "obj%05d"

    def __init__(self, label, binary, engine, instances, postgresql_url, sizes, signed, extra_settings=None, launcher=()):
        self.label = label
        self.binary = binary
        self.engine = engine
        self.instances = instances
        self.postgresql_url = postgresql_url
        self.sizes = sizes
        self.signed = signed
        self.extra_settings = extra_settings or {}
        self.launcher = launcher
        self.servers = []
        self.balancer = None
        self.port = None
        self.memo_login = None
        self.seeded = []

    # -- start and stop ------------------------------------------------------------------------

    def settings(self, prefix):
        settings = {
            "STACKMOB_LOG_LEVEL": "info",  # the default: measure the server as shipped
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PERMISSIONS": json.dumps(PERMISSIONS),
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__INDEXES": json.dumps(INDEXES),
        }
        if self.engine == "postgresql":
            settings.update({
                "STACKMOB_STORAGE__ENGINE": "postgresql",
                "STACKMOB_STORAGE__POSTGRESQL__URL": self.postgresql_url,
                "STACKMOB_STORAGE__POSTGRESQL__SCHEMA_PREFIX": prefix,
            })
        return {**settings, **self.extra_settings}

    def start(self, work_dir, datasets):
        prefix = "bench" + os.urandom(4).hex()
        count = self.instances or 1
        for index in range(count):
            directory = os.path.join(work_dir, f"instance{index}")
            os.makedirs(directory)
            settings = {**self.settings(prefix), "STACKMOB_PUSH__PORT": str(free_port())}
            self.servers.append(Server(self.binary, directory, PUBLIC_KEY, PRIVATE_KEY, settings, launcher=self.launcher))
        if "memos" in datasets:
            self.import_memos(work_dir)
        for server in self.servers:
            server.start(timeout=600 if self.launcher else 120)
        if self.instances is None:
            self.port = self.servers[0].port
        else:
            self.balancer = haproxy.Balancer(work_dir, [server.port for server in self.servers])
            self.balancer.start()
            self.port = self.balancer.port
        self.api = Api(self.port, PUBLIC_KEY)
        self.seed(datasets)

    def stop(self):
        if self.balancer:
            self.balancer.stop()
        for server in self.servers:
            server.stop()

    def describe(self):
        where = "direct" if self.instances is None else f"{self.instances} behind HAProxy"
        return f"{self.label}: stackmob-server {self.binary} on {self.engine}, {where}"

    def resident_kib(self, field="VmRSS"):
        return sum(server.resident_kib(field) for server in self.servers)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def headers(self):
        return {"Accept": ACCEPT, "X-StackMob-API-Key": PUBLIC_KEY}

    # -- seeding -------------------------------------------------------------------------------

    def call(self, method, path, body=None, headers=None, expect=(200, 201)):
        status, answer = self.api.request_reconnecting(method, path, body, headers)
        if status not in expect:
            raise SeedError(f"{self.label}: {method} {path} answered {status}: {str(answer)[:300]}")
        return answer

    def seed(self, datasets):
        if "bench" in datasets:
            self.seed_bench()
        if "catalog" in datasets:
            self.seed_catalog()
        if "articles" in datasets:
            self.seed_articles()
        if "memos" in datasets:
            self.log_in_memo_user()
        if "shapes" in datasets:
            self.seed_shapes()
        if self.engine == "postgresql":
            self.settle_postgresql()

    def settle_postgresql(self):
        """VACUUM (ANALYZE) once the data is in. Autovacuum does the same within minutes of a
        bulk load (its insert threshold), which would land in the middle of the runs: before it
        the planner has no statistics and counts read every row from the heap, after it they
        read the index alone (a visibility map). Every round measures the settled state."""
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", self.postgresql_url, "-c", "VACUUM (ANALYZE)"], check=True)

    def bulk(self, schema, objects):
        answer = self.call("POST", f"/{schema}", objects, expect=(200,))
        if answer.get("failed"):
            raise SeedError(f"{self.label}: bulk POST /{schema} had failures: {str(answer['failed'])[:300]}")

    def seed_bench(self):
        count = self.sizes["objects"]
        for first in range(1, count + 1, 100):
            self.bulk("bench", [{"bench_id": object_id(i), "name": f"seed {i}", "n": i}
                                for i in range(first, min(first + 100, count + 1))])
        self.call("GET", f"/bench/{object_id(count)}", expect=(200,))
        self.seeded.append(f"{count} in bench")

    def seed_catalog(self):
        """catalog c000001…: category i % 100 (indexed with price), a geopoint spread over
        latitudes -60…60 and all longitudes; bulk POSTs of 500, timed."""
        count, batch = self.sizes["catalog"], 500
        started = time.monotonic()
        for first in range(1, count + 1, batch):
            self.bulk("catalog", [catalog_object(i) for i in range(first, min(first + batch, count + 1))])
        seconds = time.monotonic() - started
        status, _ = self.api.request_reconnecting("GET", "/catalog", headers={"Range": "objects=0-0"})
        total = self.api.last_headers.get("content-range")
        self.seeded.append(f"{count} in catalog ({count / seconds:.0f} objects/s by bulk POST)")
        print(f"[bench] {self.label}: seeded {count} catalog objects in {seconds:.1f} s ({count / seconds:.0f}/s)", file=sys.stderr)
        if status != 206 or total != f"objects 0-0/{count}":
            raise SeedError(f"{self.label}: counting catalog answered {status} with Content-Range {total!r}")
        self.check_plans()

    def seed_shapes(self):
        """shapes s000001…: the fields of `shapes.shape_object`, by bulk POSTs of 500."""
        count, batch = self.sizes["shapes"], 500
        for first in range(1, count + 1, batch):
            self.bulk("shapes", [{"shapes_id": f"s{i:06d}", **shapes.shape_object(i)}
                                 for i in range(first, min(first + batch, count + 1))])
        self.seeded.append(f"{count} in shapes")

    def seed_articles(self):
        """persons p01…p50; tags t01…t50, tag tNN owned by pNN; articles a001…a200 with an author
        and 5 tags each, through POSTs with X-StackMob-Relations."""
        self.bulk("person", [{"person_id": f"p{i:02d}", "name": f"person {i}"} for i in range(1, 51)])
        for i in range(1, 51):
            self.call("POST", "/tag", {"tag_id": f"t{i:02d}", "label": f"tag {i}", "owner": f"p{i:02d}"},
                      headers={"X-StackMob-Relations": "owner=person"}, expect=(201,))
        for i in range(1, 201):
            article = {"article_id": f"a{i:03d}", "title": f"article {i}", "author": f"p{(i % 50) + 1:02d}",
                       "tags": [f"t{((i + k * 7) % 50) + 1:02d}" for k in range(5)]}
            self.call("POST", "/article", article, headers={"X-StackMob-Relations": "author=person&tags=tag"}, expect=(201,))
        self.seeded.append("200 articles with 5 tags each and 50 tag owners")

    def import_memos(self, work_dir):
        """memo and memo_open, owned round-robin by 1,000 users, written by `import` (the API
        sets sm_owner only from the caller) before the server starts."""
        count = self.sizes["memos"]
        dump = os.path.join(work_dir, "memo-import")
        os.makedirs(os.path.join(dump, "objects"))
        schemas = {"memo": {"fields": {"title": "string"}, "primary_key": "memo_id"},
                   "memo_open": {"fields": {"title": "string"}, "primary_key": "memo_open_id"}}
        with open(os.path.join(dump, "schemas.json"), "w") as f:
            json.dump({"schemas": schemas}, f)
        for schema in schemas:
            with open(os.path.join(dump, "objects", f"{schema}.jsonl"), "w") as f:
                for i in range(1, count + 1):
                    f.write(json.dumps({f"{schema}_id": f"m{i:07d}", "createddate": 1700000000000 + i,
                                        "lastmoddate": 1700000000000 + i, "sm_owner": f"user/u{i % 1000:04d}",
                                        "title": f"memo {i}"}) + "\n")
        with open(os.path.join(dump, "manifest.json"), "w") as f:
            json.dump({"format": "stackmob-export", "version": 1, "environment": "development", "exported_at": 0,
                       "files": False, "objects": {schema: count for schema in schemas}, "push_tokens": 0}, f)
        open(os.path.join(dump, "push_tokens.jsonl"), "w").close()
        server = self.servers[0]
        started = time.monotonic()
        completed = subprocess.run([self.binary, "import", "--env", "development", "--from", dump,
                                    "--data-dir", os.path.join(server.data_dir, "data")],
                                   env=server.env, capture_output=True, text=True)
        if completed.returncode != 0:
            raise SeedError(f"{self.label}: import of the memos failed: {completed.stderr.strip()[-500:]}")
        print(f"[bench] {self.label}: imported 2 x {count} memos in {time.monotonic() - started:.1f} s", file=sys.stderr)
        self.seeded.append(f"{count} in memo and in memo_open (1000 owners)")

    def log_in_memo_user(self):
        self.call("POST", "/user", {"username": "u0001", "password": MEMO_PASSWORD}, expect=(201,))
        status, answer = self.api.request_reconnecting(
            "POST", "/user/accessToken", headers={"Content-Type": "application/x-www-form-urlencoded"},
            raw=f"username=u0001&password={MEMO_PASSWORD}&token_type=mac&mac_algorithm=hmac-sha-1".encode())
        if status != 200:
            raise SeedError(f"{self.label}: login answered {status}: {answer}")
        self.memo_login = (answer["access_token"], answer["mac_key"])

    def check_plans(self):
        """SQLite's plan for the page query must use the configured index (PostgreSQL's plans are
        checked by its engine tests)."""
        if self.engine != "sqlite":
            return
        database = os.path.join(self.servers[0].data_dir, "data", "development.sqlite")
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
            plan = " ".join(row[-1] for row in connection.execute(
                'EXPLAIN QUERY PLAN SELECT * FROM "catalog" WHERE "category" = 7 '
                'ORDER BY "price" ASC, "catalog_id" ASC LIMIT 20 OFFSET 0'))
        if "INDEX" not in plan:
            raise SeedError(f"{self.label}: the page query does not use an index: {plan}")

    # -- scenarios -----------------------------------------------------------------------------

    def plan(self, name, work_dir):
        """The Plan of one scenario on this side after one probe request, or None when this
        side has no such request."""
        if name in shapes.SHAPES:
            return self.plan_shape(shapes.SHAPES[name])
        return getattr(self, f"plan_{name}")(work_dir)

    def probe(self, method, path, body=None, headers=None, expect=(200, 201, 206)):
        status, answer = self.api.request_reconnecting(method, path, body, headers)
        if status not in expect:
            raise SeedError(f"{self.label}: probe {method} {path} answered {status}: {str(answer)[:300]}")
        return answer

    def plan_head(self, work_dir):
        self.probe("HEAD", "/")
        return Plan("HEAD /", 'wrk.method = "HEAD"\nwrk.path = "/"\n')

    def plan_get_one(self, work_dir):
        self.probe("GET", f"/bench/{object_id(1)}")
        return Plan("GET /bench/<id>", lua_by_id("GET", "/bench/"))

    def plan_create(self, work_dir):
        self.probe("POST", "/bench", {"name": "x", "n": 1})
        return Plan("POST /bench", """
wrk.method = "POST"
wrk.path = "/bench"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"name":"x","n":1}'
""")

    def plan_update(self, work_dir):
        self.probe("PUT", f"/bench/{object_id(1)}", {"n": 2})
        return Plan("PUT /bench/<id>", lua_by_id("PUT", "/bench/", '{"n":2}'))

    def category_plan(self, label, range_header, expected):
        headers = {"X-StackMob-OrderBy": "price:asc", "Range": range_header}
        page = self.probe("GET", "/catalog?category=7", headers=headers)
        if len(page) != min(expected, self.sizes["catalog"] // 100) or any(item["category"] != 7 for item in page):
            raise SeedError(f"{self.label}: the page of category 7 is wrong: {str(page)[:300]}")
        if [item["price"] for item in page] != sorted(item["price"] for item in page):
            raise SeedError(f"{self.label}: the page is not sorted by price")
        return Plan(label, f"""
wrk.headers["X-StackMob-OrderBy"] = "price:asc"
wrk.headers["Range"] = "{range_header}"
local requests_by_category = {{}}
function prepare()
  for c = 0, 99 do requests_by_category[c] = wrk.format("GET", "/catalog?category=" .. c) end
end
function request() return requests_by_category[math.random(0, 99)] end
""")

    def plan_shape(self, shape):
        """One of the filter shapes: every variant's page, sorted, with its total; the first
        three checked against the seed."""
        order = f"{shape.sort}:desc"
        headers = {"X-StackMob-OrderBy": order, "Range": "objects=0-19"}
        for condition in shape.conditions[:3]:
            path = f"/shapes?{condition.stackmob_query()}"
            page = self.probe("GET", path, headers=headers)
            total = shapes.expected_total(condition, self.sizes["shapes"])
            range_header = self.api.last_headers.get("content-range")
            if range_header != f"objects 0-{min(total, 20) - 1}/{total}":
                raise SeedError(f"{self.label}: {path} answered Content-Range {range_header!r}, expected a total of {total}")
            if not all(condition.matches(item) for item in page):
                raise SeedError(f"{self.label}: {path} listed an object the filter excludes: {str(page)[:300]}")
            values = [item.get(shape.sort) for item in page]
            if any(value is not None for value in values) and values != sorted(values, reverse=True):
                raise SeedError(f"{self.label}: {path} is not sorted by {order}: {values}")
        return Plan(f"GET /shapes?{shape.label}", f"""
wrk.headers["X-StackMob-OrderBy"] = "{order}"
wrk.headers["Range"] = "objects=0-19"
""" + shapes.lua(f"/shapes?{condition.stackmob_query()}" for condition in shape.conditions))

    def plan_page(self, work_dir):
        return self.category_plan("GET /catalog?category=<c> OrderBy price:asc, Range 0-19 (with total)", "objects=0-19", 20)

    def plan_newest(self, work_dir):
        """The default order: one of the first 50 pages of the whole catalog, newest first, with
        the total. The catalog is created by bulk POSTs of 500, which share a createddate."""
        page = self.probe("GET", "/catalog", headers={"Range": "objects=20-39"})
        dates = [(-item["createddate"], item["catalog_id"]) for item in page]
        if len(page) != 20 or dates != sorted(dates):
            raise SeedError(f"{self.label}: the second page of catalog is not newest first, ties by id: {str(page)[:300]}")
        return Plan("GET /catalog, Range <one of the first 50 pages> (with total)", """
local requests_by_page = {}
function prepare()
  for p = 0, 49 do
    local headers = { ["Range"] = "objects=" .. (p * 20) .. "-" .. (p * 20 + 19) }
    for name, value in pairs(wrk.headers) do headers[name] = value end
    requests_by_page[p] = wrk.format("GET", "/catalog", headers)
  end
end
function request() return requests_by_page[math.random(0, 49)] end
""")

    def plan_count(self, work_dir):
        return self.category_plan("GET /catalog?category=<c> OrderBy price:asc, Range 0-0", "objects=0-0", 1)

    def plan_near(self, work_dir):
        page = self.probe("GET", "/catalog?loc[near]=-59.63,-179.27,0.01", headers={"Range": "objects=0-19"})
        if not page or page[0]["catalog_id"] != "c000001":
            raise SeedError(f"{self.label}: c000001 is not the first result at its own location")
        return Plan("GET /catalog?loc[near]=<lat>,<lon>,0.01, Range 0-19",
                    lua_random_paths("/catalog?loc[near]=%.4f,%.4f,0.01", 120, 360, "lat, lon"))


    def plan_within(self, work_dir):
        page = self.probe("GET", "/catalog?loc[within]=-60,-179.5,-58,-177.5", headers={"Range": "objects=0-19"})
        if "c000001" not in [item["catalog_id"] for item in page] and len(page) < 20:
            raise SeedError(f"{self.label}: c000001 is missing from a box that contains it")
        return Plan("GET /catalog?loc[within]=<2x2 box>, Range 0-19",
                    lua_random_paths("/catalog?loc[within]=%.4f,%.4f,%.4f,%.4f", 118, 358, "lat - 1, lon - 1, lat + 1, lon + 1"))


    def plan_expand(self, work_dir):
        page = self.probe("GET", "/article", headers={"X-StackMob-Expand": "2", "Range": "objects=0-19"})
        if len(page) != 20 or not isinstance(page[0]["tags"][0].get("owner"), dict):
            raise SeedError(f"{self.label}: expected 20 articles with tag owners expanded: {str(page)[:300]}")
        return Plan("GET /article Expand 2, Range 0-19", """
wrk.path = "/article"
wrk.headers["X-StackMob-Expand"] = "2"
wrk.headers["Range"] = "objects=0-19"
""")

    def plan_upsert(self, work_dir):
        self.probe("POST", "/post", {"title": "x", "author": {"name": "n"}}, headers={"X-StackMob-Relations": "author=person"})
        return Plan("POST /post Relations author=person (nested)", """
wrk.method = "POST"
wrk.path = "/post"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-StackMob-Relations"] = "author=person"
wrk.body = '{"title":"x","author":{"name":"n"}}'
""")

    def memo_plan(self, name, schema, total, level, work_dir):
        """GET /SCHEMA, Range 0-19, newest first, signed by u0001: every request needs a
        signature of its own (a nonce may not be replayed), so they are written to a file
        first and each wrk thread takes every n-th."""
        token, key = self.memo_login
        ts = int(time.time())
        run = os.urandom(3).hex()
        headers = [mac_authorization(token, key, "GET", f"/{schema}", "127.0.0.1", self.port, ts, f"{run}n{i}")
                   for i in range(self.signed + 1)]
        status, page = self.api.request_reconnecting("GET", f"/{schema}", headers={"Authorization": headers[0], "Range": "objects=0-19"})
        if status not in (200, 206) or len(page) != 20:
            raise SeedError(f"{self.label}: {name} probe answered {status} with {str(page)[:200]}")
        if schema == "memo" and any(item.get("sm_owner") != "user/u0001" for item in page):
            raise SeedError(f"{self.label}: an object of another owner was listed")
        signatures = os.path.join(work_dir, f"{name}-{run}.sig")
        with open(signatures, "w") as f:
            f.write("\n".join(headers[1:]) + "\n")
        return Plan(f"GET /{schema} as a user ({level}), Range 0-19", f"""
wrk.headers["Range"] = "objects=0-19"
local requests = {{}}
local sent = 0
function prepare()
  local n = 0
  for line in io.lines("{signatures}") do
    n = n + 1
    if (n % threads) == (thread_index - 1) then
      local headers = {{ ["Authorization"] = line }}
      for name, value in pairs(wrk.headers) do headers[name] = value end
      requests[#requests + 1] = wrk.format("GET", "/{schema}", headers)
    end
  end
end
function request()
  sent = sent + 1
  -- Past the prepared signatures the last one is replayed: 401, and the run fails (raise --signed).
  return requests[math.min(sent, #requests)]
end
""")

    def plan_unowned(self, work_dir):
        return self.memo_plan("unowned", "memo_open", self.sizes["memos"], "open", work_dir)

    def plan_owned(self, work_dir):
        return self.memo_plan("owned", "memo", self.sizes["memos"] // 1000, "read: owner", work_dir)

