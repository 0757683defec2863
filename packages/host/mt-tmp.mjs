import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
for (const spec of process.argv.slice(2)) { if (spec.startsWith("req:")) require(spec.slice(4)); else await import(spec); }
const f = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
console.log((Number(f[11]) + Number(f[12])) * 10);
