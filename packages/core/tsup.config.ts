import { packageBuild } from "../../tsup.shared.ts";

export default packageBuild({ index: "src/index.ts", sandbox: "src/sandbox/index.ts" });
