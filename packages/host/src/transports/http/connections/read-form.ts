import { readAtMost } from "../guards/body.js";
import { messagePage } from "./connection-pages.js";

/** The largest form the connections page accepts (a personal token and two ids), in bytes. */
export const MAX_FORM_BYTES = 16_384;

/**
 * A request's urlencoded form, read within {@link MAX_FORM_BYTES}: a 415 page for another content type, a 413 page
 * for a larger body (read no further than that).
 *
 * @example
 * const form = await readForm(request);
 * if (form instanceof Response) return form;
 * form.get("slot");
 */
export async function readForm(request: Request): Promise<URLSearchParams | Response> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    return messagePage(415, "Not a form", "The page's forms send application/x-www-form-urlencoded only.");
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES) return tooLarge();
  const bytes = await readAtMost(request.body, MAX_FORM_BYTES);
  if (bytes === undefined) return tooLarge();
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

// --- internal ---

function tooLarge(): Response {
  return messagePage(413, "Too large", `The form is larger than ${MAX_FORM_BYTES} bytes.`);
}
