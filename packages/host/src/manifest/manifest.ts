/** The manifest as written in skills.manifest.json (see manifest.schema.json). */
export interface Manifest {
  $schema?: string;
  name?: string;
  version?: string;
  separator?: Separator;
  audit?: { file?: string; arguments?: boolean };
  confirmation?: { secret?: SecretSource; ttlSeconds?: number };
  skills: SkillEntry[];
}

export type Separator = "." | "_" | "__";

/** Where a secret comes from: an environment variable or a file (trimmed). */
export type SecretSource = { env: string } | { file: string };

/** One skill instance in the manifest. */
export interface SkillEntry {
  package?: string;
  path?: string;
  version?: string;
  mcp?: string;
  enabled?: boolean;
  config?: Record<string, unknown>;
  tools?: { include?: string[]; exclude?: string[] };
  credentials?: Record<string, SecretSource>;
  timeoutMs?: number;
  concurrency?: number;
  queue?: number;
  isolation?: "in-process" | "worker";
  memoryMb?: number;
  allow?: string[];
}

/** A manifest read from disk and checked against its schema. */
export interface LoadedManifest {
  /** Absolute path of the manifest file. */
  file: string;
  /** The folder the manifest's relative paths and packages resolve from. */
  dir: string;
  name: string;
  version: string;
  separator: Separator;
  audit: { file: string | undefined; arguments: boolean };
  confirmation: { secret: SecretSource | undefined; ttlSeconds: number };
  skills: SkillEntry[];
}
