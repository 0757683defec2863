// Loaded with `node --import` into every server bench/compare.mjs pairs: the time from each chunk the server reads
// on stdin to its next write to stdout (the server's own part of a call, from its JavaScript seeing the request to
// handing the answer to the pipe), written in microseconds, one per line, to the file its URL's `out` names
// (`--import file:///…/serve-times.mjs?out=/tmp/times.txt`) when the process exits. The same few lines in every
// server, so what it adds is the same for each; a sequential client sends one request a chunk. What it cannot see:
// the wake-ups on either side, which the client's p50 includes.
import { writeFileSync } from "node:fs";

const file = new URL(import.meta.url).searchParams.get("out");
if (file !== null) {
  const times = [];
  let readAt = -1;
  const emit = process.stdin.emit;
  process.stdin.emit = function (event, ...args) {
    if (event === "data" && readAt < 0) readAt = performance.now();
    return emit.call(this, event, ...args);
  };
  const write = process.stdout.write;
  process.stdout.write = function (...args) {
    if (readAt >= 0) {
      times.push(Math.round((performance.now() - readAt) * 1000));
      readAt = -1;
    }
    return write.apply(this, args);
  };
  process.on("exit", () => writeFileSync(file, times.join("\n")));
}
