import { packageBuild } from "../../tsup.shared.ts";

export default packageBuild({
  index: "src/index.ts",
  stdio: "src/stdio.ts",
  testing: "src/testing.ts",
  http: "src/http.ts",
  surface: "src/surface.ts",
  worker: "src/entries/isolated/worker-main.ts",
  process: "src/entries/isolated/process-main.ts",
});
