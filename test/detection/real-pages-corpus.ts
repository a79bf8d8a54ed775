/**
 * A corpus of saved real pages under test/fixtures/real-pages/<name>/: its expected.json (`{ pages: [...] }`) and
 * the HTML files the pages name, gzipped when the name ends in .gz.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

export function realPagesCorpus<Page extends { file: string }>(name: string) {
  const dir = new URL(`../fixtures/real-pages/${name}/`, import.meta.url);
  const read = (file: string) => readFileSync(fileURLToPath(new URL(file, dir)));
  return {
    pages: (JSON.parse(read("expected.json").toString("utf8")) as { pages: Page[] }).pages,
    body(page: Page): string {
      const bytes = read(page.file);
      return (page.file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
    },
  };
}
