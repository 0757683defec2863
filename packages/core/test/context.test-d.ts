import { expectTypeOf, test } from "vitest";
import type { SkillContext } from "../src/index.js";

test("ctx.auth names the caller and its scopes, and may be absent", () => {
  expectTypeOf<SkillContext["auth"]>().toEqualTypeOf<{ id: string; scopes: readonly string[] } | undefined>();
  expectTypeOf<keyof NonNullable<SkillContext["auth"]>>().toEqualTypeOf<"id" | "scopes">();
});

test("ctx.hasCredential says whether a credential is configured, without its value", () => {
  expectTypeOf<SkillContext["hasCredential"]>().toEqualTypeOf<(name: string) => boolean>();
});
