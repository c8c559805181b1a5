#!/usr/bin/env python3
"""Browser tests of the web console (docs/operations.md, "Web console") in a real headless
Chromium, driven by Selenium.

Starts the built binary on a temporary data directory (scripts/harness.py), adds an operator with
`stackmob-server admin add`, and walks the console as an operator would: sign in, add a schema and
a field, create and edit an object and read it back through the StackMob API, filter, order and
page a 1,000-object schema, send a push to a user and see it delivered (webhook sender, caught by
a local HTTP server here), deploy development's schemas to production, and store a `<script>`
value that must show as text without running; an HTML file an app user uploaded, opened from the
console, must not act with the operator's session. Screenshots go to docs/console/ (--screenshots).

Needs Debian's `chromium` and `chromium-driver` and `pip install selenium`.

Usage:
  scripts/console_browser_test.py [--binary .build/debug/stackmob-server] [--screenshots docs/console]
"""
import argparse
import base64
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from harness import Api, Server, free_port

PUBLIC_KEY = "c0c0c0c0-0000-4000-8000-000000000001"
PRIVATE_KEY = "c0c0c0c0-0000-4000-8000-00000000000f"
OPERATOR, PASSWORD = "ops", "a-long-operator-password"
PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
CONSOLE = "/_admin/console"


