// The few parts of oidc-provider (which ships no types) that the authorization server fixture uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  /** A client as the provider sees it. */
  interface ProviderClient {
    clientId: string;
    clientAuthMethod: string;
    grantTypeAllowed(grantType: string): boolean;
  }

  /** The koa context of a request, with the provider's own part under `oidc`. */
  interface ProviderContext {
    oidc: {
      params?: Record<string, string | string[] | undefined>;
      client?: ProviderClient;
    };
    body: unknown;
    type: string;
    status: number;
  }

  interface Interaction {
    uid: string;
    grantId?: string;
    params: Record<string, unknown> & { client_id: string };
    prompt: { name: string; details: Record<string, unknown> };
    session?: { accountId?: string };
  }

  interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  /** A storage adapter: one instance per model ("Grant", "RefreshToken", "Session", …). */
  interface Adapter {
    upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
    find(id: string): Promise<Record<string, unknown> | undefined>;
    findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
    findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  type ProviderError = new (description?: string, detail?: string) => Error;

  export const errors: {
    InvalidGrant: ProviderError;
    InvalidRequest: ProviderError;
    InvalidTarget: ProviderError;
  };

  export type { Adapter, Interaction, ProviderClient, ProviderContext };

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    registerGrantType(
      name: string,
      handler: (ctx: ProviderContext) => Promise<void>,
      parameters?: readonly string[],
      allowedDuplicateParameters?: readonly string[],
    ): void;
    on(event: "grant.success", listener: (ctx: ProviderContext) => void): this;
    on(event: "grant.error", listener: (ctx: ProviderContext, error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
