import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { DataOf, ParamsOf, SkillContext, ToolDefinition } from "../src/index.js";
import { defineTool } from "../src/index.js";

const SearchInput = z.object({ keyword: z.string(), limit: z.number().int().default(5) });

describe("defineTool types", () => {
  it("types run's params from a zod input, with defaulted fields required", () => {
    defineTool({
      name: "search_notes",
      title: "Search notes",
      description: "Search notes by keyword.",
      input: SearchInput,
      risk: "read_only",
      run: (params, ctx) => {
        expectTypeOf(params).toEqualTypeOf<{ keyword: string; limit: number }>();
        expectTypeOf(params.limit).not.toEqualTypeOf<number | undefined>();
        expectTypeOf(ctx).toEqualTypeOf<SkillContext<unknown>>();
        return { count: params.limit };
      },
    });
  });

  it("types buildBrief's and examples' params like run's", () => {
    defineTool({
      name: "search_notes",
      title: "Search notes",
      description: "Search notes by keyword.",
      input: SearchInput,
      risk: "read_only",
      buildBrief: (params) => {
        expectTypeOf(params).toEqualTypeOf<{ keyword: string; limit: number }>();
        return `Search for ${params.keyword} (top ${params.limit})`;
      },
      examples: [{ keyword: "agent", limit: 3 }],
      run: () => null,
    });
    expectTypeOf<ParamsOf<typeof SearchInput>>().toEqualTypeOf<{ keyword: string; limit: number }>();
  });

  it("gives Record<string, unknown> params for a plain JSON Schema input", () => {
    defineTool({
      name: "echo",
      title: "Echo",
      description: "Echoes its arguments.",
      input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      risk: "read_only",
      buildBrief: (params) => {
        expectTypeOf(params).toEqualTypeOf<Record<string, unknown>>();
        return "echo";
      },
      run: (params) => {
        expectTypeOf(params).toEqualTypeOf<Record<string, unknown>>();
        return params;
      },
    });
  });

  it("types ctx.config from the Config type argument", () => {
    defineTool<typeof SearchInput, undefined, { vault: string }>({
      name: "search_notes",
      title: "Search notes",
      description: "Search notes by keyword.",
      input: SearchInput,
      risk: "read_only",
      run: (_params, ctx) => {
        expectTypeOf(ctx.config).toEqualTypeOf<{ vault: string }>();
        return null;
      },
    });
  });

  it("refuses a run whose params do not match the zod input", () => {
    defineTool({
      name: "search_notes",
      title: "Search notes",
      description: "Search notes by keyword.",
      input: SearchInput,
      risk: "read_only",
      // @ts-expect-error keyword is a string in the input, not a number
      run: (params: { keyword: number; limit: number }) => params.keyword,
    });
    defineTool({
      name: "search_notes",
      title: "Search notes",
      description: "Search notes by keyword.",
      input: SearchInput,
      risk: "read_only",
      // @ts-expect-error the input has no `folder` field
      run: (params: { keyword: string; limit: number; folder: string }) => params.folder,
    });
  });

  it("refuses a buildBrief whose params do not match the zod input", () => {
    defineTool({
      name: "search_notes",
      title: "Search notes",
      description: "Search notes by keyword.",
      input: SearchInput,
      risk: "read_only",
      // @ts-expect-error limit is a number in the input, not a string
      buildBrief: (params: { keyword: string; limit: string }) => params.limit,
      run: () => null,
    });
  });

  it("types the returned data from a zod output and refuses data of another shape", () => {
    const Output = z.object({ count: z.number() });
    expectTypeOf<DataOf<typeof Output>>().toEqualTypeOf<{ count: number }>();
    expectTypeOf<DataOf<undefined>>().toEqualTypeOf<unknown>();
    defineTool({
      name: "count_notes",
      title: "Count notes",
      description: "Counts notes.",
      input: z.object({}),
      output: Output,
      risk: "read_only",
      // @ts-expect-error count must be a number
      run: () => ({ count: "three" }),
    });
  });

  it("returns a ToolDefinition the host can read", () => {
    const tool = defineTool({
      name: "search_notes",
      title: "Search notes",
      description: "Search notes by keyword.",
      input: SearchInput,
      risk: "read_only",
      run: () => null,
    });
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<unknown>>();
    expectTypeOf(tool.run).parameter(0).toEqualTypeOf<Record<string, unknown>>();
  });
});
