// @skillport/core/sandbox — run a program under bubblewrap. Node-only: the root entry never imports this.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type { SandboxAvailableOptions, SandboxStatus } from "./sandbox-available.js";
export { sandboxAvailable } from "./sandbox-available.js";
export type { SandboxCommandOptions, SandboxedCommand, SandboxMount } from "./sandbox-command.js";
export { BWRAP_LOCATIONS, findBwrap, NETWORK_PATHS, SYSTEM_PATHS, sandboxCommand } from "./sandbox-command.js";
