import { DEFAULT_PROTECTED_NAMES } from "@skillport/core/confine";
import { z } from "zod";

const MiB = 1024 * 1024;

/** The hard ceiling on content one write carries, whatever an instance configures; the input schemas use it. */
export const MAX_WRITE_BYTES_LIMIT = 8 * MiB;

export const FilesConfig = z
  .object({
    roots: z
      .array(
        z
          .string()
          .min(1)
          .max(4096)
          .meta({
            format: "path",
            description: "A folder the tools may use; relative to the manifest's folder, or absolute, or under ~",
            examples: ["./workspace", "~/projects/site"],
          }),
      )
      .min(1)
      .max(20)
      .describe(
        "The folders this instance may touch. Relative paths in calls start at the first one; nothing outside them can be read or written, not even through symbolic links",
      ),
    maxReadBytes: z
      .number()
      .int()
      .min(1)
      .max(64 * MiB)
      .default(MiB)
      .describe("The most bytes read_file returns in one call; larger files are read in parts with offset"),
    maxWriteBytes: z
      .number()
      .int()
      .min(1)
      .max(MAX_WRITE_BYTES_LIMIT)
      .default(MiB)
      .describe("The most bytes of content write_file or append_file accepts in one call"),
    maxFileBytes: z
      .number()
      .int()
      .min(1)
      .max(1024 * MiB)
      .default(16 * MiB)
      .describe("append_file refuses to grow a file beyond this size"),
    protectedNames: z
      .array(
        z
          .string()
          .min(1)
          .max(255)
          .regex(/^[^/\\]+$/, "a protected name is one file or folder name, without / or \\")
          .meta({ examples: [".git"] }),
      )
      .max(100)
      .default([...DEFAULT_PROTECTED_NAMES])
      .describe(
        "File and folder names no write may touch (create, write, append, move into or out of, delete), anywhere in a path, compared case-insensitively. The default protects version-control settings that tools run as code; [] turns the protection off. Reads stay allowed",
      ),
  })
  .strict();

export type FilesConfig = z.output<typeof FilesConfig>;
