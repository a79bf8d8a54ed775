/**
 * Comparison grids: plans as columns, their names in a header row, prices in a row of their own ("Price | $0 | $10 |
 * $20", "€19 MONTHLY"). A price in such a row has no name in its own cell; it takes the name of the header cell above
 * it, in the same column. Tables and ARIA grids (`role=row`/`cell`) say what a row is; rows of plain `div`s are read the
 * same way when a row of names with as many cells stands above the priced row (a grid whose columns are plans, each a
 * `div` with its name on top, is a record set instead: records.ts).
 */
import { isElement, tagName, textContent, collapse, type AnyNode, type Element } from "../../parse/html.js";
import type { ElementIndex } from "../../parse/tree.js";
import type { PriceMark } from "./marks.js";
import { nameText, plausibleName, priceRowLabel } from "./names.js";

export interface GridRecord {
  name: string;
  nameEl: Element;
  /** The table (or the block of rows) it was read from. */
  table: Element;
  marks: PriceMark[];
  /** The label of each mark's row ("Monthly", "Price per user"), in the order of `marks`; "" when none. */
  rowLabels: string[];
}

const CELL_ROLES = new Set(["cell", "gridcell", "columnheader", "rowheader"]);
const ROW_LIMIT = 12;

const isCell = (el: Element): boolean => /^(?:td|th)$/.test(tagName(el)) || CELL_ROLES.has(el.attribs.role ?? "");
const isRow = (el: Element): boolean => tagName(el) === "tr" || el.attribs.role === "row";
const isTable = (el: Element): boolean =>
  tagName(el) === "table" || ["table", "grid", "treegrid"].includes(el.attribs.role ?? "");

function parentElement(el: AnyNode): Element | null {
  return el.parent && isElement(el.parent) ? el.parent : null;
}

