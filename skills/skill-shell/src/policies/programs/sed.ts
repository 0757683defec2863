import { deny } from "../options.js";
import type { ProgramPolicy } from "../policy.js";
import { gnuPolicy, optionalText, pathValue, refuse, text } from "../policy.js";

/**
 * sed's `e` command and `s///e` flag run commands, `w`/`W` and `s///w` write files, `r`/`R` read them. Rather
 * than parse scripts, the policy runs GNU sed with `--sandbox`, in which sed itself refuses every one of those
 * (a sed without `--sandbox` fails to start, which is safe). In-place editing stays allowed on files inside the
 * roots, but not with a backup suffix holding a `/` (which would put the backup in another folder) nor with
 * `--follow-symlinks` (which would edit a link's target, wherever it is).
 */
export const SED: Readonly<Record<string, ProgramPolicy>> = {
  sed: gnuPolicy({
    program: "sed",
    summary: "edits text; runs as `sed --sandbox`, so e, w and r commands are refused by sed itself",
    options: [
      refuse("it edits the target of a link, which may be outside the roots", "--follow-symlinks"),
      pathValue("-f|--file"),
      text("-e|--expression", "-l|--line-length"),
      optionalText("-i|--in-place"),
    ],
    operands: (operands, tokens) => {
      for (const t of tokens) {
        if (t.type === "option" && t.name === "--in-place" && t.value?.includes("/")) {
          throw deny(t.index, `sed in-place suffix ${JSON.stringify(t.value)} would write a backup in another folder`);
        }
      }
      const scripted = tokens.some((t) => t.type === "option" && ["--expression", "--file"].includes(t.name));
      return (scripted ? operands : operands.slice(1)).map((o) => ({ index: o.index, path: o.value }));
    },
    rewrite: (args) => ["--sandbox", ...args],
  }),
};
