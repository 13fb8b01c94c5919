// The sample browser of index.html: a table of every row of the run (data/index.js) that
// filters by language, verdict, alert category and text, and sorts by any column. Its state
// lives in the URL hash (#language=py3&verdict=passed&sort=-time_s), so a view can be linked.
"use strict";

(function () {
  const {el, hashParams, sampleHref, fmt} = LintEval;
  const data = window.LINTEVAL_INDEX;
  const root = document.getElementById("sample-browser");
  const PAGE = 500; // rows drawn at once: the full split has 13k
  const field = Object.fromEntries(data.fields.map((name, i) => [name, i]));
  // A task may bring its own columns and filters (data.columns, data.filters); these are LintEval's.
  const COLUMNS = data.columns || [
    {key: "row_id", label: "row"},
    {key: "language", label: "language"},
    {key: "problem", label: "problem"},
    {key: "outcome", label: "verdict"},
    {key: "alerts_in", label: "alerts in", numeric: true},
    {key: "alerts_out", label: "alerts out", numeric: true},
    {key: "alerts_new", label: "new", numeric: true},
    {key: "lines_changed", label: "lines changed", numeric: true},
    {key: "time_s", label: "time s", numeric: true, digits: 2},
  ];
  const FILTER_FIELDS = data.filters || [
    {key: "language", label: "Language", field: "language"},
    {key: "verdict", label: "Verdict", field: "outcome"},
    {key: "category", label: "Alert category", field: "categories"},
  ];
  // A field holding a list (alert categories) matches when the list holds the value.
  const valuesOf = (row, name) => [].concat(row[field[name]] ?? []);
  const FILTERS = FILTER_FIELDS.map((f) => ({...f, values: distinct((row) => valuesOf(row, f.field))}));
  let limit = PAGE;
  let changingHash = false;

  function distinct(valuesOf) {
    const seen = new Set();
    for (const row of data.rows) for (const value of valuesOf(row)) if (value !== null) seen.add(value);
    return [...seen].sort();
  }

  function matches(row, params) {
    const wanted = (key) => params.get(key) || "";
    for (const filter of FILTERS) {
      if (wanted(filter.key) && !valuesOf(row, filter.field).includes(wanted(filter.key))) return false;
    }
    const text = wanted("q").toLowerCase();
    return !text || [row[field.row_id], row[field.problem], row[field.title]]
      .some((value) => value !== null && String(value).toLowerCase().includes(text));
  }

  // Sorted copy; missing values (rows never scored) go last in either direction.
  function sorted(rows, sort) {
    const descending = sort.startsWith("-");
    const column = COLUMNS.find((c) => c.key === sort.replace(/^-/, ""));
    if (!column) return rows;
    const i = field[column.key];
    return rows.slice().sort((a, b) => {
      const x = a[i], y = b[i];
      if (x === null || y === null) return (x === null) - (y === null);
      const order = column.numeric ? x - y : String(x).localeCompare(String(y), undefined, {numeric: true});
      return descending ? -order : order;
    });
  }

  function setParam(key, value) {
    const params = hashParams();
    params.delete("browser"); // the page's own #browser anchor is no filter
    if (value) params.set(key, value); else params.delete(key);
    limit = PAGE;
    changingHash = true;
    location.hash = params.toString();
  }

  function controls(params) {
    const selects = FILTERS.map((filter) => {
      const select = el("select", {name: filter.key, id: "filter-" + filter.key},
        el("option", {value: ""}, "all"),
        filter.values.map((value) => el("option", {value: value, selected: params.get(filter.key) === value}, value)));
      select.addEventListener("change", () => setParam(filter.key, select.value));
      return el("label", {}, filter.label + " ", select);
    });
    const search = el("input", {type: "search", id: "filter-q", placeholder: "row, problem or title",
                                value: params.get("q") || ""});
    search.addEventListener("change", () => setParam("q", search.value.trim()));
    return el("div", {class: "filters"}, selects, el("label", {}, "Search ", search));
  }

  function header(sort) {
    return el("thead", {}, el("tr", {}, COLUMNS.map((column) => {
      const state = sort === column.key ? "ascending" : sort === "-" + column.key ? "descending" : null;
      const th = el("th", {"aria-sort": state, class: column.numeric ? "num sortable" : "sortable",
                           title: "sort by " + column.label}, column.label);
      th.addEventListener("click", () => setParam("sort", state === "ascending" ? "-" + column.key : column.key));
      return th;
    })));
  }

  function tableRow(row) {
    const outcome = row[field.outcome];
    return el("tr", {class: "sample-row", "data-row-id": row[field.row_id]}, COLUMNS.map((column) => {
      const value = row[field[column.key]];
      if (column.key === "row_id") return el("td", {}, el("a", {href: sampleHref(value)}, value));
      if (column.key === "problem") return el("td", {}, fmt(value), " ", el("span", {class: "note"}, row[field.title]));
      if (column.key === "outcome") return el("td", {}, el("span", {class: "verdict " + (outcome === "passed" ? "ok" : "bad")}, outcome));
      return el("td", {class: column.numeric ? "num" : null}, fmt(value, column.digits));
    }));
  }

  function render() {
    const params = hashParams();
    const sort = params.get("sort") || "";
    const matching = sorted(data.rows.filter((row) => matches(row, params)), sort);
    const shown = matching.slice(0, limit);
    const more = el("button", {type: "button", id: "show-more"}, `Show ${Math.min(PAGE, matching.length - limit)} more`);
    more.addEventListener("click", () => { limit += PAGE; render(); });
    root.replaceChildren(
      controls(params),
      el("p", {id: "row-count"}, `${shown.length} of ${matching.length} matching rows shown (${data.rows.length} in the run)`),
      el("table", {id: "samples", class: "samples"}, header(sort), el("tbody", {}, shown.map(tableRow))),
    );
    if (matching.length > limit) root.append(more);
  }

  window.addEventListener("hashchange", () => {
    if (!changingHash) { limit = PAGE; root.scrollIntoView(); } // a link (e.g. failures table) set the filter
    changingHash = false;
    render();
  });
  render();
  // A link to a filtered or sorted view (index.html#language=py3) lands on the table.
  if ([...hashParams().keys()].some((key) => key !== "browser")) root.scrollIntoView();
})();