function span(cell: Element): number {
  const n = Number(cell.attribs.colspan ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= 50 ? n : 1;
}

/** Cells of a row with the column each starts at (colspans counted). */
function cellsOf(row: Element): { cell: Element; column: number; width: number }[] {
  let column = 0;
  const out: { cell: Element; column: number; width: number }[] = [];
  for (const child of row.children) {
    if (!isElement(child)) continue;
    const width = span(child);
    out.push({ cell: child, column, width });
    column += width;
  }
  return out;
}

/** The rows of a table in order (through thead, tbody, tfoot and role=rowgroup), at most a few hundred. */
function rowsOf(index: ElementIndex, table: Element): Element[] {
  return index
    .inside(table)
    .filter((el) => isRow(el))
    .slice(0, 400);
}

/**
 * A header row: cells that name things, none of them priced, at least two different names (a row of "Unlimited" is a
 * feature's values, not a header); the names by column.
 */
function headerNames(row: Element, holdsMark: (el: Element) => boolean): Map<number, Element> | null {
  if (holdsMark(row)) return null;
  const names = new Map<number, Element>();
  const distinct = new Set<string>();
  for (const { cell, column, width } of cellsOf(row)) {
    const name = nameText(cell);
    if (!plausibleName(name)) continue;
    distinct.add(name.toLowerCase());
    for (let c = column; c < column + width; c++) names.set(c, cell);
  }
  return distinct.size >= 2 ? names : null;
}

/** A row a table marks as its header: inside `thead`, all `th` cells, `columnheader` cells, or the table's first row. */
function headerRow(row: Element, rows: Element[]): boolean {
  if (rows[0] === row) return true;
  for (let el: AnyNode | null = row.parent; el && isElement(el); el = el.parent) {
    if (tagName(el) === "thead") return true;
    if (tagName(el) === "table") break;
  }
  const cells = row.children.filter(isElement);
  return (
    cells.length > 0 &&
    (cells.every((cell) => tagName(cell) === "th") || cells.some((cell) => cell.attribs.role === "columnheader"))
  );
}

function rowLabel(row: Element, cell: Element): string {
  const first = row.children.find(isElement);
  if (!first || first === cell) return "";
  if (collapse(textContent(first)).length > 80) return "";
  return nameText(first);
}

/**
 * Grid records: unclaimed numeric marks in a priced row under a header row, named by the header cell of their column.
 * `mode` "tables" reads `<table>` and ARIA grids; "rows" reads rows of plain elements.
 */
export function findGridRecords(
  index: ElementIndex,
  marks: PriceMark[],
  claimed: Set<PriceMark>,
  mode: "tables" | "rows",
): GridRecord[] {
  // "Free" and "Contact us" cells count in a row that prices other columns with numbers (a table's cost row).
  const numeric = marks.filter((mark) => !claimed.has(mark) && !mark.soft && !mark.prose);
  const pricedRows = new Set(numeric.map((mark) => ancestor(mark.el, isRow, 8)).filter((row): row is Element => !!row));
  const open = [
    ...numeric,
    ...(mode === "tables"
      ? marks.filter((mark) => mark.soft && !claimed.has(mark) && pricedRows.has(ancestor(mark.el, isRow, 8)!))
      : []),
  ].sort((a, b) => index.at(a.el) - index.at(b.el));
  if (open.length === 0) return [];
  const markPositions = open.map((mark) => index.at(mark.el)).sort((a, b) => a - b);
  const holdsMark = (el: Element): boolean => {
    const start = index.at(el);
    const end = start + index.sizeInside(el);
    let lo = 0;
    let hi = markPositions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (markPositions[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    return lo < markPositions.length && markPositions[lo]! <= end;
  };
  const tableRows = new Map<Element, Element[]>();
  // Each row's cells and each cell's column, computed once per row: a row of a hundred thousand cells is not filtered
  // again for each of its prices.
  const rowCells = new Map<Element, { cell: Element; column: number; width: number }[]>();
  const cellsIn = (row: Element) => {
    let cells = rowCells.get(row);
    if (!cells) rowCells.set(row, (cells = cellsOf(row)));
    return cells;
  };
  const cellIndex = new Map<Element, Map<Element, number>>();
  const indexIn = (row: Element, cell: Element): number => {
    let positions = cellIndex.get(row);
    if (!positions) {
      positions = new Map(cellsIn(row).map((entry, k) => [entry.cell, k]));
      cellIndex.set(row, positions);
    }
    return positions.get(cell) ?? -1;
  };
  const rowIndex = new Map<Element[], Map<Element, number>>();
  const ownTextOf = new Map<Element, boolean>();
  const ownText = (row: Element): boolean => {
    if (!ownTextOf.has(row)) ownTextOf.set(row, hasOwnText(row));
    return ownTextOf.get(row)!;
  };
  const byName = new Map<string, GridRecord>();
  const headerCache = new Map<Element, Map<number, Element> | null>();
  const header = (row: Element): Map<number, Element> | null => {
    if (!headerCache.has(row)) headerCache.set(row, headerNames(row, holdsMark));
    return headerCache.get(row)!;
  };
  const add = (mark: PriceMark, nameEl: Element, label: string, table: Element): void => {
    // The row of the plans' prices ("Price", "Monthly", or no label) names the price by its column; another priced row
    // ("Extra seats | $5 | $4") is a price of its own for each plan.
    const column = nameText(nameEl);
    // A row label that is a description rather than a name ("Cost per user/month on annual plans") is the plans'
    // price row too. A column headed by a price label ("Hourly Price", "Cost") holds the prices of the rows: the row
    // label names each.
    const name = priceRowLabel(column)
      ? label
      : label === "" || priceRowLabel(label) || !plausibleName(label)
        ? column
        : `${column} – ${label}`;
    if (!name || !plausibleName(name.split(" – ")[0]!)) return;
    const key = name.toLowerCase();
    const record = byName.get(key) ?? { name, nameEl, table, marks: [], rowLabels: [] };
    record.marks.push(mark);
    record.rowLabels.push(label);
    byName.set(key, record);
  };
  for (const mark of open) {
    if (mode === "tables") {
      const cell = ancestor(mark.el, isCell, 6);
      const row = cell && parentElement(cell);
      const table = row && ancestor(row, isTable, 4);
      if (!cell || !row || !isRow(row) || !table) continue;
      const position = cellsIn(row)[indexIn(row, cell)];
      if (!position || position.column === 0) continue;
      let rows = tableRows.get(table);
      if (!rows) tableRows.set(table, (rows = rowsOf(index, table)));
      let positions = rowIndex.get(rows);
      if (!positions) rowIndex.set(rows, (positions = new Map(rows.map((r, k) => [r, k]))));
      const at = positions.get(row) ?? -1;
      for (let r = at - 1; r >= 0 && at - r <= ROW_LIMIT * 4; r--) {
        if (!headerRow(rows[r]!, rows)) continue;
        const names = header(rows[r]!);
        const nameEl = names?.get(position.column);
        if (names && nameEl) {
          add(mark, nameEl, rowLabel(row, cell), table);
          break;
        }
        if (names) break;
      }
    } else {
      // Up a few levels: the mark's cell is a child of a row; a row of names with as many children stands above it.
      let child: Element = mark.el;
      for (let level = 0; level < 4; level++) {
        const row = parentElement(child);
        if (!row || /^(?:body|main|html)$/.test(tagName(row))) break;
        const width = cellsIn(row).length;
        const k = indexIn(row, child);
        // A row is made of its cells: text of its own (a sentence with inline elements) makes it prose, not a row.
        if (width >= 2 && k > 0 && !ownText(row)) {
          let found = false;
          let previous = row.prev;
          for (let steps = 0; previous && steps < ROW_LIMIT; previous = previous.prev) {
            if (!isElement(previous)) continue;
            steps++;
            if (cellsIn(previous).length !== width || ownText(previous)) continue;
            // The header is the first row of the block: a row of the same shape above it makes it a body row.
            if (sameShapeBefore(previous, width, cellsIn)) continue;
            const names = header(previous);
            const nameEl = names?.get(k);
            if (names && nameEl) {
              add(mark, nameEl, rowLabel(row, child), row.parent && isElement(row.parent) ? row.parent : row);
              found = true;
            }
            break;
          }
          if (found) break;
        }
        child = row;
      }
    }
  }
  return [...byName.values()].filter((record) => record.marks.length > 0);
}

function hasOwnText(el: Element): boolean {
  return el.children.some((child) => child.type === "text" && (child as { data: string }).data.trim() !== "");
}

function sameShapeBefore(row: Element, width: number, cellsIn: (row: Element) => unknown[]): boolean {
  for (let previous = row.prev, steps = 0; previous && steps < ROW_LIMIT; previous = previous.prev) {
    if (!isElement(previous)) continue;
    steps++;
    if (cellsIn(previous).length === width) return true;
  }
  return false;
}

function ancestor(el: Element, test: (el: Element) => boolean, levels: number): Element | null {
  let current: AnyNode | null = el;
  for (let depth = 0; depth <= levels && current && isElement(current); depth++, current = current.parent) {
    if (test(current)) return current;
  }
  return null;
}

/**
 * Prices inside a plan's column whose row names stand in a column of labels beside it: a comparison grid built of
 * `div` columns, one per plan, and a first column of row labels ("Additional user per month"), the k-th price line of
 * a plan's list answering the k-th label. Each is a record of its own named `<label> (<plan>)`: the add-on as that plan
 * sells it. `columnOf` names the plan a mark belongs to (the record read around it).
 */
export function findColumnLabels(
  index: ElementIndex,
  marks: PriceMark[],
  claimed: Set<PriceMark>,
  columnOf: (mark: PriceMark) => { name: string; el: Element } | null,
): GridRecord[] {
  const out: GridRecord[] = [];
  const markPositions = marks.map((mark) => index.at(mark.el)).sort((a, b) => a - b);
  const holdsMark = (el: Element): boolean => {
    const start = index.at(el);
    const end = start + index.sizeInside(el);
    return markPositions.some((at) => at >= start && at <= end);
  };
  for (const mark of marks) {
    if (claimed.has(mark) || mark.soft || mark.prose) continue;
    const plan = columnOf(mark);
    if (!plan) continue;
    // The mark's line: the child of a list-like block (three or more children of one tag) inside the plan's column.
    let line: Element = mark.el;
    let list: Element | null = parentElement(line);
    for (let level = 0; list && list !== plan.el && level < 4; level++) {
      const cells = list.children.filter(isElement);
      if (cells.length >= 3 && cells.every((cell) => tagName(cell) === tagName(line))) break;
      line = list;
      list = parentElement(list);
    }
    if (!list || list === plan.el) continue;
    const cells = list.children.filter(isElement);
    const k = cells.indexOf(line);
    const grid = parentElement(plan.el);
    if (!grid || k < 0) continue;
    // A sibling column without prices holding a list of as many lines: the labels.
    let label: string | null = null;
    for (const column of grid.children.filter(isElement)) {
      if (column === plan.el || holdsMark(column)) continue;
      const labels = index
        .inside(column)
        .find((el) => tagName(el) === tagName(list!) && el.children.filter(isElement).length === cells.length);
      const cell = labels?.children.filter(isElement)[k];
      const text = cell ? nameText(cell) : "";
      if (cell && plausibleName(text)) {
        label = text;
        break;
      }
    }
    if (label === null) continue;
    out.push({ name: `${label} (${plan.name})`, nameEl: line, table: grid, marks: [mark], rowLabels: [label] });
  }
  return out;
}
