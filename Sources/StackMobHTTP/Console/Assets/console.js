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
