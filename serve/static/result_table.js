// Sort and filter the rows of the result table shown (the server pages large results; a page is sorted here).
// Answers arrive as fragments after the page loaded, so the handlers listen on the document.
(() => {
  const cellValue = (row, column, kind) => {
    const cell = row.cells[column];
    if (!cell || cell.classList.contains("null")) return null;
    return kind === "number" ? Number(cell.dataset.value) : cell.textContent;
  };
  const compare = (left, right, kind) => {
    if (left === null || right === null) return (left === null) - (right === null);  // NULLs last either way
    if (kind === "number") return left - right;
    return left.localeCompare(right, undefined, { numeric: true, sensitivity: "base" });
  };

  function sortBy(header) {
    const table = header.closest("table");
    const column = header.cellIndex;
    const kind = header.dataset.kind;
    const order = header.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    for (const other of header.parentNode.cells) other.removeAttribute("aria-sort");
    header.setAttribute("aria-sort", order);
    const sign = order === "ascending" ? 1 : -1;
    const body = table.tBodies[0];
    const rows = [...body.rows].map((row) => [cellValue(row, column, kind), row]);
    rows.sort(([left], [right]) => {
      if (left === null || right === null) return compare(left, right, kind);
      return sign * compare(left, right, kind);
    });
    body.append(...rows.map(([, row]) => row));
  }

  // A number filter: ">5", "<=2.5", "=3", "1..10"; anything else (and every text filter) matches a substring.
  function matcher(text, kind) {
    const wanted = text.trim();
    if (!wanted) return () => true;
    if (kind === "number") {
      const range = wanted.match(/^(-?[\d.eE+-]+)\s*\.\.\s*(-?[\d.eE+-]+)$/);
      if (range) return (value) => value !== null && value >= Number(range[1]) && value <= Number(range[2]);
      const bound = wanted.match(/^(<=|>=|<|>|=)\s*(-?[\d.eE+-]+)$/);
      if (bound) {
        const limit = Number(bound[2]);
        const tests = { "<": (v) => v < limit, "<=": (v) => v <= limit, ">": (v) => v > limit,
                        ">=": (v) => v >= limit, "=": (v) => v === limit };
        return (value) => value !== null && tests[bound[1]](value);
      }
    }
    const lower = wanted.toLowerCase();
    return (value, cell) => (cell ? cell.textContent : "").toLowerCase().includes(lower);
  }

  function applyFilters(table) {
    const headers = [...table.tHead.rows[0].cells];
    const inputs = [...table.querySelectorAll("input.filter")];
    const tests = inputs.map((input, column) => [column, headers[column].dataset.kind, matcher(input.value, headers[column].dataset.kind)]);
    let shown = 0;
    for (const row of table.tBodies[0].rows) {
      row.hidden = !tests.every(([column, kind, test]) => test(cellValue(row, column, kind), row.cells[column]));
      if (!row.hidden) shown += 1;
    }
    table.dataset.shown = String(shown);
  }

  document.addEventListener("click", (clicked) => {
    const button = clicked.target.closest("table.result th button.sort");
    if (button) sortBy(button.closest("th"));
  });
  document.addEventListener("input", (typed) => {
    if (typed.target.matches("table.result input.filter")) applyFilters(typed.target.closest("table"));
  });
})();
