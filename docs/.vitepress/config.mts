// The docs site: the README as its home page, the Markdown pages under docs/, and the two repository files they link
// to (SECURITY.md, bench/RESULTS.md). Every page keeps the path it has in the repository (VitePress resolves a
// relative link against a page's served path), so a relative link works the same on GitHub and on the site, and the
// build checks every one of them.
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitepress";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Repository files served as pages beside docs/. */
const OUTSIDE_DOCS = ["README.md", "SECURITY.md", "bench/RESULTS.md"];

export default defineConfig({
  title: "Skillport",
  description: "Write MCP tools once as versioned skill packages; compose them into one MCP server from a manifest.",
  // The pages' sources are read from the repository's root, so links out of docs/ resolve as they do on GitHub.
  srcDir: "..",
  srcExclude: markdownOutsideTheSite(),
  // A folder's README is its index page, as GitHub shows it; the link between them stays in one folder.
  rewrites: { "README.md": "index.md", "docs/README.md": "docs/index.md" },
  // The default, said aloud: a link to a page that does not exist fails the build.
  ignoreDeadLinks: false,
  lastUpdated: false,
  markdown: {
    // Anchors as GitHub makes them, so a link to a heading works on both.
    anchor: { slugify: githubSlug },
  },
  themeConfig: {
    nav: [
      { text: "Guide", link: "/docs/getting-started" },
      { text: "Manifest reference", link: "/docs/manifest-reference" },
    ],
    sidebar: [
      {
        text: "Guide",
        items: [
          { text: "Overview", link: "/docs/" },
          { text: "Getting started", link: "/docs/getting-started" },
          { text: "The CLI", link: "/docs/cli" },
          { text: "Writing skills", link: "/docs/writing-skills" },
          { text: "Testing skills", link: "/docs/testing-skills" },
          { text: "Changing skills live (dev)", link: "/docs/dev" },
          { text: "The bundled skills", link: "/docs/bundled-skills" },
        ],
      },
      {
        text: "Composing and serving",
        items: [
          { text: "The manifest", link: "/docs/manifest" },
          { text: "Manifest reference", link: "/docs/manifest-reference" },
          { text: "Upstream MCP servers", link: "/docs/upstream-servers" },
          { text: "Many tools: discovery with search", link: "/docs/discovery" },
          { text: "What happens on a call", link: "/docs/calls" },
          { text: "Long-running calls: tasks", link: "/docs/tasks" },
          { text: "Serving over HTTP", link: "/docs/http" },
          { text: "Per-caller credentials", link: "/docs/credentials" },
          { text: "Traces (OpenTelemetry)", link: "/docs/observability" },
          { text: "Deploying", link: "/docs/deploying" },
          { text: "Security", link: "/docs/security" },
        ],
      },
      {
        text: "More",
        items: [
          { text: "The client and the hub", link: "/docs/client" },
          { text: "Performance", link: "/docs/performance" },
          { text: "Contributing", link: "/docs/contributing" },
          { text: "Security policy", link: "/SECURITY" },
          { text: "Benchmark results", link: "/bench/RESULTS" },
        ],
      },
    ],
    search: { provider: "local" },
    outline: { level: [2, 3] },
  },
});

// --- internal ---

/** Every Markdown file of the repository but the site's pages (VitePress takes every `.md` under srcDir otherwise). */
function markdownOutsideTheSite(): string[] {
  const excluded: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== "dist" && !entry.name.startsWith(".")) walk(relative);
      } else if (entry.name.endsWith(".md") && !relative.startsWith("docs/") && !OUTSIDE_DOCS.includes(relative)) {
        excluded.push(relative);
      }
    }
  };
  walk("");
  return excluded;
}

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped, each space a dash. */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}
