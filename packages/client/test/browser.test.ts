// The browser entry, bundled for a browser and run in headless Chromium (Debian's chromium, driven by
// playwright-core; nothing downloads a browser) against a loopback `skillport serve --http` whose
// http.allowedOrigins lists the test page's origin. Without chromium the browser half is skipped, except under CI=true,
// where it fails.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CHROMIUM, CHROMIUM_FLAGS, hasTool, missingTool, skipWithout } from "@skillport/test-utils";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scratch, ServedHttp } from "./helpers.js";
import { notesManifest, scratch, serveHttp } from "./helpers.js";

const ENTRY = fileURLToPath(new URL("../dist/index.js", import.meta.url));
/** The browser entry as one ES module for a browser, and every module it pulled in. */
async function bundleBrowserEntry() {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return {
    code: result.outputFiles[0]?.text ?? "",
    inputs: Object.keys(result.metafile.inputs),
    meta: result.metafile,
  };
}

describe("@skillport/client in a browser", () => {
  it("bundles for a browser with no Node built-in", async () => {
    const { code, meta } = await bundleBrowserEntry();
    const imports = Object.values(meta.inputs).flatMap((input) => input.imports.map((i) => i.path));
    expect(imports.filter((p) => p.startsWith("node:"))).toEqual([]);
    expect(Object.values(meta.outputs).flatMap((o) => o.imports.map((i) => i.path))).toEqual([]);
    expect(code).not.toMatch(/\bfrom\s*["']node:|require\(["']node:/);
    expect(code).not.toMatch(/child_process|worker_threads/);
  });

  describe.skipIf(skipWithout("chromium"))("driving a loopback Skillport from headless Chromium", () => {
    let where: Scratch;
    let page: Server;
    let otherPage: Server;
    let served: ServedHttp;
    let profile: string;
    let mcpUrl: string;
    let origin: string;
    let otherOrigin: string;

    const listen = async (bundle: string) => {
      const server = createServer((request, response) => {
        if (request.url === "/client.js") {
          response.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
        } else {
          response
            .writeHead(200, { "content-type": "text/html" })
            .end(`<!doctype html><title>client</title><script type="module">
import * as client from "/client.js";
window.client = client;
document.title = "ready";
</script>`);
        }
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    };

    beforeAll(async () => {
      // Here only in CI (where a missing browser is not skipped): say so, not how launching it failed.
      if (!hasTool("chromium")) throw missingTool("chromium");
      where = await scratch();
      const { code } = await bundleBrowserEntry();
      ({ server: page, origin } = await listen(code));
      ({ server: otherPage, origin: otherOrigin } = await listen(code));
      const manifest = await notesManifest(where, { http: { allowedOrigins: [origin] } });
      served = serveHttp(manifest);
      mcpUrl = await served.url;
      profile = await mkdtemp(path.join(os.tmpdir(), "skillport-client-chromium-"));
    });
    afterAll(async () => {
      await served?.stop();
      await new Promise((resolve) => page?.close(resolve));
      await new Promise((resolve) => otherPage?.close(resolve));
      await rm(profile, { recursive: true, force: true });
      await where?.dispose();
    });

    it("lists and calls through connect() and McpHub in both eras, and a refused origin is a value", async () => {
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: [...CHROMIUM_FLAGS],
      });
      try {
        const tab = await context.newPage();
        await tab.goto(`${origin}/`);
        await tab.waitForFunction(() => (globalThis as unknown as PageGlobals).document.title === "ready");
        const results = await tab.evaluate(async (url) => {
          // biome-ignore lint/suspicious/noExplicitAny: the bundle's module, set on window by the page
          const { connect, McpHub } = (globalThis as any).client;
          const out: Record<string, unknown> = {};
          for (const protocol of ["auto", "2025-11-25"]) {
            const handle = connect({ transport: "http", url, protocol });
            const started = await handle.start();
            const called = await handle.callTool("notes.search_notes", { keyword: "agent", limit: 1 });
            const refused = await handle.callTool("notes.search_notes", { keyword: "a" });
            out[protocol] = {
              started: started.ok,
              tools: started.ok ? started.tools.map((t: { name: string }) => t.name) : started.error,
              called: called.ok ? called.result.structuredContent.ok : called.error,
              refused: refused.ok ? "ok" : refused.error.code,
              state: handle.state.value,
            };
            await handle.stop();
          }
          const hub = new McpHub({ sp: connect({ transport: "http", url }) });
          const hubStart = await hub.start();
          const viaHub = await hub.callTool("sp.notes.read_note", { path: "AI-Agent/mcp-basics.md" });
          out.hub = {
            ok: hubStart.ok,
            names: hub.listTools().map((t: { name: string }) => t.name),
            called: viaHub.ok || viaHub.error,
          };
          await hub.stop();
          return out;
        }, mcpUrl);
        for (const protocol of ["auto", "2025-11-25"]) {
          expect(results[protocol]).toEqual({
            started: true,
            tools: ["notes.search_notes", "notes.read_note", "notes.create_study_task"],
            called: true,
            refused: "TOOL_ERROR",
            state: "ready",
          });
        }
        expect(results.hub).toMatchObject({ ok: true, called: true });
        expect((results.hub as { names: string[] }).names).toContain("sp.notes.search_notes");

        // A page whose origin the server does not list: the browser blocks it, and the handle says so as a value.
        const other = await context.newPage();
        await other.goto(`${otherOrigin}/`);
        await other.waitForFunction(() => (globalThis as unknown as PageGlobals).document.title === "ready");
        const refused = await other.evaluate(async (url) => {
          // biome-ignore lint/suspicious/noExplicitAny: as above
          const handle = (globalThis as any).client.connect({ transport: "http", url, protocol: "2025-11-25" });
          return handle.start();
        }, mcpUrl);
        expect(refused).toMatchObject({ ok: false });
        expect(["UNAVAILABLE", "UNAUTHORIZED"]).toContain(refused.error.code);
      } finally {
        await context.close();
      }
    });
  });
});

/** What the page has that this file uses (the tests compile without the DOM library). */
interface PageGlobals {
  document: { title: string };
}
