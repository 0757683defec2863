import { packageBuild } from "../../tsup.shared.ts";

export default packageBuild({
  index: "src/index.ts",
  confine: "src/confine/index.ts",
  "confine-testing": "src/confine/testing.ts",
  sandbox: "src/sandbox/index.ts",
});
