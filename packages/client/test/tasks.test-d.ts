// What a call answers, by its `task` option: a task handle only when the caller asked for one.
import type { CallToolOutcome, McpHandle, TaskCallOutcome } from "@skillport/client";
import { McpHub } from "@skillport/client";
import { expectTypeOf, test } from "vitest";

declare const handle: McpHandle;
const hub = new McpHub();

test("callTool answers a TaskCallOutcome with { task: 'handle' }, else a CallToolOutcome", () => {
  expectTypeOf(handle.callTool("t", {}, { task: "handle" })).resolves.toEqualTypeOf<TaskCallOutcome>();
  expectTypeOf(handle.callTool("t", {}, { task: "wait" })).resolves.toEqualTypeOf<CallToolOutcome>();
  expectTypeOf(handle.callTool("t")).resolves.toEqualTypeOf<CallToolOutcome>();
  expectTypeOf(hub.callTool("s.t", {}, { task: "handle" })).resolves.toEqualTypeOf<TaskCallOutcome>();
  expectTypeOf(hub.callTool("s.t", {}, { timeoutMs: 5 })).resolves.toEqualTypeOf<CallToolOutcome>();
});
