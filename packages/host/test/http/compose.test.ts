import { describe, expect, it } from "vitest";
import type { Guard } from "../../src/transports/http/guard.js";
import { checkAll } from "../../src/transports/http/guard.js";
import { contextOf, post, rpc } from "./web-helpers.js";

describe("checkAll (guards top to bottom; the first Response answers)", () => {
  const trace: string[] = [];
  const pass =
    (name: string): Guard =>
    () => {
      trace.push(name);
      return undefined;
    };
  const answer =
    (name: string, status: number): Guard =>
    async () => {
      trace.push(name);
      return new Response(null, { status });
    };
  const endpoint = async () => {
    trace.push("endpoint");
    return new Response("served");
  };
  const compose =
    (guards: Guard[]) =>
    async (...args: Parameters<Guard>): Promise<Response> =>
      (await checkAll(guards)(...args)) ?? endpoint();

  it("runs every guard in order, then the endpoint, when all pass", async () => {
    trace.length = 0;
    const response = await compose([pass("a"), pass("b"), pass("c")])(post(rpc("ping")), contextOf());
    expect(await response.text()).toBe("served");
    expect(trace).toEqual(["a", "b", "c", "endpoint"]);
  });

  it("stops at the first guard that answers: the guards after it and the endpoint never run", async () => {
    trace.length = 0;
    const response = await compose([pass("a"), answer("b", 403), answer("c", 401), pass("d")])(
      post(rpc("ping")),
      contextOf(),
    );
    expect(response.status).toBe(403);
    expect(trace).toEqual(["a", "b"]);
  });

  it("hands what a guard learns to the ones after it through the context", async () => {
    const learn: Guard = (_request, context) => {
      context.caller = { id: "token:ci", scopes: [] };
      return undefined;
    };
    const read: Guard = (_request, context) => new Response(context.caller?.id);
    const response = await compose([learn, read])(post(rpc("ping")), contextOf());
    expect(await response.text()).toBe("token:ci");
  });
});
