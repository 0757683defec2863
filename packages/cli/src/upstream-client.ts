import type { UpstreamClient } from "@skillport/host";

/**
 * How the commands reach a manifest's upstream MCP servers: @skillport/client, imported only when the manifest has
 * enabled `servers`, so a manifest of skills alone starts without it.
 */
export const upstreamClient: UpstreamClient = () => import("@skillport/client/node");
