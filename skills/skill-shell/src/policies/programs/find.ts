import { deny } from "../options.js";
import type { PathArg, PolicyExtension, ProgramPolicy, Token } from "../policy.js";

const RUNS = "it runs a program of the caller's choosing";

/** find's primaries and what follows each: nothing, text, or a path. Anything not listed is refused. */
const PRIMARIES: Readonly<Record<string, "none" | "text" | "path" | { deny: string }>> = {
  "-exec": { deny: RUNS },
  "-execdir": { deny: RUNS },
  "-ok": { deny: RUNS },
  "-okdir": { deny: RUNS },
  "-delete": { deny: "it deletes every file it matches; use rm on named files" },
  "-fprint": { deny: "it writes a file of the caller's choosing" },
  "-fprint0": { deny: "it writes a file of the caller's choosing" },
  "-fprintf": { deny: "it writes a file of the caller's choosing" },
  "-fls": { deny: "it writes a file of the caller's choosing" },
  "-follow": { deny: "it follows symbolic links, which may lead out of the roots" },
  "-files0-from": { deny: "it reads starting points from a file, which cannot be checked against the roots" },
  ...Object.fromEntries(
    [
      "-name",
      "-iname",
      "-path",
      "-ipath",
      "-wholename",
      "-iwholename",
      "-regex",
      "-iregex",
      "-lname",
      "-ilname",
      "-type",
      "-xtype",
      "-user",
      "-group",
      "-perm",
      "-size",
      "-mtime",
      "-atime",
      "-ctime",
      "-mmin",
      "-amin",
      "-cmin",
      "-used",
      "-maxdepth",
      "-mindepth",
      "-inum",
      "-links",
      "-uid",
      "-gid",
      "-printf",
      "-fstype",
      "-regextype",
      "-context",
    ].map((p) => [p, "text" as const]),
  ),
  ...Object.fromEntries(["-newer", "-anewer", "-cnewer", "-samefile"].map((p) => [p, "path" as const])),
  ...Object.fromEntries(
    [
      "-print",
      "-print0",
      "-ls",
      "-prune",
      "-quit",
      "-true",
      "-false",
      "-empty",
      "-executable",
      "-readable",
      "-writable",
      "-nouser",
      "-nogroup",
      "-depth",
      "-d",
      "-daystart",
      "-ignore_readdir_race",
      "-noignore_readdir_race",
      "-mount",
      "-xdev",
      "-noleaf",
      "-warn",
      "-nowarn",
      "-not",
      "-a",
      "-and",
      "-o",
      "-or",
      "-help",
      "--help",
      "-version",
      "--version",
    ].map((p) => [p, "none" as const]),
  ),
};

/**
 * find's expression language has no options in the getopt sense: primaries are whole words, never abbreviated.
 * The policy reads the leading options (-H, -P; -L is refused), the starting points (confined to the roots) and
 * the expression, and refuses the primaries that run programs (-exec, -execdir, -ok, -okdir), delete (-delete),
 * write files (-fprint, -fprint0, -fprintf, -fls) or follow links (-follow), and any primary it does not know.
 */
export const FIND: Readonly<Record<string, ProgramPolicy>> = {
  find: {
    summary: "lists files inside the roots; -exec, -execdir, -ok, -okdir, -delete, -fprint*, -fls and -L are refused",
    check(args, extension) {
      const tokens: Token[] = [];
      const paths: PathArg[] = [];
      let i = 0;
      // Leading options.
      for (; i < args.length; i++) {
        const arg = args[i] as string;
        if (arg === "-H" || arg === "-P" || /^-O\d*$/.test(arg)) {
          tokens.push(option(i, arg));
          continue;
        }
        if (arg === "-L")
          throw deny(i, "find option -L is refused: it follows symbolic links, which may lead out of the roots");
        if (arg === "-D") {
          tokens.push(option(i, arg));
          i++;
          continue;
        }
        if (arg === "--") {
          i++;
        }
        break;
      }
      // Starting points: up to the first word that begins an expression.
      for (; i < args.length; i++) {
        const arg = args[i] as string;
        if (isExpressionStart(arg)) break;
        tokens.push({ type: "operand", index: i, value: arg });
        paths.push({ index: i, path: arg });
      }
      // The expression.
      for (; i < args.length; i++) {
        const arg = args[i] as string;
        if (["(", ")", "!", ","].includes(arg)) continue;
        checkExtension(arg, i, extension);
        let kind = PRIMARIES[arg];
        // -newerXY: X and Y among a, B, c, m, t; with Y = t the reference is a date, otherwise a file.
        if (kind === undefined && /^-newer[aBcm][aBcmt]$/.test(arg)) kind = arg.endsWith("t") ? "text" : "path";
        if (kind === undefined) {
          throw deny(
            i,
            arg.startsWith("-")
              ? `find primary ${arg} is not one this policy knows; it accepts tests such as -name, -type, -mtime and the actions -print, -printf, -ls`
              : `find expects a primary here, not ${JSON.stringify(arg)}; give starting points before the expression`,
          );
        }
        if (typeof kind === "object") throw deny(i, `find primary ${arg} is refused: ${kind.deny}`);
        tokens.push(option(i, arg));
        if (kind === "none") continue;
        i++;
        if (i >= args.length) break;
        if (kind === "path") paths.push({ index: i, path: args[i] as string });
      }
      return { args: [...args], paths, tokens };
    },
  },
};

// --- internal ---

function option(index: number, name: string): Token {
  return { type: "option", index, spelling: name, name, spec: undefined };
}

function isExpressionStart(arg: string): boolean {
  return (arg.startsWith("-") && arg.length > 1) || ["(", ")", "!", ","].includes(arg);
}

/** The manifest's own refusals apply to primaries, matched whole (find never abbreviates). */
function checkExtension(arg: string, index: number, extension: PolicyExtension): void {
  if (extension.options.some((spec) => spec.names.includes(arg))) {
    throw deny(index, `find primary ${arg} is refused by this server's policy for find`);
  }
}
