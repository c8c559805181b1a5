/// The console's page templates (Mustache), compiled into the binary: no files to ship and no
/// build step. Values are only ever written with `{{…}}` (escaped), never `{{{…}}}`.
enum ConsoleTemplates {
    static let all: [String: String] = [
        "top": top, "bottom": bottom, "csrf": csrf, "message": message, "signin": signin,
        "overview": overview, "schemas": schemas, "schema": schema, "data": data, "object": object,
        "users": users, "push": push, "customcode": customCode, "deploy": deploy, "mail": mail,
    ]

    static let top = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · StackMob Server console</title>
        <link rel="stylesheet" href="{{prefix}}/assets/console.css">
        <script src="{{prefix}}/assets/console.js" nonce="{{nonce}}" defer></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="bar">
          <span class="brand">StackMob Server</span>
          {{#session}}
          <nav aria-label="Environment" class="envs">
            {{#environments}}<a href="{{href}}"{{#current}} aria-current="page" class="on"{{/current}}>{{name}}</a>{{/environments}}
          </nav>
          <form method="post" action="{{prefix}}/sign-out" class="inline right">
            {{> csrf}}
            <span class="who">Signed in as <strong>{{operator}}</strong></span>
            <button type="submit">Sign out</button>
          </form>
          {{/session}}
        </header>
        {{#session}}
        <nav aria-label="Console" class="side">
          <ul>{{#nav}}<li><a href="{{href}}"{{#current}} aria-current="page" class="on"{{/current}}>{{label}}</a></li>{{/nav}}</ul>
        </nav>
        {{/session}}
        <main id="main">
        <h1>{{title}}</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        """

    static let bottom = """
        </main>
        </body>
        </html>
        """

    static let csrf = """
        {{#session}}<input type="hidden" name="csrf" value="{{csrf}}">{{/session}}{{^session}}<input type="hidden" name="csrf" value="{{signinCSRF}}">{{/session}}
        """

    static let message = """
        {{> top}}
        <p>{{message}}</p>
        <p><a href="{{prefix}}/sign-in">Sign in</a></p>
        {{> bottom}}
        """

    static let signin = """
        {{> top}}
        <form method="post" action="{{prefix}}/sign-in" class="card narrow">
          {{> csrf}}
          <label for="name">Operator name</label>
          <input id="name" name="name" autocomplete="username" required value="{{name}}">
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required>
          <button type="submit">Sign in</button>
        </form>
        <p class="hint">Operator accounts are made on the server: <code>stackmob-server admin add &lt;name&gt;</code>. App keys do not open the console.</p>
        {{> bottom}}
        """

    static let overview = """
        {{> top}}
        <section aria-labelledby="envs-h">
          <h2 id="envs-h">Environments</h2>
          <ul>{{#session.environments}}<li><a href="{{href}}">{{name}}</a>{{#current}} (shown here){{/current}}</li>{{/session.environments}}</ul>
          <p class="hint">Development infers schemas from the data it receives; production has only what is deployed to it (<a href="{{prefix}}/production/deploy">Deploy</a>).</p>
        </section>
        <section aria-labelledby="keys-h">
          <h2 id="keys-h">API keys ({{session.env}})</h2>
          <dl class="keys">
            <dt>Public key</dt><dd><code id="public-key">{{publicKey}}</code></dd>
            <dt>Private key</dt>
            <dd>{{#privateKey}}<code id="private-key">{{privateKey}}</code>{{/privateKey}}{{^privateKey}}<span id="private-key">hidden</span>
              <form method="get" class="inline"><input type="hidden" name="reveal" value="private"><button type="submit">Reveal private key</button></form>{{/privateKey}}</dd>
          </dl>
          <p class="hint">Showing the keys is written to the audit log.</p>
        </section>
        <section aria-labelledby="counts-h">
          <h2 id="counts-h">Objects per schema</h2>
          <table><caption class="sr">Object counts</caption>
            <thead><tr><th scope="col">Schema</th><th scope="col" class="num">Objects</th></tr></thead>
            <tbody>{{#counts}}<tr><td><a href="{{href}}">{{name}}</a></td><td class="num">{{count}}</td></tr>{{/counts}}
            {{^counts}}<tr><td colspan="2">No schemas yet.</td></tr>{{/counts}}</tbody>
          </table>
        </section>
        <section aria-labelledby="errors-h">
          <h2 id="errors-h">Recent errors</h2>
          <ul class="errors">{{#errors}}<li><strong>{{what}}</strong> {{detail}}</li>{{/errors}}{{^errors}}<li>None.</li>{{/errors}}</ul>
        </section>
        <section aria-labelledby="audit-h">
          <h2 id="audit-h">Recent operator actions</h2>
          <table><thead><tr><th scope="col">When</th><th scope="col">Operator</th><th scope="col">Action</th><th scope="col">Detail</th></tr></thead>
            <tbody>{{#audit}}<tr><td>{{at}}</td><td>{{operator}}</td><td>{{action}}</td><td><code>{{detail}}</code></td></tr>{{/audit}}</tbody>
          </table>
        </section>
        {{> bottom}}
        """

    static let schemas = """
        {{> top}}
        <table>
          <thead><tr><th scope="col">Schema</th><th scope="col">Primary key</th><th scope="col" class="num">Fields</th><th scope="col">Browse</th></tr></thead>
          <tbody>{{#schemas}}<tr><td><a href="{{href}}">{{name}}</a></td><td>{{primaryKey}}</td><td class="num">{{fieldCount}}</td><td><a href="{{dataHref}}">objects</a></td></tr>{{/schemas}}
          {{^schemas}}<tr><td colspan="4">No schemas yet.</td></tr>{{/schemas}}</tbody>
        </table>
        <form method="post" action="{{prefix}}/{{session.env}}/schemas" class="card">
          <h2>Add a schema</h2>
          {{> csrf}}
          <label for="new-schema">Name (lowercase letters, digits, underscore)</label>
          <input id="new-schema" name="schema" required pattern="[a-z][a-z0-9_]*">
          <button type="submit">Add schema</button>
        </form>
        {{> bottom}}
        """

    static let schema = """
        {{> top}}
        <p><a href="{{dataHref}}">Browse its objects</a> · primary key <code>{{primaryKey}}</code></p>
        <section aria-labelledby="fields-h">
          <h2 id="fields-h">Fields</h2>
          <table id="fields"><thead><tr><th scope="col">Field</th><th scope="col">Type</th></tr></thead>
            <tbody>{{#fields}}<tr><td>{{name}}</td><td>{{type}}</td></tr>{{/fields}}{{^fields}}<tr><td colspan="2">No declared fields.</td></tr>{{/fields}}</tbody>
          </table>
        </section>
        <section aria-labelledby="rel-h">
          <h2 id="rel-h">Relationships</h2>
          <ul>{{#relationships}}<li><code>{{name}}</code> → {{kind}} <a href="{{href}}">{{target}}</a></li>{{/relationships}}{{^relationships}}<li>None.</li>{{/relationships}}</ul>
          <h2>Indexes</h2>
          <ul>{{#indexes}}<li><code>{{.}}</code></li>{{/indexes}}{{^indexes}}<li>None.</li>{{/indexes}}</ul>
        </section>
        <div class="cols">
        <form method="post" action="{{action}}/fields" class="card">
          <h2>Add a field</h2>
          {{> csrf}}
          <label for="field-name">Field name</label>
          <input id="field-name" name="field" required pattern="[a-z][a-z0-9_]*">
          <label for="field-type">Type</label>
          <select id="field-type" name="type">{{#types}}<option>{{.}}</option>{{/types}}</select>
          <button type="submit">Add field</button>
        </form>
        <form method="post" action="{{action}}/fields" class="card">
          <h2>Add a relationship</h2>
          {{> csrf}}
          <label for="rel-name">Field name</label>
          <input id="rel-name" name="field" required pattern="[a-z][a-z0-9_]*">
          <label for="rel-kind">Kind</label>
          <select id="rel-kind" name="kind"><option value="one_to_one">one to one</option><option value="one_to_many">one to many</option></select>
          <label for="rel-target">Related schema</label>
          <select id="rel-target" name="target">{{#allSchemas}}<option>{{.}}</option>{{/allSchemas}}</select>
          <button type="submit">Add relationship</button>
        </form>
        <form method="post" action="{{action}}/indexes" class="card">
          <h2>Add an index</h2>
          {{> csrf}}
          <label for="index-fields">Fields (comma-separated for a composite index)</label>
          <input id="index-fields" name="fields" required>
          <button type="submit">Add index</button>
        </form>
        </div>
        <section aria-labelledby="perm-h">
          <h2 id="perm-h">Permissions</h2>
          <form method="post" action="{{action}}/permissions" class="card">
            {{> csrf}}
            <table><thead><tr><th scope="col">Verb</th><th scope="col">Level</th></tr></thead><tbody>
            {{#permissions}}<tr><td><label for="perm-{{verb}}">{{verb}}</label></td>
              <td><input id="perm-{{verb}}" name="{{verb}}" value="{{level}}" list="levels" placeholder="open"></td></tr>{{/permissions}}
            </tbody></table>
            <datalist id="levels"><option value="open"><option value="logged_in"><option value="owner"><option value="private_key"><option value="not_allowed"><option value="role:"><option value="relation:"><option value="owner_relation:"></datalist>
            <button type="submit">Save permissions</button>
          </form>
        </section>
        {{> bottom}}
        """

    static let data = """
        {{> top}}
        <form method="get" action="{{prefix}}/{{session.env}}/data" class="inline">
          <label for="schema-pick">Schema</label>
          <select id="schema-pick" name="schema">{{#schemaChoices}}<option{{#selected}} selected{{/selected}}>{{name}}</option>{{/schemaChoices}}</select>
          <button type="submit">Open</button>
        </form>
        {{#schema}}
        <form method="get" action="{{prefix}}/{{session.env}}/data" class="card" id="filters">
          <input type="hidden" name="schema" value="{{schema}}">
          <fieldset><legend>Filters</legend>
          {{#filters}}<div class="row">
            <label for="f{{n}}">Field {{n}}</label>
            <select id="f{{n}}" name="f"><option value="">(none)</option>{{#fields}}<option{{#selected}} selected{{/selected}}>{{name}}</option>{{/fields}}</select>
            <label for="o{{n}}">Operator {{n}}</label>
            <select id="o{{n}}" name="o">{{#operators}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/operators}}</select>
            <label for="v{{n}}">Value {{n}}</label>
            <input id="v{{n}}" name="v" value="{{value}}">
          </div>{{/filters}}
          </fieldset>
          <div class="row">
            <label for="order">Order by</label>
            <select id="order" name="order"><option value="">(newest first)</option>{{#orderFields}}<option{{#selected}} selected{{/selected}}>{{name}}</option>{{/orderFields}}</select>
            <label for="dir">Direction</label>
            <select id="dir" name="dir"><option value="asc"{{#asc}} selected{{/asc}}>ascending</option><option value="desc"{{^asc}} selected{{/asc}}>descending</option></select>
            <label for="size">Per page</label>
            <select id="size" name="size">{{#sizes}}<option{{#selected}} selected{{/selected}}>{{value}}</option>{{/sizes}}</select>
            <button type="submit">Apply</button>
          </div>
        </form>
        <p id="totals" role="status">{{#total}}Objects {{first}}–{{last}} of {{total}}{{/total}}{{^total}}No objects match.{{/total}}</p>
        <nav aria-label="Pages" class="pager">
          {{#previous}}<a href="{{previous}}" rel="prev">← Previous</a>{{/previous}}
          {{#next}}<a href="{{next}}" rel="next">Next →</a>{{/next}}
          <a href="{{newHref}}" class="button">New object</a>
        </nav>
        <div class="scroll"><table id="objects">
          <thead><tr>{{#columns}}<th scope="col">{{.}}</th>{{/columns}}</tr></thead>
          <tbody>{{#rows}}<tr>{{#cells}}<td>{{#href}}<a href="{{href}}">{{text}}</a>{{/href}}{{^href}}{{text}}{{/href}}</td>{{/cells}}</tr>{{/rows}}</tbody>
        </table></div>
        {{/schema}}
        {{> bottom}}
        """

    static let object = """
        {{> top}}
        <p><a href="{{backHref}}">← Back to {{schema}}</a></p>
        <form method="post" action="{{action}}" class="card">
          {{> csrf}}
          <label for="json">Object (JSON)</label>
          <textarea id="json" name="json" rows="18" spellcheck="false" data-json>{{json}}</textarea>
          <p class="hint">Geopoints are <code>{"lat": …, "lon": …}</code>; relationships hold primary keys; binary fields take a data URL.</p>
          <button type="submit">{{#isNew}}Create{{/isNew}}{{^isNew}}Save{{/isNew}}</button>
        </form>
        {{^isNew}}
        {{#links}}<p>Binary field <code>{{name}}</code>: <a href="{{url}}">{{url}}</a></p>
        {{#image}}<p><img src="{{url}}" alt="Preview of {{name}}" class="preview"></p>{{/image}}{{/links}}
        <form method="post" action="{{action}}/delete" class="card" data-confirm="Delete this object?">
          {{> csrf}}
          <button type="submit" class="danger">Delete object</button>
        </form>
        {{/isNew}}
        {{> bottom}}
        """

    static let users = """
        {{> top}}
        <form method="get" class="card" action="{{prefix}}/{{session.env}}/users">
          <label for="user-schema">User schema</label>
          <input id="user-schema" name="schema" value="{{schema}}">
          <label for="user-q">Primary key starts with</label>
          <input id="user-q" name="q" value="{{q}}" type="search">
          <button type="submit">Search</button>
        </form>
        <table id="users"><thead><tr><th scope="col">User</th><th scope="col">Roles</th><th scope="col">Actions</th></tr></thead>
        <tbody>{{#users}}<tr><td><a href="{{href}}">{{id}}</a></td><td>{{roles}}</td><td class="actions">
          <form method="post" action="{{base}}/forgot_password" class="inline">{{> csrf}}<button type="submit">Send password reset</button></form>
          <form method="post" action="{{base}}/revoke_sessions" class="inline">{{> csrf}}<button type="submit">Revoke sessions</button></form>
          <form method="post" action="{{base}}/roles" class="inline">{{> csrf}}<label for="role-{{id}}" class="sr">Add role to {{id}}</label><input id="role-{{id}}" name="role" placeholder="role" size="8" required><button type="submit">Add role</button></form>
        </td></tr>{{/users}}{{^users}}<tr><td colspan="3">No users found.</td></tr>{{/users}}</tbody></table>
        {{> bottom}}
        """

    static let push = """
        {{> top}}
        <div class="cols">
        <form method="post" action="{{prefix}}/{{session.env}}/push/send" class="card">
          <h2>Send a notification</h2>
          {{> csrf}}
          <fieldset><legend>To</legend>
            <label><input type="radio" name="to" value="users" checked> users</label>
            <label><input type="radio" name="to" value="tokens"> tokens (type:token)</label>
            <label><input type="radio" name="to" value="everyone"> everyone</label>
          </fieldset>
          <label for="recipients">Users or tokens (comma-separated)</label>
          <input id="recipients" name="recipients">
          <label for="alert">Alert text</label>
          <input id="alert" name="alert" required>
          <button type="submit">Send</button>
        </form>
        <section class="card" aria-labelledby="outbox-h">
          <h2 id="outbox-h">Outbox</h2>
          <table id="outbox"><thead><tr><th scope="col">State</th><th scope="col" class="num">Deliveries</th></tr></thead>
            <tbody>{{#outbox}}<tr><td>{{state}}</td><td class="num" data-state="{{state}}">{{count}}</td></tr>{{/outbox}}{{^outbox}}<tr><td colspan="2">Empty.</td></tr>{{/outbox}}</tbody></table>
          <p class="hint">Failed and expired deliveries are the failures; a sender's reasons are in the server log.</p>
        </section>
        </div>
        <section aria-labelledby="tokens-h">
          <h2 id="tokens-h">Registered tokens</h2>
          <form method="get" class="inline"><label for="token-users">For users (comma-separated)</label><input id="token-users" name="users" value="{{users}}"><button type="submit">Show</button></form>
          <table id="tokens"><thead><tr><th scope="col">User</th><th scope="col">Type</th><th scope="col">Token</th></tr></thead>
            <tbody>{{#tokens}}<tr><td>{{user}}</td><td>{{type}}</td><td><code>{{token}}</code></td></tr>{{/tokens}}</tbody></table>
          <h2>Expired tokens</h2>
          <ul>{{#expired}}<li>{{type}} <code>{{token}}</code></li>{{/expired}}{{^expired}}<li>None.</li>{{/expired}}</ul>
        </section>
        {{> bottom}}
        """

    static let customCode = """
        {{> top}}
        <table><thead><tr><th scope="col">Method</th><th scope="col">Webhook</th><th scope="col">Recent failures</th></tr></thead>
        <tbody>{{#methods}}<tr><td><code>{{name}}</code></td><td><code>{{url}}</code></td><td><ul>{{#failures}}<li>{{at}}: {{reason}}</li>{{/failures}}{{^failures}}<li>None.</li>{{/failures}}</ul></td></tr>{{/methods}}
        {{^methods}}<tr><td colspan="3">No custom-code methods configured.</td></tr>{{/methods}}</tbody></table>
        {{> bottom}}
        """

    static let deploy = """
        {{> top}}
        <p>The plan to bring <strong>production</strong>'s schemas up to <strong>development</strong>'s: additions only, in one transaction.</p>
        <h2>Changes</h2>
        <ul id="changes">{{#changes}}<li><code>{{.}}</code></li>{{/changes}}{{^changes}}<li>Nothing to deploy: production has every schema, field and index development has.</li>{{/changes}}</ul>
        {{#hasConflicts}}<h2>Conflicts</h2>{{/hasConflicts}}
        <ul class="errors">{{#conflicts}}<li>{{.}}</li>{{/conflicts}}</ul>
        {{#canApply}}
        <form method="post" action="{{prefix}}/production/deploy" class="card" data-confirm="Apply these changes to production?">
          {{> csrf}}
          <button type="submit">Deploy to production</button>
        </form>
        {{/canApply}}
        {{> bottom}}
        """

    static let mail = """
        {{> top}}
        <p class="hint">Without an SMTP server, mail (password resets) is kept here.</p>
        {{#messages}}<article class="card"><h2>{{subject}}</h2><p>To {{to}} · {{at}}</p><pre>{{body}}</pre></article>{{/messages}}
        {{^messages}}<p>The outbox is empty.</p>{{/messages}}
        {{> bottom}}
        """
}
