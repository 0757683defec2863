import { clientError } from "../errors.js";
import type { Connector } from "../handle.js";
import type { InprocSpec } from "../types.js";
import type { ClientLoader } from "./load-host.js";
import { loadHost } from "./load-host.js";

/**
 * A Skillport host in this process: `createHost` and `connectInMemory` from `@skillport/host`, imported at the
 * first start (an optional peer dependency; HOST_MISSING when it is not installed). The 2025-11-25 era. The host
 * mounts a manifest's `servers` through `client`.
 */
export function inprocConnector(spec: InprocSpec, client: ClientLoader): Connector {
  const source = spec.name ?? (typeof spec.manifest === "string" ? spec.manifest : "inproc");
  return {
    transport: "inproc",
    source,
    versionNegotiation: undefined,
    async open() {
      const runtime = await loadHost(client);
      if (!("open" in runtime)) {
        return {
          ok: false,
          error: clientError(source, runtime.missing ? "HOST_MISSING" : "UNAVAILABLE", runtime.message),
        };
      }
      const served = await runtime.open({
        manifest: spec.manifest,
        dir: spec.dir,
        lock: spec.lock,
        logLevel: spec.logLevel,
        modules: spec.modules,
      });
      return { ok: true, secrets: [], opened: { transport: served.transport, dispose: served.close } };
    },
  };
}
