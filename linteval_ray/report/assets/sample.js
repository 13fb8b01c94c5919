// sample.html#<row_id>: one row of the run, read from its chunk data/rows-<k>.js. Shows the
// verdict with the first failing test (its input, expected and actual output), original and revision side by side as a line diff with every alert on its line
// (fixed / remaining / new, as the metrics count them), the alert list, the model's response
// with its reasoning collapsed, and the prompt.
"use strict";

(function () {
  const {el, chunkOf, loadScript, fmt} = LintEval;
  const root = document.getElementById("sample");
  const chunks = Number(document.body.dataset.chunks);
  const MARK_ORDER = {fixed: 0, remaining: 1, new: 2, unscored: 3};

  function fail(message) {
    root.replaceChildren(el("p", {class: "warning", id: "error"}, message));
  }

  async function loadChunk(k) {
    const loaded = () => (window.LINTEVAL_CHUNKS || {})[k];
    if (!loaded()) await loadScript(`data/rows-${k}.js`);
    return loaded();
  }

  async function show() {
    let rowId;
    try {
      rowId = decodeURIComponent(location.hash.replace(/^#/, ""));
    } catch (err) {
      return fail("This link's row id is not valid.");
    }
    if (!rowId) return fail("No row given: open a sample from the index (sample.html#<row_id>).");
    const cut = rowId.lastIndexOf("/"); // row_id is <sample_id>/<draw>
    const sampleId = cut < 0 ? rowId : rowId.slice(0, cut);
    let chunk;
    try {
      chunk = await loadChunk(chunkOf(sampleId, chunks));
    } catch (err) {
      return fail(`The data of this run could not be loaded (${err.message}).`);
    }
    const row = chunk && (chunk.rows[rowId] || chunk.rows[rowId + "/0"]);
    if (!row) return fail(`Row ${rowId} is not in this run.`);
    document.title = `${row.row_id} · ${document.title.replace(/^.*? · /, "")}`;
    render(row, chunk.samples[row.sample_id] || {});
  }

  function render(row, sample) {
    // A task whose samples are a statement and a solution (CodeContests-O) has no original or alerts.
    const solved = sample.statement !== undefined;
    root.replaceChildren(...[
      el("h1", {}, row.row_id),
      facts(row, sample),
      firstFailure(row.first_failure, solved),
      solved ? statement(sample) : alertCounts(row),
      el("h2", {}, solved ? "Solution" : "Original and revision"),
      solved ? solution(row) : code(row, sample),
      solved ? null : el("h2", {}, "Alerts"),
      solved ? null : alertList(row),
      el("h2", {}, "Model response"),
      response(row),
      prompt(sample),
    ].filter(Boolean));
  }

  function statement(sample) {
    if (sample.statement === null) return el("p", {class: "note"}, "The statement could not be read back from the split.");
    return el("details", {id: "statement", open: true}, el("summary", {}, sample.title || "Statement"),
      el("pre", {class: "statement"}, sample.statement));
  }

  function solution(row) {
    if (!row.revised) return el("p", {class: "note", id: "solution"}, "No program was extracted from the response.");
    return listing(row.revised, [], "revised");
  }

  function facts(row, sample) {
    const m = row.metrics;
    const t = row.timings;
    const items = [
      ["language", row.language],
      ["problem", [sample.problem_id, sample.title].filter(Boolean).join(" · ")],
      ["verdict", el("span", {class: "verdict " + (row.passed ? "ok" : "bad"), id: "verdict"}, row.outcome)],
      ["validation error", row.validation_error && el("pre", {id: "validation-error"}, row.validation_error)],
      ["error", row.error && el("pre", {}, row.error)],
      ["tests", `${row.tests.passed} passed, ${row.tests.failed} failed of ${row.tests.generated} ` +
                (sample.statement !== undefined ? "given" : "generated") +
                (row.tests.dropped ? ` (${row.tests.dropped} dropped)` : "")],
      ["facets", row.facets && Object.entries(row.facets).map(([k, v]) => `${k} ${v}`).join(" · ")],
      ["lines changed", m && `+${m.added_lines} −${m.deleted_lines} (${m.original_loc} → ${m.revised_loc} lines)`],
      ["time s", `total ${fmt(t.total_s, 2)} · lint ${fmt(t.lint_s, 2)} · prepare ${fmt(t.prepare_s ?? 0, 2)} · ` +
                 `compile ${fmt(t.compile_s, 2)} · tests ${fmt(t.tests_s, 2)}`],
      ["suppressions added", row.suppressions_added || null],
      ["lint agreement", row.lint_agreement && `recorded ${row.lint_agreement.recorded}, re-linted ` +
                         `${row.lint_agreement.relinted}, matched ${row.lint_agreement.matched}`],
      ["model", row.model],
      ["prompt", row.prompt_version],
      ["tokens used", row.tokens_used],
    ];
    return el("table", {class: "facts"}, el("tbody", {}, items
      .filter(([, value]) => value !== null && value !== undefined && value !== "")
      .map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", {}, value)))));
  }

  // The test that decided the verdict: which one, how its run ended, and its three texts (the
  // excerpts arrive escaped and capped by the judge; textContent keeps them inert here).
  function firstFailure(f, solved) {
    if (!f) return null;
    const excerpt = (id, name, text, cut) => el("div", {class: "excerpt"}, el("h4", {}, name),
      text === null ? el("p", {class: "note"}, "not run") :
        [el("pre", {id, "data-truncated": String(cut)}, text), cut ? el("p", {class: "cut"}, "… cut at 2 KB") : null]);
    const items = [
      ["test", `#${f.test_index + 1} (input ${f.test_name}): ${f.verdict}`],
      ["generator", f.generator_command && el("code", {id: "failure-generator"},
        `line ${f.generator_line}: ${f.generator_command}`)],
      ["ended", f.ended],
      ["evidence", f.evidence],
      ["message", f.message && el("pre", {id: "failure-message"}, f.message)],
      ["time s", `wall ${fmt(f.wall_s, 3)} · cpu ${fmt(f.cpu_s, 3)} · limit ${fmt(f.time_limit_s, 2)}`],
      ["memory", f.memory_mb === null ? "not measured (at most the worker's own footprint)" : `${fmt(f.memory_mb, 1)} MB peak`],
    ];
    return el("section", {id: "first-failure"},
      el("h2", {}, "First failing test"),
      el("table", {class: "facts"}, el("tbody", {}, items.filter(([, value]) => value)
        .map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", {}, value))))),
      el("div", {class: "excerpts"},
        excerpt("failure-input", "input", f.input_excerpt, f.input_truncated),
        excerpt("failure-expected", solved ? "expected answer" : "expected (the original's answer)",
                f.expected_excerpt, f.expected_truncated),
        excerpt("failure-output", solved ? "output (the solution's)" : "output (the revision's)",
                f.output_excerpt, f.output_truncated)));
  }

  function alertCounts(row) {
    if (!row.metrics) {
      return el("p", {id: "alert-counts"}, `${row.original_alerts.length} alerts in the original; ` +
                "no revision was linted, so none is marked fixed or remaining.");
    }
    const count = (mark) => row.original_alerts.filter((a) => a.mark === mark).length;
    const fresh = row.revised_alerts.filter((a) => a.mark === "new").length;
    const badge = (mark, n) => el("span", {class: "alert-count mark-" + mark, "data-mark": mark, "data-count": n}, `${n} ${mark}`);
    return el("p", {id: "alert-counts"},
      `${row.original_alerts.length} alerts in the original, ${row.revised_alerts.length} in the revision: `,
      badge("fixed", count("fixed")), " ", badge("remaining", count("remaining")), " ", badge("new", fresh));
  }

  function alertsByLine(alerts) {
    const byLine = new Map();
    for (const alert of alerts) {
      if (!byLine.has(alert.line)) byLine.set(alert.line, []);
      byLine.get(alert.line).push(alert);
    }
    return byLine;
  }

  function alertNote(alert, side) {
    return el("div", {class: "alert mark-" + alert.mark, "data-mark": alert.mark, "data-side": side, "data-line": alert.line},
      el("span", {class: "mark"}, alert.mark), " ", el("b", {}, alert.check), ": ", alert.text,
      side === "original" && alert.revised_line ? el("span", {class: "where"}, ` (still there, line ${alert.revised_line})`) : null);
  }

  function notes(alerts, side) {
    return (alerts || []).map((alert) => alertNote(alert, side));
  }

  // Alerts on line 0 (whole file) or past the end cannot sit on a line: they head the listing.
  function offLines(alerts, lines) {
    return alerts.filter((a) => !(a.line >= 1 && a.line <= lines.length));
  }

  function code(row, sample) {
    const original = sample.original;
    const revised = row.revised;
    if (original && revised && row.diff) return diffTable(row, original, revised);
    if (original) return el("div", {}, el("p", {class: "note"}, "No revision to compare: the original alone."),
                               listing(original, row.original_alerts, "original"));
    if (revised) return el("div", {}, el("p", {class: "note"}, "The original program was not provided to the report."),
                              listing(revised, row.revised_alerts, "revised"));
    return el("p", {class: "note"}, "Neither the original nor a revision is available for this row.");
  }

  function lineCells(number, text, side, kind) {
    if (number === null) return [el("td", {class: "ln"}), el("td", {class: "code empty"})];
    return [el("td", {class: "ln"}, number + 1), el("td", {class: `code ${side} ${kind}`}, text)];
  }

  function diffTable(row, original, revised) {
    const left = alertsByLine(row.original_alerts);
    const right = alertsByLine(row.revised_alerts);
    const body = el("tbody");
    const headLeft = offLines(row.original_alerts, original);
    const headRight = offLines(row.revised_alerts, revised);
    if (headLeft.length || headRight.length) body.append(noteRow(headLeft, headRight));
    const KIND = {e: "same", r: "changed", d: "deleted", i: "inserted"};
    for (const [tag, i1, i2, j1, j2] of row.diff) {
      for (let k = 0; k < Math.max(i2 - i1, j2 - j1); k++) {
        const i = i1 + k < i2 ? i1 + k : null;
        const j = j1 + k < j2 ? j1 + k : null;
        body.append(el("tr", {class: "diff-" + KIND[tag]},
          lineCells(i, i === null ? "" : original[i], "old", KIND[tag]),
          lineCells(j, j === null ? "" : revised[j], "new", KIND[tag])));
        const here = i === null ? null : left.get(i + 1);
        const there = j === null ? null : right.get(j + 1);
        if (here || there) body.append(noteRow(here, there));
      }
    }
    return el("table", {class: "diff", id: "diff"}, columns(2),
      el("thead", {}, el("tr", {}, el("th", {colspan: 2}, "original"), el("th", {colspan: 2}, "revision"))), body);
  }

  // Fixed layout takes column widths from here: narrow line numbers, code sharing the rest.
  function columns(sides) {
    const pair = () => [el("col", {class: "ln"}), el("col", {class: "code"})];
    return el("colgroup", {}, sides === 2 ? [pair(), pair()] : pair());
  }

  function noteRow(leftAlerts, rightAlerts) {
    return el("tr", {class: "notes"}, el("td", {class: "ln"}), el("td", {}, notes(leftAlerts, "original")),
      el("td", {class: "ln"}), el("td", {}, notes(rightAlerts, "revised")));
  }

  function listing(lines, alerts, side) {
    const byLine = alertsByLine(alerts);
    const body = el("tbody");
    const head = offLines(alerts, lines);
    if (head.length) body.append(el("tr", {class: "notes"}, el("td", {class: "ln"}), el("td", {}, notes(head, side))));
    lines.forEach((text, i) => {
      body.append(el("tr", {}, lineCells(i, text, side === "original" ? "old" : "new", "same")));
      if (byLine.has(i + 1)) body.append(el("tr", {class: "notes"}, el("td", {class: "ln"}), el("td", {}, notes(byLine.get(i + 1), side))));
    });
    return el("table", {class: "diff listing", id: "diff"}, columns(1), body);
  }

  // Every alert once: the original's (fixed or remaining, with the line it remains on) and the new ones.
  function alertList(row) {
    const entries = [
      ...row.original_alerts.map((a) => ({...a, before: a.line, after: a.revised_line ?? null})),
      ...row.revised_alerts.filter((a) => a.mark === "new").map((a) => ({...a, before: null, after: a.line})),
    ].sort((a, b) => MARK_ORDER[a.mark] - MARK_ORDER[b.mark] || (a.before ?? a.after) - (b.before ?? b.after));
    if (!entries.length) return el("p", {class: "note", id: "alert-list"}, "No alerts in the original or the revision.");
    return el("table", {id: "alert-list", class: "alerts"},
      el("thead", {}, el("tr", {}, ["", "line (original)", "line (revision)", "tool", "check", "category", "message"]
        .map((name) => el("th", {}, name)))),
      el("tbody", {}, entries.map((a) => el("tr", {class: "mark-" + a.mark, "data-mark": a.mark},
        el("td", {}, el("span", {class: "mark"}, a.mark)), el("td", {class: "num"}, fmt(a.before)),
        el("td", {class: "num"}, fmt(a.after)), el("td", {}, a.tool), el("td", {}, a.check),
        el("td", {}, a.category), el("td", {}, a.text)))));
  }

  function response(row) {
    if (row.response === null && row.reasoning === null) return el("p", {class: "note"}, "No response recorded.");
    return el("div", {id: "response"},
      row.reasoning !== null ? el("details", {id: "reasoning"},
        el("summary", {}, `Reasoning (${row.reasoning.length} characters)`), el("pre", {}, row.reasoning)) : null,
      el("pre", {id: "answer"}, row.response));
  }

  function prompt(sample) {
    if (!sample.prompt) return null;
    return el("details", {id: "prompt"}, el("summary", {}, "Prompt"),
      sample.prompt.map((message) => el("div", {class: "message"}, el("h4", {}, message.role), el("pre", {}, message.content))));
  }

  window.addEventListener("hashchange", show);
  show();
})();
