// Results as Markdown tables: first column left-aligned, figures right-aligned.

/** A number with fixed decimals and thousands separators; `-` for a figure that was not measured. */
export const fmt = (n, digits = 0) => (n === null ? '-' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

/** Prints the header, the alignment line and one line per row (each an array of cells). */
export function printTable(headers, rows) {
  console.log(`| ${headers.join(' | ')} |`);
  console.log(`|---|${'---:|'.repeat(headers.length - 1)}`);
  for (const cells of rows) console.log(`| ${cells.join(' | ')} |`);
}
