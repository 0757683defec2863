import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import { createLogger, redactingLogger } from "../src/logging/logger.js";
import { parseManifest } from "../src/manifest/load-manifest.js";
import type { LoadedManifest } from "../src/manifest/manifest.js";
import type { AuditRecord } from "../src/pipeline/audit.js";
import type { ConfirmationsOptions } from "../src/pipeline/confirmations.js";
import { createConfirmations } from "../src/pipeline/confirmations.js";
import { createPipeline } from "../src/pipeline/pipeline.js";
import { createRedactor } from "../src/redaction/redactor.js";
import type { LockFile } from "../src/registry/lock.js";
import { hashOf, serverSourceOf } from "../src/registry/lock.js";
import type { Registry } from "../src/registry/registry.js";

export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
export const ECHO = path.join(FIXTURES, "skill-echo");
export const NEEDS_TOKEN = path.join(FIXTURES, "skill-needs-token");
export const BROKEN_IMPORT = path.join(FIXTURES, "skill-broken-import");
/** A skill shaped like the bundled notes skill (name "notes", three tools, a vault config), answering from memory. */
export const NOTEBOOK = path.join(FIXTURES, "skill-notebook");

/**
 * The lock of an eagerly built registry, as `skillport lock` writes it (@skillport/tooling's lockOf, which the host
 * and its tests cannot import: tooling depends on the host). tooling's tests check that a lock it writes is read
 * back here.
 */
export function lockFor(manifest: LoadedManifest, registry: Registry): LockFile {
  return {
    lockfileVersion: 1,
    manifest: path.basename(manifest.file),
    instances: registry.instances.map((instance) => {
      const entry = manifest.skills[instance.index];
      return {
        entry: instance.index,
        source: entry?.package ?? entry?.path ?? instance.packageName,
        package: instance.packageName,
        version: instance.version,
        hash: hashOf(instance.surface),
        skill: instance.surface,
      };
    }),
    ...(registry.servers.length === 0
      ? {}
      : {
          servers: registry.servers.map((server) => ({
            entry: server.index,
            mcp: server.id,
            source: serverSourceOf(server.entry),
            hash: hashOf(server.tools),
            tools: [...server.tools],
            ...(server.serverInfo === undefined ? {} : { server: server.serverInfo }),
          })),
        }),
  };
}

/** A manifest as if written in the fixtures folder. */
export function manifestOf(json: unknown) {
  return parseManifest(json, path.join(FIXTURES, "skills.manifest.json"));
}

/** A fresh folder under the system's temporary one, removed when the test that made it finishes. */
export async function scratch(prefix: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export const silentLogger = () => createLogger({ level: "silent" });

/** A pipeline over a registry whose audit lines are collected in `audits`, as the host wires it. */
export function pipelineOf(
  registry: Registry,
  confirmations: ConfirmationsOptions & { fallback?: "refuse" | "operation-id" } = {},
  logger = silentLogger(),
) {
  const audits: AuditRecord[] = [];
  const redactor = createRedactor();
  for (const instance of registry.instances) redactor.add(Object.values(instance.credentials));
  const pipeline = createPipeline(registry, {
    // As the host does: whatever logger it is given, every line it writes is redacted.
    logger: redactingLogger(logger, redactor),
    redactor,
    audit: (record) => audits.push(redactor.value(record)),
    confirmations: createConfirmations(confirmations),
    ...(confirmations.fallback === undefined ? {} : { confirmationFallback: confirmations.fallback }),
  });
  return { pipeline, audits, redactor };
}
