/// The console's stylesheet and script (`Console/Assets/`), compiled into the binary and served
/// under `/_admin/console/assets/`. The script only adds comfort (confirmations, JSON formatting);
/// every page works without it.
enum ConsoleAssets {
    static let css = PackageResources.console_css
    static let javascript = PackageResources.console_js
}
