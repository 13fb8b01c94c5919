// Shared helpers of the LintEval results site. Text reaches the page only through
// textContent (never innerHTML): program text and model output are untrusted.
"use strict";

window.LintEval = (function () {
  // el("td", {class: "num", title: "x"}, "text", childNode, ...): attributes set as attributes,
  // strings added as text nodes, null/undefined children skipped.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined && value !== false) node.setAttribute(name, String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // FNV-1a (32 bit) of the UTF-8 bytes, modulo chunks: chunk_of() in site.py.
  function chunkOf(sampleId, chunks) {
    let hash = 0x811c9dc5;
    for (const byte of new TextEncoder().encode(sampleId)) {
      hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
    }
    return hash % chunks;
  }

  // <script src> works under file://, where fetch() of a local file is refused.
  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const script = el("script", {src: src});
      script.onload = resolve;
      script.onerror = () => reject(new Error("cannot load " + src));
      document.head.append(script);
    });
  }

  // The URL hash as key=value pairs (#language=py3&verdict=passed).
  function hashParams() {
    return new URLSearchParams(location.hash.replace(/^#/, ""));
  }

  function sampleHref(rowId) {
    return "sample.html#" + encodeURIComponent(rowId);
  }

  function fmt(value, digits) {
    if (value === null || value === undefined) return "-";
    return typeof value === "number" && digits !== undefined ? value.toFixed(digits) : String(value);
  }

  return {el, chunkOf, loadScript, hashParams, sampleHref, fmt};
})();
