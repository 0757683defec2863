import type { JWTPayload } from "jose";
import { jwtVerify } from "jose";
import type { ProviderContext } from "oidc-provider";

/** RFC 8693's grant type. */
export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

/** The token request parameters the grant reads (oidc-provider drops the others). */
export const TOKEN_EXCHANGE_PARAMETERS = [
  "subject_token",
  "subject_token_type",
  "audience",
  "resource",
  "scope",
  "requested_token_type",
  "actor_token",
  "actor_token_type",
] as const;

/** What the grant needs from its authorization server. */
export interface TokenExchangeContext {
  issuer: string;
  /** The key that verifies a subject token (this server's). */
  publicKey: Parameters<typeof jwtVerify>[1] & object;
  /** Signs an access token for `sub` at `audience`; answers it and its lifetime. */
  sign(claims: { sub: string; audience: string; scope?: string; clientId: string }): Promise<{
    token: string;
    expiresIn: number;
  }>;
  /** oidc-provider's error classes (they become the token endpoint's `error`). */
  errors: {
    InvalidGrant: new (description?: string) => Error;
    InvalidRequest: new (description?: string) => Error;
    InvalidTarget: new (description?: string) => Error;
  };
}

/**
 * The RFC 8693 token exchange grant, as an oidc-provider grant handler: the client (already authenticated by the
 * token endpoint) hands in a subject token this server signed and gets an access token for another audience, for
 * the same subject.
 */
export function tokenExchangeGrant(context: TokenExchangeContext): (ctx: ProviderContext) => Promise<void> {
  const { errors } = context;
  return async (ctx) => {
    const params = ctx.oidc.params ?? {};
    const subjectToken = single(params.subject_token);
    const subjectTokenType = single(params.subject_token_type);
    if (subjectToken === undefined) throw new errors.InvalidRequest("missing required parameter 'subject_token'");
    if (subjectTokenType !== ACCESS_TOKEN_TYPE && subjectTokenType !== JWT_TOKEN_TYPE) {
      throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE} or ${JWT_TOKEN_TYPE}`);
    }
    const requested = params.resource ?? params.audience;
    const targets = requested === undefined ? [] : [requested].flat();
    const audience = targets[0];
    if (audience === undefined) throw new errors.InvalidTarget("an audience or a resource is required");
    if (targets.length > 1) throw new errors.InvalidTarget("only one audience or resource is supported");
    let subject: JWTPayload;
    try {
      ({ payload: subject } = await jwtVerify(subjectToken, context.publicKey, {
        issuer: context.issuer,
        requiredClaims: ["exp", "sub"],
      }));
    } catch (error) {
      throw new errors.InvalidGrant(`subject_token is not valid: ${(error as Error).message}`);
    }
    const sub = subject.sub as string;
    const scope = single(params.scope);
    const clientId = ctx.oidc.client?.clientId ?? "";
    const { token, expiresIn } = await context.sign({ sub, audience, clientId, ...(scope ? { scope } : {}) });
    ctx.body = {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: "Bearer",
      expires_in: expiresIn,
      ...(scope ? { scope } : {}),
    };
  };
}

// --- internal ---

/** The token type this grant issues, and one of the two subject token types it accepts. */
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

const JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt";

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
