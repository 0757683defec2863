import { deny } from "../options.js";
import type { ProgramPolicy } from "../policy.js";
import { flag, gnuPolicy, optionalText, pathValue, refuse, text } from "../policy.js";

const RUNS =
  "runs the program that follows with arguments no policy can check; put that program on the allowlist and call it directly";

// xargs and env exist to run another program. That program would escape the allowlist and its policy, so
// both may run only without one: env prints the environment, xargs echoes what it reads. Both stop reading
// options at their first operand, so they are parsed without permutation.

export const EXEC_WRAPPERS: Readonly<Record<string, ProgramPolicy>> = {
  xargs: gnuPolicy({
    program: "xargs",
    summary: "echoes its input; a command to run is refused",
    permute: false,
    options: [
      pathValue("-a|--arg-file"),
      text("-d|--delimiter", "-I", "-L|--max-lines", "-n|--max-args", "-P|--max-procs", "-s|--max-chars"),
      text("--process-slot-var", "-E"),
      optionalText("-e|--eof", "-i|--replace", "-l"),
      flag("-0|--null", "-r|--no-run-if-empty", "-t|--verbose", "-x|--exit", "--show-limits", "-p|--interactive"),
    ],
    operands: (operands) => {
      const first = operands[0];
      if (first !== undefined) throw deny(first.index, `xargs ${RUNS}`);
      return [];
    },
  }),
  env: gnuPolicy({
    program: "env",
    summary: "prints the environment; a command to run, -S and -C are refused",
    permute: false,
    options: [
      refuse("it splits one argument into a command line", "-S|--split-string"),
      refuse("env may only print the environment, so it needs no folder", "-C|--chdir"),
      text("-u|--unset"),
      flag("-i|--ignore-environment", "-0|--null", "-v|--debug"),
      optionalText("--block-signal", "--default-signal", "--ignore-signal"),
    ],
    operands: (operands) => {
      const command = operands.find((o) => !/^[^=]+=/.test(o.value));
      if (command !== undefined) throw deny(command.index, `env ${RUNS}`);
      return [];
    },
  }),
};
