/** The bench's final summary: one row per figure, with its target and whether this run met it. */

export interface SummaryRow {
  measurement: string;
  value: string;
  target: string;
  /** `null` for figures without a target (context, not a goal). */
  met: boolean | null;
}

export function summaryTable(rows: SummaryRow[]): string {
  const header = ["measurement", "value", "target", "result"];
  const cells = rows.map((row) => [
    row.measurement,
    row.value,
    row.target,
    row.met === null ? "" : row.met ? "met" : "MISSED",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: string[]) => `| ${values.map((value, column) => value.padEnd(widths[column]!)).join(" | ")} |`;
  const rule = `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`;
  return [line(header), rule, ...cells.map(line)].join("\n");
}

export const fixed = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
