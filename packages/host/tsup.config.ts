import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    stdio: "src/stdio.ts",
    testing: "src/testing.ts",
    http: "src/http.ts",
    worker: "src/pipeline/worker-main.ts",
  },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
