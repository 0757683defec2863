import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MANIFEST as HOST_DEFAULT_MANIFEST } from "@skillport/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_MANIFEST } from "../src/start-image.js";
import type { Message, Workspace } from "./workspace.js";
import {
  connectStdio,
  initialize,
  initialized,
  makeWorkspace,
  NOTES_SKILL,
  notesManifest,
  runCli,
  serveRaw,
} from "./workspace.js";

// `serve --stdio` answers initialize and tools/list from a start image (the answers of a start that checked
// everything) while it loads, then compares the host's own answers before it reads anything else. These tests start
// real servers twice over one private cache folder, and attack the image: edited, in a folder others can write, out
// of date, and with clients that do not send what it can answer.

let ws: Workspace;
let cache: string;
let manifest: string;

beforeEach(async () => {
  ws = await makeWorkspace();
  cache = await mkdtemp(path.join(os.tmpdir(), "skillport-cache-"));
  manifest = await ws.writeManifest({ ...notesManifest(), audit: { file: "./audit.log" } });
  const locked = await runCli(["lock", "--manifest", manifest], ws.dir);
  expect(locked.code, locked.stderr).toBe(0);
});

afterEach(async () => {
  await ws.dispose();
  await rm(cache, { recursive: true, force: true });
});

const ENV = { XDG_CACHE_HOME: "", SKILLPORT_START_IMAGE: "on", SKILLPORT_LOG_LEVEL: "info" };
const env = () => ({ ...ENV, XDG_CACHE_HOME: cache });
const imagesFolder = () => path.join(cache, "skillport", "start-images");
const images = async () => (await readdir(imagesFolder()).catch(() => [])).filter((f) => f.endsWith(".image"));

/** One start with the SDK client: its tools, one call's answer, and whether it said it answered from an image. */
async function startOnce() {
  const { client, ready, stderr } = await connectStdio(manifest, ws.dir, { env: env(), args: ["--frozen-lock"] });
  await ready;
  const { tools } = await client.listTools();
  const called = await client.callTool({ name: "notes.search_notes", arguments: { keyword: "agent" } });
  const version = client.getServerVersion();
  await client.close();
  return { tools, called, version, fromImage: /"startImage":true/.test(stderr()), stderr: stderr() };
}

/** Waits until the first start's image is on disk (it is written just after tools/list is answered). */
async function imageWritten(): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const [file] = await images();
    if (file !== undefined) return path.join(imagesFolder(), file);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("no start image was written");
}

/** Runs `during` with the file's modification time moved on a minute, then puts the time back. */
async function touched(file: string, during: () => Promise<void>): Promise<void> {
  const { atime, mtime } = await stat(file);
  await utimes(file, atime, new Date(mtime.getTime() + 60_000));
  try {
    await during();
  } finally {
    await utimes(file, atime, mtime);
  }
}

