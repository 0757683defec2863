import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { testSkill } from "@skillport/testing";
import { register } from "../src/index.js";

const EXAMPLE_VAULT = fileURLToPath(new URL("../../../examples/vault/", import.meta.url));

// The examples run against a fresh copy of the sample vault: create_study_task writes into it.
testSkill(register, {
  async setup() {
    const dir = await mkdtemp(path.join(os.tmpdir(), "skill-notes-conformance-"));
    await cp(EXAMPLE_VAULT, path.join(dir, "vault"), { recursive: true });
    return { config: { vault: path.join(dir, "vault") }, teardown: () => rm(dir, { recursive: true, force: true }) };
  },
});
