// The loader's output (LoadedManifest) agrees with the manifest's source: every field the schema gives a default is
// filled in, with the type the source says. The input types (Manifest, SkillEntry, …) are inferred from the source.
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { HttpSettingsSchema } from "../src/manifest/http-settings-schema.js";
import type {
  ConfirmationFallback,
  HttpSettings,
  LoadedHttpSettings,
  LoadedManifest,
  Manifest,
  SecretSource,
  Separator,
  SkillEntry,
} from "../src/manifest/manifest.js";
import type { ManifestSchema, StdioSettingsSchema } from "../src/manifest/manifest-schema.js";

type Filled = z.output<typeof ManifestSchema>;
type FilledHttp = z.output<typeof HttpSettingsSchema>;

describe("the manifest's types", () => {
  it("take what a person writes: defaulted fields optional, secrets in one of two forms", () => {
    expectTypeOf<{ skills: [] }>().toExtend<Manifest>();
    expectTypeOf<Manifest["separator"]>().toEqualTypeOf<Separator | undefined>();
    expectTypeOf<SkillEntry["isolation"]>().toEqualTypeOf<"in-process" | "worker" | "process" | undefined>();
    expectTypeOf<SecretSource>().toEqualTypeOf<{ env: string } | { file: string }>();
    expectTypeOf<ConfirmationFallback>().toEqualTypeOf<"refuse" | "operation-id">();
    expectTypeOf<HttpSettings["port"]>().toEqualTypeOf<number | undefined>();
  });

  it("give the loaded manifest every default the schema fills in, with the schema's types", () => {
    expectTypeOf<LoadedManifest["name"]>().toEqualTypeOf<Filled["name"]>();
    expectTypeOf<LoadedManifest["version"]>().toEqualTypeOf<Filled["version"]>();
    expectTypeOf<LoadedManifest["separator"]>().toEqualTypeOf<Filled["separator"]>();
    expectTypeOf<LoadedManifest["skills"]>().toEqualTypeOf<Manifest["skills"]>();
    expectTypeOf<LoadedManifest["audit"]["arguments"]>().toEqualTypeOf<NonNullable<Filled["audit"]>["arguments"]>();
    expectTypeOf<Omit<LoadedManifest["confirmation"], "secret">>().toEqualTypeOf<
      Omit<NonNullable<Filled["confirmation"]>, "secret">
    >();
    expectTypeOf<LoadedManifest["stdio"]>().toEqualTypeOf<z.output<typeof StdioSettingsSchema>>();
  });

  it("give the loaded http settings every default the schema fills in", () => {
    type Defaulted = "host" | "port" | "path" | "allowedOrigins" | "maxBodyBytes" | "shutdownGraceMs";
    expectTypeOf<Pick<LoadedHttpSettings, Defaulted>>().toEqualTypeOf<Pick<FilledHttp, Defaulted>>();
    expectTypeOf<LoadedHttpSettings["timeouts"]>().toEqualTypeOf<NonNullable<FilledHttp["timeouts"]>>();
    expectTypeOf<LoadedHttpSettings["rateLimit"]["requestsPerMinute"]>().toEqualTypeOf<
      NonNullable<FilledHttp["rateLimit"]>["requestsPerMinute"]
    >();
  });
});