describe("the start image", () => {
  it("the second start answers from the image what the first answered, and serves calls as before", async () => {
    const first = await startOnce();
    expect(first.fromImage).toBe(false);
    const file = await imageWritten();
    expect((await import("node:fs")).statSync(file).mode & 0o777).toBe(0o600);
    const second = await startOnce();
    expect(second.fromImage, second.stderr).toBe(true);
    expect(second.tools).toEqual(first.tools);
    expect(second.version).toEqual(first.version);
    expect(second.called).toEqual({ ...first.called, structuredContent: expect.anything() });
    expect((second.called.structuredContent as { ok: boolean }).ok).toBe(true);
  });

  it("an image edited to advertise other tools stops the server (exit 1) before it runs the call sent after, and is removed", async () => {
    await startOnce();
    const file = await imageWritten();
    const bytes = await readFile(file);
    // Same length, so the header still holds: a tool's description rewritten, as a poisoning would.
    const forged = Buffer.from(bytes.toString("latin1").replace("Search", "IGNORE"), "latin1");
    expect(forged.equals(bytes)).toBe(false);
    await writeFile(file, forged);
    const audited = await readFile(path.join(ws.dir, "audit.log"), "utf8");

    const server = serveRaw(manifest, ws.dir, env(), ["--frozen-lock"]);
    server.send(initialize(1));
    await server.next((m: Message) => m.id === 1);
    server.send(initialized);
    server.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    server.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "notes.search_notes", arguments: { keyword: "agent" } },
    });
    const listed = await server.next((m: Message) => m.id === 2);
    expect(JSON.stringify(listed)).toContain("IGNORE"); // what the image said went out: the check comes after
    await server.stderrUntil((text) => text.includes("start image"));
    expect(await server.close(), server.stderr()).toBe(1);
    expect(server.stderr()).toMatch(/start image .* otherwise than this server does, so it is removed/);
    expect(server.lines.filter((line) => line.includes('"id":3'))).toEqual([]);
    expect(await readFile(path.join(ws.dir, "audit.log"), "utf8")).toBe(audited);
    expect(await images()).toEqual([]);

    // The next start is a first start again: it answers from the host and writes a new image.
    const again = await startOnce();
    expect(again.fromImage).toBe(false);
    expect(JSON.stringify(again.tools)).not.toContain("IGNORE");
    await imageWritten();
  });

  it("a changed manifest or lock is not answered from the image of the old one", async () => {
    await startOnce();
    await imageWritten();
    await ws.writeManifest({ ...notesManifest(), version: "9.9.9", audit: { file: "./audit.log" } });
    const changed = await startOnce();
    expect(changed.fromImage).toBe(false);
    expect(changed.version?.version).toBe("9.9.9");

    const lock = path.join(ws.dir, "skills.lock.json");
    await startOnce(); // writes the image of the new manifest
    expect((await startOnce()).fromImage).toBe(true);
    await writeFile(lock, `${await readFile(lock, "utf8")}\n`);
    expect((await startOnce()).fromImage).toBe(false);
  });

  it("a lock written again while a first start runs leaves no image of the answers made from the one before", async () => {
    const lock = path.join(ws.dir, "skills.lock.json");
    const server = serveRaw(manifest, ws.dir, env(), ["--frozen-lock"]);
    server.send(initialize(1));
    await server.next((m: Message) => m.id === 1); // the host is built: it has read the lock
    await writeFile(lock, `${await readFile(lock, "utf8")}\n`);
    server.send(initialized);
    server.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await server.next((m: Message) => m.id === 2); // the image would be written now, before this answer is read
    expect(await server.close(), server.stderr()).toBe(0);
    expect(await images()).toEqual([]);
    // The next start finds no image, answers from its host and writes one, of the lock as it is now.
    expect((await startOnce()).fromImage).toBe(false);
    await imageWritten();
    expect((await startOnce()).fromImage).toBe(true);
  });

  it("a lock edited in place with its size, inode and modification time kept is not answered from the image", async () => {
    // The image knows the lock by its file's stamp, not its bytes: an edit that hides in the size and the times a
    // user can set must still be seen. A whole second, so that the time put back is the same to the nanosecond.
    const lock = path.join(ws.dir, "skills.lock.json");
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await utimes(lock, second, second);
    await startOnce();
    await imageWritten();
    expect((await startOnce()).fromImage).toBe(true);

    const before = await stat(lock);
    const text = await readFile(lock, "utf8");
    const edited = text.replace("{\n  ", "{\n\t "); // the same JSON, the same length
    expect(edited).not.toBe(text);
    await writeFile(lock, edited);
    await utimes(lock, second, second);
    const after = await stat(lock);
    expect([after.size, after.ino, after.mtimeMs]).toEqual([before.size, before.ino, before.mtimeMs]);
    expect((await startOnce()).fromImage).toBe(false);
  });

  it("a new build of the command or a skill package changed since is not answered from the image", async () => {
    await startOnce();
    await imageWritten();
    expect((await startOnce()).fromImage).toBe(true);
    // The command's build: the built file that answers from the image (its stamp is in the key), with another time,
    // as a new build writes it.
    const dist = fileURLToPath(new URL("../dist/", import.meta.url));
    const built = [];
    for (const name of await readdir(dist)) {
      if (name.endsWith(".js") && (await readFile(path.join(dist, name), "utf8")).includes('"start-images"')) {
        built.push(path.join(dist, name));
      }
    }
    expect(built).toHaveLength(1);
    await touched(built[0] as string, async () => {
      expect((await startOnce()).fromImage).toBe(false);
    });
    // A skill's package.json, as an install of another version rewrites it. (The start before wrote the image of the
    // build as it was then: one start to write it again.)
    await startOnce();
    expect((await startOnce()).fromImage).toBe(true);
    await touched(path.join(NOTES_SKILL, "package.json"), async () => {
      expect((await startOnce()).fromImage).toBe(false);
    });
  });

  it("removes the temporary file a start killed while writing its image left", async () => {
    await startOnce();
    const image = await imageWritten();
    const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    const left = `${image}.${ended.stdout}.tmp`;
    await writeFile(left, "half an image");
    await rm(image);
    await startOnce();
    await imageWritten();
    expect(await readdir(imagesFolder())).toEqual([path.basename(image)]);
  });

  it("an image folder another user could write to is not used, and nothing is written there", async () => {
    await startOnce();
    await imageWritten();
    await chmod(imagesFolder(), 0o777);
    const [before] = await images();
    const start = await startOnce();
    expect(start.fromImage).toBe(false);
    expect(await images()).toEqual([before]);
    await chmod(imagesFolder(), 0o700);
  });

  it("answers each message sent while the host builds once, in order, whether the image could answer it or not", async () => {
    await startOnce();
    await imageWritten();
    const call = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "notes.search_notes", arguments: { keyword: "agent" } },
    });
    // All at once, before any answer: the image answers 1 and 2, the host the rest, after its check.
    const server = serveRaw(manifest, ws.dir, env(), ["--frozen-lock"]);
    server.child.stdin.write(
      [
        initialize(1),
        initialized,
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        call(3),
        { jsonrpc: "2.0", id: 4, method: "ping" },
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(""),
    );
    const called = await server.next((m: Message) => m.id === 3);
    const pong = await server.next((m: Message) => m.id === 4);
    expect(await server.close()).toBe(0);
    // The call and the ping run side by side (either may answer first, as without an image); the rest in order.
    const ids = server.lines.map((line) => JSON.parse(line).id);
    expect(ids.slice(0, 2)).toEqual([1, 2]);
    expect(ids.slice(2).sort()).toEqual([3, 4]);
    expect(server.stderr()).toMatch(/"startImage":true/);
    expect(called.result.structuredContent.ok).toBe(true);
    expect(pong.result).toEqual({});

    // A client that starts with something else, or asks for another protocol version, is answered by the host alone.
    for (const opening of [
      [{ jsonrpc: "2.0", id: 1, method: "ping" }, initialize(2)],
      [{ ...initialize(1), params: { ...initialize(1).params, protocolVersion: "2025-06-18" } }],
      [{ ...initialize(1), params: { protocolVersion: "2025-11-25" } }],
    ]) {
      const other = serveRaw(manifest, ws.dir, env(), ["--frozen-lock"]);
      for (const message of opening) other.send(message);
      const last = opening.at(-1) as { id: number };
      const answer = await other.next((m: Message) => m.id === last.id);
      expect(await other.close()).toBe(0);
      expect(other.lines.map((line) => JSON.parse(line).id)).toEqual(opening.map((m) => m.id));
      // Params the SDK refuses: its error, as without an image.
      if ("error" in answer) expect(answer.error.code).toEqual(expect.any(Number));
      else expect(answer.result.protocolVersion).toBe(last.id === 1 ? "2025-06-18" : "2025-11-25");
    }
  });

  it("is answered by one built file that imports only Node's own modules", async () => {
    // What a start loads before its first answer: a chunk or a package imported here would load before it.
    const built = await readFile(fileURLToPath(new URL("../dist/early-stdio.js", import.meta.url)), "utf8");
    const specifiers = [
      ...built.matchAll(/\bimport\s*(?:[\w{}\s,*]+from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/g),
    ]
      .map((match) => match[1] ?? match[2])
      .filter((specifier): specifier is string => specifier !== undefined);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((specifier) => !isBuiltin(specifier))).toEqual([]);
  });

  it("knows the host's default manifest name", () => {
    expect(DEFAULT_MANIFEST).toBe(HOST_DEFAULT_MANIFEST);
  });
});
