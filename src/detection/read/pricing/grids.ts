/**
 * Comparison grids: plans as columns, their names in a header row, prices in a row of their own ("Price | $0 | $10 |
 * $20", "€19 MONTHLY"). A price in such a row has no name in its own cell; it takes the name of the header cell above
 * it, in the same column. Tables and ARIA grids (`role=row`/`cell`) say what a row is; rows of plain `div`s are read the
 * same way when a row of names with as many cells stands above the priced row (a grid whose columns are plans, each a
 * `div` with its name on top, is a record set instead: records.ts).
 */
import { collapse, isElement, isHeading, tagName, textContent, type AnyNode, type Element } from "../../parse/html.js";
import type { ElementIndex } from "../../parse/tree.js";
import type { PriceMark } from "./marks.js";
import {
  boldLine,
  hasOwnText,
  namesItself,
  nameText,
  plausibleName,
  priceColumnLabel,
  priceRowLabel,
} from "./names.js";
import { firstPriceIndex } from "./money.js";
import { isTabList } from "./tabs.js";

export interface GridRecord {
  name: string;
  nameEl: Element;
  /** The table (or the block of rows) it was read from. */
  table: Element;
  marks: PriceMark[];
  /** The label of each mark's row ("Monthly", "Price per user"), in the order of `marks`; "" when none. */
  rowLabels: string[];
  /**
   * Read from a table of one offer's values ("Feature | Included", a plan's own table on a page that repeats one per
   * plan): its row prices what that offer sells, and its section says which offer it is.
   */
  ofSection?: boolean;
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

function rowSpan(cell: Element): number {
  const n = Number(cell.attribs.rowspan ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= 50 ? n : 1;
}

/**
 * Each cell's columns in a table, by the table model: a cell spanning rows below it (`rowspan`) takes its columns in
 * them too, so the next row's cells start after it ("Contact us" spanning a monthly and a yearly row shifts the
 * yearly prices one column right, under their plans).
 */
function tableColumns(rows: Element[]): Map<Element, { column: number; width: number }> {
  const out = new Map<Element, { column: number; width: number }>();
  const occupied = new Map<number, Set<number>>();
  rows.forEach((row, r) => {
    const busy = occupied.get(r);
    let column = 0;
    for (const child of row.children) {
      if (!isElement(child)) continue;
      while (busy?.has(column)) column++;
      const width = span(child);
      out.set(child, { column, width });
      for (let below = 1; below < rowSpan(child) && r + below < rows.length; below++) {
        let set = occupied.get(r + below);
        if (!set) occupied.set(r + below, (set = new Set()));
        for (let c = column; c < column + width; c++) set.add(c);
      }
      column += width;
    }
  });
  return out;
}

/** The rows of a table in order (through thead, tbody, tfoot and role=rowgroup), at most a few hundred. */
function rowsOf(index: ElementIndex, table: Element): Element[] {
  return index
    .inside(table)
    .filter((el) => isRow(el))
    .slice(0, 400);
}

/** A column head that says the column holds an offer's values, not which offer: "Feature | Included". */
const VALUE_COLUMN_RE = /^(?:included|includes|what'?s\s+included|values?|details?)$/i;

/** How much a header cell holds at most: a name, a tagline, a button; a card with its feature list is no head cell. */
const MAX_HEAD_CELL_CHARS = 120;
const MAX_HEAD_CELL_ELEMENTS = 8;

/**
 * A header row: cells that name things, none of them priced, at least two different names (a row of "Unlimited" is a
 * feature's values, not a header); the names by column.
 */
function headerNames(
  index: ElementIndex,
  row: Element,
  holdsMark: (el: Element) => boolean,
  cells: { cell: Element; column: number; width: number }[] = cellsOf(row),
): Map<number, Element> | null {
  // A head row that prices its plans ("<th><h2>Solo</h2><p>$8/mo</p></th>", in the table's head) names its columns by
  // each priced cell's heading: the rows below are those plans' other prices and features.
  const priced = holdsMark(row);
  if (priced && !inHead(row)) return null;
  const names = new Map<number, Element>();
  const distinct = new Set<string>();
  for (const { cell, column, width } of cells) {
    // A head cell is a name and perhaps a button, not a card whose first line is a heading.
    if (index.visibleChars(cell) > MAX_HEAD_CELL_CHARS || index.sizeInside(cell) > MAX_HEAD_CELL_ELEMENTS) continue;
    if (priced) {
      if (!holdsMark(cell)) continue;
      const heading = index.findInside(cell, (el) => isHeading(el) && !holdsMark(el));
      if (!heading) return null;
      const name = nameText(heading);
      if (!plausibleName(name)) return null;
      distinct.add(name.toLowerCase());
      for (let c = column; c < column + width; c++) names.set(c, heading);
      continue;
    }
    // A heading (a name-classed element, a bold line) in a table's head cell is its name, without the button under it
    // ("<th><h4>PRO</h4><a>Get Started</a></th>").
    const heading =
      tagName(cell) === "th"
        ? (index.findInside(cell, (el) => namesItself(el) || boldLine(el)) ?? leadingBold(cell))
        : undefined;
    const name = nameText(heading ?? cell);
    if (!plausibleName(name)) continue;
    distinct.add(name.toLowerCase());
    for (let c = column; c < column + width; c++) names.set(c, heading ?? cell);
  }
  return distinct.size >= 2 ? names : null;
}

/**
 * A head cell's first words set in bold before a tagline or a button in elements of their own ("<th><strong>Production
 * </strong> <span>Our most popular choice…</span> <a>Find out more</a></th>"): the bold element, its column's name.
 */
function leadingBold(cell: Element): Element | undefined {
  // Most head cells open with text or another element: they are passed by at their first part.
  const blank = (node: AnyNode) => !isElement(node) && collapse(textContent(node)) === "";
  const at = cell.children.findIndex((child) => !blank(child));
  const first = at === -1 ? undefined : cell.children[at];
  if (!first || !isElement(first) || !/^(?:strong|b)$/.test(tagName(first))) return undefined;
  const rest = cell.children.slice(at + 1).filter((child) => !blank(child));
  return rest.length > 0 && rest.every(isElement) ? first : undefined;
}

/** A row inside its table's `thead`. */
function inHead(row: Element): boolean {
  for (let el: AnyNode | null = row.parent; el && isElement(el); el = el.parent) {
    if (tagName(el) === "thead") return true;
    if (tagName(el) === "table") break;
  }
  return false;
}

/** A row a table marks as its header: inside `thead`, all `th` cells, `columnheader` cells, or the table's first row. */
function headerRow(row: Element, rows: Element[]): boolean {
  if (rows[0] === row || inHead(row)) return true;
  const cells = row.children.filter(isElement);
  return (
    cells.length > 0 &&
    (cells.every((cell) => tagName(cell) === "th") || cells.some((cell) => cell.attribs.role === "columnheader"))
  );
}

/** A table row in the body of a table that has a head (`<thead>`). */
function headedTable(row: Element): boolean {
  const body = parentElement(row);
  if (!body || tagName(body) !== "tbody") return false;
  const table = parentElement(body);
  return !!table && table.children.some((child) => isElement(child) && tagName(child) === "thead");
}

function rowLabel(row: Element, cell: Element): string {
  const first = row.children.find(isElement);
  if (!first || first === cell) return "";
  const text = collapse(textContent(first));
  // A first cell that states a price is a plan's column, not the row's label.
  if (text.length > 80 || firstPriceIndex(text) !== null) return "";
  return nameText(first);
}

/**
 * A row written line by line, its cells each a list ("P4000 · P4000x2 · P4000x4" beside "$0.51 / hr · $1.02 / hr · $2.02
 * / hr", as documentation tools render multi-line cells): the k-th line of the first cell names the k-th price line.
 * Null when the price is not a line of such a list, or the first cell has no list of as many lines.
 */
function lineLabel(index: ElementIndex, row: Element, cell: Element, markEl: Element): string | null {
  const first = row.children.find(isElement);
  if (!first || first === cell) return null;
  const item = ancestor(markEl, (el) => tagName(el) === "li", 3);
  const list = item && parentElement(item);
  if (!item || !list || !index.contains(cell, list)) return null;
  const lines = list.children.filter((child): child is Element => isElement(child) && tagName(child) === "li");
  if (lines.length === 0) return null;
  const names = [first, ...index.inside(first)]
    .filter((el) => /^(?:ul|ol)$/.test(tagName(el)))
    .map((named) => named.children.filter((child): child is Element => isElement(child) && tagName(child) === "li"))
    .find((items) => items.length === lines.length);
  const name = names?.[lines.indexOf(item)];
  return name ? nameText(name) || null : null;
}

/** The texts of a row's cells in its first `width` columns, joined: the row's name when a head cell spans them. */
function spannedLabel(
  row: Element,
  cell: Element,
  width: number,
  columns: Map<Element, { column: number; width: number }>,
): string {
  const parts: string[] = [];
  for (const child of row.children) {
    if (!isElement(child) || child === cell || (columns.get(child)?.column ?? width) >= width) continue;
    const text = nameText(child);
    if (text) parts.push(text);
  }
  const label = parts.join(", ");
  return label.length <= 80 ? label : "";
}

/**
 * Grid records: unclaimed numeric marks in a priced row under a header row, named by the header cell of their column.
 * `mode` "tables" reads `<table>` and ARIA grids; "rows" reads rows of plain elements.
 */
/**
 * "Cost per tunnel", "Price per additional cluster": a price per something else than a seat, a user or a period ("Cost
 * per Postman Flows user/month on monthly plans" is a price per user).
 */
function perOtherUnit(label: string): boolean {
  return /^(?:price|pricing|cost|fee)s?\s+per\s/i.test(label) && !SEAT_OR_PERIOD_RE.test(label);
}
const SEAT_OR_PERIOD_RE =
  /\b(?:users?|seats?|members?|persons?|people|months?|monthly|years?|yearly|annual(?:ly)?|hours?|hourly|days?|weeks?|minutes?)\b/i;

export function findGridRecords(
  index: ElementIndex,
  marks: PriceMark[],
  claimed: Set<PriceMark>,
  mode: "tables" | "rows",
): GridRecord[] {
  // "Free" and "Contact us" cells count in a row that prices other columns with numbers (a table's cost row), and
  // "Free" in a row whose every cell says so, in a table where two rows or more are priced ("Egress | Free | Free").
  const numeric = marks.filter((mark) => !claimed.has(mark) && !mark.soft && !mark.prose);
  const pricedRows = new Set(numeric.map((mark) => ancestor(mark.el, isRow, 8)).filter((row): row is Element => !!row));
  const pricedTables = new Map<Element, number>();
  for (const row of pricedRows) {
    const table = ancestor(row, isTable, 4);
    if (table) pricedTables.set(table, (pricedTables.get(table) ?? 0) + 1);
  }
  const freeRow = (row: Element | null): boolean => {
    if (!row) return false;
    const table = ancestor(row, isTable, 4);
    if (!table || (pricedTables.get(table) ?? 0) < 2) return false;
    const cells = row.children.filter(isElement).slice(1);
    return cells.length >= 2 && cells.every((cell) => /^free$/i.test(collapse(textContent(cell))));
  };
  const open = [
    ...numeric,
    ...(mode === "tables"
      ? marks.filter((mark) => {
          if (!mark.soft || claimed.has(mark)) return false;
          const row = ancestor(mark.el, isRow, 8);
          return pricedRows.has(row!) || (mark.options[0]!.amount === 0 && freeRow(row));
        })
      : []),
  ].sort((a, b) => index.at(a.el) - index.at(b.el));
  if (open.length === 0) return [];
  const holdsMark = index.isOrHoldsAny(open.map((mark) => mark.el));
  const tableRows = new Map<Element, Element[]>();
  // Each row's cells and each cell's column, computed once per row: a row of a hundred thousand cells is not filtered
  // again for each of its prices.
  const cellsIn = oncePerElement(cellsOf);
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
  // Once per row: a row of many cells is asked again for each price below it.
  const ownText = oncePerElement(hasOwnText);
  const tabList = oncePerElement(isTabList);
  const byName = new Map<string, GridRecord>();
  const headerCache = new Map<Element, Map<number, Element> | null>();
  const header = (
    row: Element,
    columns?: Map<Element, { column: number; width: number }>,
  ): Map<number, Element> | null => {
    if (!headerCache.has(row)) {
      const cells = columns
        ? row.children.filter(isElement).map((cell) => ({ cell, ...(columns.get(cell) ?? { column: 0, width: 1 }) }))
        : undefined;
      headerCache.set(row, headerNames(index, row, holdsMark, cells));
    }
    return headerCache.get(row)!;
  };
  const columnsOf = new Map<Element, Map<Element, { column: number; width: number }>>();
  // The columns a head cell spans ("Production" over a next-day and a same-day column), told apart per head cell.
  const spanNames = new Map<Element, Map<number, string>>();
  const spannedColumnName = (
    rows: Element[],
    columns: Map<Element, { column: number; width: number }>,
    head: Element,
    column: number,
  ): string | null => {
    // The name may be a heading or bold words inside the head cell.
    const cell = isCell(head) ? head : ancestor(head, isCell, 6);
    const spanned = cell ? columns.get(cell) : undefined;
    if (!spanned || spanned.width < 2) return null;
    let names = spanNames.get(head);
    if (!names) spanNames.set(head, (names = columnsApart(index, rows, columns, spanned, holdsMark)));
    return names.get(column) ?? null;
  };
  const add = (mark: PriceMark, nameEl: Element, rowLabel: string, table: Element, columnName?: string): void => {
    // A template's full stop after every row label ("Cost per tunnel.") is no part of the name.
    let label = rowLabel.replace(/(?<=\w)\.$/, "");
    // The row of the plans' prices ("Price", "Monthly", or no label) names the price by its column; another priced row
    // ("Extra seats | $5 | $4") is a price of its own for each plan.
    const column = columnName ?? nameText(nameEl);
    // A row label that says more after its name ("Class B Requests: GET, SELECT, and all others") is named by its head.
    const head = /^([^:(]{3,40}?)\s*[:(]/.exec(label)?.[1];
    const rowName = (text: string) => plausibleName(text, { rowHead: true });
    if (label !== "" && !rowName(label) && head && rowName(head) && !priceRowLabel(head)) label = head;
    // A row label that is a description rather than a name ("Cost per user/month on annual plans") is the plans'
    // price row too. A column headed by a price label ("Hourly Price", "Cost"), or by what a plan's own table holds
    // ("Included"), holds the prices of the rows: the row label names each, without a template's full stop.
    const ofSection = VALUE_COLUMN_RE.test(column);
    // Below the plans' price row, a price per something else than a seat or a period ("Pricing | $25/mo", then "Cost
    // per tunnel | 5 USD / mo") is a price of its own, not another option of the plan's price.
    const priced = byName.get(column.toLowerCase());
    const perOther = perOtherUnit(label) && priced !== undefined && priced.rowLabels.some((other) => other !== label);
    const name =
      priceColumnLabel(column) || ofSection
        ? label
        : label === "" || ((priceRowLabel(label) || !rowName(label)) && !perOther)
          ? column
          : `${column} – ${label}`;
    if (!name || !plausibleName(name.split(" – ")[0]!)) return;
    // Each offer's own table is read apart: the same row in another plan's table is that plan's.
    const key = ofSection ? `${index.at(table)}|${name.toLowerCase()}` : name.toLowerCase();
    const record = byName.get(key) ?? { name, nameEl, table, marks: [], rowLabels: [], ofSection };
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
      let rows = tableRows.get(table);
      if (!rows) tableRows.set(table, (rows = rowsOf(index, table)));
      let columns = columnsOf.get(table);
      if (!columns) columnsOf.set(table, (columns = tableColumns(rows)));
      const position = columns.get(cell);
      if (!position) continue;
      let positions = rowIndex.get(rows);
      if (!positions) rowIndex.set(rows, (positions = new Map(rows.map((r, k) => [r, k]))));
      const at = positions.get(row) ?? -1;
      for (let r = at - 1; r >= 0 && at - r <= ROW_LIMIT * 4; r--) {
        if (!headerRow(rows[r]!, rows)) continue;
        const names = header(rows[r]!, columns);
        const nameEl = names?.get(position.column);
        // The first column is the rows' labels, unless its head names a plan as the others do ("Village | City |
        // Metropolis" over "$250 / month | $750 / month | Contact Us"): a label column never states a price.
        if (position.column === 0 && (!nameEl || priceColumnLabel(nameText(nameEl)))) break;
        if (names && nameEl) {
          // A head cell spanning the first few columns ("Size" over "shared-cpu-1x | 10GB volumes | 256MB RAM"): the
          // row is named by all of them.
          const lead = names.get(0);
          const leadWidth = lead ? (columns.get(lead)?.width ?? 1) : 1;
          const label =
            leadWidth > 1
              ? spannedLabel(row, cell, leadWidth, columns)
              : (lineLabel(index, row, cell, mark.el) ?? rowLabel(row, cell));
          const apart = spannedColumnName(rows, columns, nameEl, position.column);
          add(mark, nameEl, label, table, apart === null ? undefined : `${nameText(nameEl)} (${apart})`);
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
        // A row is made of its cells: text of its own (a sentence with inline elements) makes it prose, not a row; a
        // list nested in a list is the lines of the item above it ("Premium" over "• $9/year • $0/year in beta"),
        // whatever list stands before it.
        if (width >= 2 && k > 0 && !ownText(row) && !nestedList(row)) {
          let found = false;
          let previous = row.prev;
          for (let steps = 0; previous && steps < ROW_LIMIT; previous = previous.prev) {
            if (!isElement(previous)) continue;
            steps++;
            if (cellsIn(previous).length !== width || ownText(previous)) continue;
            // A table with a head names its columns there (the tables mode reads it): a body row of values ("Storage
            // Pool | 1 GB | 100 GB") names nothing.
            if (tagName(previous) === "tr" && headedTable(previous)) break;
            // Tabs name the panes they show (records.ts reads them so), not the lines inside them.
            if (tabList(previous)) break;
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

/** The longest a value may be that tells spanned columns apart ("Next day", "2 hours"): a short phrase, no sentence. */
const MAX_APART_CHARS = 30;

/**
 * What tells apart the columns one head cell spans: the first body row without a price whose cells under it are
 * short and all different ("Response time | Next day | Same day" under "Production" spanning two columns), by column.
 * Empty when no row does: the columns are then one record, as before.
 */
function columnsApart(
  index: ElementIndex,
  rows: Element[],
  columns: Map<Element, { column: number; width: number }>,
  spanned: { column: number; width: number },
  holdsMark: (el: Element) => boolean,
): Map<number, string> {
  for (const row of rows) {
    if (headerRow(row, rows) || holdsMark(row)) continue;
    const values = new Map<number, string>();
    for (const cell of row.children) {
      if (!isElement(cell)) continue;
      const at = columns.get(cell);
      if (!at || at.width !== 1 || at.column < spanned.column || at.column >= spanned.column + spanned.width) continue;
      // A footnote's marker ("Next day*") is no part of the value.
      const value = nameText(cell).replace(/\s*[*†‡§]+$/u, "");
      if (value && index.visibleChars(cell) <= MAX_APART_CHARS) values.set(at.column, value);
    }
    if (values.size === spanned.width && new Set(values.values()).size === spanned.width) return values;
  }
  return new Map();
}

/** A list inside a list (or inside one of its items). */
function nestedList(el: Element): boolean {
  const parent = parentElement(el);
  return /^(?:ul|ol)$/.test(tagName(el)) && !!parent && /^(?:ul|ol|li)$/.test(tagName(parent));
}

function sameShapeBefore(row: Element, width: number, cellsIn: (row: Element) => unknown[]): boolean {
  for (let previous = row.prev, steps = 0; previous && steps < ROW_LIMIT; previous = previous.prev) {
    if (!isElement(previous)) continue;
    steps++;
    if (cellsIn(previous).length === width) return true;
  }
  return false;
}

/** `test` answered once per element: a row of many cells is asked the same question for each price below it. */
function oncePerElement<T>(test: (el: Element) => T): (el: Element) => T {
  const answers = new Map<Element, T>();
  return (el) => {
    if (!answers.has(el)) answers.set(el, test(el));
    return answers.get(el)!;
  };
}

function ancestor(el: Element, test: (el: Element) => boolean, levels: number): Element | null {
  let current: AnyNode | null = el;
  for (let depth = 0; depth <= levels && current && isElement(current); depth++, current = current.parent) {
    if (test(current)) return current;
  }
  return null;
}

/**
 * Row labels of grids built of `div` columns: one column per plan, and a column of labels beside them ("Source
 * strings", "Additional user per month"), the k-th line of a plan's column answering the k-th label (counted from the
 * bottom when the plan's column has a head line the labels lack). The label column holds no price, stands before the
 * plan's column or before one of its containers a few levels up, and holds a list of as many lines.
 */
export class ColumnLabels {
  private readonly holdsMark: (el: Element) => boolean;
  private readonly columnsOf = new Map<string, { at: number; lines: Element[] }[]>();

  constructor(
    private readonly index: ElementIndex,
    marks: PriceMark[],
  ) {
    this.holdsMark = index.isOrHoldsAny(marks.map((mark) => mark.el));
  }

  /** The label of the line `mark` stands on inside `column`, or null when no label column answers it. */
  labelOf(column: Element, mark: PriceMark): string | null {
    // The mark's line: the child of a list-like block (three or more children of one tag), at most the column itself.
    let line: Element = mark.el;
    let list: Element | null = parentElement(line);
    for (let level = 0; list && level < 5; level++) {
      const cells = list.children.filter(isElement);
      if (cells.length >= 3 && cells.every((cell) => tagName(cell) === tagName(line))) break;
      if (list === column) return null;
      line = list;
      list = parentElement(list);
    }
    if (!list || !this.index.contains(column, list)) return null;
    const cells = list.children.filter(isElement);
    const k = cells.indexOf(line);
    for (let el: Element | null = column, level = 0; el && level < 3; el = parentElement(el), level++) {
      const parent = parentElement(el);
      if (!parent) break;
      // The nearest label column before this level's block.
      const at = this.index.at(el);
      const labels = this.labelColumns(parent, tagName(line))
        .filter((candidate) => candidate.at < at)
        .pop()?.lines;
      if (!labels) continue;
      const offset = cells.length - labels.length;
      if (offset !== 0 && offset !== 1) continue;
      const cell = labels[k - offset];
      const text = cell ? nameText(cell) : "";
      return plausibleName(text) ? text : null;
    }
    return null;
  }

  /** The children of `parent` that are label columns of `tag` lines, with their positions: looked up once per parent. */
  private labelColumns(parent: Element, tag: string): { at: number; lines: Element[] }[] {
    const key = `${this.index.at(parent)}|${tag}`;
    let found = this.columnsOf.get(key);
    if (!found) {
      found = [];
      for (const child of parent.children) {
        if (!isElement(child)) continue;
        const lines = this.labelList(child, tag);
        if (lines) found.push({ at: this.index.at(child), lines });
      }
      this.columnsOf.set(key, found);
    }
    return found;
  }

  /**
   * The lines of a label column: a list of three or more `tag` lines, holding no price, inside `el`. A list of tabs
   * is the page's navigation between panes, not labels of their lines.
   */
  private labelList(el: Element, tag: string): Element[] | null {
    if (this.holdsMark(el) || this.index.sizeInside(el) > 2000) return null;
    for (const candidate of [el, ...this.index.inside(el)]) {
      const lines = candidate.children.filter(isElement);
      if (isTabList(candidate)) continue;
      if (lines.length >= 3 && lines.every((line) => tagName(line) === tag)) return lines;
    }
    return null;
  }
}

/**
 * Prices inside a plan's column on lines a label column names (ColumnLabels): each is a record of its own named
 * `<label> (<plan>)`, the add-on as that plan sells it. `columnOf` names the plan a mark belongs to (the record read
 * around it).
 */
export function findColumnLabels(
  labels: ColumnLabels,
  marks: PriceMark[],
  claimed: Set<PriceMark>,
  columnOf: (mark: PriceMark) => { name: string; el: Element } | null,
): GridRecord[] {
  const out: GridRecord[] = [];
  for (const mark of marks) {
    if (claimed.has(mark) || mark.soft || mark.prose) continue;
    const plan = columnOf(mark);
    const label = plan && labels.labelOf(plan.el, mark);
    if (!plan || !label) continue;
    out.push({ name: `${label} (${plan.name})`, nameEl: mark.el, table: plan.el, marks: [mark], rowLabels: [label] });
  }
  return out;
}

/**
 * Offers listed as a definition list: each term names the offer its definition prices (`<dt>Pro</dt><dd>$29 per
 * month</dd>`). Read when two definitions or more state a number each, so a glossary that mentions one price is not a
 * price list; then a definition priced in words ("Contact us") is an offer too.
 */
export function findDefinitionRecords(index: ElementIndex, marks: PriceMark[], claimed: Set<PriceMark>): GridRecord[] {
  type Entry = { term: Element; marks: PriceMark[] };
  const byList = new Map<Element, Entry[]>();
  const entryOf = new Map<Element, Entry>();
  for (const mark of marks) {
    if (claimed.has(mark) || mark.prose) continue;
    const definition = ancestor(mark.el, (el) => tagName(el) === "dd", 3);
    const list = definition && parentElement(definition);
    if (!definition || !list || tagName(list) !== "dl") continue;
    let entry = entryOf.get(definition);
    if (!entry) {
      // The term before it, past a few definitions of the same term ("Pro" over "$29 per month" and "$290 per year").
      let term: AnyNode | null = definition.prev;
      for (let steps = 0; term && !(isElement(term) && tagName(term) === "dt") && steps < 8; steps++) {
        if (isElement(term) && tagName(term) !== "dd") break;
        term = term.prev;
      }
      if (!term || !isElement(term) || tagName(term) !== "dt" || !plausibleName(nameText(term))) continue;
      entry = { term, marks: [] };
      entryOf.set(definition, entry);
      const entries = byList.get(list) ?? [];
      entries.push(entry);
      byList.set(list, entries);
    }
    entry.marks.push(mark);
  }
  const out: GridRecord[] = [];
  for (const [list, entries] of byList) {
    if (entries.filter((entry) => entry.marks.some((mark) => !mark.soft)).length < 2) continue;
    for (const { term, marks: priced } of entries) {
      out.push({ name: nameText(term), nameEl: term, table: list, marks: priced, rowLabels: priced.map(() => "") });
    }
  }
  return out;
}

/** An element's tag and classes: what a template repeats for every record or column it renders. */
export function shapeOf(el: Element): string {
  const classAttribute = el.attribs.class ?? "";
  // One class, the common case, needs no split and sort (every child of a page's largest parents gets a shape).
  if (!/\s/.test(classAttribute)) return `${tagName(el)}.${classAttribute}`;
  const classes = classAttribute.split(/\s+/).filter(Boolean).sort();
  return `${tagName(el)}.${classes.join(".")}`;
}

/** How far above a price its column may start, and how far above a column the grid of names may stand. */
const SPLIT_LEVELS = 4;

/**
 * Plans whose names head the columns of one grid and whose prices stand in the columns of another below it: a feature
 * comparison whose column heads are the plans, then a monthly and a yearly pane of prices with their "Buy now"
 * buttons. The k-th nameless price column belongs to the k-th named column: both grids have as many columns, of one
 * tag and class, and the grid of names stands before the prices, beside one of their containers a few levels up.
 */
export function findSplitColumns(index: ElementIndex, marks: PriceMark[], claimed: Set<PriceMark>): GridRecord[] {
  const siblings = new SiblingShapes();
  const open = marks.filter((mark) => !claimed.has(mark));
  // A column holds an open price when it is one, or holds one.
  const holdsOpenPrice = index.isOrHoldsAny(open.map((mark) => mark.el));
  const namesOf = new Map<Element, (Element | null)[] | null>();
  const byColumn = new Map<Element, GridRecord>();
  for (const mark of open) {
    if (mark.prose) continue;
    // The mark's column: the nearest ancestor with siblings of its own shape.
    let column: Element | null = null;
    let pane: Element | null = null;
    for (let el: Element | null = mark.el, level = 0; el && level < SPLIT_LEVELS; el = parentElement(el), level++) {
      const parent = parentElement(el);
      if (!parent) break;
      if (siblings.like(parent, el).length >= 2) {
        column = el;
        pane = parent;
        break;
      }
    }
    if (!column || !pane) continue;
    const columns = siblings.like(pane, column);
    if (!namesOf.has(pane)) {
      // Every column of the pane (but one) states a price no other reader took: a pane of prices, not a plan's lines.
      const priced = columns.filter(holdsOpenPrice).length >= Math.max(2, columns.length - 1);
      namesOf.set(pane, priced ? columnNames(index, siblings, pane, column) : null);
    }
    const names = namesOf.get(pane);
    if (!names) continue;
    const nameEl = names[siblings.positionIn(pane, column)];
    if (!nameEl) continue;
    const record = byColumn.get(column);
    if (record) record.marks.push(mark);
    else byColumn.set(column, { name: nameText(nameEl), nameEl, table: pane, marks: [mark], rowLabels: [""] });
  }
  for (const record of byColumn.values()) record.rowLabels = record.marks.map(() => "");
  return [...byColumn.values()];
}

/**
 * The children of an element grouped by shape, computed once per parent: asking every price of a page "how many
 * siblings look like you" must not rescan a parent of thousands of children once per price.
 */
class SiblingShapes {
  private readonly groups = new Map<Element, Map<string, Element[]>>();
  private readonly shapes = new Map<Element, string>();
  private readonly positions = new Map<Element, Map<Element, number>>();
  private readonly remembered = new Map<Element, Map<string, unknown>>();

  shape(el: Element): string {
    let shape = this.shapes.get(el);
    if (shape === undefined) this.shapes.set(el, (shape = shapeOf(el)));
    return shape;
  }

  /** `child`'s place among the children of `parent` of its shape (a Map lookup: a pane may have thousands). */
  positionIn(parent: Element, child: Element): number {
    let positions = this.positions.get(parent);
    if (!positions) this.positions.set(parent, (positions = new Map()));
    let position = positions.get(child);
    if (position === undefined) {
      this.like(parent, child).forEach((el, i) => positions.set(el, i));
      position = positions.get(child) ?? -1;
    }
    return position;
  }

  /** The children of `parent` of `child`'s shape (`child` among them), in document order. */
  like(parent: Element, child: Element): Element[] {
    return this.ofShape(parent, this.shape(child));
  }

  /** The children of `parent` of one shape, in document order. */
  ofShape(parent: Element, shape: string): Element[] {
    let groups = this.groups.get(parent);
    if (!groups) {
      groups = new Map();
      for (const node of parent.children) {
        if (!isElement(node)) continue;
        const shape = this.shape(node);
        const group = groups.get(shape);
        if (group) group.push(node);
        else groups.set(shape, [node]);
      }
      this.groups.set(parent, groups);
    }
    return groups.get(shape) ?? [];
  }

  /** A value computed once per element and key: the panes of one page ask the same grids the same question. */
  remember<T>(el: Element, key: string, compute: () => T): T {
    let byKey = this.remembered.get(el);
    if (!byKey) this.remembered.set(el, (byKey = new Map()));
    if (!byKey.has(key)) byKey.set(key, compute());
    return byKey.get(key) as T;
  }
}

/**
 * The names heading the columns of a grid that stands before `pane`, with as many columns of the pane's column shape
 * (null for a column without one); null when there is none. A column's name is the first line of its head.
 */
function columnNames(
  index: ElementIndex,
  siblings: SiblingShapes,
  pane: Element,
  column: Element,
): (Element | null)[] | null {
  const shape = siblings.shape(column);
  const count = siblings.like(pane, column).length;
  // Every pane of a page asks the same grids for columns of one shape and count: each grid answers once.
  const key = `${count}|${shape}`;
  // Columns that hold names only: a pane's own columns name nothing (their first line is a price).
  const namesIn = (grid: Element): (Element | null)[] | null =>
    siblings.remember(grid, key, () => {
      const columns = siblings.ofShape(grid, shape);
      if (columns.length !== count) return null;
      const names = columns.map(headName);
      return names.filter(Boolean).length >= Math.max(2, count - 1) ? names : null;
    });
  const namesWithin = (block: Element): (Element | null)[] | null =>
    siblings.remember(block, `within|${key}`, () => {
      for (const grid of [block, ...index.inside(block)]) {
        const found = namesIn(grid);
        if (found) return found;
      }
      return null;
    });
  for (let el: Element | null = pane, level = 0; el && level < SPLIT_LEVELS; el = parentElement(el), level++) {
    // The grid of names around the panes (its columns, then the panes, in one container)…
    const around = parentElement(el);
    const names = around && around !== pane ? namesIn(around) : null;
    if (names) return names;
    // …or before them.
    let steps = 0;
    for (let sibling = el.prev; sibling && steps < 3; sibling = sibling.prev) {
      if (!isElement(sibling)) continue;
      steps++;
      if (index.sizeInside(sibling) > 5000) continue;
      const found = namesWithin(sibling);
      if (found) return found;
    }
  }
  return null;
}

/** A column's head: its first line with text, when that line can name a plan and states no price. */
function headName(column: Element): Element | null {
  const first = column.children.find(
    (child): child is Element => isElement(child) && collapse(textContent(child)) !== "",
  );
  if (!first) return null;
  const name = nameText(first);
  return plausibleName(name) ? first : null;
}

/**
 * A word repeated down a table's column ("FREE" in nearly every row of a comparison: the column's plan name written
 * again in each cell for small screens, above "Yes" or "Unlimited"): it labels the column, it prices none of the rows.
 * Only a word without a number, in at least MIN_LABEL_ROWS rows and nearly all rows of the table part, in a column
 * where no row states a number. Plans listed one per row keep their "Free": their price column states numbers too.
 */
export function repeatedColumnWords(marks: PriceMark[]): Set<PriceMark> {
  const labels = new Set<PriceMark>();
  const words = new Map<string, { column: string; rows: Set<Element>; marks: PriceMark[] }>();
  const numericColumns = new Set<string>();
  // Each table part (a tbody, a thead, a table without one) by a number, to key its columns.
  const parts = new Map<Element, number>();
  // Each row's cells by position, once per row: a row of thousands of cells is not searched again for each.
  const cellPositions = new Map<Element, Map<Element, number>>();
  for (const mark of marks) {
    const cell = ancestor(mark.el, isCell, 6);
    const row = cell && parentElement(cell);
    const part = row && isRow(row) ? parentElement(row) : null;
    if (!cell || !row || !part) continue;
    if (!parts.has(part)) parts.set(part, parts.size);
    let positions = cellPositions.get(row);
    if (!positions) {
      positions = new Map(row.children.filter(isElement).map((child, k) => [child, k]));
      cellPositions.set(row, positions);
    }
    const column = `${parts.get(part)}:${positions.get(cell)}`;
    if (!mark.soft) {
      numericColumns.add(column);
      continue;
    }
    const key = `${column}:${mark.text.toLowerCase()}`;
    const entry = words.get(key) ?? { column, rows: new Set(), marks: [] };
    entry.rows.add(row);
    entry.marks.push(mark);
    words.set(key, entry);
  }
  const rowCounts = new Map<Element, number>();
  for (const { column, rows, marks: repeated } of words.values()) {
    if (rows.size < MIN_LABEL_ROWS || numericColumns.has(column)) continue;
    const part = parentElement(rows.values().next().value!)!;
    let partRows = rowCounts.get(part);
    if (partRows === undefined) {
      partRows = part.children.filter((child) => isElement(child) && isRow(child)).length;
      rowCounts.set(part, partRows);
    }
    if (rows.size >= partRows * LABEL_ROW_SHARE) for (const mark of repeated) labels.add(mark);
  }
  return labels;
}

const MIN_LABEL_ROWS = 3;
/** A row's label that says its amounts are savings: "Cost Savings vs AWS", "You save", "Saved per year". */
const SAVINGS_ROW_RE = /\b(?:savings?|you\s+save|saved)\b/i;
const LABEL_ROW_SHARE = 0.8;

/**
 * A word such as "Custom" or "Free" in a comparison table's feature row ("Number of apps | Custom | Custom | Custom",
 * "SSL certificate | Free | Free"): what each plan gets of that feature, not a price. Only in a row of three cells or
 * more, labelled in its first cell, where no cell of the row states an amount, nor its column outside a price row
 * (plans listed one per row price each in their column: "Enterprise | Contact us" under "Pro | $49"), and where
 * neither the row's label nor the column's head speaks of a price ("Price | $0 | Custom" keeps its "Custom"). Any amount
 * in a row labelled as a saving ("Cost Savings vs AWS | $37.50/mo") is such a value too.
 */
export function featureValues(marks: PriceMark[]): Set<PriceMark> {
  const values = new Set<PriceMark>();
  // Each row's cells, their positions and whether its label speaks of a price, once per row: a row of thousands of
  // cells is not searched again for each.
  const rows = new Map<
    Element,
    { cells: Element[]; positions: Map<Element, number>; label: string; priceLabel: boolean; savings: boolean }
  >();
  const rowOf = (row: Element) => {
    let entry = rows.get(row);
    if (!entry) {
      const cells = row.children.filter((child): child is Element => isElement(child) && isCell(child));
      const label = cells[0] ? collapse(textContent(cells[0])) : "";
      entry = {
        cells,
        positions: new Map(cells.map((cell, k) => [cell, k])),
        label,
        priceLabel: priceRowLabel(label),
        savings: SAVINGS_ROW_RE.test(label),
      };
      rows.set(row, entry);
    }
    return entry;
  };
  const numericRows = new Set<Element>();
  const numericColumns = new Set<string>();
  const tables = new Map<Element, number>();
  const candidates: { mark: PriceMark; row: Element; table: Element; position: number; column: string }[] = [];
  for (const mark of marks) {
    const cell = ancestor(mark.el, isCell, 6);
    const row = cell && parentElement(cell);
    const table = row && isRow(row) ? ancestor(row, isTable, 3) : null;
    if (!cell || !row || !table) continue;
    if (!tables.has(table)) tables.set(table, tables.size);
    // What a plan saves against another offer ("Cost Savings vs AWS | $37.50/mo | $482.84/mo"): no price of its own.
    if (rowOf(row).savings) {
      values.add(mark);
      continue;
    }
    const position = rowOf(row).positions.get(cell) ?? -1;
    const column = `${tables.get(table)}:${position}`;
    if (!mark.soft) {
      numericRows.add(row);
      // A column priced only in a row labelled as the price row ("Price | $0 | $49") is a plan's column, not a
      // column of prices for plans listed one per row.
      if (!rowOf(row).priceLabel) numericColumns.add(column);
    } else if (position > 0 && tagName(cell) === "td") candidates.push({ mark, row, table, position, column });
  }
  const heads = new Map<Element, Element | null>();
  for (const { mark, row, table, position, column } of candidates) {
    const { cells, label, priceLabel } = rowOf(row);
    if (cells.length < 3 || priceLabel || numericRows.has(row) || numericColumns.has(column)) continue;
    if (label === "" || label.length > 80) continue;
    if (!heads.has(table)) heads.set(table, tableHeadRow(table));
    const head = heads.get(table)!;
    if (head === row) continue;
    const headCell = head ? rowOf(head).cells[position] : undefined;
    if (headCell && priceColumnLabel(collapse(textContent(headCell)))) continue;
    values.add(mark);
  }
  return values;
}

/** A table's head row: its `thead`'s first row, else its first row when all its cells are `th`. */
function tableHeadRow(table: Element): Element | null {
  for (const child of table.children) {
    if (!isElement(child) || /^(?:caption|colgroup|col)$/.test(tagName(child))) continue;
    const first = isRow(child) ? child : child.children.find((row): row is Element => isElement(row) && isRow(row));
    if (!first) return null;
    if (tagName(child) === "thead") return first;
    return first.children.filter(isElement).every((cell) => tagName(cell) === "th") ? first : null;
  }
  return null;
}