class PushCatcher(http.server.BaseHTTPRequestHandler):
    """The push webhook: records every delivery the server POSTs."""
    deliveries = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        PushCatcher.deliveries.append(json.loads(body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


class ConsoleTest:
    def __init__(self, binary, screenshots):
        self.binary = binary
        self.screenshots = screenshots
        self.data_dir = tempfile.mkdtemp(prefix="console-browser-")
        self.push_port = free_port()
        self.catcher = http.server.ThreadingHTTPServer(("127.0.0.1", 0), PushCatcher)
        threading.Thread(target=self.catcher.serve_forever, daemon=True).start()
        self.server = Server(binary, self.data_dir, PUBLIC_KEY, PRIVATE_KEY, settings={
            "STACKMOB_PUSH__PORT": str(self.push_port),
            "STACKMOB_PUSH__DELIVERY__POLL_INTERVAL_MS": "100",
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUSH__SENDERS__ANDROIDGCM": "webhook",
            "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUSH__WEBHOOK_URL": f"http://127.0.0.1:{self.catcher.server_address[1]}/push",
            "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000",
            # Names no configuration key: start-up warns, and the overview lists the warning.
            "STACKMOB_NO_SUCH__SETTING": "1",
        })
        self.driver = None

    # Set-up and helpers

    def start(self):
        subprocess.run([self.binary, "admin", "add", OPERATOR, "--data-dir", os.path.join(self.data_dir, "data")],
                       input=(PASSWORD + "\n").encode(), check=True, capture_output=True)
        self.server.start()
        self.api = Api(self.server.port, PUBLIC_KEY)
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900", "--disable-gpu"]:
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.driver.implicitly_wait(5)

    def stop(self):
        if self.driver:
            self.driver.quit()
        self.server.stop()
        self.catcher.shutdown()

    def url(self, path):
        return f"http://127.0.0.1:{self.server.port}{CONSOLE}{path}"

    def open(self, path):
        self.driver.get(self.url(path))
        self.wait_loaded()
        self.expect_labelled()

    def expect_labelled(self):
        """Every visible form control has a label (or the button its text): screen readers name them."""
        unlabelled = self.driver.execute_script("""
            return [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
              .filter(c => c.tagName === 'BUTTON' ? !c.textContent.trim() : (c.labels.length === 0 && !c.getAttribute('aria-label')))
              .map(c => c.outerHTML.slice(0, 80));""")
        self.expect(not unlabelled, f"controls without a label on {self.driver.current_url}: {unlabelled}")

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def text(self, selector="main"):
        return self.find(selector).text

    def fill(self, selector, value):
        field = self.find(selector)
        field.clear()
        field.send_keys(value)

    def click(self, selector, confirm=False):
        """Clicks a link or button that loads a new page, and waits for that page: reading the
        old one's banner would race the navigation."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.find(selector).click()
        if confirm:
            WebDriverWait(self.driver, 10).until(EC.alert_is_present()).accept()
        WebDriverWait(self.driver, 30).until(lambda driver: self.is_gone(old))
        self.wait_loaded()

    @staticmethod
    def is_gone(element):
        """Whether the old page's element left the document. Chromedriver may answer a question
        about an element of a page being replaced with "Node with given id does not belong to the
        document" instead of a stale-element error: gone as well."""
        try:
            element.is_enabled()
            return False
        except WebDriverException as error:
            return "stale element" in str(error).lower() or "does not belong to the document" in str(error)

    def wait_loaded(self):
        WebDriverWait(self.driver, 30).until(lambda driver: driver.execute_script("return document.readyState") == "complete")

    def submit(self, form_selector, confirm=False):
        self.click(f"{form_selector} button[type=submit]", confirm)

    def expect(self, condition, message):
        if not condition:
            raise AssertionError(message)

    def expect_no_alert(self):
        try:
            alert = self.driver.switch_to.alert
            text = alert.text
            alert.dismiss()
            raise AssertionError(f"an alert opened: {text!r}")
        except NoAlertPresentException:
            pass

    def find_now(self, selector):
        """Elements that may be absent, on a page already loaded: no implicit wait."""
        self.driver.implicitly_wait(0)
        try:
            return self.driver.find_elements(By.CSS_SELECTOR, selector)
        finally:
            self.driver.implicitly_wait(5)

    def banner(self, selector):
        found = self.find_now(selector)
        return found[0].text if found else ""

    def notice(self):
        return self.banner("main .notice")

    def error(self):
        return self.banner("main .error")

    def shot(self, name):
        if self.screenshots:
            os.makedirs(self.screenshots, exist_ok=True)
            self.driver.save_screenshot(os.path.join(self.screenshots, f"{name}.png"))

    # The tests, in order: each builds on the ones before.

    def test_sign_in(self):
        self.open("/development/overview")
        self.expect(self.driver.current_url.endswith(f"{CONSOLE}/sign-in"), f"not sent to sign-in: {self.driver.current_url}")
        # Keyboard: the first Tab reaches the skip link, which leads to the main content.
        self.find("body").send_keys(Keys.TAB)
        self.expect(self.driver.switch_to.active_element.text == "Skip to content", "the first Tab does not reach the skip link")
        self.fill("#name", OPERATOR)
        self.shot("sign-in")
        self.fill("#password", "wrong password")
        self.submit("main form")
        self.expect("Wrong name or password" in self.error(), f"wrong password not refused: {self.error()!r}")
        self.fill("#password", PASSWORD)
        self.submit("main form")
        self.expect("Overview" in self.text("h1"), f"not on the overview: {self.text('h1')!r}")
        self.expect(PUBLIC_KEY in self.text("#public-key"), "public key not shown")
        self.expect(PRIVATE_KEY not in self.driver.page_source, "private key shown before it was revealed")
        cookies = {cookie["name"]: cookie for cookie in self.driver.get_cookies()}
        session = cookies.get("sm_admin")
        self.expect(session and session["httpOnly"] and session.get("sameSite") == "Strict", f"session cookie flags: {session}")
        self.click("#main form[method=get] button")
        self.expect(PRIVATE_KEY in self.text("#private-key"), "private key not revealed")

    def test_add_schema_and_field(self):
        self.open("/development/schemas")
        self.fill("#new-schema", "todo")
        self.submit("main form.card")
        self.expect("Schema todo added" in self.notice(), f"schema not added: {self.error()!r}")
        self.fill("#field-name", "title")
        Select(self.find("#field-type")).select_by_visible_text("string")
        self.submit("form[action$='/fields']")
        self.fill("#field-name", "place")
        Select(self.find("#field-type")).select_by_visible_text("geopoint")
        self.submit("form[action$='/fields']")
        self.expect("Field place (geopoint) added" in self.notice(), f"field not added: {self.error()!r}")
        fields = self.text("#fields")
        self.expect("title string" in fields and "place geopoint" in fields, f"fields table: {fields!r}")
        self.fill("#rel-name", "assignee")
        Select(self.find("#rel-kind")).select_by_value("one_to_one")
        Select(self.find("#rel-target")).select_by_visible_text("user")
        self.submit("form:has(#rel-name)")
        self.expect("Field assignee (one_to_one:user) added" in self.notice(), f"relationship not added: {self.error()!r}")
        self.expect("assignee → one to one user" in self.text("main"), "relationship not listed")
        self.fill("#perm-delete", "private_key")
        self.submit("form[action$='/permissions']")
        self.expect("Permissions saved" in self.notice(), f"permission not saved: {self.error()!r}")
        self.expect(self.find("#perm-delete").get_attribute("value") == "private_key", "permission not shown")
        self.shot("schema")

    def test_create_and_edit_object(self):
        self.open("/development/data?schema=todo")
        self.click("a.button")
        self.fill("#json", '{"title": "Buy milk", "place": {"lat": 51.5, "lon": -0.12}}')
        self.submit("main form.card")
        self.expect("Object created" in self.notice(), f"not created: {self.error()!r}")
        object_id = self.driver.current_url.split("/data/todo/")[1].split("?")[0]
        status, stored = self.api.request("GET", f"/todo/{object_id}")
        self.expect(status == 200 and stored["title"] == "Buy milk", f"API sees {status} {stored}")
        edited = json.loads(self.find("#json").get_attribute("value"))
        edited["title"] = "Buy oat milk"
        self.fill("#json", json.dumps(edited))
        self.submit("main form.card")
        self.expect("Object saved" in self.notice(), f"not saved: {self.error()!r}")
        status, stored = self.api.request("GET", f"/todo/{object_id}")
        self.expect(status == 200 and stored["title"] == "Buy oat milk", f"API sees {status} {stored}")
        self.open("/development/data?schema=todo")
        table = self.text("#objects")
        self.expect("Buy oat milk" in table and "51.5, -0.12" in table, f"table: {table!r}")

    def test_binary_field(self):
        envelope = f"Content-Type: image/png\nContent-Disposition: attachment; filename=dot.png\nContent-Transfer-Encoding: base64\n\n{PNG_1x1}"
        status, created = self.api.request("POST", "/todo", {"title": "with a photo", "photo": envelope})
        self.expect(status == 201 and created["photo"].endswith("dot.png"), f"upload: {status} {created}")
        self.open("/development/data?schema=todo&f=title&o=&v=with+a+photo")
        link = self.find("#objects a[href$='dot.png']")
        self.expect(link.text == "file", f"binary cell: {link.text!r}")
        self.click(f"#objects a[href$='/{created['todo_id']}']")
        image = self.find("img.preview")
        loaded = self.driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image)
        self.expect(loaded == 1, f"the preview did not load: {loaded}")

    def test_uploaded_page_cannot_act_as_the_operator(self):
        """An app user stores an HTML file whose script, run with the operator's session, would
        read the admin session and write through the admin API. Opened from the console's Data
        page, and directly, it must run nothing: it is an attachment under a sandbox CSP."""
        script = ("fetch('/_admin/session').then(r => r.json()).then(s => { document.title = 'pwned ' + s.csrf_token;"
                  " return fetch('/_admin/environments/development/objects/pwned', {method: 'POST',"
                  " headers: {'X-CSRF-Token': s.csrf_token, 'Content-Type': 'application/json'}, body: '{\"by\": \"script\"}'}); })")
        page = f"<html><head><title>upload</title></head><body><script>{script}</script></body></html>"
        envelope = ("Content-Type: text/html\nContent-Disposition: attachment; filename=page.html\nContent-Transfer-Encoding: base64\n\n"
                    + base64.b64encode(page.encode()).decode())
        status, created = self.api.request("POST", "/todo", {"title": "with a page", "photo": envelope})
        self.expect(status == 201 and created["photo"].endswith("page.html"), f"upload: {status} {created}")
        self.open("/development/data?schema=todo&f=title&o=&v=with+a+page")
        console = self.driver.current_window_handle
        self.find("#objects a[href$='page.html']").click()
        time.sleep(2)
        self.driver.switch_to.window(console)
        self.driver.get(created["photo"])
        time.sleep(2)
        self.expect(not self.driver.title.startswith("pwned"), f"the uploaded page ran as the operator: {self.driver.title!r}")
        status, stored = self.api.request("GET", "/pwned")
        self.expect(status != 200 or stored == [], f"the uploaded page wrote through the admin API: {status} {stored}")

    def test_filter_and_page_1000(self):
        for n in range(1000):
            status, body = self.api.request("POST", "/item", {"n": n, "label": f"item {n:04d}"})
            if status != 201:
                raise AssertionError(f"seeding item {n}: {status} {body}")
        self.open("/development/data?schema=item")
        self.expect(self.text("#totals") == "Objects 1–20 of 1000", f"totals: {self.text('#totals')!r}")
        Select(self.find("#f1")).select_by_visible_text("n")
        Select(self.find("#o1")).select_by_value("gte")
        self.fill("#v1", "500")
        Select(self.find("#f2")).select_by_visible_text("n")
        Select(self.find("#o2")).select_by_value("lt")
        self.fill("#v2", "750")
        Select(self.find("#order")).select_by_visible_text("n")
        Select(self.find("#dir")).select_by_value("asc")
        Select(self.find("#size")).select_by_visible_text("50")
        self.submit("#filters")
        self.expect(self.text("#totals") == "Objects 1–50 of 250", f"first page: {self.text('#totals')!r}")
        first = self.driver.find_elements(By.CSS_SELECTOR, "#objects tbody tr")
        self.expect(len(first) == 50 and "item 0500" in first[0].text, f"first row: {first[0].text if first else None!r}")
        self.shot("data")
        self.click("a[rel=next]")
        self.expect(self.text("#totals") == "Objects 51–100 of 250", f"second page: {self.text('#totals')!r}")
        self.expect("item 0550" in self.driver.find_elements(By.CSS_SELECTOR, "#objects tbody tr")[0].text, "second page's first row")
        self.click("a[rel=prev]")
        self.expect(self.text("#totals") == "Objects 1–50 of 250", f"back: {self.text('#totals')!r}")

    def test_push_to_user(self):
        push = Api(self.push_port, PUBLIC_KEY)
        status, body = push.request("PUT", "/tokens/androidGCM/device-of-ann", {"user": "ann"})
        self.expect(status in (200, 201, 204), f"token registration: {status} {body}")
        self.open("/development/push")
        self.find("input[name=to][value=users]").click()  # a radio button: no navigation
        self.fill("#recipients", "ann")
        self.fill("#alert", "Hello Ann")
        self.submit("form[action$='/push/send']")
        self.expect("Notification accepted" in self.notice(), f"push not accepted: {self.error()!r}")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not PushCatcher.deliveries:
            time.sleep(0.1)
        self.expect(PushCatcher.deliveries, "no delivery reached the webhook")
        delivery = PushCatcher.deliveries[0]
        self.expect(delivery["user"] == "ann" and delivery["token"] == "device-of-ann", f"delivery: {delivery}")
        self.expect("Hello Ann" in json.dumps(delivery["payload"]), f"payload: {delivery['payload']}")
        for _ in range(50):
            self.open("/development/push?users=ann")
            cells = self.find_now("#outbox td[data-state=delivered]")
            if cells and cells[0].text == "1":
                break
            time.sleep(0.2)
        self.expect(cells and cells[0].text == "1", f"outbox: {self.text('#outbox')!r}")
        self.expect("device-of-ann" in self.text("#tokens"), "the user's token not listed")
        self.shot("push")

    def test_users_and_mail(self):
        status, body = self.api.request("POST", "/user", {"username": "ann", "password": "pw", "email": "ann@example.com"})
        self.expect(status == 201, f"user: {status} {body}")
        self.open("/development/users")
        self.fill("#user-q", "an")
        self.submit("main form.card")
        self.expect("ann" in self.text("#users"), f"search: {self.text('#users')!r}")
        self.click("#users form[action$='/forgot_password'] button")
        self.expect("A password reset was sent to ann" in self.notice(), f"reset: {self.error()!r}")
        self.fill("#role-ann", "staff")
        self.click("#users form[action$='/roles'] button")
        self.expect("ann is now in the role staff" in self.notice(), f"role: {self.error()!r}")
        self.expect("staff" in self.text("#users"), f"roles column: {self.text('#users')!r}")
        self.click("#users form[action$='/revoke_sessions'] button")
        self.expect("Every session of ann has ended" in self.notice(), f"revoke: {self.error()!r}")
        self.shot("users")
        self.open("/development/mail")
        self.expect("To ann@example.com" in self.text("main"), f"mail outbox: {self.text('main')[:300]!r}")
        self.open("/development/custom-code")
        self.expect("No custom-code methods configured." in self.text("main"), "custom code page")

    def test_deploy_to_production(self):
        self.open("/production/deploy")
        changes = self.text("#changes")
        self.expect("todo" in changes and "item" in changes, f"plan: {changes!r}")
        self.shot("deploy")
        self.submit("form[action$='/production/deploy']", confirm=True)
        self.expect("Deployed to production" in self.notice(), f"not deployed: {self.error()!r}")
        self.expect("Nothing to deploy" in self.text("#changes"), f"plan after deploy: {self.text('#changes')!r}")
        self.open("/production/schemas/todo")
        self.expect("title string" in self.text("#fields"), "production lacks todo.title")

    def test_health_at_a_glance(self):
        self.open("/development/overview")
        rows = {row.get_attribute("id"): row for row in self.driver.find_elements(By.CSS_SELECTOR, "#health tbody tr")}
        expected = ["health-push", "health-mail", "health-stalls", "health-connections", "health-database", "health-warnings"]
        self.expect(list(rows) == expected, f"health rows: {list(rows)}")
        for row in rows.values():
            self.expect(row.find_elements(By.CSS_SELECTOR, "th[scope=row]"), f"a row without its heading: {row.text!r}")
        figures = {name: int(row.find_element(By.TAG_NAME, "data").get_attribute("value")) for name, row in rows.items()}
        # Ann's push was delivered to the webhook; her password reset is in the mail outbox.
        self.expect("0 waiting, 0 failed, 0 expired" in rows["health-push"].text, f"push: {rows['health-push'].text!r}")
        self.expect(figures["health-mail"] >= 1, f"mail: {rows['health-mail'].text!r}")
        self.expect(figures["health-connections"] >= 1, f"connections: {rows['health-connections'].text!r}")
        self.expect(figures["health-database"] > 0, f"database: {rows['health-database'].text!r}")
        self.expect(figures["health-stalls"] >= 0 and "since start" in rows["health-stalls"].text, f"stalls: {rows['health-stalls'].text!r}")
        self.expect(figures["health-warnings"] >= 1, f"warnings: {rows['health-warnings'].text!r}")
        warnings = self.text("#configuration-warnings")
        self.expect("Environment variable names no configuration key" in warnings and "STACKMOB_NO_SUCH__SETTING" in warnings,
                    f"configuration warnings: {warnings!r}")
        self.expect(PRIVATE_KEY not in self.driver.page_source, "the private key is shown")
        # Each figure links to its page.
        for row, title in [("health-mail", "Mail outbox"), ("health-push", "Push"), ("health-database", "Backups")]:
            self.open("/development/overview")
            self.click(f"#{row} a")
            self.expect(self.text("h1") == title, f"{row} led to {self.text('h1')!r}")

    def test_escaping(self):
        payload = "<script>alert('xss')</script><img src=x onerror=alert(1)>"
        self.open("/development/data/todo/new")
        self.fill("#json", json.dumps({"title": payload}))
        self.submit("main form.card")
        self.expect_no_alert()
        self.expect("Object created" in self.notice(), f"not created: {self.error()!r}")
        self.expect(payload in self.find("#json").get_attribute("value"), "the editor does not show the value as text")
        self.open("/development/data?schema=todo")
        self.expect_no_alert()
        self.expect(payload in self.text("#objects"), f"the table does not show the value as text: {self.text('#objects')!r}")
        self.expect(not self.find_now("#objects script, #objects img"), "the value became markup")
        self.open("/development/overview")
        self.expect_no_alert()
        self.shot("overview")

    def test_traffic_and_recent_requests(self):
        status, _ = self.api.request("GET", "/no_such_schema_here/x")
        self.expect(status == 404, f"the failing request answered {status}")
        self.open("/development/traffic")
        self.expect(len(self.driver.find_elements(By.CSS_SELECTOR, "svg.chart")) == 2, "the two charts")
        self.expect(self.driver.find_elements(By.CSS_SELECTOR, "svg.chart rect.ok"), "no bar for the requests made above")
        self.expect(self.driver.find_elements(By.CSS_SELECTOR, "svg.chart rect.client"), "no bar for the 404")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#requests-table tbody tr")
        self.expect(len(rows) == 60, f"an hour of minutes in the table: {len(rows)}")
        self.shot("traffic")
        self.click("a[href$='window=day']")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#latency-table tbody tr")
        self.expect(len(rows) == 24, f"a day of hours in the table: {len(rows)}")
        self.open("/development/requests")
        Select(self.find("select[name=status]")).select_by_value("4xx")
        self.submit("form.filters")
        statuses = [row.find_elements(By.TAG_NAME, "td")[4].text for row in self.driver.find_elements(By.CSS_SELECTOR, "#requests tbody tr")]
        self.expect(statuses and all(status.startswith("4") for status in statuses), f"4xx only: {statuses}")
        self.expect("/no_such_schema_here/x" in self.text("#requests"), "the 404 is listed")
        Select(self.find("select[name=status]")).select_by_value("")
        self.fill("input[name=path]", "/item")
        self.submit("form.filters")
        paths = [row.find_elements(By.TAG_NAME, "td")[2].text for row in self.driver.find_elements(By.CSS_SELECTOR, "#requests tbody tr")]
        self.expect(paths and all(path.startswith("/item") for path in paths), f"paths under /item only: {paths[:5]}")
        self.shot("requests")

    def test_backups(self):
        self.open("/development/backups")
        self.submit("form[action$='/development/backups']")
        self.expect("Backup written" in self.notice(), f"no backup: {self.error()!r}")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#backups tbody tr")
        name = rows[0].find_elements(By.TAG_NAME, "code")[0].text if rows else ""
        self.expect(name.startswith("development-") and name.endswith(".sqlite"), f"the new copy is not listed: {name!r}")
        self.expect("stackmob-server restore" in self.text("#restore-h + p + pre"), "no restore command")
        self.shot("backups")
        form = "#backups tbody tr:first-child form"
        self.fill(f"{form} input[name=password]", "not-the-password")
        self.submit(form)
        self.expect("Wrong password" in self.error(), f"a wrong password was not refused: {self.notice()!r}")
        # The right password: the file, posted as the form posts it, with the browser's cookie
        # (a download does not load a page, so it is fetched rather than clicked).
        status, disposition, start = self.driver.execute_script("""
            const form = document.querySelector(arguments[0]);
            const body = new URLSearchParams(new FormData(form));
            body.set('password', arguments[1]);
            return fetch(form.action, {method: 'POST', body}).then(r => r.arrayBuffer().then(
                b => [r.status, r.headers.get('content-disposition'), new TextDecoder().decode(b.slice(0, 15))]));""", form, PASSWORD)
        self.expect(status == 200 and start == "SQLite format 3", f"download: {status} {start!r}")
        self.expect(disposition == f'attachment; filename="{name}"', f"download disposition: {disposition!r}")

    def test_delete_object_and_sign_out(self):
        self.open("/development/data?schema=todo")
        self.click("#objects tbody tr a")
        object_id = self.driver.current_url.split("/data/todo/")[1].split("?")[0]
        self.submit("form[action$='/delete']", confirm=True)
        self.expect(f"Object {object_id} deleted" in self.notice(), f"not deleted: {self.error()!r}")
        status, _ = self.api.request("GET", f"/todo/{object_id}")
        self.expect(status == 404, f"the API still has the object: {status}")
        self.submit("header form[action$='/sign-out']")
        self.expect(self.driver.current_url.endswith(f"{CONSOLE}/sign-in"), f"not signed out: {self.driver.current_url}")
        self.open("/development/overview")
        self.expect(self.driver.current_url.endswith(f"{CONSOLE}/sign-in"), "the session outlived sign-out")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=".build/debug/stackmob-server")
    parser.add_argument("--screenshots", default=None, help="directory for the PNG screenshots (e.g. docs/console)")
    options = parser.parse_args()
    test = ConsoleTest(os.path.abspath(options.binary), options.screenshots)
    names = [name for name in dir(ConsoleTest) if name.startswith("test_")]
    names.sort(key=lambda name: ConsoleTest.__dict__[name].__code__.co_firstlineno)
    passed, failed = 0, 0
    try:
        test.start()
        for index, name in enumerate(names):
            try:
                getattr(test, name)()
                passed += 1
                print(f"ok   {name}")
            except Exception:
                failed += len(names) - index
                print(f"FAIL {name} (the {len(names) - index - 1} after it not run)")
                traceback.print_exc()
                if test.driver:
                    test.driver.save_screenshot(os.path.join(test.data_dir, "failure.png"))
                    print(f"screenshot and server log kept in {test.data_dir}")
                break
    finally:
        test.stop()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
