/**
 * Renders every version of every product in the pricing-history corpus (test/fixtures/pricing-histories/) from the
 * product's repository into pagesDir(), outside git. Usage:
 *
 *   tsx scripts/corpus/build.ts [--mirrors DIR] [--only PRODUCT,…]
 *
 * Each repository must be a git directory at `<mirrors>/<owner>+<name>/repo`, or a clone there (default mirrors: /work/.mirror, where
 * the session's fetch tool puts a snapshot). A product whose repository is missing is reported and skipped.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadManifests, pageFile, pagesDir } from "./manifest.js";
import { RepoAtCommit } from "./repo.js";
import { renderPage } from "./render/index.js";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? null : (args[at + 1] ?? null);
};
const mirrors = option("--mirrors") ?? "/work/.mirror";
const only = option("--only")?.split(",") ?? null;

let failures = 0;
for (const manifest of loadManifests()) {
  if (only && !only.includes(manifest.product)) continue;
  // A bare mirror, or a clone whose git directory is inside it (`repo/.git`).
  const mirror = path.join(mirrors, manifest.repo.replace("/", "+"), "repo");
  const gitDir = existsSync(path.join(mirror, ".git")) ? path.join(mirror, ".git") : mirror;
  if (!existsSync(gitDir)) {
    console.error(`${manifest.product}: no repository at ${gitDir} (fetch github:${manifest.repo} first); skipped`);
    continue;
  }
  const out = path.join(pagesDir(), manifest.product);
  mkdirSync(out, { recursive: true });
  let written = 0;
  manifest.versions.forEach((version, index) => {
    try {
      const options = version.context
        ? { ...manifest.render, context: { ...manifest.render?.context, ...version.context } }
        : manifest.render;
      const html = renderPage(new RepoAtCommit(gitDir, version.commit), version.path, options);
      writeFileSync(path.join(out, pageFile(index, version)), html);
      written++;
    } catch (error) {
      failures++;
      console.error(`${manifest.product} ${version.commit.slice(0, 10)} ${version.path}: ${(error as Error).message}`);
    }
  });
  console.log(`${manifest.product}: ${written}/${manifest.versions.length} versions rendered into ${out}`);
}
process.exitCode = failures > 0 ? 1 : 0;
