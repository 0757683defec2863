import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/** Every entry below a folder with a hash of its content: compare two to prove nothing changed. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const key = path.relative(dir, full);
    if (entry.isFile()) {
      out[key] = createHash("sha256")
        .update(await readFile(full))
        .digest("hex");
    } else {
      out[key] = entry.isDirectory() ? "dir" : "other";
    }
  }
  return out;
}
