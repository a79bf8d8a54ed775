/**
 * Read-only access to one commit of a product's repository, as `git` stores it in a bare mirror: the files a page's
 * template reads (itself, its layouts, includes, partials and data files) are read from the object store at that
 * commit, never checked out and never executed.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";

export class RepoAtCommit {
  private listing: string[] | null = null;
  private readonly cache = new Map<string, string | null>();

  constructor(
    /** The git directory (a bare mirror: `…/repo`). */
    readonly gitDir: string,
    readonly commit: string,
  ) {}

  /** Every file path at the commit. */
  files(): string[] {
    this.listing ??= git(this.gitDir, ["ls-tree", "-r", "--name-only", "-z", this.commit])
      .split("\0")
      .filter((line) => line !== "");
    return this.listing;
  }

  exists(file: string): boolean {
    return this.read(file) !== null;
  }

  /** A file's text at the commit, or null when it is not there (or is not text). */
  read(file: string): string | null {
    const normal = path.posix.normalize(file).replace(/^\/+/, "");
    if (this.cache.has(normal)) return this.cache.get(normal)!;
    let text: string | null = null;
    if (this.files().includes(normal)) {
      try {
        text = git(this.gitDir, ["show", `${this.commit}:${normal}`]);
      } catch {
        text = null;
      }
    }
    this.cache.set(normal, text);
    return text;
  }

  /**
   * The file a template names (`base.html`, `partials/plan.html`, `_includes/card.html`): an exact path first, then
   * the shortest path ending in `/<name>` under one of `roots` (directory names such as `templates`, `_includes`),
   * then the shortest path ending in `/<name>` anywhere. Null when none exists.
   */
  resolve(name: string, roots: string[] = [], from?: string): string | null {
    const clean = name.replace(/^\.\/+/, "").replace(/^\/+/, "");
    if (from) {
      const relative = path.posix.normalize(path.posix.join(path.posix.dirname(from), name));
      if (this.files().includes(relative)) return relative;
    }
    if (this.files().includes(clean)) return clean;
    const ending = this.files().filter((file) => file === clean || file.endsWith(`/${clean}`));
    if (ending.length === 0) return null;
    const byLength = (a: string, b: string) => a.length - b.length || (a < b ? -1 : 1);
    for (const root of roots) {
      const under = ending.filter(
        (file) => file === `${root}/${clean}` || file.includes(`/${root}/${clean}`) || file.startsWith(`${root}/`),
      );
      if (under.length > 0) return under.sort(byLength)[0]!;
    }
    return ending.sort(byLength)[0]!;
  }

  /**
   * The same commit seen from a directory of it, as if that directory were the repository's root: a site kept beside
   * the product's code (a Hugo site under `site/`) finds its configuration, layouts and data where it expects them.
   */
  under(dir: string): RepoAtCommit {
    return new RepoUnder(this, dir);
  }
}

class RepoUnder extends RepoAtCommit {
  private readonly prefix: string;
  private inside: string[] | null = null;

  constructor(
    private readonly whole: RepoAtCommit,
    dir: string,
  ) {
    super(whole.gitDir, whole.commit);
    this.prefix = `${path.posix.normalize(dir).replace(/^\/+|\/+$/g, "")}/`;
  }

  override files(): string[] {
    this.inside ??= this.whole
      .files()
      .filter((file) => file.startsWith(this.prefix))
      .map((file) => file.slice(this.prefix.length));
    return this.inside;
  }

  override read(file: string): string | null {
    const normal = path.posix.normalize(file).replace(/^\/+/, "");
    return normal.startsWith("../") ? null : this.whole.read(this.prefix + normal);
  }
}

export function git(gitDir: string, args: string[]): string {
  return execFileSync("git", ["--git-dir", gitDir, ...args], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
  });
}
