/// The console's stylesheet and script, served from the binary under `/_admin/console/assets/`.
/// The script only adds comfort (confirmations, JSON formatting); every page works without it.
enum ConsoleAssets {
    static let css = """
        :root { --ink: #1b1f24; --muted: #4a5260; --line: #c9ced6; --bg: #f6f7f9; --accent: #0b57d0; --danger: #b3261e; --ok: #146c2e; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg);
          display: grid; grid-template-columns: 12rem minmax(0, 1fr); grid-template-rows: auto 1fr; min-height: 100vh; }
        .bar { grid-column: 1 / -1; display: flex; align-items: center; gap: 1rem; padding: .5rem 1rem; background: #14213d; color: #fff; }
        .bar a { color: #fff; }
        .brand { font-weight: 700; }
        .envs a { padding: .25rem .6rem; border-radius: 4px; text-decoration: none; }
        .envs a.on { background: #fff; color: #14213d; }
        .right { margin-left: auto; }
        .side { background: #fff; border-right: 1px solid var(--line); }
        .side ul { list-style: none; margin: 0; padding: .5rem 0; }
        .side a { display: block; padding: .45rem 1rem; color: var(--ink); text-decoration: none; }
        .side a.on { background: #e3ebfb; font-weight: 600; border-left: 4px solid var(--accent); }
        main { padding: 1rem 1.5rem; min-width: 0; }
        body:not(:has(.side)) main { grid-column: 1 / -1; max-width: 40rem; margin: 0 auto; }
        h1 { margin: .2rem 0 1rem; font-size: 1.5rem; } h2 { font-size: 1.1rem; }
        a { color: var(--accent); }
        a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
        table { border-collapse: collapse; background: #fff; margin: .5rem 0 1rem; }
        th, td { border: 1px solid var(--line); padding: .3rem .6rem; text-align: left; vertical-align: top; }
        th { background: #eef0f3; } .num { text-align: right; }
        .scroll { overflow-x: auto; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .8rem 1rem; margin: 0 0 1rem; }
        .narrow { max-width: 24rem; }
        .cols { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; } .cols > * { flex: 1 1 16rem; }
        label { display: block; margin: .4rem 0 .15rem; font-weight: 600; }
        .row label, .inline label, fieldset label { display: inline-block; margin-right: .3rem; }
        .row { display: flex; flex-wrap: wrap; gap: .3rem .6rem; align-items: center; margin: .3rem 0; }
        .inline { display: inline-flex; gap: .4rem; align-items: center; }
        input, select, textarea, button { font: inherit; padding: .3rem .5rem; border: 1px solid #7a828f; border-radius: 4px; }
        textarea { width: 100%; font-family: ui-monospace, monospace; }
        button, .button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; text-decoration: none; padding: .3rem .7rem; border-radius: 4px; }
        .bar button { background: transparent; border-color: #fff; }
        button.danger { background: var(--danger); border-color: var(--danger); }
        .error { color: var(--danger); font-weight: 600; } .notice { color: var(--ok); font-weight: 600; }
        .hint { color: var(--muted); }
        .pager { display: flex; gap: 1rem; align-items: center; margin: .5rem 0; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 2; }
        .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        .keys dt { font-weight: 600; } .keys dd { margin: 0 0 .5rem; }
        pre { white-space: pre-wrap; }
        td code { overflow-wrap: anywhere; }
        .preview { max-width: 16rem; max-height: 16rem; border: 1px solid var(--line); background: #fff; }
        """

    static let javascript = """
        // Confirmation for destructive forms, and pretty-printing of the JSON editor. Values are
        // only ever read and written as text (never as HTML).
        document.addEventListener("submit", (event) => {
          const message = event.target.getAttribute("data-confirm");
          if (message && !window.confirm(message)) event.preventDefault();
        });
        document.querySelectorAll("textarea[data-json]").forEach((area) => {
          area.addEventListener("blur", () => {
            try { area.value = JSON.stringify(JSON.parse(area.value), null, 2); area.setCustomValidity(""); }
            catch (e) { area.setCustomValidity("Not valid JSON: " + e.message); area.reportValidity(); }
          });
        });
        """
}
