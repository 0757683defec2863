import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { createRemoteJWKSet, jwtVerify } from "jose";

/** Options of {@link startProtectedMcpServer}. */
export interface ProtectedMcpServerOptions {
  /** The authorization server whose tokens it accepts (its `iss`), as listed in its resource metadata. */
  issuer: string;
  /** Where that server's signing keys are (`AuthorizationServer.jwksUrl`). */
  jwksUrl: string;
  /**
   * Scopes listed in its resource metadata (an SDK client asks for them).
   * @default ["mcp"]
   */
  scopesSupported?: readonly string[];
}

/** A request the server received, with the bearer token it carried and whom that token named, when valid. */
export interface SeenRequest {
  /** The verified token's `sub`; undefined when the token was missing or refused. */
  sub: string | undefined;
  /** "" when the request had no bearer token. */
  token: string;
}

/** A running OAuth-protected MCP server (the official SDK's) on a loopback port. */
export interface ProtectedMcpServer {
  /** `http://127.0.0.1:<port>/mcp`, the MCP endpoint. */
  url: string;
  /** Its RFC 8707 resource identifier, the `aud` it requires: the same as `url`. */
  resource: string;
  /** Every request received, oldest first. */
  seen: SeenRequest[];
  /** Stops the server, dropping its open connections. */
  close(): Promise<void>;
}

/**
 * Starts a remote MCP upstream that requires OAuth: the official SDK's `McpServer` behind `createMcpHandler` (both
 * protocol eras) at `/mcp` on 127.0.0.1 and a free port. Every request needs `Authorization: Bearer <JWT>` signed
 * by the authorization server's keys, with its issuer as `iss` and this server's URL as `aud`; anything else gets
 * 401 with `WWW-Authenticate: Bearer resource_metadata="…"` pointing at its RFC 9728 metadata. Tools: `whoami`
 * answers `{ sub }` of the token, `echo` answers `{ sub, text }`.
 *
 * @example
 * const upstream = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
 * onTestFinished(() => upstream.close());
 */
export async function startProtectedMcpServer(options: ProtectedMcpServerOptions): Promise<ProtectedMcpServer> {
  const keys = createRemoteJWKSet(new URL(options.jwksUrl));
  const scopes = [...(options.scopesSupported ?? ["mcp"])];
  const seen: SeenRequest[] = [];
  const mcp = createMcpHandler((ctx) => tools(ctx.authInfo));
  let origin = "";
  const server = createServer((req, res) => {
    serve(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`protected MCP server failed: ${error.message}`);
    });
  });
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    const resource = `${origin}${MCP_PATH}`;
    if (path === METADATA_PATH || path === `${METADATA_PATH}${MCP_PATH}`) {
      const metadata = {
        resource,
        authorization_servers: [options.issuer],
        scopes_supported: scopes,
        bearer_methods_supported: ["header"],
      };
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify(metadata));
    }
    if (path !== MCP_PATH) return void res.writeHead(404).end();
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const challenge = `Bearer resource_metadata="${origin}${METADATA_PATH}${MCP_PATH}"`;
    let sub: string | undefined;
    let scope: unknown;
    let clientId: unknown;
    let exp: number | undefined;
    if (token !== "") {
      try {
        const { payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: resource,
          requiredClaims: ["exp", "sub"],
        });
        ({ sub, scope, client_id: clientId, exp } = payload);
      } catch (error) {
        seen.push({ sub: undefined, token });
        const description = (error as Error).message.replace(/["\\]/g, "'");
        res.writeHead(401, {
          "www-authenticate": `${challenge}, error="invalid_token", error_description="${description}"`,
          "content-type": "application/json",
        });
        return void res.end(JSON.stringify({ error: "invalid_token", error_description: description }));
      }
    }
    seen.push({ sub, token });
    if (sub === undefined) {
      res.writeHead(401, { "www-authenticate": challenge, "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: "invalid_token", error_description: "a bearer token is required" }));
    }
    const authInfo: AuthInfo = {
      token,
      clientId: typeof clientId === "string" ? clientId : "",
      scopes: typeof scope === "string" ? scope.split(" ").filter(Boolean) : [],
      ...(exp === undefined ? {} : { expiresAt: exp }),
      resource: new URL(resource),
      extra: { sub },
    };
    await relay(req, res, (request) => mcp.fetch(request, { authInfo }));
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${MCP_PATH}`,
    resource: `${origin}${MCP_PATH}`,
    seen,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

// --- internal ---

const MCP_PATH = "/mcp";
const METADATA_PATH = "/.well-known/oauth-protected-resource";

const ECHO_INPUT = fromJsonSchema<{ text: string }>({
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
});

/** The upstream's tools, for one request: they answer about the token that request carried. */
function tools(authInfo: AuthInfo | undefined): McpServer {
  const sub = authInfo?.extra?.sub as string;
  const server = new McpServer({ name: "protected-upstream", version: "1.0.0" });
  server.registerTool("whoami", { description: "Names the subject of the caller's access token." }, async () => ({
    content: [{ type: "text", text: sub }],
    structuredContent: { sub },
  }));
  server.registerTool(
    "echo",
    { description: "Answers its text, with the subject of the caller's access token.", inputSchema: ECHO_INPUT },
    async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { sub, text } }),
  );
  return server;
}

/** Hands a Node.js request to a fetch-shaped handler and writes its answer back. */
async function relay(req: IncomingMessage, res: ServerResponse, handler: (request: Request) => Promise<Response>) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD" && chunks.length > 0;
  const response = await handler(
    new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method ?? "GET",
      headers,
      ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
      signal: controller.signal,
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  for await (const chunk of response.body) res.write(chunk);
  res.end();
}
