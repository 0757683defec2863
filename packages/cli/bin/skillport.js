#!/usr/bin/env node
// Kept out of dist so package managers can link the command before the first build.
import { main } from "../dist/cli.js";

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exitCode = 1;
  },
);
