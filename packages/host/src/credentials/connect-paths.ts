/** Where `serve --http` serves the connections page and its steps, beside the MCP endpoint. */
export const CONNECT_PATHS = {
  /** The page: each per-caller credential of the signed-in caller, with connect and disconnect. */
  page: "/connections",
  /** Opens a connect link (`?link=`): signs the browser in as the link's caller and shows its slot. */
  open: "/connections/open",
  /** Starts a connection (POST: slot, csrf): a token form, or a redirect to the authorization server. */
  connect: "/connections/connect",
  /** Saves a personal token (POST: slot, token, csrf). */
  token: "/connections/token",
  /** Forgets a connection (POST: slot, csrf). */
  disconnect: "/connections/disconnect",
  /** Where the authorization server sends the browser back (`?code&state&iss`). */
  callback: "/connections/callback",
} as const;
