import path from "node:path";
import { describe, expect, it } from "vitest";
import { instanceConfig } from "../src/registry/instance-config.js";

const skill = {
  name: "s",
  configSchema: {
    type: "object",
    properties: {
      dir: { type: "string", format: "path" },
      dirs: { type: "array", items: { type: "string", format: "path" } },
      mode: { type: "string", enum: ["a", "b"], default: "a" },
    },
    required: ["dir"],
    additionalProperties: false,
  },
};

describe("instanceConfig, the host's one way from a written config to the config a skill receives", () => {
  it("fills defaults and resolves path fields against dir, listing them, without changing its input", () => {
    const written = { dir: "x", dirs: ["y", "/abs"] };
    expect(instanceConfig(skill, written, { dir: "/base" })).toEqual({
      config: { dir: "/base/x", dirs: ["/base/y", "/abs"], mode: "a" },
      paths: ["/base/x", "/base/y", "/abs"],
    });
    expect(written).toEqual({ dir: "x", dirs: ["y", "/abs"] });
    expect(instanceConfig(skill, { dir: "." }, { dir: "rel" }).config).toMatchObject({ dir: path.resolve("rel") });
  });

  it("names every field at fault under `where`", () => {
    expect(() => instanceConfig(skill, { mode: "c" }, { dir: "/", where: "skills[2].config" })).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        problems: [
          expect.stringMatching(/^skills\[2\]\.config\.dir: /),
          expect.stringMatching(/^skills\[2\]\.config\.mode: /),
        ],
      }),
    );
  });

  it("gives a skill without a config schema an empty config, and refuses one written for it", () => {
    const bare = { name: "bare", configSchema: undefined };
    expect(instanceConfig(bare, undefined, { dir: "/" })).toEqual({ config: {}, paths: [] });
    expect(instanceConfig(bare, {}, { dir: "/" }).config).toEqual({});
    expect(() => instanceConfig(bare, { a: 1 }, { dir: "/" })).toThrow(
      'config: skill "bare" takes no config; remove it',
    );
  });
});
